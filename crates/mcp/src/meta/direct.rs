//! Names of directly exposed tools: a tool of server `s` named `t` is declared to the
//! model as `s__t`, sanitised to the providers' function-name charset `[A-Za-z0-9_-]` and at
//! most [`MAX_FUNCTION_NAME_BYTES`] bytes. When two tools of the declaration set would get the
//! same name (`a.b` and `a_b` both sanitise to `a_b`; server `x` tool `y__z` and server `x__y`
//! tool `z` are both `x__y__z`), when a name would shadow a meta-function, or when it is too
//! long, it gets a `_` plus a short hash of the real `(server, tool)` pair instead — stable,
//! because it depends on that pair only, never on list order.
//!
//! Invariant: [`DirectNames`] is built by the same code that generates the names and is the
//! only way back from a name to `(server, tool)`; [`super::FunctionTarget::parse`] consults it
//! before the meta-function prefixes. Nothing else parses a direct name.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

/// Longest function name the strictest provider accepts (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_FUNCTION_NAME_BYTES: usize = 64;
/// Between the server and the tool name.
pub const DIRECT_SEPARATOR: &str = "__";
/// Hex digits of the disambiguating hash (32 bits); [`LONG_HASH_HEX_DIGITS`] if that collides.
pub const HASH_HEX_DIGITS: usize = 8;
/// Hex digits used when an 8-digit suffixed name still collides with another name.
pub const LONG_HASH_HEX_DIGITS: usize = 16;

/// A tool of a server, as the model reaches it directly.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DirectTool {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
}

impl DirectTool {
    /// The tool `tool` of `server`.
    pub fn new(server: impl Into<String>, tool: impl Into<String>) -> Self {
        DirectTool {
            server: server.into(),
            tool: tool.into(),
        }
    }

    /// `<server>__<tool>` sanitised, before any collision or length handling.
    fn base_name(&self) -> String {
        sanitize(&format!("{}{DIRECT_SEPARATOR}{}", self.server, self.tool))
    }

    /// The base name cut to fit, plus `_` and `digits` hex digits of the pair's hash.
    fn hashed_name(&self, digits: usize) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.server.as_bytes());
        hasher.update([0u8]);
        hasher.update(self.tool.as_bytes());
        let hash = hex::encode(hasher.finalize());
        let mut base = self.base_name();
        // ASCII only after sanitising, so any byte index is a char boundary.
        base.truncate(MAX_FUNCTION_NAME_BYTES - 1 - digits);
        format!("{base}_{}", &hash[..digits])
    }
}

/// Replaces every character outside `[A-Za-z0-9_-]` with `_` (one per character).
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The direct names of one declaration set, both ways.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectNames {
    by_name: BTreeMap<String, DirectTool>,
    by_tool: BTreeMap<DirectTool, String>,
}

impl DirectNames {
    /// Names every tool of `tools` (duplicates are named once), avoiding `reserved` (the
    /// meta-function and other function names declared beside them).
    pub fn build(tools: &[DirectTool], reserved: &BTreeSet<String>) -> DirectNames {
        let unique: BTreeSet<&DirectTool> = tools.iter().collect();
        let mut base_count: BTreeMap<String, usize> = BTreeMap::new();
        for tool in &unique {
            *base_count.entry(tool.base_name()).or_default() += 1;
        }
        // Pass 1: a plain name where it is unique, fits and shadows nothing; else 8 hex digits.
        let first: Vec<(&DirectTool, String, bool)> = unique
            .iter()
            .map(|tool| {
                let base = tool.base_name();
                let plain = base.len() <= MAX_FUNCTION_NAME_BYTES
                    && base_count[&base] == 1
                    && !reserved.contains(&base);
                if plain {
                    (*tool, base, false)
                } else {
                    (*tool, tool.hashed_name(HASH_HEX_DIGITS), true)
                }
            })
            .collect();
        // Pass 2: a hashed name that still meets another name (a tool literally named like a
        // hashed one, or a 32-bit clash) takes the longer hash.
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, name, _) in &first {
            *count.entry(name.as_str()).or_default() += 1;
        }
        let second: Vec<(&DirectTool, String)> = first
            .iter()
            .map(|(tool, name, hashed)| {
                let clash = count[name.as_str()] > 1 || reserved.contains(name);
                if *hashed && clash {
                    (*tool, tool.hashed_name(LONG_HASH_HEX_DIGITS))
                } else {
                    (*tool, name.clone())
                }
            })
            .collect();
        let mut names = DirectNames::default();
        for (tool, name) in second {
            if names.by_name.contains_key(&name) || reserved.contains(&name) {
                // Needs a 64-bit hash clash: leave the tool out rather than misroute a call.
                tracing::warn!(server = %tool.server, tool = %tool.tool, %name,
                    "no unique function name for this tool; it is not declared directly");
                continue;
            }
            names.by_name.insert(name.clone(), tool.clone());
            names.by_tool.insert(tool.clone(), name);
        }
        names
    }

    /// The function name of `tool`, if it is in this set.
    pub fn name_of(&self, tool: &DirectTool) -> Option<&str> {
        self.by_tool.get(tool).map(String::as_str)
    }

    /// The tool a function name of this set addresses.
    pub fn resolve(&self, name: &str) -> Option<&DirectTool> {
        self.by_name.get(name)
    }

    /// How many names the set holds.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether the set holds no name.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// `(name, tool)` pairs in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &DirectTool)> {
        self.by_name.iter().map(|(n, t)| (n.as_str(), t))
    }
}

#[cfg(test)]
#[path = "direct_tests.rs"]
mod tests;
