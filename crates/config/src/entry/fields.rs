//! Typed getters of [`EntryReader`]: each reads one key, records a [`Problem`] with the key's
//! JSON path when the value has the wrong shape, and returns `None` then. Values never enter
//! a problem (they may be secrets); only JSON type names do.

use std::time::Duration;

use serde_json::{Map, Value};

use super::{EntryReader, Kind, Scalars, TYPE_VALUES};
use crate::error::{Expected, MAX_TIMEOUT_SECS, Problem, ProblemKind};
use crate::json_path::JsonPath;
use crate::keys::suggest;
use crate::mcp_json::json_type;
use crate::warning::{ConfigWarning, WarningKind};

impl EntryReader<'_, '_> {
    pub(super) fn problem(&mut self, path: JsonPath, kind: ProblemKind) {
        self.problems.push(Problem {
            path,
            server: Some(self.server.to_owned()),
            kind,
        });
    }

    pub(super) fn warn(&mut self, path: JsonPath, kind: WarningKind) {
        self.warnings.push(ConfigWarning {
            file: self.file.to_owned(),
            path,
            kind,
        });
    }

    pub(super) fn warn_unused(&mut self, obj: &Map<String, Value>, key: &'static str, kind: Kind) {
        if obj.contains_key(key) {
            self.warn(
                self.path.key(key),
                WarningKind::UnusedKey {
                    key,
                    transport: kind.label(),
                },
            );
        }
    }

    pub(super) fn kind_key(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Option<(Kind, String)> {
        let text = self.string(obj, key)?;
        match Kind::parse(&text) {
            Some(kind) => Some((kind, text)),
            None => {
                let suggestion = suggest(&text, TYPE_VALUES);
                self.problem(
                    self.path.key(key),
                    ProblemKind::UnknownValue {
                        found: text,
                        allowed: TYPE_VALUES.to_vec(),
                        suggestion,
                    },
                );
                None
            }
        }
    }

    pub(super) fn string(&mut self, obj: &Map<String, Value>, key: &str) -> Option<String> {
        match obj.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.problem(self.path.key(key), wrong(Expected::String, other));
                None
            }
        }
    }

    pub(super) fn expanded_string(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Option<String> {
        let raw = self.string(obj, key)?;
        self.expand(self.path.key(key), &raw)
    }

    pub(super) fn expand(&mut self, path: JsonPath, raw: &str) -> Option<String> {
        match self.cx.expander().expand(raw) {
            Ok(value) if value.contains('\0') => {
                self.problem(path, ProblemKind::NulByte);
                None
            }
            Ok(value) => Some(value),
            Err(e) => {
                self.problem(path, ProblemKind::Variable(e));
                None
            }
        }
    }

    pub(super) fn bool(&mut self, obj: &Map<String, Value>, key: &str) -> Option<bool> {
        match obj.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.problem(self.path.key(key), wrong(Expected::Bool, other));
                None
            }
        }
    }

    pub(super) fn seconds(&mut self, obj: &Map<String, Value>, key: &str) -> Option<Duration> {
        let value = obj.get(key)?;
        let secs = value.as_f64().filter(|s| *s > 0.0);
        if secs.is_some_and(|s| s > MAX_TIMEOUT_SECS as f64) {
            self.problem(self.path.key(key), ProblemKind::SecondsOverMaximum);
            return None;
        }
        match secs.and_then(|s| Duration::try_from_secs_f64(s).ok()) {
            Some(d) => Some(d),
            None => {
                self.problem(self.path.key(key), wrong(Expected::Seconds, value));
                None
            }
        }
    }

    /// One of the names in `table`, mapped to its value.
    pub(super) fn choice<T: Copy>(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
        table: &'static [(&'static str, T)],
    ) -> Option<T> {
        let text = self.string(obj, key)?;
        if let Some((_, value)) = table.iter().find(|(name, _)| *name == text) {
            return Some(*value);
        }
        let allowed: Vec<&'static str> = table.iter().map(|(name, _)| *name).collect();
        let suggestion = suggest(&text, &allowed);
        self.problem(
            self.path.key(key),
            ProblemKind::UnknownValue {
                found: text,
                allowed,
                suggestion,
            },
        );
        None
    }

    pub(super) fn string_array(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Option<Vec<String>> {
        let path = self.path.key(key);
        match obj.get(key)? {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => self.problem(path.index(i), wrong(Expected::String, other)),
                    }
                }
                Some(out)
            }
            other => {
                self.problem(path, wrong(Expected::StringArray, other));
                None
            }
        }
    }

    pub(super) fn string_map(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
        scalars: Scalars,
    ) -> Option<Vec<(String, String)>> {
        let path = self.path.key(key);
        match obj.get(key)? {
            Value::Object(map) => {
                let mut out = Vec::with_capacity(map.len());
                for (name, value) in map {
                    match (value, scalars) {
                        (Value::String(s), _) => out.push((name.clone(), s.clone())),
                        (Value::Number(_) | Value::Bool(_), Scalars::Stringify) => {
                            out.push((name.clone(), value.to_string()))
                        }
                        (other, _) => self.problem(path.key(name), wrong(Expected::String, other)),
                    }
                }
                Some(out)
            }
            other => {
                self.problem(path, wrong(Expected::StringMap, other));
                None
            }
        }
    }
}

pub(super) fn wrong(expected: Expected, found: &Value) -> ProblemKind {
    ProblemKind::WrongType {
        expected,
        found: json_type(found),
    }
}
