//! `declaration-tokens [--local URL] [FILE]`: the real token counts of what the model is given
//! per server. Reads the rows of `coyote mcp servers --json --declarations` (FILE or stdin) and
//! prints one JSON line per server — `server`, `exposure` (its label), `functions`, and the
//! counts (`bytes`, `estimated`, `o200k`, `cl100k`, `local`) — then one for the shared
//! paragraph coyote adds to the system prompt once per request when any server is declared
//! through meta-functions (`server: null`). `--local URL` also counts with a llama.cpp server's
//! tokenizer (`http://127.0.0.1:PORT`).

use std::io::{Read, Write};
use std::process::ExitCode;

use coyote_devtools::tokens::Tokenizers;
use serde_json::{Value, json};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "declaration-tokens: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut local = None;
    let mut file = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--local" => local = Some(args.next().ok_or("--local needs a URL")?),
            "-h" | "--help" => {
                let _ = writeln!(
                    std::io::stdout(),
                    "usage: coyote mcp servers --json --declarations | declaration-tokens [--local http://127.0.0.1:PORT] [FILE]"
                );
                return Ok(());
            }
            _ if file.is_none() && !arg.starts_with('-') => file = Some(arg),
            _ => return Err(format!("unexpected argument `{arg}` (see --help)")),
        }
    }
    let mut input = String::new();
    match &file {
        Some(path) => {
            input = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        }
        None => {
            std::io::stdin()
                .read_to_string(&mut input)
                .map_err(|e| format!("stdin: {e}"))?;
        }
    }
    let rows: Vec<Value> = serde_json::from_str(&input)
        .map_err(|e| format!("not the rows of `coyote mcp servers --json`: {e}"))?;
    let tokenizers = Tokenizers::new(local).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    for row in &rows {
        let Some(declarations) = row["declarations"].as_array() else {
            return Err(format!(
                "row `{}` has no `declarations`: run `coyote mcp servers --json --declarations`",
                row["name"].as_str().unwrap_or("?")
            ));
        };
        let counts = tokenizers
            .count_declarations(declarations)
            .map_err(|e| e.to_string())?;
        let mut line = json!({
            "server": row["name"],
            "exposure": row["exposure"]["label"],
            "functions": declarations.len(),
        });
        merge(&mut line, counts.to_json());
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    let guide = tokenizers
        .count_text(coyote_mcp::meta::META_GUIDE)
        .map_err(|e| e.to_string())?;
    let mut line =
        json!({"server": null, "what": "meta-function guide (system prompt, once per request)"});
    merge(&mut line, guide.to_json());
    writeln!(out, "{line}").map_err(|e| e.to_string())?;
    Ok(())
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}
