//! The entry keys about what a server costs and when it starts: `maxResultBytes`,
//! `toolLimits` (`{"<tool>": {"maxResultBytes": N}}`), `start` (`lazy` | `eager`),
//! `catalogTtlSec` and `protocol` (`auto` | `2025-11-25` | `2026-07-28`). Problems are recorded with the key's path, like every other key.

use coyote_protocol::{ProtocolPin, ResultLimits, StartMode, StartPolicy};
use serde_json::{Map, Value};

use super::EntryReader;
use super::fields::wrong;
use crate::error::Expected;
use crate::json_path::JsonPath;
use crate::keys::suggest;
use crate::warning::WarningKind;

const START_VALUES: &[(&str, StartMode)] =
    &[("lazy", StartMode::Lazy), ("eager", StartMode::Eager)];
const PROTOCOL_VALUES: &[(&str, Option<ProtocolPin>)] = &[
    ("auto", None),
    ("2025-11-25", Some(ProtocolPin::V2025_11_25)),
    ("2026-07-28", Some(ProtocolPin::V2026_07_28)),
];

impl EntryReader<'_, '_> {
    pub(super) fn result_limits(&mut self, obj: &Map<String, Value>) -> ResultLimits {
        let max_result_bytes = obj
            .get("maxResultBytes")
            .and_then(|v| self.bytes(self.path.key("maxResultBytes"), v));
        let mut tools = std::collections::BTreeMap::new();
        let path = self.path.key("toolLimits");
        match obj.get("toolLimits") {
            None => {}
            Some(Value::Object(map)) => {
                for (tool, limit) in map {
                    let tool_path = path.key(tool);
                    let Value::Object(limit) = limit else {
                        self.problem(tool_path, wrong(Expected::Object, limit));
                        continue;
                    };
                    for key in limit.keys().filter(|k| *k != "maxResultBytes") {
                        let kind = WarningKind::UnknownKey {
                            key: key.clone(),
                            suggestion: suggest(key, &["maxResultBytes"]),
                        };
                        self.warn(tool_path.key(key), kind);
                    }
                    if let Some(bytes) = limit
                        .get("maxResultBytes")
                        .and_then(|v| self.bytes(tool_path.key("maxResultBytes"), v))
                    {
                        tools.insert(tool.clone(), bytes);
                    }
                }
            }
            Some(other) => self.problem(path, wrong(Expected::Object, other)),
        }
        ResultLimits {
            max_result_bytes,
            tools,
        }
    }

    pub(super) fn start_policy(&mut self, obj: &Map<String, Value>) -> StartPolicy {
        StartPolicy {
            mode: self
                .choice(obj, "start", START_VALUES)
                .unwrap_or(StartMode::Lazy),
            catalog_ttl: self.seconds(obj, "catalogTtlSec"),
            protocol: self.choice(obj, "protocol", PROTOCOL_VALUES).flatten(),
        }
    }

    /// A whole number of bytes greater than zero.
    fn bytes(&mut self, path: JsonPath, value: &Value) -> Option<u64> {
        match value.as_u64().filter(|n| *n > 0) {
            Some(n) => Some(n),
            None => {
                self.problem(path, wrong(Expected::Bytes, value));
                None
            }
        }
    }
}
