//! What the server declares: the capabilities of `initialize` (2025 revisions) and of
//! `server/discover` (2026-07-28), and the tasks extension shown only to clients that
//! declared it.
//!
//! Ground floor: imports nothing of the crate; `server` builds its `ServerConfig` from it.
//!
//! Invariants:
//! - `listChanged` is claimed at `initialize` (as the reference does) and never in
//!   `server/discover`, where no `subscriptions/listen` stream exists to carry it;
//! - the tasks extension is always declared in [`declared`] (rmcp serves `tasks/*` only
//!   then); [`without_tasks`] removes it for a client that did not declare the extension, so
//!   such a client sees exactly the capabilities it saw before tasks existed.

use rmcp::model::{ServerCapabilities, TASKS_EXTENSION_ID};
use serde_json::Map;

/// Tools, prompts and resources with `listChanged`, completions in fleet mode, and the tasks
/// extension.
pub fn declared(fleet: bool) -> ServerCapabilities {
    let base = ServerCapabilities::builder()
        .enable_tools()
        .enable_prompts()
        .enable_resources();
    let mut caps = if fleet {
        base.enable_completions().build()
    } else {
        base.build()
    };
    set_list_changed(&mut caps, Some(true));
    caps.extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_string(), Map::new());
    caps
}

/// `server/discover`'s capabilities: the declared ones without `listChanged`.
pub fn for_discover(caps: &mut ServerCapabilities) {
    set_list_changed(caps, None);
}

fn set_list_changed(caps: &mut ServerCapabilities, value: Option<bool>) {
    if let Some(t) = caps.tools.as_mut() {
        t.list_changed = value;
    }
    if let Some(p) = caps.prompts.as_mut() {
        p.list_changed = value;
    }
    if let Some(r) = caps.resources.as_mut() {
        r.list_changed = value;
    }
}

/// The capabilities without the tasks extension (for a client that did not declare it).
pub fn without_tasks(caps: &mut ServerCapabilities) {
    if let Some(ext) = caps.extensions.as_mut() {
        ext.remove(TASKS_EXTENSION_ID);
        if ext.is_empty() {
            caps.extensions = None;
        }
    }
}
