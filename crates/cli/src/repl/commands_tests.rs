use super::*;
use crate::repl::help::{fit_help, help_text};

#[test]
fn every_command_has_exactly_one_row() {
    let names = [
        CommandName::Help,
        CommandName::Model,
        CommandName::Info,
        CommandName::List,
        CommandName::Mcp,
        CommandName::Prompt,
        CommandName::Clear,
        CommandName::Exit,
        CommandName::Role,
        CommandName::Macro,
        CommandName::Session,
        CommandName::Compact,
        CommandName::Agent,
        CommandName::File,
        CommandName::Reasoning,
        CommandName::Roots,
        CommandName::Watch,
        CommandName::Unwatch,
        CommandName::Skills,
    ];
    for name in names {
        assert_eq!(
            REPL_COMMANDS.iter().filter(|c| c.name == name).count(),
            1,
            "{name:?}"
        );
        assert_eq!(CommandName::lookup(name.spec().word), Some(name));
    }
    assert_eq!(REPL_COMMANDS.len(), names.len());
}

#[test]
fn watch_and_unwatch_parse() {
    let add = WatchCommand::Add {
        server: "everything".into(),
        uri: "demo://x".into(),
    };
    assert_eq!(
        parse_command(".watch everything demo://x"),
        Ok(Command::Watch(add))
    );
    assert_eq!(
        parse_command(".watch"),
        Ok(Command::Watch(WatchCommand::List))
    );
    assert_eq!(
        parse_command(".unwatch"),
        Ok(Command::Watch(WatchCommand::Remove(None)))
    );
    assert_eq!(
        parse_command(".unwatch everything demo://x"),
        Ok(Command::Watch(WatchCommand::Remove(Some((
            "everything".into(),
            "demo://x".into()
        )))))
    );
    assert!(parse_command(".watch everything").is_err());
    assert!(parse_command(".unwatch a b c").is_err());
}

#[test]
fn file_and_reasoning_parse() {
    assert_eq!(
        parse_command(".file my notes.txt"),
        Ok(Command::File("my notes.txt".into()))
    );
    assert!(parse_command(".file").is_err());
    assert_eq!(parse_command(".reasoning"), Ok(Command::Reasoning));
    assert!(parse_command(".reasoning more").is_err());
}

