//! The `.help` text, generated from the command table ([`REPL_COMMANDS`]), and its fitting to
//! the terminal's width.

use super::commands::{CommandSpec, REPL_COMMANDS, Validity};

/// The `.help` text, generated from the table.
pub fn help_text() -> String {
    let mut out = String::from("Commands:\n");
    let width = REPL_COMMANDS
        .iter()
        .map(|c| synopsis(c).chars().count())
        .max()
        .unwrap_or(0);
    for c in REPL_COMMANDS {
        let syn = synopsis(c);
        let pad = width - syn.chars().count() + 2;
        out.push_str(&format!("  {syn}{}{}", " ".repeat(pad), c.description));
        if c.validity == Validity::NeedsServers {
            out.push_str(" (needs a running MCP server)");
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "  {:width$}  Run a shell command (never sent to the model)\n",
        "!COMMAND"
    ));
    out.push_str(
        "\nAnything else is sent to the model. End a line with \\ (or press Alt-Enter) to \
         continue on the next line.\n\
         Ctrl-C clears the line or stops a running answer; Ctrl-D on an empty line exits.\n\
         `@SERVER:URI` in a message sends that resource's text with it (read before sending).\n\
         Tab completes commands, `.prompt` servers, prompt names, argument keys and values,\n\
         `@` mentions, and role, macro, session and server names.\n\
         \n\
         The model has no built-in file or shell tools: it reaches the world only through the\n\
         configured MCP servers (add a filesystem MCP server to let it read files). Files that\n\
         servers return as binaries are saved and shown to you as paths.\n\
         Before a tool that may change things (marked destructive, or without annotations: the\n\
         MCP default; per server, any tool: \"approve\" in mcp.json) runs, you are asked:\n\
         yes / no / always (this tool, this session). A server that wants the model to answer\n\
         (sampling) or sends you to a web page asks first, too.\n",
    );
    out
}

/// `text` (the `.help` text) fitted to `width` columns: long lines wrap at spaces, and a
/// command's description continues under itself — or, when its column is past half the width,
/// starts on the next line.
pub fn fit_help(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let mut out = String::new();
    for line in text.lines() {
        if line.width() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let (head, body, indent) = match line[lead..].find("  ") {
            Some(gap) if line.starts_with("  ") => {
                let split = lead + gap;
                let column = split + line[split..].len() - line[split..].trim_start().len();
                if column <= width / 2 {
                    (None, line, column)
                } else {
                    (Some(&line[..split]), line[split..].trim_start(), 6)
                }
            }
            _ => (None, line, lead),
        };
        if let Some(head) = head {
            out.push_str(head);
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        let mut used = if head.is_some() { indent } else { 0 };
        for (i, word) in body.split(' ').enumerate() {
            let gap = usize::from(i > 0 && used > indent);
            if used + gap + word.width() > width && used > indent {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                used = indent;
            } else if i > 0 {
                out.push(' ');
                used += 1;
            }
            out.push_str(word);
            used += word.width();
        }
        out.push('\n');
    }
    out
}

fn synopsis(c: &CommandSpec) -> String {
    if c.usage.is_empty() {
        c.word.to_owned()
    } else {
        format!("{} {}", c.word, c.usage)
    }
}
