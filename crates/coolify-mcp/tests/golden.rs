//! Parity with the reference server: golden files captured by `tests/golden/capture.mjs`
//! from `@masonator/coolify-mcp@3.5.0` on the same fixture. Every comparison here
//! reads a file the reference produced, so these tests check parity rather than confirm
//! whatever we emit. Deliberate differences are asserted as such.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Harness, Setup};

fn dir(config: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(config)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The server configuration matching a golden folder.
fn setup_for(config: &str) -> Setup {
    match config {
        "single" => Setup::default(),
        "fleet" => Setup::default().fleet(),
        "readonly" => Setup::default().read_only(),
        "fleet-prod-staging" => Setup {
            default_name: "prod".into(),
            ..Setup::default()
        }
        .instance("staging", None),
        "fleet-prod-staging-dev" => Setup {
            default_name: "prod".into(),
            ..Setup::default()
        }
        .instance("staging", None)
        .instance("dev", None),
        other => panic!("unknown golden configuration {other}"),
    }
}

const CONFIGS: [&str; 5] = [
    "single",
    "fleet",
    "readonly",
    "fleet-prod-staging",
    "fleet-prod-staging-dev",
];

#[tokio::test]
async fn item_07_golden_tools_list_is_the_reference_list() {
    for config in ["single", "fleet", "readonly"] {
        let h = Harness::start(setup_for(config)).await.unwrap();
        let ours = h.tools().await;
        // The whole list: same tools, same order, byte-equal JSON (compact and pretty).
        let golden = json_file(&dir(config).join("tools-list.json"));
        let ours_list = json!({"tools": ours});
        assert_eq!(
            serde_json::to_string(&ours_list).unwrap(),
            serde_json::to_string(&golden).unwrap(),
            "{config}: tools/list"
        );
        let roster: Vec<String> =
            serde_json::from_value(json_file(&dir(config).join("tools-roster.json"))).unwrap();
        assert_eq!(ours.len(), roster.len(), "{config}");
        for tool in &ours {
            let name = tool["name"].as_str().unwrap();
            let golden = read(&dir(config).join("tools").join(format!("{name}.json")));
            let mine = serde_json::to_string_pretty(tool).unwrap();
            assert_eq!(
                mine,
                golden.trim_end(),
                "{config}: tools/list entry of {name}"
            );
        }
    }
}

#[tokio::test]
async fn item_40_golden_prompt_texts() {
    for config in CONFIGS {
        let h = Harness::start(setup_for(config)).await.unwrap();
        let mut seen = 0;
        let mut entries: Vec<_> = std::fs::read_dir(dir(config).join("prompts"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
        {
            let golden = json_file(path);
            let req = &golden["request"];
            let text = h
                .prompt_text(req["name"].as_str().unwrap(), req["arguments"].clone())
                .await;
            let expected = read(&path.with_extension("txt"));
            assert_eq!(text, expected, "{}", path.display());
            assert_eq!(
                golden["result"]["messages"][0]["content"]["text"],
                json!(text)
            );
            seen += 1;
        }
        assert!(seen > 0, "{config} has prompt captures");
        assert!(h.log().is_empty(), "{config}: prompts made no request");
    }
}

#[tokio::test]
async fn item_31_golden_prompts_and_resource_lists() {
    for config in ["single", "fleet", "readonly"] {
        let h = Harness::start(setup_for(config)).await.unwrap();
        let d = dir(config);
        assert_eq!(
            json!({"prompts": h.prompts().await}),
            json_file(&d.join("prompts-list.json")),
            "{config} prompts/list"
        );
        assert_eq!(
            json!({"resourceTemplates": h.templates().await}),
            json_file(&d.join("resource-templates-list.json")),
            "{config} resources/templates/list"
        );
        assert_eq!(
            json!({"resources": h.resources().await}),
            json_file(&d.join("resources-list.json")),
            "{config} resources/list"
        );
    }
}

#[tokio::test]
async fn item_01_golden_initialize() {
    for config in CONFIGS {
        let h = Harness::start(setup_for(config)).await.unwrap();
        let golden = json_file(&dir(config).join("initialize.json"));
        let ours = serde_json::to_value(h.client.peer().peer_info().unwrap()).unwrap();
        assert_eq!(ours["capabilities"], golden["capabilities"], "{config}");
        assert_eq!(ours["serverInfo"]["name"], golden["serverInfo"]["name"]);
        assert_eq!(ours["protocolVersion"], golden["protocolVersion"]);
        // Every paragraph is the reference's except, on purpose: the mode paragraph (the
        // fifth) names the operations that really ask (`control` stop/restart do
        // not); in read-only mode that paragraph matches, and the secrets paragraph drops
        // the `env_vars` clause because read-only mode does not register `env_vars`.
        let theirs = read(&dir(config).join("instructions.txt"));
        let mine = ours["instructions"].as_str().unwrap().to_string();
        let (tp, mp): (Vec<&str>, Vec<&str>) = (
            theirs.trim_end().split("\n\n").collect(),
            mine.split("\n\n").collect(),
        );
        assert_eq!(mp.len(), tp.len(), "{config}: same paragraph structure");
        for (i, (m, t)) in mp.iter().zip(&tp).enumerate() {
            if i == 4 && config != "readonly" {
                assert_ne!(m, t, "{config}: the mode paragraph differs on purpose");
                assert!(
                    m.len() < t.len() + 100,
                    "{config}: mode paragraph stays short"
                );
            } else if i == 3 && config == "readonly" {
                assert_eq!(
                    t.split_once(';').map(|(a, _)| format!("{a}.")).as_deref(),
                    Some(*m)
                );
            } else {
                assert_eq!(m, t, "{config}: paragraph {}", i + 1);
            }
        }
        assert!(mine.len() / 4 < 600, "{config}: instructions budget");
        if config.starts_with("fleet") {
            assert_eq!(mp.last(), tp.last(), "{config}: fleet paragraph");
        }
    }
}

#[tokio::test]
async fn item_43_44_49_golden_reads_calls_and_completions() {
    for config in ["single", "fleet"] {
        let h = Harness::start(setup_for(config)).await.unwrap();
        let mut entries: Vec<_> = std::fs::read_dir(dir(config).join("reads"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let golden = json_file(&path);
            let req = &golden["request"];
            let what = path.display().to_string();
            if let Some(uri) = req["uri"].as_str() {
                assert_eq!(h.read(uri).await.unwrap(), golden["response"], "{what}");
            } else if req.get("ref").is_some() {
                let params: rmcp::model::CompleteRequestParams =
                    serde_json::from_value(req.clone()).unwrap();
                let ours =
                    serde_json::to_value(h.client.peer().complete(params).await.unwrap()).unwrap();
                if req["argument"]["name"] == "uuid" {
                    // Deliberate difference: uuid completes from the application list.
                    assert_eq!(golden["response"]["completion"]["values"], json!([]));
                    let values = ours["completion"]["values"].as_array().unwrap();
                    assert!(
                        !values.is_empty()
                            && values.iter().all(|v| v
                                .as_str()
                                .unwrap()
                                .starts_with(req["argument"]["value"].as_str().unwrap())),
                        "{what}"
                    );
                } else {
                    assert_eq!(
                        ours["completion"]["values"], golden["response"]["completion"]["values"],
                        "{what}"
                    );
                }
            } else {
                let name = req["name"].as_str().unwrap();
                let text = h.call(name, req["arguments"].clone()).await;
                assert_eq!(
                    json!(text),
                    golden["response"]["content"][0]["text"],
                    "{what}"
                );
            }
        }
    }
}
