//! The one-shot message: the TEXT arguments and/or piped stdin. With both, the argument text
//! comes first and the piped input follows inside `<stdin>` … `</stdin>`, so the model can tell
//! the instruction from the material (`git diff | coyote "review this"`).

use std::io::Read;

use crate::exit::{CliError, CliResult};

/// Largest piped input accepted; more would not fit any model's context anyway.
pub const MAX_STDIN_BYTES: u64 = 8 * 1024 * 1024;

/// Reads all of `reader` (bounded by [`MAX_STDIN_BYTES`]) as UTF-8 text.
pub fn read_piped(reader: impl Read) -> CliResult<String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("cannot read stdin: {e}")))?;
    if bytes.len() as u64 > MAX_STDIN_BYTES {
        return Err(CliError::usage(format!(
            "the piped input is larger than {} MiB; pipe less (e.g. one file, or `head -c`)",
            MAX_STDIN_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        CliError::usage(
            "the piped input is not UTF-8 text; pipe text, or convert it first (e.g. `iconv`)",
        )
    })
}

/// The message from the arguments and the piped text; a usage error when both are empty.
pub fn compose(args: &[String], piped: Option<&str>) -> CliResult<String> {
    let text = args.join(" ");
    let text = text.trim();
    let piped = piped
        .map(|p| p.trim_end_matches(['\n', '\r']))
        .filter(|p| !p.trim().is_empty());
    match (text.is_empty(), piped) {
        (false, None) => Ok(text.to_owned()),
        (true, Some(piped)) => Ok(piped.to_owned()),
        (false, Some(piped)) => Ok(format!("{text}\n\n<stdin>\n{piped}\n</stdin>")),
        (true, None) => Err(CliError::usage(
            "nothing to ask: pass the message as arguments (`coyote \"what is MCP?\"`) or pipe it \
             (`echo hi | coyote`); `coyote` alone on a terminal starts the REPL",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn forms() {
        assert_eq!(
            compose(&args(&["what", "is", "MCP?"]), None).unwrap(),
            "what is MCP?"
        );
        assert_eq!(compose(&[], Some("piped text\n")).unwrap(), "piped text");
        assert_eq!(
            compose(&args(&["review this"]), Some("diff --git a b\n+x\n")).unwrap(),
            "review this\n\n<stdin>\ndiff --git a b\n+x\n</stdin>"
        );
        assert_eq!(compose(&args(&["hi"]), Some("  \n")).unwrap(), "hi");
        let err = compose(&[], Some("")).unwrap_err();
        assert!(err.message.starts_with("nothing to ask"), "{}", err.message);
    }

    #[test]
    fn piped_input_is_bounded_and_utf8() {
        assert_eq!(read_piped("héllo".as_bytes()).unwrap(), "héllo");
        assert!(
            read_piped(&[0xffu8, 0xfe][..])
                .unwrap_err()
                .message
                .contains("not UTF-8")
        );
        let big = std::io::repeat(b'x').take(MAX_STDIN_BYTES + 10);
        assert!(
            read_piped(big)
                .unwrap_err()
                .message
                .contains("larger than 8 MiB")
        );
    }
}
