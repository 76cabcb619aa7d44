//! One line of a `coyote mcp batch`: blank and `#` comment lines are skipped; a line opening
//! with `{` is `{"id": ANY, "argv": [WORD…]}`; any other line is split into words like a shell
//! does (`shlex`: quotes, backslashes, `#` comments), a leading `coyote mcp` dropped. The words
//! are then parsed exactly as `coyote mcp WORD…` would be on the command line.

use clap::Parser;
use serde::Deserialize;
use serde_json::Value;

use crate::args::{Cli, Command, McpCommand};

/// A command line of the batch: its id and what parsing it gave.
#[derive(Debug)]
pub struct Entry {
    /// The JSON line's `id`, else the line number.
    pub id: Value,
    pub parsed: Result<McpCommand, Rejected>,
    /// The words after `coyote mcp` (what a session daemon is sent).
    pub words: Vec<String>,
}

impl Entry {
    /// A line that cannot be read as a command (exit 2 with `message`).
    pub fn rejected(number: usize, message: String) -> Entry {
        Entry {
            id: Value::from(number),
            parsed: Err(Rejected::Usage(message)),
            words: Vec::new(),
        }
    }
}

/// A line that is not a command to run.
#[derive(Debug)]
pub enum Rejected {
    /// What clap says about the words: its help (exit 0, stdout) or its usage error (exit 2).
    Clap(Box<clap::Error>),
    /// A line that cannot be read (exit 2, `coyote: …` on stderr).
    Usage(String),
}

