//! Content parsing and rendering: arbitrary JSON as a tool result, resource contents and a
//! prompt result goes through the host's defensive raw conversion and the content policy —
//! never a panic, and the rendered output never exceeds its ceilings by more than one item.
#![no_main]

use std::sync::OnceLock;

use coyote_mcp::render::fuzzing::{prompt_result_from_json, resource_contents_from_json, tool_outcome_from_json};
use coyote_mcp::render::{ReadOptions, RenderContext, SpillStore, bound_tool_result, render_resource_contents};
use coyote_mcp::prompt::flatten;
use coyote_mcp::MetaKind;
use libfuzzer_sys::fuzz_target;

fn store() -> &'static SpillStore {
    static STORE: OnceLock<(tempdir::Dir, SpillStore)> = OnceLock::new();
    &STORE.get_or_init(|| {
        let dir = tempdir::Dir::new();
        let store = SpillStore::new(dir.0.join("mcp-resources")).with_eviction_limit(64 * 1024 * 1024);
        (dir, store)
    }).1
}

mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            let path = std::env::temp_dir().join(format!("coyote-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let read_function = MetaKind::Read.function_name("fuzz");
    let ctx = RenderContext { server: "fuzz", spill: store(), read_function: &read_function };
    let outcome = tool_outcome_from_json(value.clone());
    let _ = bound_tool_result(outcome, &ctx);
    let contents = resource_contents_from_json(value.clone());
    let _ = render_resource_contents(contents, &ReadOptions::default().with_max_bytes(64), &ctx);
    let prompt = prompt_result_from_json(value);
    let flat = flatten(&prompt, &ctx);
    assert_eq!(flat.is_empty(), prompt.messages.is_empty());
});