#[test]
fn commands_parse_with_their_arguments() {
    let cases = [
        (".help", Command::Help),
        (".info", Command::Info),
        (".clear", Command::Clear),
        (".exit", Command::Exit),
        (".model", Command::Model(None)),
        (
            ".model local:qwen",
            Command::Model(Some("local:qwen".into())),
        ),
        (".skills", Command::Skills(None)),
        (".skills docs", Command::Skills(Some("docs".into()))),
        (".list tools", Command::List(ListTarget::Tools)),
        (".list prompts", Command::List(ListTarget::Prompts)),
        (".list resources", Command::List(ListTarget::Resources)),
        (".list mcp-servers", Command::List(ListTarget::McpServers)),
        (".mcp status", Command::McpStatus),
        (".mcp restart fs", Command::McpRestart("fs".into())),
        (".mcp login remote", Command::McpLogin("remote".into())),
        (
            ".mcp enable fs",
            Command::McpToggle(coyote_config::Toggle::Enable("fs".into())),
        ),
        (
            ".mcp disable git",
            Command::McpToggle(coyote_config::Toggle::Disable("git".into())),
        ),
        (
            ".mcp log everything debug",
            Command::McpLog {
                server: "everything".into(),
                level: "debug".into(),
            },
        ),
        (".roots list", Command::Roots(RootsCommand::List)),
        (
            ".roots add ~/src/my project",
            Command::Roots(RootsCommand::Add("~/src/my project".into())),
        ),
        (
            ".roots remove /tmp",
            Command::Roots(RootsCommand::Remove("/tmp".into())),
        ),
        (".list roles", Command::List(ListTarget::Roles)),
        (".list macros", Command::List(ListTarget::Macros)),
        (".role", Command::Role(None)),
        (".role coder", Command::Role(Some("coder".into()))),
        (
            ".macro review src/lib.rs \"be brief\"",
            Command::Macro {
                name: "review".into(),
                args: "src/lib.rs \"be brief\"".into(),
            },
        ),
        (
            ".macro hello",
            Command::Macro {
                name: "hello".into(),
                args: String::new(),
            },
        ),
        (".session new", Command::Session(SessionCommand::New)),
        (".session list", Command::Session(SessionCommand::List)),
        (
            ".session save work",
            Command::Session(SessionCommand::Save("work".into())),
        ),
        (
            ".session load work",
            Command::Session(SessionCommand::Load("work".into())),
        ),
        (".compact", Command::Compact),
        (
            ".prompt fs review path=\"a b\"",
            Command::Prompt("fs review path=\"a b\"".into()),
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(parse_command(line), Ok(expected), "{line}");
    }
}

#[test]
fn bad_commands_say_how_to_write_them() {
    assert_eq!(
        parse_command(".nope").unwrap_err().to_string(),
        "unknown command .nope; type .help for the list of commands"
    );
    assert_eq!(
        parse_command(".list everything").unwrap_err().to_string(),
        "usage: .list tools|prompts|resources|mcp-servers|roles|macros|agents"
    );
    assert_eq!(
        parse_command(".mcp restart").unwrap_err().to_string(),
        "usage: .mcp status | restart|enable|disable|login NAME | log NAME LEVEL"
    );
    assert_eq!(
        parse_command(".prompt").unwrap_err().to_string(),
        "usage: .prompt SERVER NAME [key=value …]"
    );
    for bad in [
        ".roots",
        ".roots add",
        ".roots list all",
        ".mcp log everything",
    ] {
        assert!(
            parse_command(bad)
                .unwrap_err()
                .to_string()
                .starts_with("usage: "),
            "{bad}"
        );
    }
    assert_eq!(
        parse_command(".session save").unwrap_err().to_string(),
        "usage: .session new | save NAME | load NAME | list"
    );
    assert_eq!(
        parse_command(".macro").unwrap_err().to_string(),
        "usage: .macro NAME [ARG …]"
    );
    assert_eq!(
        parse_command(".exit now").unwrap_err().to_string(),
        "usage: .exit "
    );
}

#[test]
fn help_lists_every_command_and_says_there_are_no_builtin_tools() {
    let help = help_text();
    for c in REPL_COMMANDS {
        assert!(help.contains(c.word), "{}", c.word);
        assert!(help.contains(c.description), "{}", c.description);
    }
    assert!(help.contains("!COMMAND"));
    assert!(help.contains("The model has no built-in file or shell tools"));
}

/// docs/repl.md shows the `.help` output verbatim; it must stay what the REPL prints.
#[test]
fn the_docs_show_the_current_help() {
    let docs = include_str!("../../../../docs/repl.md");
    let start = docs
        .find("```text\nCommands:")
        .expect("docs/repl.md has the .help block")
        + "```text\n".len();
    let end = start + docs[start..].find("```").expect("the block ends");
    assert_eq!(
        &docs[start..end],
        help_text(),
        "update the .help block in docs/repl.md"
    );
}

#[test]
fn help_fits_80_columns_without_splitting_words() {
    use unicode_width::UnicodeWidthStr;
    let text = help_text();
    let fitted = fit_help(&text, 80);
    for line in fitted.lines() {
        assert!(line.width() <= 80, "{} columns: {line:?}", line.width());
    }
    let words = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(words(&fitted), words(&text));
    // A description that wraps continues indented, never at column 0.
    assert!(
        fitted
            .lines()
            .all(|l| l.is_empty() || l.starts_with(' ') || !l.starts_with('.'))
    );
    // Wide enough: unchanged.
    assert_eq!(fit_help(&text, 1000), text);
}
