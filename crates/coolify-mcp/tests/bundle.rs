//! The install bundles: `scripts/bundle.sh` writes a Claude Desktop bundle
//! (`.mcpb` with its `manifest.json`) and an MCP registry `server.json`. The manifest is validated
//! against the MCP Bundle schema vendored from `@anthropic-ai/mcpb` (tests/schemas/); the
//! registry schema is not reachable here, so `server.json` is checked field by field against its
//! published rules (name pattern, 100-character description, an mcpb package with the bundle's
//! SHA-256 and a stdio transport). The official `mcpb` tool (npm `@anthropic-ai/mcpb`) unpacks,
//! validates and cleans the bundle; the registry inputs (name, repository, download URL) are
//! validated and placeholders refused.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::sdk_peers::{run_node, sdk_script};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const PUBLISH: [&str; 4] = [
    "--name",
    "io.github.acme/coolify-mcp",
    "--repository",
    "https://github.com/acme/coyote",
];

/// Run the script into a fresh folder with `extra` arguments: (exit code, folder, stderr).
fn run_script(extra: &[&str]) -> (Option<i32>, tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let output = Command::new("bash")
        .arg(crate_dir().join("scripts/bundle.sh"))
        .args([
            "--binary",
            env!("CARGO_BIN_EXE_coolify-mcp"),
            "--version",
            "1.2.3",
        ])
        .arg("--out")
        .arg(out.path())
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), out, stderr)
}

/// Run the script with the publishing inputs: (folder, manifest, server.json, bundle bytes).
fn build() -> (tempfile::TempDir, PathBuf, Value, Vec<u8>) {
    let (code, out, stderr) = run_script(&PUBLISH);
    assert_eq!(code, Some(0), "bundle.sh failed: {stderr}");
    let manifest = out.path().join("manifest.json");
    let server: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("server.json")).unwrap())
            .unwrap();
    let bundle = std::fs::read(out.path().join("coolify-mcp-1.2.3-linux-x64.mcpb")).unwrap();
    (out, manifest, server, bundle)
}

/// The names in a zip's central directory.
fn zip_entries(zip: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut i = 0;
    while i + 46 <= zip.len() {
        if zip[i..i + 4] == *b"PK\x01\x02" {
            let field = |at: usize| usize::from(u16::from_le_bytes([zip[i + at], zip[i + at + 1]]));
            let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
            names.push(String::from_utf8_lossy(&zip[i + 46..i + 46 + name_len]).into_owned());
            i += 46 + name_len + extra_len + comment_len;
        } else {
            i += 1;
        }
    }
    names
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
    assert_eq!(
        p["identifier"],
        "https://github.com/acme/coyote/releases/download/v1.2.3/coolify-mcp-1.2.3-linux-x64.mcpb"
    );
    assert_eq!(s["name"], "io.github.acme/coolify-mcp");
    assert_eq!(
        s["repository"],
        serde_json::json!({"url": "https://github.com/acme/coyote", "source": "github"})
    );
    assert!(!s.to_string().contains("example.invalid"), "{s}");
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

#[test]
fn the_mcpb_holds_file_entries_only() {
    let (_dir, _, _, bundle) = build();
    // A `server/` directory entry makes the official mcpb tool fail (EISDIR) and `mcpb clean`
    // drop the binary.
    assert_eq!(
        zip_entries(&bundle),
        ["manifest.json", "server/coolify-mcp"]
    );
}

#[tokio::test]
async fn the_official_mcpb_tool_unpacks_validates_and_cleans_the_bundle() {
    let root = crate_dir().join("../..");
    let cli = root.join("node_modules/@anthropic-ai/mcpb/dist/cli/cli.js");
    if sdk_script("validate-schema.mjs", "@anthropic-ai/mcpb").is_none() {
        return;
    }
    let (dir, manifest, _, _) = build();
    let mcpb = |args: Vec<&std::ffi::OsStr>| {
        let out = Command::new("node").arg(&cli).args(args).output().unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), all)
    };
    let bundle = dir.path().join("coolify-mcp-1.2.3-linux-x64.mcpb");
    let (ok, all) = mcpb(vec!["validate".as_ref(), manifest.as_os_str()]);
    assert!(ok, "{all}");
    for (label, file) in [
        ("as built", bundle.clone()),
        ("after mcpb clean", {
            let copy = dir.path().join("cleaned.mcpb");
            std::fs::copy(&bundle, &copy).unwrap();
            let (ok, all) = mcpb(vec!["clean".as_ref(), copy.as_os_str()]);
            assert!(ok, "{all}");
            copy
        }),
    ] {
        let unpacked = dir.path().join(format!("unpacked-{}", label.len()));
        let (ok, all) = mcpb(vec![
            "unpack".as_ref(),
            file.as_os_str(),
            unpacked.as_os_str(),
        ]);
        assert!(ok, "{label}: {all}");
        let binary = unpacked.join("server/coolify-mcp");
        let meta = std::fs::metadata(&binary).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(
            meta.len(),
            std::fs::metadata(env!("CARGO_BIN_EXE_coolify-mcp"))
                .unwrap()
                .len(),
            "{label}"
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            meta.permissions().mode() & 0o111,
            0o111,
            "{label}: executable"
        );
    }
}

#[test]
fn registry_inputs_are_validated_and_placeholders_refused() {
    // Without --name: the bundle and its manifest, no server.json, no placeholder anywhere.
    let (code, dir, stderr) = run_script(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!dir.path().join("server.json").exists());
    let manifest = std::fs::read_to_string(dir.path().join("manifest.json")).unwrap();
    assert!(!manifest.contains("example.invalid"), "{manifest}");
    for (args, says) in [
        (
            vec!["--name", "io.github.acme/coolify-mcp"],
            "--name needs --repository",
        ),
        (
            vec![
                "--name",
                "io.github.acme/coolify-mcp",
                "--repository",
                "https://example.invalid/coyote",
            ],
            "must be the public https URL of the source repository",
        ),
        (
            vec![
                "--name",
                "io.github.someone-else/coolify-mcp",
                "--repository",
                "https://github.com/acme/coyote",
            ],
            "--repository must be https://github.com/someone-else/",
        ),
        (
            [&PUBLISH[..], &["--url", "http://downloads.acme.dev/c.mcpb"]].concat(),
            "must be the public https download URL",
        ),
        (
            [&PUBLISH[..], &["--url", "https://example.com/c.mcpb"]].concat(),
            "must be the public https download URL",
        ),
        (
            vec!["--name", "no-namespace"],
            "must look like NAMESPACE/NAME",
        ),
        (
            vec!["--url", "https://downloads.acme.dev/c.mcpb"],
            "pass --name",
        ),
    ] {
        let (code, dir, stderr) = run_script(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{args:?}: nothing is written"
        );
    }
}
