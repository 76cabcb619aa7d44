//! A location inside a JSON document, printed the way a user would navigate it:
//! `mcpServers.github.env.TOKEN`, `mcpServers.fs.args[2]`, `mcpServers["my server"]`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Segment {
    Key(String),
    Index(usize),
}

/// A path from the document root; the empty path prints as `(top level)`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct JsonPath(Vec<Segment>);

impl JsonPath {
    /// The empty path: the document itself.
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    /// This path extended by an object key.
    pub fn key(&self, key: &str) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Key(key.to_owned()));
        JsonPath(segments)
    }

    /// This path extended by an array index.
    pub fn index(&self, index: usize) -> Self {
        let mut segments = self.0.clone();
        segments.push(Segment::Index(index));
        JsonPath(segments)
    }

    /// The last object key, if the path ends in one.
    pub fn last_key(&self) -> Option<&str> {
        match self.0.last() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }
}

/// Keys made of these characters print bare; anything else is quoted (`["a.b"]`).
fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(k) if is_plain_key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Segment::Key(k) => write!(f, "[{}]", serde_json::Value::from(k.as_str()))?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let servers = JsonPath::root().key("mcpServers");
        assert_eq!(JsonPath::root().to_string(), "(top level)");
        assert_eq!(
            servers.key("github").key("env").key("TOKEN").to_string(),
            "mcpServers.github.env.TOKEN"
        );
        assert_eq!(
            servers.key("fs").key("args").index(2).to_string(),
            "mcpServers.fs.args[2]"
        );
        assert_eq!(
            servers.key("my server").key("url").to_string(),
            "mcpServers[\"my server\"].url"
        );
        assert_eq!(servers.key("").to_string(), "mcpServers[\"\"]");
        assert_eq!(servers.key("q\"x").last_key(), Some("q\"x"));
    }
}
