//! Why a skill's file was refused: what a fetched file failed against the skill's listing
//! entry (size, digest, frontmatter) or why the file could not be checked at all. Carried by
//! [`super::McpError::SkillRefused`]; content that fails here is never used.

/// What a skill file failed. Wording says what was found; the enclosing error says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillRefusal {
    /// The file is not the size the listing gives.
    #[error("it is {actual} bytes, the listing says {expected}")]
    Size {
        /// Bytes the listing gives.
        expected: u64,
        /// Bytes received.
        actual: u64,
    },
    /// The file's sha256 is not the listing's digest.
    #[error("its digest is {actual}, the listing says {expected}")]
    Digest {
        /// The listing's `sha256:…`.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// The listing's digest is not `sha256:` and 64 lowercase hex digits.
    #[error("the listing's digest {digest:?} is not sha256:<64 lowercase hex digits>")]
    MalformedDigest {
        /// The digest as listed.
        digest: String,
    },
    /// `SKILL.md` has no `---`-delimited YAML frontmatter, or it does not parse to a mapping.
    #[error("its frontmatter is missing or not a YAML mapping ({problem})")]
    Frontmatter {
        /// What is wrong.
        problem: String,
    },
    /// A frontmatter field of `SKILL.md` differs from the listing's.
    #[error("its frontmatter field `{field}` is {file}, the listing says {listed}")]
    FrontmatterMismatch {
        /// The field.
        field: String,
        /// The file's value (JSON).
        file: String,
        /// The listing's value (JSON).
        listed: String,
    },
    /// The answer held no content for the URI, or content of the wrong kind.
    #[error("the server sent {what}")]
    Content {
        /// What came instead of one text or blob item.
        what: String,
    },
    /// The URI is not a file the skill's listing names.
    #[error("the skill's listing does not name this file")]
    NotListed,
}
