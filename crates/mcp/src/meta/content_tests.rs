//! Content correctness through `mcp_read_`: an entry with both `text`
//! and `blob` is a structured error, and the page cache reads a large text resource from the
//! server once however it is paged — until the server reports the URI updated. Blobs are not
//! cached.

use std::time::Duration;

use coyote_protocol::{Exposure, Timeouts};
use coyote_test_support::{
    Capabilities, FakeHandle, ResourceBody, Scenario, ServerNotice, ToolBehavior, big_text,
    in_process,
};
use serde_json::{Value, json};

use super::*;
use crate::meta::ExposurePolicies;
use crate::runtime::{McpRuntime, RuntimeOptions};

const MIB: u64 = 1024 * 1024;

struct Fixture {
    runtime: McpRuntime,
    dispatcher: MetaDispatcher,
    fake: FakeHandle,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .resource(
            "fake://big",
            "big",
            ResourceBody::BigText { bytes: 3 * MIB },
        )
        .resource("fake://png", "logo", ResourceBody::Png)
        .resource(
            "fake://both",
            "both",
            ResourceBody::RawContents {
                contents: json!([{"uri": "fake://both", "text": "t", "blob": "YQ=="}]),
            },
        )
        .tool(
            "touch",
            ToolBehavior::Notify {
                notifications: vec![ServerNotice::ResourceUpdated {
                    uri: "fake://big".into(),
                }],
            },
        )
        .build();
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(20),
        call: Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dispatcher = MetaDispatcher::new(runtime.clone(), SpillStore::new(dir.path()))
        .with_exposure(ExposurePolicies::default().with("srv", Exposure::Meta));
    dispatcher.declarations(&runtime.server_names()).await;
    Fixture {
        runtime,
        dispatcher,
        fake,
        _dir: dir,
    }
}

async fn read(f: &Fixture, args: Value) -> Value {
    match f
        .dispatcher
        .dispatch("mcp_read_srv", args)
        .await
        .unwrap()
        .body
    {
        DispatchBody::Json(v) => v,
        DispatchBody::Text(t) => panic!("a read answers JSON, got {t}"),
    }
}

#[tokio::test]
async fn paging_3_mib_in_200_byte_pages_reads_it_from_the_server_once() {
    let f = fixture().await;
    let original = big_text(3 * MIB);
    let mut recovered = String::with_capacity(original.len());
    let mut offset = 0u64;
    let mut pages = 0u64;
    loop {
        let page = read(
            &f,
            json!({"uri": "fake://big", "offset": offset, "max_bytes": 200}),
        )
        .await;
        let text = page["text"].as_str().unwrap();
        assert!(text.len() <= 200);
        recovered.push_str(text);
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert!(pages > 15_000, "{pages} pages");
    assert_eq!(recovered, original);
    assert_eq!(
        f.fake.events().reads("fake://big"),
        1,
        "read once for {pages} pages"
    );

    // A resources/updated for the URI drops the entry: the next page is read again.
    f.dispatcher
        .dispatch_target(
            "mcp_invoke_srv",
            FunctionTarget::Meta(MetaFunction::new(MetaKind::Invoke, "srv")),
            json!({"tool": "touch"}),
        )
        .await
        .unwrap();
    let handle = f.runtime.server("srv").unwrap();
    for _ in 0..500 {
        if handle.resource_version("fake://big") != Default::default() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let page = read(&f, json!({"uri": "fake://big", "max_bytes": 200})).await;
    assert!(original.starts_with(page["text"].as_str().unwrap()));
    assert_eq!(f.fake.events().reads("fake://big"), 2);
    read(
        &f,
        json!({"uri": "fake://big", "offset": 200, "max_bytes": 200}),
    )
    .await;
    assert_eq!(f.fake.events().reads("fake://big"), 2);

    // Blobs are not kept: each read asks the server.
    for _ in 0..2 {
        assert_eq!(
            read(&f, json!({"uri": "fake://png"})).await["spilled"],
            true
        );
    }
    assert_eq!(f.fake.events().reads("fake://png"), 2);
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn an_entry_with_both_text_and_blob_is_a_structured_error() {
    let f = fixture().await;
    let item = read(&f, json!({"uri": "fake://both"})).await;
    assert_eq!(item["uri"], "fake://both");
    let error = item["error"].as_str().unwrap();
    assert!(
        error.contains("has both \"text\" and \"blob\" (exactly one is allowed)"),
        "{error}"
    );
    assert!(item.get("text").is_none(), "{item}");
    f.runtime.shutdown().await;
}