impl Rejected {
    /// Prints what the command line would have printed and returns its exit code.
    pub fn report(self) -> u8 {
        match self {
            Rejected::Clap(e) => {
                let text = e.render().to_string();
                if e.use_stderr() {
                    crate::capture::write_stderr(text.as_bytes());
                } else {
                    // Help and version text on stdout, like the command line (a closed
                    // stdout is the batch's business, not this line's).
                    let _ = crate::capture::write_stdout(text.as_bytes());
                }
                u8::try_from(e.exit_code()).unwrap_or(crate::exit::CODE_USAGE)
            }
            Rejected::Usage(message) => crate::exit::CliError::usage(message).report(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    #[serde(default)]
    id: Option<Value>,
    argv: Vec<String>,
}

/// Reads the line numbered `number` (from 1); `None` for a blank or comment line.
pub fn entry(number: usize, line: &str) -> Option<Entry> {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return None;
    }
    let line_id = Value::from(number);
    if text.starts_with('{') {
        return Some(match serde_json::from_str::<JsonLine>(text) {
            Ok(json) => Entry {
                id: json.id.unwrap_or(line_id),
                parsed: parse(json.argv.clone()),
                words: json.argv,
            },
            Err(e) => Entry {
                id: line_id,
                words: Vec::new(),
                parsed: Err(Rejected::Usage(format!(
                    "line {number}: not a batch JSON line ({e}); write {{\"id\": …, \"argv\": [\"tools\", \"SERVER\"]}}"
                ))),
            },
        });
    }
    let (parsed, words) = match shlex::split(text) {
        None => (
            Err(Rejected::Usage(format!(
                "line {number}: a quote is not closed or a backslash ends the line"
            ))),
            Vec::new(),
        ),
        Some(words) if words.is_empty() => return None,
        Some(mut words) => {
            if words.first().is_some_and(|w| w == "coyote") {
                words.remove(0);
                if words.first().is_some_and(|w| w == "mcp") {
                    words.remove(0);
                }
            }
            (parse(words.clone()), words)
        }
    };
    Some(Entry {
        id: line_id,
        parsed,
        words,
    })
}

/// `coyote mcp WORDS…` parsed by the command line's own grammar. Global options belong to the
/// batch: a line that sets one is refused, as is a batch inside the batch.
pub fn parse(words: Vec<String>) -> Result<McpCommand, Rejected> {
    let argv = ["coyote".to_owned(), "mcp".to_owned()]
        .into_iter()
        .chain(words);
    let cli = Cli::try_parse_from(argv).map_err(|e| Rejected::Clap(Box::new(e)))?;
    if format!("{:?}", cli.global) != baseline_globals() {
        return Err(Rejected::Usage(
            "global options (--config-dir, --trust-project, --log-level, --mcp-log-level, \
             --allow-sampling, …) hold for the whole batch: put them before `mcp batch`"
                .into(),
        ));
    }
    match cli.command {
        Some(Command::Mcp(McpCommand::Batch { .. } | McpCommand::Session { .. })) => {
            Err(Rejected::Usage(
                "`coyote mcp batch` and `coyote mcp session` cannot run inside a batch".into(),
            ))
        }
        Some(Command::Mcp(cmd)) => Ok(cmd),
        _ => Err(Rejected::Usage("not a `coyote mcp` command".into())),
    }
}

/// The global options of a line that sets none (the environment's, e.g. `$COYOTE_CONFIG_DIR`).
fn baseline_globals() -> String {
    match Cli::try_parse_from(["coyote", "mcp", "servers"]) {
        Ok(cli) => format!("{:?}", cli.global),
        Err(_) => String::new(),
    }
}

/// Makes `cmd` print its JSON document, as its own `--json` would (commands without one are
/// left as they are).
pub fn force_json(cmd: &mut McpCommand) {
    match cmd {
        McpCommand::Servers { names: true, .. } => {}
        McpCommand::Servers { out, .. }
        | McpCommand::Tools { out, .. }
        | McpCommand::Resources { out, .. }
        | McpCommand::Templates { out, .. }
        | McpCommand::Prompts { out, .. }
        | McpCommand::Skills { out, .. }
        | McpCommand::Search { out, .. }
        | McpCommand::Retrieve { out, .. }
        | McpCommand::Describe { out, .. }
        | McpCommand::Call { out, .. }
        | McpCommand::Tasks { out, .. }
        | McpCommand::Read { out, .. }
        | McpCommand::Prompt { out, .. }
        | McpCommand::Complete { out, .. }
        | McpCommand::Cache { out, .. } => {
            out.json = true;
            out.wide = false;
        }
        McpCommand::Watch { json, .. }
        | McpCommand::Meta { json, .. }
        | McpCommand::Add { json, .. }
        | McpCommand::Import { json, .. }
        | McpCommand::Remove { json, .. } => *json = true,
        McpCommand::Login { .. }
        | McpCommand::Logout { .. }
        | McpCommand::Batch { .. }
        | McpCommand::Session { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_of(line: &str) -> Option<Result<McpCommand, String>> {
        entry(1, line).map(|e| e.parsed.map_err(|r| format!("{r:?}")))
    }

    #[test]
    fn blank_and_comment_lines_are_skipped() {
        assert!(entry(1, "").is_none());
        assert!(entry(1, "   \t").is_none());
        assert!(entry(1, "# tools everything").is_none());
        assert!(entry(1, "  # indented comment").is_none());
    }

    #[test]
    fn text_lines_split_like_a_shell_with_or_without_the_prefix() {
        for line in [
            "call srv echo 'message=two words' # trailing comment",
            "coyote mcp call srv echo \"message=two words\"",
            "call srv echo message=two\\ words",
        ] {
            let Some(Ok(McpCommand::Call {
                server, tool, args, ..
            })) = words_of(line)
            else {
                panic!("{line}: {:?}", words_of(line));
            };
            assert_eq!((server.as_str(), tool.as_str()), ("srv", "echo"), "{line}");
            assert_eq!(args, vec!["message=two words".to_owned()], "{line}");
        }
        assert!(matches!(
            words_of("call srv 'unclosed"),
            Some(Err(e)) if e.contains("quote is not closed")
        ));
    }

    #[test]
    fn json_lines_carry_their_id_and_argv() {
        let e = entry(7, r#"{"id": {"k": 1}, "argv": ["tools", "srv"]}"#).unwrap();
        assert_eq!(e.id, serde_json::json!({"k": 1}));
        assert!(matches!(e.parsed, Ok(McpCommand::Tools { .. })));
        let e = entry(7, r#"{"argv": ["tools"]}"#).unwrap();
        assert_eq!(e.id, serde_json::json!(7));
        let e = entry(3, r#"{"args": ["tools"]}"#).unwrap();
        assert!(matches!(e.parsed, Err(Rejected::Usage(m)) if m.contains("line 3")));
    }

    #[test]
    fn global_options_and_nested_batches_are_refused() {
        assert!(matches!(
            words_of("tools --config-dir /elsewhere"),
            Some(Err(e)) if e.contains("global options")
        ));
        assert!(matches!(
            words_of("batch --json"),
            Some(Err(e)) if e.contains("inside a batch")
        ));
        assert!(matches!(words_of("frobnicate"), Some(Err(e)) if e.contains("Clap")));
    }
}
