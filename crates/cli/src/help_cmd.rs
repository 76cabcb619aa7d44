//! `coyote help [TOPIC…]`: a page of the manual, or the help of a command (`coyote help mcp
//! call`, as `--help` shows it; a single word is looked up as a topic first) — one topic per page of `docs/` (its file stem) plus aliases — with
//! the pages embedded at build time, so the manual is there after `cargo install` too. Pages
//! are shown through the Markdown renderer. Error texts point here (`see `coyote help chat``)
//! rather than at repository paths.

use clap::CommandFactory;

use crate::args::{Cli, GlobalArgs};
use crate::exit::{CliError, CliResult};
use crate::markdown::{RenderOptions, StreamRenderer, ThemeChoice};

/// A page of the manual.
#[derive(Debug)]
pub struct Topic {
    /// The docs page's file stem.
    pub name: &'static str,
    /// Other names that find it.
    pub aliases: &'static [&'static str],
    /// One line for the topic list.
    pub summary: &'static str,
    /// The page (Markdown).
    pub page: &'static str,
}

macro_rules! topic {
    ($name:literal, [$($alias:literal),*], $summary:literal) => {
        Topic {
            name: $name,
            aliases: &[$($alias),*],
            summary: $summary,
            page: include_str!(concat!("../../../docs/", $name, ".md")),
        }
    };
}

/// Every page of `docs/` (a test checks that none is missing).
pub const TOPICS: &[Topic] = &[
    topic!(
        "configuration",
        ["config", "mcp.json", "config.yaml", "servers"],
        "mcp.json and config.yaml: servers, clients, models, defaults"
    ),
    topic!(
        "mcp-cli",
        ["mcp-commands", "inspector"],
        "coyote mcp …: every MCP operation from the shell"
    ),
    topic!(
        "chat",
        ["one-shot", "attachments", "reasoning"],
        "one-shot chat: models, piped input, files, output, exit codes"
    ),
    topic!(
        "repl",
        ["interactive", "dot-commands"],
        "the interactive REPL and its .commands"
    ),
    topic!(
        "agents",
        ["roles", "macros", "sessions", "agent"],
        "roles, macros, sessions and agents"
    ),
    topic!(
        "meta-functions",
        ["meta", "functions", "exposure"],
        "what the model sees: mcp_search_/describe_/invoke_/read_/prompt_"
    ),
    topic!(
        "resources-and-prompts",
        ["resources", "prompts"],
        "resources, templates and prompts"
    ),
    topic!(
        "remote-servers",
        ["remote", "oauth", "login", "sign-in"],
        "remote HTTP servers: OAuth sign-in, token storage, headless use"
    ),
    topic!("coolify-mcp", ["coolify"], "the Coolify MCP server"),
    topic!(
        "local-llm",
        ["local", "llama"],
        "running the end-to-end check with a local model"
    ),
    topic!(
        "install",
        ["installing", "dist"],
        "installing: cargo install, the dist profile, scripts/dist"
    ),
    topic!(
        "benchmarks",
        ["bench", "performance"],
        "measured figures and how to reproduce them"
    ),
    topic!(
        "architecture",
        ["arch", "contributing"],
        "crates and modules, for contributors"
    ),
];

/// The topic called `name` (or one of its aliases).
pub fn find(name: &str) -> Option<&'static Topic> {
    let name = name.to_ascii_lowercase();
    TOPICS
        .iter()
        .find(|t| t.name == name || t.aliases.contains(&name.as_str()))
}

/// Runs `coyote help WORDS…`.
pub fn run(global: &GlobalArgs, words: &[String]) -> CliResult {
    let mut command = Cli::command();
    if words.is_empty() {
        let mut text = command.render_long_help().to_string();
        text.push_str(&topic_list());
        return crate::output::print(&text);
    }
    // One word: the page first (`coyote help repl` is the REPL's page), then the command.
    let topic = match words {
        [word] => find(word),
        _ => None,
    };
    let Some(topic) = topic else {
        return match subcommand(&mut command, words) {
            Some(sub) => crate::output::print(&sub.render_long_help().to_string()),
            None => Err(unknown(&words.join(" "))),
        };
    };
    let opts = RenderOptions::for_stdout(global.raw, global.theme.unwrap_or(ThemeChoice::Auto));
    crate::output::print_rendered(&StreamRenderer::render_all(opts, topic.page))
}

