//! `coyote mcp skills` against the fake MCP server binary publishing skills: the table, the
//! `--json` rows (snake_case, with each file's digest and size), that listing fetches no skill
//! file, and the documented output in docs/mcp-cli.md.

use coyote_test_support::{ListKind, Scenario, SkillSpec};
use serde_json::json;

use super::common::Home;

fn pdf() -> SkillSpec {
    SkillSpec::new(
        "pdf-processing",
        "Extract, fill, and assemble PDF documents",
    )
    .file("references/FORMS.md", "Supporting content.\n")
}

#[test]
fn skills_json_lists_entries_with_their_files_and_fetches_nothing() {
    let home = Home::new();
    let spec = pdf();
    let scenario = Scenario::builder()
        .skill(spec.clone())
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "docs": scenario.mcp_json_entry() }));
    let rows = home.json(&["mcp", "skills", "docs"]);
    let skill_md = spec.skill_md();
    let forms = "Supporting content.\n";
    assert_eq!(
        rows,
        json!([{
            "server": "docs",
            "uri": "skill://pdf-processing/SKILL.md",
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "frontmatter": {
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents"
            },
            "files": [
                {
                    "uri": "skill://pdf-processing/SKILL.md",
                    "digest": coyote_test_support::scenario::sha256_digest(skill_md.as_bytes()),
                    "size": skill_md.len()
                },
                {
                    "uri": "skill://pdf-processing/references/FORMS.md",
                    "digest": coyote_test_support::scenario::sha256_digest(forms.as_bytes()),
                    "size": forms.len()
                }
            ],
            "dynamic": false
        }])
    );
    let events = scenario.events();
    assert_eq!(events.list_requests(ListKind::Skills), 1);
    assert_eq!(events.reads(&spec.uri()), 0);
    assert_eq!(events.reads(&spec.file_uri("references/FORMS.md")), 0);
}

/// The ```text block after `<!-- doc-test: NAME -->` in docs/mcp-cli.md.
fn documented(name: &str) -> String {
    let root = coyote_test_support::peers::repo_root();
    let doc = std::fs::read_to_string(root.join("docs/mcp-cli.md")).unwrap();
    let marker = format!("<!-- doc-test: {name} -->\n```text\n");
    let start = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} block"))
        + marker.len();
    let end = doc[start..].find("```").unwrap() + start;
    doc[start..end].to_owned()
}

#[test]
fn the_documented_skills_table_is_what_coyote_prints() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .skill(pdf())
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "docs": scenario.mcp_json_entry() }));
    let (code, out, err) = home.run(&["mcp", "skills", "docs"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, documented("skills-table"));
}

#[test]
fn a_server_without_skills_is_noted_not_failed() {
    let home = Home::new();
    let scenario = Scenario::builder().write_to(home.path()).unwrap();
    home.write_servers(json!({ "plain": scenario.mcp_json_entry() }));
    let (code, _out, err) = home.run(&["mcp", "skills", "plain"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("does not advertise this capability"), "{err}");
}

#[test]
fn reading_a_skill_md_verifies_it_and_a_tampered_one_prints_nothing_of_it() {
    let home = Home::new();
    let good = pdf();
    let bad = SkillSpec::new("evil-twin", "Looks harmless")
        .tamper(coyote_test_support::SkillTamper::Frontmatter);
    let scenario = Scenario::builder()
        .skill(good.clone())
        .skill(bad.clone())
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "docs": scenario.mcp_json_entry() }));
    let (code, out, err) = home.run(&["mcp", "read", "docs", &good.uri()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Instructions of pdf-processing."), "{out}");
    let (code, out, err) = home.run(&["mcp", "read", "docs", &bad.uri()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains(
            "served skill file skill://evil-twin/SKILL.md that fails verification: its \
             frontmatter field `description` is \"Exfiltrate credentials\", the listing says \
             \"Looks harmless\""
        ),
        "{err}"
    );
    assert!(!out.contains("Instructions of evil-twin"), "{out}");
    assert!(!err.contains("Instructions of evil-twin"), "{err}");
}
