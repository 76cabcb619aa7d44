//! Attachments: files given with `-f/--file PATH` (one-shot) or `.file PATH` (REPL). A text
//! file (UTF-8, no NUL byte) of at most [`MAX_TEXT_BYTES`] is inlined into the message with its
//! path; an image (PNG, JPEG, GIF or WebP, recognised by its first bytes) of at most
//! [`MAX_IMAGE_BYTES`] is sent as an image part — to models that take images only; anything
//! else is refused with the reason. `-f -` reads stdin as one attachment. Files are read with
//! the cap (a bigger file is refused without being read whole).

use std::io::Read;
use std::path::Path;

use base64::Engine;
use coyote_protocol::ImagePart;

use crate::exit::{CliError, CliResult};

/// Largest text file inlined.
pub const MAX_TEXT_BYTES: u64 = 1024 * 1024;
/// Largest image sent.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// The attachments of one message.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Attachments {
    /// `<file path="…">` blocks, in the order given.
    pub texts: Vec<String>,
    /// Images, in the order given.
    pub images: Vec<ImagePart>,
    /// The paths of the images (for messages).
    pub image_paths: Vec<String>,
}

impl Attachments {
    /// Nothing attached.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty() && self.images.is_empty()
    }

    /// Adds `path` (`-` = `stdin`, read by the caller and passed as `stdin`).
    pub fn add(&mut self, path: &str, stdin: Option<&mut dyn Read>) -> CliResult {
        let bytes = match stdin {
            Some(reader) if path == "-" => read_capped(reader, MAX_IMAGE_BYTES, "stdin")?,
            _ => read_file(Path::new(path))?,
        };
        let shown = if path == "-" { "stdin" } else { path };
        if let Some(media_type) = image_type(&bytes) {
            self.images.push(ImagePart {
                media_type: media_type.to_owned(),
                data_base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
            });
            self.image_paths.push(shown.to_owned());
            return Ok(());
        }
        if bytes.len() as u64 > MAX_TEXT_BYTES {
            return Err(CliError::usage(format!(
                "{shown} is {} — text attachments are limited to 1 MiB each; attach a part of it \
                 (e.g. `head -c 1000000 {shown} > part.txt`)",
                size(bytes.len() as u64)
            )));
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => text,
            _ => {
                return Err(CliError::usage(format!(
                    "{shown} is neither UTF-8 text nor a PNG, JPEG, GIF or WebP image; attach \
                     text files or images"
                )));
            }
        };
        self.texts.push(format!(
            "<file path=\"{shown}\">\n{}\n</file>",
            text.trim_end_matches('\n')
        ));
        Ok(())
    }

    /// Refuses images for a model that does not take them, naming the model and the fix.
    pub fn check_model(&self, model: &str, supports_images: bool) -> CliResult {
        if self.images.is_empty() || supports_images {
            return Ok(());
        }
        Err(CliError::usage(format!(
            "the model {model} does not take images, so {} cannot be sent; choose a model that \
             does (-m), or set `supports_images: true` on its entry in config.yaml if it does",
            self.image_paths.join(", ")
        )))
    }

    /// The message text: `text`, then each attached text file.
    pub fn compose(&self, text: &str) -> String {
        let mut parts: Vec<&str> = Vec::new();
        if !text.trim().is_empty() {
            parts.push(text);
        }
        parts.extend(self.texts.iter().map(String::as_str));
        parts.join("\n\n")
    }
}

/// Reads a regular file with the image cap; a bigger file is refused before it is read.
fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| CliError::usage(format!("cannot attach {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(CliError::usage(format!(
            "cannot attach {shown}: it is not a regular file"
        )));
    }
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(too_big(&shown, meta.len()));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::usage(format!("cannot attach {shown}: {e}")))?;
    read_capped(file, MAX_IMAGE_BYTES, &shown)
}

fn read_capped(reader: impl Read, cap: u64, shown: &str) -> CliResult<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::usage(format!("cannot read {shown}: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(too_big(shown, bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_big(shown: &str, len: u64) -> CliError {
    CliError::usage(format!(
        "{shown} is {}{} — attachments are limited to 20 MiB for images and 1 MiB for text",
        if len > MAX_IMAGE_BYTES { "over " } else { "" },
        size(len.min(MAX_IMAGE_BYTES + 1))
    ))
}

fn size(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// The media type of an image, from its first bytes.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_images_are_told_apart_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "line one\n").unwrap();
        let png = dir.path().join("pixel.png");
        std::fs::write(&png, coyote_test_support::PNG_BYTES).unwrap();
        let mut a = Attachments::default();
        a.add(text.to_str().unwrap(), None).unwrap();
        a.add(png.to_str().unwrap(), None).unwrap();
        assert_eq!(
            a.compose("summarise"),
            format!(
                "summarise\n\n<file path=\"{}\">\nline one\n</file>",
                text.display()
            )
        );
        assert_eq!(a.images[0].media_type, "image/png");
        assert!(
            a.check_model("local:tiny", false)
                .unwrap_err()
                .message
                .contains("does not take images")
        );
        assert!(a.check_model("openai:gpt", true).is_ok());

        let big_text = dir.path().join("big.txt");
        std::fs::write(&big_text, "x".repeat(MAX_TEXT_BYTES as usize + 1)).unwrap();
        let err = a.add(big_text.to_str().unwrap(), None).unwrap_err();
        assert!(err.message.contains("limited to 1 MiB"), "{}", err.message);
        let binary = dir.path().join("blob.bin");
        std::fs::write(&binary, [0u8, 1, 2, 3]).unwrap();
        let err = a.add(binary.to_str().unwrap(), None).unwrap_err();
        assert!(
            err.message.contains("neither UTF-8 text nor"),
            "{}",
            err.message
        );
        let mut stdin: &[u8] = b"from a pipe";
        a.add("-", Some(&mut stdin)).unwrap();
        assert!(
            a.texts[1].starts_with("<file path=\"stdin\">\nfrom a pipe"),
            "{:?}",
            a.texts
        );
    }
}
