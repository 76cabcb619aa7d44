use super::*;

/// A trimmed `cargo metadata` answer: workspace `app` and `lib`, dependency `ext`.
const SAMPLE: &str = r#"{
  "workspace_root": "/w",
  "workspace_members": ["path+file:///w/app#0.1.0", "path+file:///w/lib#0.1.0"],
  "packages": [
    {"id": "path+file:///w/app#0.1.0", "name": "app", "version": "0.1.0",
     "rust_version": "1.90", "manifest_path": "/w/app/Cargo.toml",
     "dependencies": [
       {"name": "lib", "rename": null, "kind": null, "optional": false, "target": null},
       {"name": "ext", "rename": "e", "kind": "dev", "optional": false, "target": null}
     ],
     "targets": [{"name": "app", "kind": ["bin"], "src_path": "/w/app/src/main.rs"}]},
    {"id": "path+file:///w/lib#0.1.0", "name": "lib", "version": "0.1.0",
     "rust_version": "1.90", "manifest_path": "/w/lib/Cargo.toml", "dependencies": [],
     "targets": []},
    {"id": "registry+x#ext@2.0.0", "name": "ext", "version": "2.0.0",
     "rust_version": "1.95.0", "manifest_path": "/r/ext/Cargo.toml", "dependencies": [],
     "targets": []},
    {"id": "registry+x#old@1.0.0", "name": "old", "version": "1.0.0",
     "rust_version": null, "manifest_path": "/r/old/Cargo.toml", "dependencies": [],
     "targets": []}
  ],
  "resolve": {"nodes": [
    {"id": "path+file:///w/app#0.1.0", "deps": [
      {"pkg": "path+file:///w/lib#0.1.0", "dep_kinds": [{"kind": null}]},
      {"pkg": "registry+x#ext@2.0.0", "dep_kinds": [{"kind": "dev"}, {"kind": null}]}
    ]},
    {"id": "path+file:///w/lib#0.1.0", "deps": []},
    {"id": "registry+x#ext@2.0.0", "deps": [
      {"pkg": "registry+x#old@1.0.0", "dep_kinds": [{"kind": "build"}]}
    ]}
  ]}
}"#;

fn sample() -> Metadata {
    serde_json::from_str(SAMPLE).unwrap()
}

#[test]
fn members_and_declared_dependencies_are_read() {
    let m = sample();
    let names: Vec<&str> = m.members().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["app", "lib"]);
    let app = m.members()[0];
    let deps: Vec<(String, DepKind)> = app
        .dependencies
        .iter()
        .map(|d| (d.crate_name(), d.kind))
        .collect();
    assert_eq!(
        deps,
        [
            ("lib".to_owned(), DepKind::Normal),
            ("e".to_owned(), DepKind::Dev)
        ]
    );
}

#[test]
fn the_highest_dependency_rust_version_ignores_the_workspace() {
    let m = sample();
    let (version, package) = m.highest_dependency_rust_version().unwrap();
    assert_eq!(
        (version.to_string(), package.name.as_str()),
        ("1.95.0".to_owned(), "ext")
    );
    assert_eq!(RustVersion::parse("1.95"), RustVersion::parse("1.95.0"));
    assert!(RustVersion::parse("1.95") > RustVersion::parse("1.88"));
    assert_eq!(RustVersion::parse("1.x"), None);
}

#[test]
fn the_crate_graph_names_edges_by_package_with_every_section() {
    let g = sample().crate_graph().unwrap();
    assert_eq!(
        g.workspace,
        ["app", "lib"].iter().map(|s| (*s).to_owned()).collect()
    );
    let app: Vec<(&str, DepKind)> = g.edges["app"]
        .iter()
        .map(|e| (e.to.as_str(), e.kind))
        .collect();
    assert_eq!(
        app,
        [
            ("lib", DepKind::Normal),
            ("ext", DepKind::Dev),
            ("ext", DepKind::Normal)
        ]
    );
    assert_eq!(g.edges["ext"][0].kind, DepKind::Build);
}

#[test]
fn metadata_without_a_resolve_graph_is_an_error() {
    let mut m = sample();
    m.resolve = None;
    assert!(matches!(m.crate_graph(), Err(MetadataError::NoResolve)));
}
