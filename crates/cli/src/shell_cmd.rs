//! Shell integration: `coyote completions SHELL` (clap_complete's static scripts; for bash, zsh
//! and fish a small addition completes MCP server names by calling the hidden
//! `coyote mcp servers --names`, which reads mcp.json and starts nothing — with the
//! `--config-dir` of the command line being completed, so the names are that config's) and
//! `coyote man` (clap_mangen: the page of `coyote` to stdout, or one page per command into
//! `--dir`, then a word on whether `man` looks there and how to make it).

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::exit::{CliError, CliResult};

/// The `coyote mcp` subcommands whose first argument is a server name.
pub const SERVER_SUBCOMMANDS: &[&str] = &[
    "tools",
    "resources",
    "templates",
    "prompts",
    "search",
    "describe",
    "call",
    "read",
    "prompt",
    "complete",
    "watch",
    "retrieve",
    "remove",
    "login",
    "logout",
];

/// Prints the completion script for `shell`.
pub fn completions(shell: Shell) -> CliResult {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "coyote", &mut script);
    let mut script = String::from_utf8(script)
        .map_err(|e| CliError::failure(format!("the completion script is not UTF-8: {e}")))?;
    script.push_str(&server_names_addition(shell));
    crate::output::print_rendered(&script)
}

/// Completion of server names after `coyote mcp SUBCOMMAND`, per shell.
fn server_names_addition(shell: Shell) -> String {
    let subcommands = SERVER_SUBCOMMANDS.join(" ");
    match shell {
        Shell::Bash => format!(
            r#"
# MCP server names for `coyote mcp {{{subs}}} <TAB>` (from `coyote mcp servers --names`).
_coyote_with_servers() {{
    local i mcp=0 sub="" positional=0 skip=0
    local -a config=()
    for (( i=1; i<COMP_CWORD; i++ )); do
        if [[ $skip -eq 1 ]]; then skip=0; continue; fi
        case "${{COMP_WORDS[i]}}" in
            --config-dir) config=(--config-dir "${{COMP_WORDS[i+1]}}"); skip=1 ;;
            --config-dir=*) config=("${{COMP_WORDS[i]}}") ;;
            -*) ;;
            mcp) if [[ $mcp -eq 0 && -z $sub ]]; then mcp=$i; else (( positional++ )); fi ;;
            *) if [[ $mcp -gt 0 && -z $sub ]]; then sub="${{COMP_WORDS[i]}}"; elif [[ -n $sub ]]; then (( positional++ )); fi ;;
        esac
    done
    if [[ $mcp -gt 0 && $positional -eq 0 && " {subcommands} " == *" $sub "* && ${{COMP_WORDS[COMP_CWORD]}} != -* ]]; then
        COMPREPLY=( $(compgen -W "$(coyote "${{config[@]}}" mcp servers --names 2>/dev/null)" -- "${{COMP_WORDS[COMP_CWORD]}}") )
        return 0
    fi
    _coyote "$@"
}}
complete -F _coyote_with_servers -o bashdefault -o default coyote
"#,
            subs = SERVER_SUBCOMMANDS.join(",")
        ),
        Shell::Zsh => format!(
            r#"
# MCP server names for `coyote mcp {{{subs}}} <TAB>` (from `coyote mcp servers --names`).
_coyote_servers() {{
    local -a servers
    servers=(${{(f)"$(coyote "$@" mcp servers --names 2>/dev/null)"}})
    _describe 'MCP server' servers
}}
_coyote_with_servers() {{
    local i mcp=0
    local -a config
    for (( i=2; i<CURRENT; i++ )); do
        case ${{words[i]}} in
            --config-dir) config=(--config-dir "${{words[i+1]}}"); (( i++ )) ;;
            --config-dir=*) config=("${{words[i]}}") ;;
            -*) ;;
            *) mcp=$i; break ;;
        esac
    done
    if [[ $mcp -gt 0 && ${{words[mcp]}} == mcp && " {subcommands} " == *" ${{words[mcp+1]}} "* && $CURRENT -eq $(( mcp + 2 )) ]]; then
        _coyote_servers "${{config[@]}}"
    else
        _coyote "$@"
    fi
}}
compdef _coyote_with_servers coyote
"#,
            subs = SERVER_SUBCOMMANDS.join(",")
        ),
        Shell::Fish => format!(
            r#"
# MCP server names for `coyote mcp {{{subs}}} <TAB>` (from `coyote mcp servers --names`).
function __coyote_config_args
    set -l words (commandline -opc)
    for i in (seq 2 (count $words))
        switch $words[$i]
            case --config-dir
                set -l next (math $i + 1)
                test $next -le (count $words); and echo --config-dir; and echo $words[$next]
            case '--config-dir=*'
                echo $words[$i]
        end
    end
end
function __coyote_wants_server
    set -l words (commandline -opc)
    set -l rest
    set -l skip 0
    for w in $words[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case --config-dir
                set skip 1
            case '-*'
            case '*'
                set -a rest $w
        end
    end
    test (count $rest) -eq 2; and test "$rest[1]" = mcp; and contains -- "$rest[2]" {subcommands}
end
complete -c coyote -n __coyote_wants_server -f -a '(coyote (__coyote_config_args) mcp servers --names 2>/dev/null)'
"#,
            subs = SERVER_SUBCOMMANDS.join(",")
        ),
        _ => String::new(),
    }
}

