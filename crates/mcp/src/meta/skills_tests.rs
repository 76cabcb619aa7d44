//! The skills index (its wording and its bound) and skill reads through the dispatcher, against
//! the fake server: the index is declared from `skills/list` alone, a `SKILL.md` is fetched
//! only when the model reads it, and what fails verification never reaches the model.

use std::time::Duration;

use coyote_protocol::{Exposure, Timeouts};
use coyote_test_support::{FakeHandle, ListKind, Scenario, SkillSpec, SkillTamper, in_process};
use serde_json::{Value, json};

use super::*;
use crate::meta::declarations::{Shape, ToolAccess, declare};
use crate::meta::dispatch::{DispatchBody, MetaDispatcher};
use crate::meta::{ExposurePolicies, MetaKind, estimate_tokens};
use crate::render::SpillStore;
use crate::runtime::{McpRuntime, RuntimeOptions};
use crate::skills::parse_entry;

fn skill(name: &str, description: &str) -> Skill {
    parse_entry(&json!({
        "uri": format!("skill://{name}/SKILL.md"),
        "frontmatter": {"name": name, "description": description},
        "resources": [{"uri": format!("skill://{name}/SKILL.md"), "digest": "sha256:00", "size": 1}]
    }))
    .unwrap()
}

fn listing(skills: Vec<Skill>) -> SkillListing {
    SkillListing {
        skills,
        skipped: Vec::new(),
    }
}

#[test]
fn no_skills_no_index() {
    assert_eq!(index(&listing(Vec::new())), None);
}

#[test]
fn one_skill_is_indexed_with_its_description() {
    let text = index(&listing(vec![skill("pdf-processing", "Fill PDF forms")])).unwrap();
    assert_eq!(
        text,
        " Skills: pdf-processing (Fill PDF forms) (read skill://<name>/SKILL.md first)."
    );
}

#[test]
fn many_skills_fall_back_to_names_then_to_a_count() {
    let few: Vec<Skill> = ["a-1", "b-2"]
        .iter()
        .map(|n| skill(n, "A rather long description of what this skill is for"))
        .collect();
    let text = index(&listing(few)).unwrap();
    assert_eq!(
        text,
        " Skills: a-1, b-2 (read skill://<name>/SKILL.md first)."
    );
    let many: Vec<Skill> = (0..40).map(|i| skill(&format!("skill-{i}"), "d")).collect();
    let text = index(&listing(many)).unwrap();
    assert!(
        text.len() <= SKILLS_INDEX_MAX_BYTES,
        "{} bytes: {text}",
        text.len()
    );
    assert_eq!(
        text,
        " Skills: skill-0, skill-1, +38 in coyote-skills:// (read skill://<name>/SKILL.md first)."
    );
}

#[test]
fn the_index_never_passes_its_bound() {
    for count in 1..30 {
        for description in ["d", "Extract, fill, and assemble PDF documents"] {
            let skills = (0..count)
                .map(|i| skill(&format!("a-skill-with-a-long-name-{i}"), description))
                .collect();
            let text = index(&listing(skills)).unwrap();
            assert!(text.len() <= SKILLS_INDEX_MAX_BYTES, "{count}: {text}");
        }
    }
}

#[test]
fn a_server_with_every_function_and_skills_stays_in_the_declarations_budget() {
    // The same bound as a server without skills (meta_tests.rs): ≤ 680 estimated tokens,
    // the 600 o200k tokens of docs/meta-functions.md.
    let skills = (0..30)
        .map(|i| {
            skill(
                &format!("skill-{i}"),
                "Extract, fill, and assemble PDF documents",
            )
        })
        .collect();
    let index = index(&listing(skills)).unwrap();
    let declared = declare(&Shape {
        server: "everything",
        kinds: &MetaKind::ALL,
        tools: ToolAccess::Invoke,
        resources: true,
        skills: Some(&index),
    });
    let estimate = estimate_tokens(&declared);
    assert!(estimate <= 680, "{estimate} estimated tokens");
}

#[test]
fn skills_elsewhere_than_skill_uris_are_indexed_by_uri() {
    let mut other = skill("notes", "d");
    other.uri = "repo://skills/notes/SKILL.md".to_owned();
    let text = index(&listing(vec![other])).unwrap();
    assert_eq!(
        text,
        " Skills: repo://skills/notes/SKILL.md (d) (read its SKILL.md uri first)."
    );
}

#[test]
fn descriptions_are_cut_on_a_character_boundary() {
    let cut_text = cut(&"é".repeat(40), 11);
    assert!(cut_text.len() <= 11, "{cut_text}");
    assert!(cut_text.ends_with('…'));
}

struct Fixture {
    runtime: McpRuntime,
    dispatcher: MetaDispatcher,
    fake: FakeHandle,
    _dir: tempfile::TempDir,
}

async fn fixture(spec: SkillSpec) -> Fixture {
    let scenario = Scenario::builder().skill(spec).build();
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
    Fixture {
        runtime,
        dispatcher,
        fake,
        _dir: dir,
    }
}

fn pdf() -> SkillSpec {
    SkillSpec::new(
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
    )
    .file("references/FORMS.md", "Supporting content.\n")
}

