//! OQ1: a resource's annotations (e.g. `audience: ["user"]`) are surfaced in `mcp_read_`
//! results. `resources/read` contents carry none, and listing every resource on each read
//! would cost a full catalog walk per call, so the dispatcher remembers the annotations
//! it has already shown the model (search hits, resource descriptions) and attaches them to
//! later reads of the same URI. Bounded; no lock is held across an await.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// Entries kept before the memo starts over (a hint cache: losing it only drops a field).
pub const ANNOTATION_MEMO_CAPACITY: usize = 4096;

#[derive(Debug, Clone, Default)]
pub(crate) struct AnnotationMemo {
    inner: Arc<Mutex<HashMap<(String, String), Value>>>,
}

impl AnnotationMemo {
    fn record(&self, server: &str, uri: &str, annotations: &Value) {
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= ANNOTATION_MEMO_CAPACITY {
            map.clear();
        }
        map.insert((server.to_string(), uri.to_string()), annotations.clone());
    }

    fn get(&self, server: &str, uri: &str) -> Option<Value> {
        let map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(server.to_string(), uri.to_string())).cloned()
    }

    /// Remembers annotations of resources in a search result (`results[]`) or a resource
    /// description.
    pub(crate) fn learn(&self, server: &str, output: &Value) {
        let items: Vec<&Value> = match output.get("results").and_then(Value::as_array) {
            Some(results) => results.iter().collect(),
            None => vec![output],
        };
        for item in items {
            let is_resource = item.get("kind").and_then(Value::as_str) == Some("resource");
            let uri = item
                .get("uri")
                .or_else(|| item.get("id"))
                .and_then(Value::as_str);
            let annotations = item.get("annotations").filter(|a| !a.is_null());
            if let (true, Some(uri), Some(annotations)) = (is_resource, uri, annotations) {
                self.record(server, uri, annotations);
            }
        }
    }

    /// Adds known annotations to each rendered read item (object or array of objects).
    pub(crate) fn annotate(&self, server: &str, rendered: &mut Value) {
        let items: Vec<&mut Value> = match rendered {
            Value::Array(items) => items.iter_mut().collect(),
            other => vec![other],
        };
        for item in items {
            let Some(uri) = item.get("uri").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            if let (Some(annotations), Value::Object(map)) = (self.get(server, &uri), item) {
                map.insert("annotations".into(), annotations);
            }
        }
    }
}
