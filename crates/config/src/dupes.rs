//! Finds keys that occur twice in one JSON object. `serde_json::Value` keeps the last one
//! silently (as JavaScript does); a server defined twice is almost always a paste mistake, so
//! the loader warns. Runs only on text that already parsed as JSON.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::json_path::JsonPath;

/// Paths of every repeated key (the path ends in that key).
pub(crate) fn duplicate_keys(text: &str) -> Vec<JsonPath> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    // The text parsed already; an error here can only mean it did not, and then there is
    // nothing to report.
    let _ = Walk {
        path: JsonPath::root(),
        found: &mut found,
    }
    .deserialize(&mut de);
    found
}

struct Walk<'a> {
    path: JsonPath,
    found: &'a mut Vec<JsonPath>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(Walk {
                path: self.path.index(index),
                found: &mut *self.found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = self.path.key(&key);
            if !seen.insert(key) {
                self.found.push(path.clone());
            }
            map.next_value_seed(Walk {
                path,
                found: &mut *self.found,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_duplicates() {
        let text = r#"{"mcpServers": {"a": {"command": "x", "command": "y"}, "b": {}, "a": {}},
                       "list": [{"k": 1, "k": 2}]}"#;
        let root = JsonPath::root();
        assert_eq!(
            duplicate_keys(text),
            vec![
                root.key("mcpServers").key("a").key("command"),
                root.key("mcpServers").key("a"),
                root.key("list").index(0).key("k"),
            ]
        );
    }

    #[test]
    fn none_in_clean_documents() {
        assert_eq!(
            duplicate_keys(r#"{"a": {"a": [1, {"a": 2}]}}"#),
            Vec::<JsonPath>::new()
        );
    }
}
