//! The line editor: reedline with a history file (mode 0600), Tab completion through
//! [`ReplCompleter`], multi-line input (a line ending in `\`, or Alt-Enter, continues on the
//! next line; a bracketed paste is inserted whole), an empty completion that shows nothing
//! ([`QuietMenu`]), and shell-like keys: Ctrl-C clears the line, Ctrl-D on an empty line exits.

use std::borrow::Cow;
use std::fs::{OpenOptions, Permissions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use reedline::{
    ColumnarMenu, DefaultHinter, Emacs, FileBackedHistory, KeyCode, KeyModifiers, MenuBuilder,
    Prompt, PromptEditMode, PromptHistorySearch, PromptHistorySearchStatus, Reedline,
    ReedlineEvent, ReedlineMenu, Signal, ValidationResult, Validator, default_emacs_keybindings,
};

use super::completer::ReplCompleter;
use super::quiet_menu::QuietMenu;

/// Lines kept in the history file.
pub const HISTORY_CAPACITY: usize = 2000;
const MENU_NAME: &str = "completion_menu";

/// Why the editor could not start.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error(
        "cannot prepare the history file {path}: {source}; check the state directory's permissions"
    )]
    History {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Creates the history file (and its directory) private to the user: directory 0700 when we
/// create it, file 0600 always (also when it already existed with wider permissions).
pub fn prepare_history_file(path: &Path) -> Result<(), EditorError> {
    let wrap = |source| EditorError::History {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.exists()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(wrap)?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(wrap)?;
    std::fs::set_permissions(path, Permissions::from_mode(0o600)).map_err(wrap)?;
    Ok(())
}

use std::os::unix::fs::DirBuilderExt;

/// Builds the editor.
pub fn build(history_file: &Path, completer: ReplCompleter) -> Result<Reedline, EditorError> {
    prepare_history_file(history_file)?;
    let history =
        FileBackedHistory::with_file(HISTORY_CAPACITY, history_file.to_owned()).map_err(|e| {
            EditorError::History {
                path: history_file.to_owned(),
                source: std::io::Error::other(e.to_string()),
            }
        })?;
    let mut keys = default_emacs_keybindings();
    keys.add_binding(
        KeyModifiers::NONE,
        KeyCode::Tab,
        ReedlineEvent::UntilFound(vec![
            ReedlineEvent::Menu(MENU_NAME.to_owned()),
            ReedlineEvent::MenuNext,
        ]),
    );
    keys.add_binding(
        KeyModifiers::ALT,
        KeyCode::Enter,
        ReedlineEvent::Edit(vec![reedline::EditCommand::InsertNewline]),
    );
    // The marker replaces the prompt indicator while the menu is open; keep the prompt stable.
    let menu = ColumnarMenu::default()
        .with_name(MENU_NAME)
        .with_marker("> ");
    Ok(Reedline::create()
        .with_history(Box::new(history))
        .with_completer(Box::new(completer))
        .with_menu(ReedlineMenu::EngineCompleter(Box::new(QuietMenu::new(
            menu,
        ))))
        .with_edit_mode(Box::new(Emacs::new(keys)))
        .with_validator(Box::new(ContinuationValidator))
        .with_hinter(Box::new(DefaultHinter::default()))
        // Prompt, hints and the menu in colour only where colour is allowed (NO_COLOR, …).
        .with_ansi_colors(crate::term::caps().color_stdout)
        // A single candidate is inserted at once (like a shell); several open the menu.
        .with_quick_completions(true)
        .with_partial_completions(true)
        // A paste arrives as one event, inserted whole (a multi-line paste is one message,
        // sent with Enter). Unbracketed, a paste of more than 10 keys makes reedline batch
        // input until 100 ms pass without a key, so a Tab right after it waited ~100 ms.
        .use_bracketed_paste(true))
}

/// A line ending with `\` continues on the next one.
struct ContinuationValidator;

impl Validator for ContinuationValidator {
    fn validate(&self, line: &str) -> ValidationResult {
        if line.ends_with('\\') && !line.ends_with("\\\\") {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Complete
        }
    }
}

/// The submitted text with each `\`+newline continuation turned into a plain newline.
pub fn join_continuations(text: &str) -> String {
    text.replace("\\\r\n", "\n").replace("\\\n", "\n")
}

/// What the editor returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// Ctrl-C at the prompt: the line was cleared.
    Interrupted,
    /// Ctrl-D on an empty line.
    Exit,
}

impl From<Signal> for Input {
    fn from(signal: Signal) -> Self {
        match signal {
            Signal::Success(text) => Input::Line(join_continuations(&text)),
            Signal::CtrlC => Input::Interrupted,
            Signal::CtrlD => Input::Exit,
            // Other signals (e.g. an external break) behave like Ctrl-C: nothing is lost.
            _ => Input::Interrupted,
        }
    }
}

/// `coyote> ` (and `… ` for continuation lines).
#[derive(Debug, Clone, Default)]
pub struct ReplPrompt;

impl Prompt for ReplPrompt {
    fn render_prompt_left(&self) -> Cow<'_, str> {
        Cow::Borrowed("coyote")
    }

    fn render_prompt_right(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn render_prompt_indicator(&self, _mode: PromptEditMode) -> Cow<'_, str> {
        Cow::Borrowed("> ")
    }

    fn render_prompt_multiline_indicator(&self) -> Cow<'_, str> {
        Cow::Borrowed("… ")
    }

    fn render_prompt_history_search_indicator(&self, search: PromptHistorySearch) -> Cow<'_, str> {
        let prefix = match search.status {
            PromptHistorySearchStatus::Passing => "",
            PromptHistorySearchStatus::Failing => "failing ",
        };
        Cow::Owned(format!("({prefix}reverse-search: {}) ", search.term))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_join_with_newlines() {
        assert_eq!(join_continuations("one \\\ntwo"), "one \ntwo");
        assert_eq!(join_continuations("a\nb"), "a\nb");
        assert!(matches!(
            ContinuationValidator.validate("more \\"),
            ValidationResult::Incomplete
        ));
        assert!(matches!(
            ContinuationValidator.validate("a literal \\\\"),
            ValidationResult::Complete
        ));
        assert!(matches!(
            ContinuationValidator.validate("done"),
            ValidationResult::Complete
        ));
    }

    #[test]
    fn the_history_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/history.txt");
        prepare_history_file(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // An existing file with wider permissions is tightened.
        std::fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
        prepare_history_file(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
