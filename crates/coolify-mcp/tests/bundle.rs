//! The install bundles: `scripts/bundle.sh` writes a Claude Desktop bundle
//! (`.mcpb` with its `manifest.json`) and an MCP registry `server.json`. The manifest is validated
//! against the MCP Bundle schema vendored from `@anthropic-ai/mcpb` (tests/schemas/); the
//! registry schema is not reachable here, so `server.json` is checked field by field against its
//! published rules (name pattern, 100-character description, an mcpb package with the bundle's
//! SHA-256 and a stdio transport).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::sdk_peers::{run_node, sdk_script};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run the script into a fresh folder: (folder, manifest, server.json, bundle bytes).
fn build() -> (tempfile::TempDir, PathBuf, Value, Vec<u8>) {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new("bash")
        .arg(crate_dir().join("scripts/bundle.sh"))
        .args([
            "--binary",
            env!("CARGO_BIN_EXE_coolify-mcp"),
            "--version",
            "1.2.3",
        ])
        .arg("--out")
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "bundle.sh failed");
    let manifest = out.path().join("manifest.json");
    let server: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("server.json")).unwrap())
            .unwrap();
    let bundle = std::fs::read(out.path().join("coolify-mcp-1.2.3-linux-x64.mcpb")).unwrap();
    (out, manifest, server, bundle)
}

#[tokio::test]
async fn mcpb_manifest_validates_against_the_published_schema() {
    let Some(script) = sdk_script("validate-schema.mjs", "ajv-formats") else {
        return;
    };
    let (_dir, manifest, _, bundle) = build();
    let schema = crate_dir().join("tests/schemas/mcpb-manifest-v0.3.schema.json");
    let v = run_node(
        &script,
        &[schema.to_str().unwrap(), manifest.to_str().unwrap()],
    )
    .await;
    assert_eq!(v["valid"], true, "{v}");
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(m["version"], "1.2.3");
    assert_eq!(m["server"]["entry_point"], "server/coolify-mcp");
    assert_eq!(m["user_config"]["coolify_access_token"]["sensitive"], true);
    // The schema can fail: a manifest without its server is refused.
    let mut broken = m.clone();
    broken.as_object_mut().unwrap().remove("server");
    let bad = manifest.with_file_name("broken.json");
    std::fs::write(&bad, broken.to_string()).unwrap();
    let v = run_node(&script, &[schema.to_str().unwrap(), bad.to_str().unwrap()]).await;
    assert_eq!(v["valid"], false, "{v}");
    // A zip holding the manifest and the binary at the entry point.
    assert!(bundle.starts_with(b"PK\x03\x04"));
    let names = String::from_utf8_lossy(&bundle);
    assert!(names.contains("manifest.json") && names.contains("server/coolify-mcp"));
}

#[test]
fn registry_server_json_names_the_bundle_by_hash() {
    let (_dir, _, s, bundle) = build();
    assert_eq!(
        s["$schema"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    let name = s["name"].as_str().unwrap();
    let (namespace, server) = name.split_once('/').unwrap();
    assert!(
        !namespace.is_empty()
            && namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            && !server.contains('/'),
        "{name}"
    );
    let description = s["description"].as_str().unwrap();
    assert!((1..=100).contains(&description.chars().count()));
    assert_eq!(s["version"], "1.2.3");
    let p = &s["packages"][0];
    assert_eq!(p["registryType"], "mcpb");
    assert_eq!(p["version"], "1.2.3");
    assert_eq!(p["transport"]["type"], "stdio");
    assert!(
        p["identifier"]
            .as_str()
            .unwrap()
            .ends_with("/v1.2.3/coolify-mcp-1.2.3-linux-x64.mcpb")
    );
    let sha: String = Sha256::digest(&bundle)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(p["fileSha256"], sha);
    let vars: Vec<&str> = p["environmentVariables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(vars, ["COOLIFY_BASE_URL", "COOLIFY_ACCESS_TOKEN"]);
    assert_eq!(p["environmentVariables"][1]["isSecret"], true);
}
