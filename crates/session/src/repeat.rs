//! The loop guard: the same call (same function name and same arguments, compared as canonical
//! JSON so key order and spacing do not matter) made [`MAX_IDENTICAL_CALLS`] times in a row
//! within one turn is not run again; the model gets a tool result telling it so. "In a row"
//! follows the order the model emitted calls in, across rounds.
//!
//! [`call_key`] is also the key of the per-turn memory of answered calls (`calls.rs`): an
//! identical call gets the earlier result back ([`reused_text`]) instead of running again.

use serde_json::Value;

/// The third identical call in a row is not run.
pub const MAX_IDENTICAL_CALLS: u32 = 3;

/// Tracks the latest call of a turn and how often it came in a row.
#[derive(Debug, Default)]
pub(crate) struct RepeatGuard {
    last: Option<String>,
    streak: u32,
}

impl RepeatGuard {
    /// Records a call; `true` when it must not run (it is the [`MAX_IDENTICAL_CALLS`]-th or a
    /// later identical call in a row).
    pub(crate) fn record(&mut self, name: &str, arguments: &str) -> bool {
        let key = call_key(name, arguments);
        if self.last.as_deref() == Some(key.as_str()) {
            self.streak += 1;
        } else {
            self.last = Some(key);
            self.streak = 1;
        }
        self.streak >= MAX_IDENTICAL_CALLS
    }
}

/// What makes two calls identical: the function name and the canonical arguments.
pub(crate) fn call_key(name: &str, arguments: &str) -> String {
    format!("{name}\u{0}{}", canonical_arguments(arguments))
}

/// Arguments as canonical JSON (sorted keys, no spacing); the raw text when it is not JSON.
/// Blank text counts as `{}` like everywhere else.
fn canonical_arguments(arguments: &str) -> String {
    if arguments.trim().is_empty() {
        return "{}".to_owned();
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(value) => {
            let mut out = String::new();
            write_canonical(&value, &mut out);
            out
        }
        Err(_) => arguments.to_owned(),
    }
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The tool result for a call the guard stopped.
pub(crate) fn repeated_text(name: &str) -> String {
    format!(
        "Not run: `{name}` was called {MAX_IDENTICAL_CALLS} times in a row with the same \
         arguments, and its result will not change. Use the results you already have to answer \
         the user, or call something different."
    )
}

/// The tool result of a call identical to one already answered in this turn: the earlier
/// result, verbatim after one instruction line (handles in it stay usable).
pub(crate) fn reused_text(earlier: &str) -> String {
    format!(
        "Not run again: this exact call was already answered in this turn; its result is \
         repeated below. Answer the user from it instead of calling it again.\n{earlier}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_identical_call_in_a_row_is_stopped() {
        let mut guard = RepeatGuard::default();
        assert!(!guard.record("f", r#"{"a":1,"b":2}"#));
        assert!(!guard.record("f", r#"{ "b": 2, "a": 1 }"#));
        assert!(guard.record("f", r#"{"a":1,"b":2}"#));
        assert!(guard.record("f", r#"{"a":1,"b":2}"#));
        // Anything different resets the streak.
        assert!(!guard.record("f", r#"{"a":2,"b":2}"#));
        assert!(!guard.record("f", r#"{"a":1,"b":2}"#));
        assert!(!guard.record("g", r#"{"a":1,"b":2}"#));
    }

    #[test]
    fn blank_arguments_equal_an_empty_object() {
        let mut guard = RepeatGuard::default();
        assert!(!guard.record("f", ""));
        assert!(!guard.record("f", "{}"));
        assert!(guard.record("f", " "));
    }

    #[test]
    fn canonical_form_sorts_nested_keys() {
        assert_eq!(
            canonical_arguments(r#"{"z": {"y": [1, {"b": 1, "a": 2}]}, "a": "x"}"#),
            r#"{"a":"x","z":{"y":[1,{"a":2,"b":1}]}}"#
        );
        assert_eq!(canonical_arguments("{not json"), "{not json");
    }
}
