//! A mistyped subcommand is a usage error, not a paid question to the model: when the first
//! word of the chat text is within Damerau-Levenshtein distance 1 of a subcommand of at most 4
//! letters (2 for longer ones) and it is the only word, or the second word is a valid word of
//! that subcommand (`coyote mpc servers`, `coyote modles`), coyote exits 2 suggesting the
//! command. Text after `--` (`coyote -- mpc servers`) is always sent as it is.

use clap::CommandFactory;

use crate::args::Cli;

/// The usage error for `text` when it looks like a mistyped command; `after_dashes`: the text
/// followed a `--`.
pub fn check(text: &[String], after_dashes: bool) -> Option<String> {
    if after_dashes {
        return None;
    }
    let (first, rest) = text.split_first()?;
    let command = Cli::command();
    // Several commands may be close (`hepl` → help, repl): the one the second word fits.
    let sub = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && close(first, s.get_name()))
        .find(|s| match rest.first() {
            None => true,
            Some(word) => valid_words(s).iter().any(|w| w == word),
        })?;
    let suggestion = std::iter::once(sub.get_name().to_owned())
        .chain(rest.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    Some(format!(
        "\"{first}\" is not a command; did you mean `coyote {suggestion}`? Nothing was sent to \
         the model. To ask the model this text, put it after --: `coyote -- {}`",
        text.join(" ")
    ))
}

/// Whether `word` is a likely typo of the subcommand `name`.
fn close(word: &str, name: &str) -> bool {
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    let distance = strsim::damerau_levenshtein(&word.to_lowercase(), name);
    (1..=limit).contains(&distance)
}

/// The words that may follow the subcommand: its own subcommands and the possible values of
/// its positional arguments (and for `help`, the topics).
fn valid_words(sub: &clap::Command) -> Vec<String> {
    let mut words: Vec<String> = sub
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for arg in sub.get_positionals() {
        words.extend(
            arg.get_possible_values()
                .iter()
                .map(|v| v.get_name().to_owned()),
        );
    }
    if sub.get_name() == "help" {
        words.extend(crate::help_cmd::TOPICS.iter().map(|t| t.name.to_owned()));
        words.extend(
            Cli::command()
                .get_subcommands()
                .map(|s| s.get_name().to_owned()),
        );
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn typos_of_commands_are_caught() {
        let message = check(&words("mpc servers"), false).unwrap();
        assert!(
            message.contains("did you mean `coyote mcp servers`?"),
            "{message}"
        );
        assert!(message.contains("`coyote -- mpc servers`"), "{message}");
        assert!(
            check(&words("modles"), false)
                .unwrap()
                .contains("`coyote models`")
        );
        assert!(check(&words("compleitons bash"), false).is_some());
        assert!(check(&words("rpel"), false).is_some());
        assert!(check(&words("hepl chat"), false).is_some());
    }

    #[test]
    fn questions_that_merely_start_like_a_command_are_sent() {
        // The second word is no word of the command.
        assert!(check(&words("mop the floor"), false).is_none());
        assert!(check(&words("can you help"), false).is_none());
        // One edit from `mcp`, and alone: caught.
        assert!(check(&words("map"), false).is_some());
        // Two edits from a command of at most 4 letters: sent.
        assert!(check(&words("hello"), false).is_none());
        assert!(check(&words("hi"), false).is_none());
        assert!(check(&words("what is mcp"), false).is_none());
        // After `--` the text is the user's.
        assert!(check(&words("mpc servers"), true).is_none());
        assert!(check(&[], false).is_none());
    }
}