/// The subcommand a path of words names (`mcp call`), if every word is one.
fn subcommand<'a>(
    command: &'a mut clap::Command,
    words: &[String],
) -> Option<&'a mut clap::Command> {
    let (first, rest) = words.split_first()?;
    let sub = command.find_subcommand_mut(first)?;
    if rest.is_empty() {
        return Some(sub);
    }
    subcommand(sub, rest)
}

fn topic_list() -> String {
    let mut text = String::from("\nTopics (coyote help TOPIC):\n");
    let width = TOPICS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for topic in TOPICS {
        text.push_str(&format!("  {:width$}  {}\n", topic.name, topic.summary));
    }
    text
}

fn unknown(word: &str) -> CliError {
    let names: Vec<&str> = TOPICS.iter().map(|t| t.name).collect();
    let near = TOPICS
        .iter()
        .flat_map(|t| std::iter::once(t.name).chain(t.aliases.iter().copied()))
        .find(|n| strsim::damerau_levenshtein(n, word) <= 2);
    let hint = near
        .map(|n| format!(" Did you mean `{n}`?"))
        .unwrap_or_default();
    CliError::usage(format!(
        "no command or help topic \"{word}\".{hint} Topics: {}; commands: see `coyote --help`",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The docs directory of this repository.
    fn docs_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
    }

    #[test]
    fn every_docs_page_has_a_topic() {
        let mut stems: Vec<String> = std::fs::read_dir(docs_dir())
            .unwrap()
            .filter_map(|e| {
                let path = e.unwrap().path();
                (path.extension()? == "md")
                    .then(|| path.file_stem()?.to_str().map(str::to_owned))?
            })
            .collect();
        stems.sort();
        let mut names: Vec<String> = TOPICS.iter().map(|t| t.name.to_owned()).collect();
        names.sort();
        assert_eq!(
            names, stems,
            "a docs page without a help topic, or a topic without a page"
        );
        // Names and aliases are unambiguous; aliases never shadow a command.
        let commands: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for topic in TOPICS {
            assert!(seen.insert(topic.name), "{} names two topics", topic.name);
            for alias in topic.aliases {
                assert!(seen.insert(alias), "{alias} names two topics");
                assert!(
                    !commands.contains(&(*alias).to_owned()),
                    "{alias} is a command"
                );
            }
        }
    }

    #[test]
    fn every_topic_named_in_the_sources_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut named = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (i, _) in text.match_indices("coyote help ") {
                        let word: String = text[i + 12..]
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '.')
                            .collect();
                        if !word.is_empty()
                            && word
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '.')
                        {
                            named.push((path.display().to_string(), word));
                        }
                    }
                }
            }
        }
        assert!(
            named.iter().any(|(_, w)| w == "chat"),
            "the scan found no `coyote help chat`: {named:?}"
        );
        let mut command = Cli::command();
        for (file, word) in named {
            assert!(
                find(&word).is_some()
                    || subcommand(&mut command, std::slice::from_ref(&word)).is_some(),
                "{file} names `coyote help {word}`, which is no topic"
            );
        }
    }

    #[test]
    fn topics_and_commands_are_found_and_unknown_words_suggest() {
        assert_eq!(find("config").map(|t| t.name), Some("configuration"));
        assert_eq!(find("MCP-CLI").map(|t| t.name), Some("mcp-cli"));
        assert!(find("nope").is_none());
        let mut command = Cli::command();
        let words = ["mcp".to_owned(), "call".to_owned()];
        assert_eq!(
            subcommand(&mut command, &words).map(|c| c.get_name().to_owned()),
            Some("call".into())
        );
        let err = unknown("confguration");
        assert!(
            err.message.contains("Did you mean `configuration`?"),
            "{}",
            err.message
        );
    }
}
