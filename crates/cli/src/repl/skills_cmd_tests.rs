use std::time::Duration;

use coyote_mcp::RuntimeOptions;
use coyote_protocol::Timeouts;
use coyote_test_support::{ListKind, Scenario, SkillSpec, in_process};

use super::*;

fn timeouts() -> Timeouts {
    Timeouts {
        startup: Duration::from_secs(10),
        call: Duration::from_secs(10),
    }
}

#[tokio::test]
async fn skills_lists_each_servers_skills_without_fetching_a_file() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let pdf = SkillSpec::new(
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
    )
    .file("references/FORMS.md", "Forms.\n");
    let ((r, w), docs) = in_process(Scenario::builder().skill(pdf.clone()).build());
    runtime
        .attach_stream("docs", timeouts(), r, w)
        .await
        .unwrap();
    let ((r, w), _plain) = in_process(Scenario::default());
    runtime
        .attach_stream("plain", timeouts(), r, w)
        .await
        .unwrap();
    let all = |_: &str| true;

    let text = skills(&runtime, &all, None, &Redactor::default()).await;
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 2, "{text}");
    for cell in [
        "docs",
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
        "2",
        "skill://pdf-processing/SKILL.md",
    ] {
        assert!(rows[1].contains(cell), "{cell} in {text}");
    }
    assert!(
        !text.contains("plain"),
        "a server without skills is left out: {text}"
    );
    assert_eq!(docs.events().list_requests(ListKind::Skills), 1);
    assert_eq!(docs.events().reads(&pdf.uri()), 0, "nothing fetched");

    let text = skills(&runtime, &all, Some("plain"), &Redactor::default()).await;
    assert!(text.ends_with("plain: publishes no skills\n"), "{text}");
    let text = skills(&runtime, &all, Some("nope"), &Redactor::default()).await;
    assert_eq!(
        text,
        "No enabled MCP server is named 'nope'; see `.mcp status`.\n"
    );
    runtime.shutdown().await;
}
