//! Atomic file replacement: write a temp file in the target's directory, fsync, rename over
//! the target. A reader (or a crash) sees the old file or the new one, never a torn one.
//!
//! Invariants: an existing file keeps its permission bits; a new file gets the mode the caller
//! asks for (mcp.json and the trust store hold secrets or decisions: 0600). A symlinked target
//! (dotfile managers) is followed, so the link survives and the file it points to changes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{ConfigError, IoOp};

/// Mode of newly created private files.
pub(crate) const PRIVATE_FILE_MODE: u32 = 0o600;
/// Mode of directories we create (config, state).
const PRIVATE_DIR_MODE: u32 = 0o700;

/// Replaces `path` with `contents` atomically, creating missing parent directories.
pub(crate) fn write_atomic(
    path: &Path,
    contents: &[u8],
    new_file_mode: u32,
) -> Result<(), ConfigError> {
    let target = resolve_symlink(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    create_private_dir(&dir)?;
    let mode = match fs::metadata(&target) {
        Ok(meta) => file_mode(&meta).unwrap_or(new_file_mode),
        Err(_) => new_file_mode,
    };
    let io = |op: IoOp, path: &Path| {
        let path = path.to_owned();
        move |source| ConfigError::Io { path, op, source }
    };
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(io(IoOp::Write, &target))?;
    tmp.write_all(contents).map_err(io(IoOp::Write, &target))?;
    set_mode(tmp.as_file(), mode).map_err(io(IoOp::Write, &target))?;
    tmp.as_file().sync_all().map_err(io(IoOp::Write, &target))?;
    tmp.persist(&target).map_err(|e| ConfigError::Io {
        path: target.clone(),
        op: IoOp::Replace,
        source: e.error,
    })?;
    // Make the rename itself durable; failure here loses nothing already visible.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Creates `dir` (and parents) with mode 0700 where it does not exist yet.
pub(crate) fn create_private_dir(dir: &Path) -> Result<(), ConfigError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, PRIVATE_DIR_MODE);
    builder.create(dir).map_err(|source| ConfigError::Io {
        path: dir.to_owned(),
        op: IoOp::CreateDir,
        source,
    })
}

fn resolve_symlink(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
}

#[cfg(unix)]
fn file_mode(meta: &fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(meta.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn file_mode(_: &fs::Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn set_mode(file: &fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &fs::File, _: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn creates_dirs_and_private_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b/file.json");
        write_atomic(&path, b"one", PRIVATE_FILE_MODE).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        assert_eq!(mode_of(&path), 0o600);
        assert_eq!(mode_of(&tmp.path().join("a/b")), 0o700);
    }

    #[test]
    fn keeps_existing_mode_and_leaves_no_temp_files() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"new", PRIVATE_FILE_MODE).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(mode_of(&path), 0o640);
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.json")]);
    }

    #[test]
    fn follows_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.json");
        let link = tmp.path().join("link.json");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new", PRIVATE_FILE_MODE).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }
}
