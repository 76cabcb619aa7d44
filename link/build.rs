//! The build script of `coyote` and `coolify-mcp` (both name this file in their
//! Cargo.toml). Release links (`dist` counts as release) for x86_64-unknown-linux-gnu with its
//! default linker, rust-lld, lay out the code a typical session runs first:
//! `link/<package>.ld` (written by `scripts/link-order`) moves those functions into one output
//! section before `.text` — first by their exact section names in the build `cargo install`
//! makes from this checkout, then, for any other build (another toolchain, other features),
//! by hash-free globs that catch every instantiation of them. The kernel maps executable pages
//! 64 KiB around each fault, so start-up code gathered on a few pages keeps the resident set
//! small; spread over the whole text it makes most of it resident. Native builds against glibc
//! 2.36 or later also pack their relative relocations (`-z pack-relative-relocs`, DT_RELR): the
//! loader then reads a few KiB instead of a `.rela.dyn` of most of a MiB at every start.
//! Other profiles and targets, flags that pick another linker (mold has no linker scripts),
//! and `COYOTE_LINK_ORDER=0` link as usual. `COYOTE_LINK_MAP=DIR` also writes the link map
//! (`DIR/<package>.map`, symbols not demangled) that `scripts/link-order` reads.
use std::path::Path;
use std::process::Command;

/// glibc's version on the build host (`getconf GNU_LIBC_VERSION` → `glibc 2.36`).
fn host_glibc() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let (major, minor) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

fn main() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let script = Path::new(&var("CARGO_MANIFEST_DIR"))
        .join("../../link")
        .join(format!("{}.ld", var("CARGO_PKG_NAME")));
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-env-changed=COYOTE_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=COYOTE_LINK_MAP");
    // x86_64-unknown-linux-gnu links with rust-lld by default (Rust 1.90+); a build that
    // chose another linker (mold has no linker scripts) links as usual.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let other_linker = flags.split('\x1f').any(|f| {
        (f.contains("fuse-ld=") && !f.contains("fuse-ld=lld")) || f.starts_with("linker=")
    });
    let wanted = var("PROFILE") == "release"
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && var("COYOTE_LINK_ORDER") != "0"
        && !other_linker;
    if !wanted {
        return;
    }
    if script.is_file() {
        println!("cargo:rustc-link-arg-bins=-T");
        println!("cargo:rustc-link-arg-bins={}", script.display());
    }
    // `scripts/link-order` asks for the link map, which names the section at each address of
    // the stripped binary it runs under callgrind.
    let map_dir = var("COYOTE_LINK_MAP");
    if !map_dir.is_empty() {
        let map = Path::new(&map_dir).join(format!("{}.map", var("CARGO_PKG_NAME")));
        println!("cargo:rustc-link-arg-bins=-Wl,-Map={}", map.display());
        println!("cargo:rustc-link-arg-bins=-Wl,--no-demangle");
    }
    // The binary runs where it is built only in a native build; it then needs the loader
    // support that came with glibc 2.36.
    if var("HOST") == var("TARGET") && host_glibc() >= Some((2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