/// Prints the man page of `coyote`, or with `dir` writes one page per command into it.
pub fn man(dir: Option<&Path>) -> CliResult {
    let command = Cli::command();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(command)
            .render(&mut page)
            .map_err(|e| CliError::failure(format!("cannot render the man page: {e}")))?;
        return crate::output::print_rendered(&ascii_roff(&page));
    };
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::usage(format!(
            "cannot create {}: {e}; choose a writable --dir",
            dir.display()
        ))
    })?;
    let written = write_pages(command, "coyote", dir)?;
    crate::term::note_line(&format!("wrote {written} man pages into {}", dir.display()));
    man_path_hint(dir);
    Ok(())
}

/// Says whether `man` finds pages written into `dir` (a `man1` directory): `manpath` lists
/// where it looks (man-db adds `BIN/../share/man` for each `BIN` on `$PATH`, so
/// `~/.cargo/share/man` is found when `~/.cargo/bin` is on `$PATH`); if the root is not
/// there, how to add it.
fn man_path_hint(dir: &Path) {
    let root = std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_owned())
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let Ok(out) = std::process::Command::new("manpath")
        .arg("-q")
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return;
    };
    let listed = String::from_utf8_lossy(&out.stdout);
    let found = listed
        .trim()
        .split(':')
        .any(|p| std::fs::canonicalize(p).is_ok_and(|p| p == root));
    if found {
        crate::term::note_line("`man coyote` finds them now");
    } else {
        crate::term::note_line(&format!(
            "`man` does not look in {root} yet: add `export MANPATH=\"{root}:\"` to your \
             shell's profile (the trailing colon keeps the system's pages), or write the pages \
             into the share/man/man1 directory beside a bin directory on your PATH (for \
             `cargo install`: ~/.cargo/share/man/man1)",
            root = root.display()
        ));
    }
}

/// Writes `<name>.1` for `command` and every visible subcommand below it; returns the count.
fn write_pages(command: clap::Command, name: &str, dir: &Path) -> CliResult<usize> {
    // `coyote-mcp-call` as the page's name, `coyote mcp call` in its synopsis.
    let command = command
        .display_name(name.to_owned())
        .bin_name(name.replace('-', " "));
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(|e| CliError::failure(format!("cannot render the man page of {name}: {e}")))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, ascii_roff(&page))
        .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
    let mut written = 1;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let sub_name = format!("{name}-{}", sub.get_name());
        written += write_pages(sub.clone(), &sub_name, dir)?;
    }
    Ok(written)
}

/// The page with every non-ASCII character as a groff escape (`—` → `\[u2014]`), so that
/// groff reads it without a preprocessor (`groff -man -Tutf8 -ww -z` is silent).
fn ascii_roff(page: &[u8]) -> String {
    let mut out = String::with_capacity(page.len());
    for c in String::from_utf8_lossy(page).chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}
