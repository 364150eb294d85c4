//! Where a program is, found the way a shell finds it but without one.
//!
//! The ACP launcher resolves an agent's command and the MCP servers resolve
//! `pixi` and `nextflow` against the `PATH` the child will get, not this
//! process's. Only absolute entries of that `PATH` are searched: a relative
//! entry (`.`, an empty one, `~/bin`) would resolve against whatever folder
//! Somite happens to run in. The search itself — an executable regular
//! file, symbolic links followed — is the `which` crate's.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// An absolute `program` if it is an executable file, or a bare name's first
/// executable file in the absolute directories of `path_variable`. `None`
/// for anything else, a relative path with a separator included.
#[must_use]
pub fn find_program(program: impl AsRef<OsStr>, path_variable: Option<&OsStr>) -> Option<PathBuf> {
    let program = Path::new(program.as_ref());
    if program.is_absolute() {
        return which::which_global(program).ok();
    }
    if program.components().count() != 1 {
        return None;
    }
    let directories: Vec<PathBuf> = std::env::split_paths(path_variable?)
        .filter(|directory| directory.is_absolute())
        .collect();
    if directories.is_empty() {
        // An empty list would be searched as the current folder.
        return None;
    }
    let directories = std::env::join_paths(directories).ok()?;
    which::which_in_global(program, Some(directories))
        .ok()?
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn the_first_executable_on_the_path_wins() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        file(first.path(), "tool", 0o644);
        let found = file(second.path(), "tool", 0o755);
        std::fs::create_dir(first.path().join("dir")).unwrap();
        let path = std::env::join_paths([first.path(), second.path()]).unwrap();
        assert_eq!(find_program("tool", Some(&path)), Some(found));
        assert_eq!(find_program("dir", Some(&path)), None);
        assert_eq!(find_program("absent", Some(&path)), None);
        assert_eq!(find_program("tool", None), None);
    }

    #[test]
    fn relative_entries_and_relative_programs_are_never_searched() {
        let dir = tempfile::tempdir().unwrap();
        file(dir.path(), "tool", 0o755);
        // The current folder is not changed (tests share the process); a
        // relative entry naming the folder from here must still be ignored.
        let relative = pathdiff(dir.path());
        let path = std::env::join_paths([relative.as_path(), Path::new("")]).unwrap();
        assert_eq!(find_program("tool", Some(&path)), None);
        let with_separator = relative.join("tool");
        assert_eq!(
            find_program(&with_separator, Some(dir.path().as_os_str())),
            None
        );
    }

    #[test]
    fn an_absolute_program_is_itself_if_executable() {
        let dir = tempfile::tempdir().unwrap();
        let runnable = file(dir.path(), "runnable", 0o755);
        let plain = file(dir.path(), "plain", 0o644);
        assert_eq!(find_program(&runnable, None), Some(runnable.clone()));
        assert_eq!(find_program(&plain, None), None);
    }

    /// `target` relative to the current folder, through `..` as needed.
    fn pathdiff(target: &Path) -> PathBuf {
        let here = std::env::current_dir().unwrap();
        let up = here.components().count() - 1;
        let mut relative: PathBuf = std::iter::repeat_n("..", up).collect();
        relative.push(target.strip_prefix("/").unwrap());
        relative
    }
}
