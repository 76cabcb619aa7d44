use std::time::Duration;

use coyote_protocol::Timeouts;
use coyote_test_support::{FakeHandle, ListKind, Scenario, SkillSpec, SkillTamper, in_process};
use serde_json::json;

use super::*;
use crate::runtime::{McpRuntime, RuntimeOptions};

fn timeouts() -> Timeouts {
    Timeouts {
        startup: Duration::from_secs(10),
        call: Duration::from_secs(10),
    }
}

async fn attach(scenario: Scenario) -> (McpRuntime, ServerHandle, FakeHandle) {
    let ((read, write), fake) = in_process(scenario);
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let handle = runtime
        .attach_stream("fake", timeouts(), read, write)
        .await
        .expect("ready");
    (runtime, handle, fake)
}

fn pdf() -> SkillSpec {
    SkillSpec::new(
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
    )
    .file("references/FORMS.md", "Supporting content.\n")
}

async fn one_skill(spec: SkillSpec) -> (McpRuntime, ServerHandle, FakeHandle, Skill) {
    let (runtime, handle, fake) = attach(Scenario::builder().skill(spec).build()).await;
    let listing = handle.list_skills().await.expect("skills/list");
    let skill = listing.skills[0].clone();
    (runtime, handle, fake, skill)
}

#[tokio::test]
async fn listing_reads_entries_and_no_skill_file() {
    let spec = pdf();
    let (runtime, handle, fake) = attach(Scenario::builder().skill(spec.clone()).build()).await;
    assert!(handle.features().skills);
    let listing = handle.list_skills().await.unwrap();
    assert_eq!(listing.skipped, Vec::<String>::new());
    let skill = &listing.skills[0];
    assert_eq!(skill.uri, "skill://pdf-processing/SKILL.md");
    assert_eq!(skill.name, "pdf-processing");
    assert_eq!(
        skill.description,
        "Extract, fill, and assemble PDF documents"
    );
    assert!(!skill.dynamic);
    assert_eq!(
        skill.other_files(),
        vec!["skill://pdf-processing/references/FORMS.md".to_owned()]
    );
    assert_eq!(
        skill.file(&skill.uri).unwrap().size,
        spec.skill_md().len() as u64
    );
    let events = fake.events();
    assert_eq!(events.list_requests(ListKind::Skills), 1);
    assert_eq!(events.reads(&spec.uri()), 0, "no prefetch of SKILL.md");
    assert_eq!(events.reads(&spec.file_uri("references/FORMS.md")), 0);
    runtime.shutdown().await;
}

#[tokio::test]
async fn loading_fetches_and_verifies_skill_md_only() {
    let spec = pdf();
    let (runtime, handle, fake, skill) = one_skill(spec.clone()).await;
    let loaded = handle.load_skill(&skill).await.unwrap();
    assert_eq!(loaded.text, spec.skill_md());
    assert_eq!(loaded.other_files, skill.other_files());
    assert_eq!(fake.events().reads(&spec.uri()), 1);
    assert_eq!(
        fake.events().reads(&spec.file_uri("references/FORMS.md")),
        0
    );

    let file = handle
        .read_skill_file(&skill, &spec.file_uri("references/FORMS.md"))
        .await
        .unwrap();
    assert!(
        matches!(&file[..], [ResourceContent::Text { text, .. }] if text == "Supporting content.\n")
    );
    runtime.shutdown().await;
}

async fn refusal_of(tamper: SkillTamper) -> SkillRefusal {
    let (runtime, handle, _fake, skill) = one_skill(pdf().tamper(tamper)).await;
    let error = handle.load_skill(&skill).await.unwrap_err();
    runtime.shutdown().await;
    let text = error.to_string();
    assert!(text.contains("fails verification"), "{text}");
    assert!(text.contains("skill://pdf-processing/SKILL.md"), "{text}");
    match error {
        McpError::SkillRefused { refusal, .. } => refusal,
        other => panic!("not a refusal: {other:?}"),
    }
}

#[tokio::test]
async fn a_skill_md_with_other_bytes_is_refused_by_digest() {
    assert!(matches!(
        refusal_of(SkillTamper::Digest).await,
        SkillRefusal::Digest { .. }
    ));
}

#[tokio::test]
async fn a_skill_md_of_another_size_is_refused_by_size() {
    assert!(matches!(
        refusal_of(SkillTamper::Size).await,
        SkillRefusal::Size { .. }
    ));
}

#[tokio::test]
async fn a_skill_md_whose_frontmatter_differs_is_refused() {
    assert_eq!(
        refusal_of(SkillTamper::Frontmatter).await,
        SkillRefusal::FrontmatterMismatch {
            field: "description".to_owned(),
            file: "\"Exfiltrate credentials\"".to_owned(),
            listed: "\"Extract, fill, and assemble PDF documents\"".to_owned(),
        }
    );
}

#[tokio::test]
async fn a_file_the_listing_does_not_name_is_refused_unread() {
    let (runtime, handle, fake, skill) = one_skill(pdf()).await;
    let uri = "skill://pdf-processing/secrets.txt";
    let error = handle.read_skill_file(&skill, uri).await.unwrap_err();
    assert!(matches!(
        error,
        McpError::SkillRefused {
            refusal: SkillRefusal::NotListed,
            ..
        }
    ));
    assert_eq!(fake.events().reads(uri), 0);
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_server_without_the_extension_is_not_asked() {
    let (runtime, handle, fake) = attach(Scenario::builder().build()).await;
    assert!(!handle.features().skills);
    let error = handle.list_skills().await.unwrap_err();
    assert!(matches!(error, McpError::Unsupported { .. }), "{error}");
    assert_eq!(fake.events().list_requests(ListKind::Skills), 0);
    runtime.shutdown().await;
}

#[test]
fn an_entry_that_breaks_the_rules_says_why() {
    let ok = json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
        "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 1}]});
    assert!(parse_entry(&ok).is_ok());
    let dynamic = json!({"uri": "skill://a/SKILL.md",
        "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"});
    let skill = parse_entry(&dynamic).unwrap();
    assert!(skill.dynamic && skill.owns("skill://a/ref/x.md") && !skill.owns("skill://b/x"));
    let cases = [
        (json!({"frontmatter": {}}), "no uri"),
        (json!({"uri": "skill://a/SKILL.md"}), "no frontmatter"),
        (
            json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}, "resources": []}),
            "no description",
        ),
        (
            json!({"uri": "skill://b/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": []}),
            "last directory",
        ),
        (
            json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": []}),
            "own SKILL.md",
        ),
        (
            json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
                "resources": [{"uri": "skill://b/x", "digest": "sha256:00", "size": 1}]}),
            "outside",
        ),
        (
            json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": "x"}),
            "neither",
        ),
    ];
    for (entry, says) in cases {
        let problem = parse_entry(&entry).unwrap_err();
        assert!(problem.contains(says), "{entry}: {problem}");
    }
}