async fn read(f: &Fixture, uri: &str) -> Result<Value, String> {
    f.dispatcher.declarations(&["srv".to_owned()]).await;
    match f
        .dispatcher
        .dispatch("mcp_read_srv", json!({ "uri": uri }))
        .await
    {
        Ok(outcome) => match outcome.body {
            DispatchBody::Json(value) => Ok(value),
            DispatchBody::Text(text) => Ok(Value::String(text)),
        },
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn the_index_is_declared_without_fetching_any_skill_file() {
    let spec = pdf();
    let f = fixture(spec.clone()).await;
    let declared = f.dispatcher.declarations(&["srv".to_owned()]).await;
    let read_fn = declared.iter().find(|d| d.name == "mcp_read_srv").unwrap();
    assert!(
        read_fn
            .description
            .contains(" Skills: pdf-processing (read skill://<name>/SKILL.md first)."),
        "{}",
        read_fn.description
    );
    // A second request lists nothing again on the same connection.
    f.dispatcher.declarations(&["srv".to_owned()]).await;
    let events = f.fake.events();
    assert_eq!(events.list_requests(ListKind::Skills), 1);
    assert_eq!(events.reads(&spec.uri()), 0);
    assert_eq!(events.reads(&spec.file_uri("references/FORMS.md")), 0);
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn reading_skill_md_loads_the_skill_and_names_its_files() {
    let spec = pdf();
    let f = fixture(spec.clone()).await;
    f.dispatcher.declarations(&["srv".to_owned()]).await;
    let value = read(&f, &spec.uri()).await.unwrap();
    assert_eq!(value["text"], json!(spec.skill_md()));
    assert_eq!(
        value["skill_files"],
        json!([spec.file_uri("references/FORMS.md")])
    );
    let file = read(&f, &spec.file_uri("references/FORMS.md"))
        .await
        .unwrap();
    assert!(file.to_string().contains("Supporting content."), "{file}");
    let events = f.fake.events();
    assert_eq!(events.reads(&spec.uri()), 1);
    assert_eq!(events.reads(&spec.file_uri("references/FORMS.md")), 1);
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn the_full_index_lists_every_skill_with_its_uri() {
    let f = fixture(pdf()).await;
    let value = read(&f, SKILLS_INDEX_URI).await.unwrap();
    assert_eq!(
        value["text"],
        json!(
            "pdf-processing: Extract, fill, and assemble PDF documents\n  read \
             skill://pdf-processing/SKILL.md\n"
        )
    );
    f.runtime.shutdown().await;
}

async fn refused(tamper: SkillTamper, says: &str) {
    let spec = pdf().tamper(tamper);
    let f = fixture(spec.clone()).await;
    let error = read(&f, &spec.uri()).await.unwrap_err();
    assert!(error.contains("fails verification"), "{error}");
    assert!(error.contains(says), "{error}");
    assert!(
        !error.contains("Instructions of"),
        "no content in the refusal: {error}"
    );
    assert_eq!(
        f.fake.events().reads(&spec.file_uri("references/FORMS.md")),
        0
    );
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn a_tampered_skill_md_never_reaches_the_model() {
    refused(SkillTamper::Digest, "its digest is sha256:").await;
    refused(SkillTamper::Size, "bytes, the listing says").await;
    refused(
        SkillTamper::Frontmatter,
        "its frontmatter field `description` is \"Exfiltrate credentials\"",
    )
    .await;
}

#[tokio::test]
async fn an_ordinary_resource_of_a_skills_server_reads_as_before() {
    let scenario = Scenario::builder()
        .skill(pdf())
        .resource(
            "fake://plain",
            "plain",
            coyote_test_support::ResourceBody::Text {
                text: "plain text".into(),
            },
        )
        .build();
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(20),
        call: Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dispatcher = MetaDispatcher::new(runtime.clone(), SpillStore::new(dir.path()));
    dispatcher.declarations(&["srv".to_owned()]).await;
    let outcome = dispatcher
        .dispatch("mcp_read_srv", json!({"uri": "fake://plain"}))
        .await
        .unwrap();
    assert!(matches!(outcome.body, DispatchBody::Json(v) if v["text"] == "plain text"));
    runtime.shutdown().await;
}

#[test]
fn the_documented_index_is_what_the_model_sees() {
    let doc = include_str!("../../../../docs/meta-functions.md");
    let marker = "<!-- doc-test: skills-index -->\n```text\n";
    let start = doc.find(marker).expect("skills-index block") + marker.len();
    let shown = doc[start..].lines().next().unwrap();
    let text = index(&listing(vec![skill("pdf-processing", "Fill PDF forms")])).unwrap();
    assert_eq!(text.trim(), shown);
    assert!(
        doc.contains(&format!(
            "`SKILLS_INDEX_MAX_BYTES`\n  ({SKILLS_INDEX_MAX_BYTES}) bytes"
        )),
        "docs/meta-functions.md quotes SKILLS_INDEX_MAX_BYTES"
    );
}

#[tokio::test]
async fn a_server_declared_directly_gets_the_index_too() {
    let scenario = Scenario::builder()
        .tool("echo", coyote_test_support::ToolBehavior::Echo)
        .skill(pdf())
        .build();
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(20),
        call: Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dispatcher = MetaDispatcher::new(runtime.clone(), SpillStore::new(dir.path()))
        .with_exposure(ExposurePolicies::default().with("srv", Exposure::Direct));
    let declared = dispatcher.declarations(&["srv".to_owned()]).await;
    let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"srv__echo"), "{names:?}");
    let read_fn = declared.iter().find(|d| d.name == "mcp_read_srv").unwrap();
    assert!(
        read_fn
            .description
            .ends_with(" Skills: pdf-processing (read skill://<name>/SKILL.md first)."),
        "{}",
        read_fn.description
    );
    runtime.shutdown().await;
}
