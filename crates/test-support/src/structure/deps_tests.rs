use super::*;

fn dep(name: &str, kind: DepKind) -> Dependency {
    Dependency {
        name: name.to_owned(),
        rename: None,
        kind,
        optional: false,
        target: None,
    }
}

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: PathBuf::from(path),
        text: text.to_owned(),
    }
}

fn roots(text: &str) -> Vec<String> {
    path_roots(&tokenize(text)).into_iter().collect()
}

#[test]
fn one_unused_dependency_is_reported_by_name() {
    let deps = [
        dep("serde-json", DepKind::Normal),
        dep("anyhow", DepKind::Normal),
    ];
    let files = [file(
        "src/lib.rs",
        "pub fn f() -> serde_json::Value { todo() }",
    )];
    let unused = unused_dependencies(&deps, &files);
    assert_eq!(
        unused,
        vec![UnusedDependency {
            name: "anyhow".into(),
            crate_name: "anyhow".into(),
            kind: DepKind::Normal,
        }]
    );
    assert_eq!(
        unused[0].to_string(),
        "[dependencies] declares `anyhow`, but no path in the package's code starts with \
         `anyhow::` (or `use anyhow`); remove it, move it to the section that uses it, or \
         allow-list it with a reason"
    );
}

#[test]
fn path_roots_use_and_extern_crate_name_a_crate() {
    assert_eq!(
        roots(
            "use tokio::sync; use regex; extern crate libc; #[serde_json::x] \
             fn f() { ::base64::x(); let v: Vec<sha2::D> = hex::encode(); }"
        ),
        [
            "base64",
            "hex",
            "libc",
            "regex",
            "serde_json",
            "sha2",
            "tokio"
        ]
    );
}

#[test]
fn inner_segments_comments_and_strings_do_not_name_a_crate() {
    assert_eq!(
        roots(
            "// tokio::spawn\n/* regex::Regex */ fn f() { crate::http::get(); a::b::c(); \
             let s = \"hex::encode\"; <T>::libc::x(); }"
        ),
        ["a", "crate"]
    );
}

#[test]
fn each_section_is_checked_against_its_own_sources() {
    let deps = [
        dep("tempfile", DepKind::Normal),
        dep("criterion", DepKind::Dev),
        dep("insta", DepKind::Dev),
        dep("cc", DepKind::Build),
    ];
    let files = [
        // A normal dependency named only by tests does not count as used.
        file("src/store_tests.rs", "use tempfile::TempDir;"),
        file("tests/all.rs", "fn t() { tempfile::tempdir(); }"),
        // A dev-dependency may be named by a unit test in src or by a bench.
        file("src/lib_tests.rs", "insta::assert_snapshot!(x);"),
        file("benches/b.rs", "use criterion::Criterion;"),
        // A build-dependency only counts in build.rs.
        file("src/lib.rs", "fn f() { cc::Build::new(); }"),
    ];
    let unused: Vec<(String, DepKind)> = unused_dependencies(&deps, &files)
        .into_iter()
        .map(|u| (u.name, u.kind))
        .collect();
    assert_eq!(
        unused,
        [
            ("tempfile".to_owned(), DepKind::Normal),
            ("cc".to_owned(), DepKind::Build)
        ]
    );
}

#[test]
fn a_renamed_dependency_is_looked_for_by_its_rename() {
    let mut renamed = dep("serde_yaml_ng", DepKind::Normal);
    renamed.rename = Some("yaml".into());
    let files = [file("src/lib.rs", "fn f() { yaml::from_str(\"\"); }")];
    assert_eq!(unused_dependencies(&[renamed], &files), Vec::new());
}

#[test]
fn source_roles_follow_the_path() {
    assert_eq!(SourceRole::of(Path::new("src/lib.rs")), SourceRole::Code);
    assert_eq!(SourceRole::of(Path::new("src/bin/x.rs")), SourceRole::Code);
    assert_eq!(
        SourceRole::of(Path::new("src/a_tests.rs")),
        SourceRole::Test
    );
    assert_eq!(SourceRole::of(Path::new("tests/all.rs")), SourceRole::Test);
    assert_eq!(SourceRole::of(Path::new("benches/b.rs")), SourceRole::Test);
    assert_eq!(SourceRole::of(Path::new("examples/e.rs")), SourceRole::Test);
    assert_eq!(SourceRole::of(Path::new("build.rs")), SourceRole::Build);
}
