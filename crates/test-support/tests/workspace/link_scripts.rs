//! The start-up linker scripts `link/build.rs` hands to release links (`link/<package>.ld`,
//! written by `scripts/link-order`): every package that names `link/build.rs` as its build
//! script has one, and each is exactly the generated shape — one output section before
//! `.text` holding function sections by name (`*(.text._ZN…17h<hash>E)`, then hash-free
//! globs `*(.text._ZN…17h*)`) — so a hand edit that could move or drop other sections, or a
//! script for a package that no longer exists, fails here rather than in a user's
//! `cargo install`. Also the order `scripts/dist.d/map_order.py` writes them in (smallest
//! session first, with the code a native run touched).

use super::{metadata, workspace_root};

const OPEN: &str = "SECTIONS {\n  .text.startup_order : {\n";
const CLOSE: &str = "  }\n}\nINSERT BEFORE .text;\n";

#[test]
fn every_release_link_script_is_a_list_of_function_sections() {
    let link = workspace_root().join("link");
    let users: Vec<String> = metadata()
        .members()
        .iter()
        .filter(|m| {
            let manifest = std::fs::read_to_string(&m.manifest_path).unwrap_or_default();
            manifest.contains("build = \"../../link/build.rs\"")
        })
        .map(|m| m.name.clone())
        .collect();
    assert!(
        users.len() >= 2,
        "coyote-cli and coolify-mcp build with link/build.rs: {users:?}"
    );
    let mut scripts: Vec<String> = std::fs::read_dir(&link)
        .expect("link/ exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".ld").map(str::to_string)
        })
        .collect();
    scripts.sort();
    let mut expected = users.clone();
    expected.sort();
    assert_eq!(
        scripts, expected,
        "one link/<package>.ld per package built with link/build.rs (run scripts/link-order)"
    );
    for package in users {
        let path = link.join(format!("{package}.ld"));
        let text = std::fs::read_to_string(&path).expect("readable");
        let body_start = text
            .find(OPEN)
            .unwrap_or_else(|| panic!("{}: no `.text.startup_order` section", path.display()))
            + OPEN.len();
        let body = text[body_start..]
            .strip_suffix(CLOSE)
            .unwrap_or_else(|| panic!("{}: does not end with INSERT BEFORE .text", path.display()));
        let lines: Vec<&str> = body.lines().collect();
        let globs = lines.iter().filter(|l| l.ends_with("17h*)")).count();
        assert!(
            lines.len() - globs > 100 && globs > 100,
            "{}: {} exact sections and {globs} globs",
            path.display(),
            lines.len() - globs
        );
        for line in lines {
            let inner = line
                .strip_prefix("    *(.text.")
                .and_then(|g| g.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{}: not a text section line: {line}", path.display()));
            // A name or a glob whose only wildcard is the trailing hash or ThinLTO's
            // `.llvm.<module hash>` suffix: nothing that could match a non-function section.
            let name = inner
                .strip_suffix("17h*")
                .or_else(|| inner.strip_suffix(".llvm.*"))
                .unwrap_or(inner);
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')),
                "{}: unexpected characters in {line}",
                path.display()
            );
        }
    }
}

/// `scripts/dist.d/map_order.py` (what `scripts/link-order` writes the scripts with) on a
/// made-up link map and three callgrind runs, smallest first: all the first run's code comes
/// first — what the other runs share before what only it ran, with the code it touched
/// natively (`RUN.native`) — then what the second run adds, then the third; globs follow the
/// exact names. (Ordered by how many runs ran it, the code only the first run ran would come
/// after what the second and third share.)
#[test]
fn map_order_lays_out_the_smallest_session_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let section = |i: usize| format!(".text._ZN4test2f{i}17h{i:016x}E");
    let mut map =
        String::from("             VMA              LMA     Size Align Out     In      Symbol\n");
    map.push_str("            1000             1000     7800    16 .text\n");
    for i in 0..120 {
        let addr = 0x1000 + i * 0x100;
        map.push_str(&format!(
            "{addr:>16x} {addr:>16x}      100    16         lib.o:({})\n",
            section(i)
        ));
    }
    std::fs::write(dir.path().join("test.map"), map).expect("map written");
    let run = |name: &str, order: &[usize]| {
        let mut text = String::from("ob=(1) /bin/app\n");
        for (n, i) in order.iter().enumerate() {
            text.push_str(&format!("fn=({}) {:#x}\n", n + 1, 0x1000 + i * 0x100 + 8));
        }
        std::fs::write(dir.path().join(name), text).expect("run written");
    };
    run("small", &[110, 105, 115]);
    std::fs::write(
        dir.path().join("small.native"),
        format!("{}\n", section(50)),
    )
    .expect("native list written");
    run("medium", &(0..10).collect::<Vec<_>>());
    run("large", &(0..120).filter(|&i| i != 115).collect::<Vec<_>>());
    let out = dir.path().join("app.ld");
    let status = std::process::Command::new("python3")
        .arg(workspace_root().join("scripts/dist.d/map_order.py"))
        .arg(dir.path().join("test.map"))
        .arg("/elsewhere/app")
        .arg(&out)
        .arg(dir.path().join("small"))
        .arg(dir.path().join("medium"))
        .arg(dir.path().join("large"))
        .status()
        .expect("python3 runs");
    assert!(status.success(), "map_order.py failed: {status}");
    let script = std::fs::read_to_string(&out).expect("script written");
    let lines: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("*(")?.strip_suffix(')'))
        .collect();
    let exact: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.ends_with("17h*"))
        .collect();
    let mut expected = vec![section(110), section(105), section(50), section(115)];
    expected.extend(
        (0..120)
            .filter(|i| ![50, 105, 110, 115].contains(i))
            .map(section),
    );
    assert_eq!(exact, expected, "exact sections in the wrong order");
    assert_eq!(lines.len(), 240, "one glob per exact name after them");
    assert_eq!(
        lines[120], ".text._ZN4test2f11017h*",
        "globs follow the same order"
    );
}
