//! Confining agent-supplied paths to one workspace root.
//!
//! Every path a tool accepts names something inside the root the server was
//! started with (`--workspace-root`). A path is rejected when it contains a
//! `..` component, is absolute and outside the root, crosses a symbolic link
//! at any component (an in-root link could point anywhere, and following none
//! is the rule that is easy to state and to check), names a special file, or
//! names a regular file with more than one hard link (its other name may be
//! outside the root, and a write through this one would change that file).
//!
//! Checking a path string and opening it by name later is a race: an agent
//! that swaps a directory for a link in between redirects the open. So the
//! root is opened once, when the server starts, as a directory handle, and
//! every lookup walks the path one component at a time with `openat`
//! relative to the handle of the previous component, never following a link
//! (`O_PATH | O_NOFOLLOW`; a link opens as itself and is refused). What a
//! caller gets back, [`Confined`], holds the handle of the entry it checked,
//! and everything the server itself creates or writes beneath the root
//! ([`WorkspaceRoot::create_dir_all`], [`WorkspaceRoot::publish`]) is
//! `mkdirat`/`openat`/`renameat` relative to such handles. The component walk
//! gives what `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` gives (`..` is
//! refused before any lookup) on every kernel, and names the offending link.
//!
//! A child process (Pixi, Nextflow) is given a path string and resolves it
//! itself, so the handle cannot protect what the child does with it later:
//! tools that let a child write somewhere the agent chose have it write into
//! a private directory and [`publish`](WorkspaceRoot::publish) the result.

use crate::envelope::ToolError;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use somite_api::{DomainCode, ErrorCode, ToolCode};
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A canonical directory, held open, that every tool path must stay inside.
#[derive(Debug, Clone)]
pub struct WorkspaceRoot {
    root: PathBuf,
    dir: Arc<OwnedFd>,
}

/// An entry beneath the root that passed every check, held open so that
/// later operations relative to it cannot be redirected by a rename.
#[derive(Debug)]
pub struct Confined {
    path: PathBuf,
    handle: OwnedFd,
    directory: bool,
}

impl Confined {
    /// The entry's path below the canonical root, for a child process and
    /// for display.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn is_dir(&self) -> bool {
        self.directory
    }
}

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("workspace root {path} is not a directory that can be opened: {source}")]
    Root { path: PathBuf, source: io::Error },
    #[error("path {requested:?} contains a `..` component")]
    ParentComponent { requested: String },
    #[error("path {requested:?} is absolute and outside the workspace root")]
    OutsideRoot { requested: String },
    #[error("path {requested:?} crosses the symbolic link {link}")]
    Symlink { requested: String, link: PathBuf },
    #[error("path {requested:?} is a file with more than one hard link ({path})")]
    HardLink { requested: String, path: PathBuf },
    #[error("path {requested:?} is neither a regular file nor a directory ({path})")]
    Special { requested: String, path: PathBuf },
    #[error("path {requested:?} is not a directory")]
    NotADirectory { requested: String },
    #[error("path {requested:?} contains a NUL byte")]
    Nul { requested: String },
    #[error("path {requested:?} does not exist in the workspace")]
    Missing { requested: String },
    #[error("path {requested:?} cannot be inspected: {source}")]
    Inspect {
        requested: String,
        source: io::Error,
    },
    #[error("cannot write {path} in the workspace: {source}")]
    Write { path: PathBuf, source: io::Error },
}

impl From<ConfineError> for ToolError {
    fn from(error: ConfineError) -> Self {
        let (code, recovery): (ErrorCode, _) = match &error {
            ConfineError::Missing { .. } => (
                DomainCode::NotFound.into(),
                "Pass a path relative to the workspace root that exists.",
            ),
            ConfineError::Write { .. } => (
                ToolCode::WriteFailed.into(),
                "Check the free space and permissions of the workspace, then retry.",
            ),
            ConfineError::HardLink { .. } => (
                ToolCode::PathRejected.into(),
                "Replace the hard-linked file by a copy of its own (e.g. `cp --remove-destination`), then retry.",
            ),
            ConfineError::NotADirectory { .. } => (
                ToolCode::PathRejected.into(),
                "Pass a directory relative to the workspace root.",
            ),
            _ => (
                ToolCode::PathRejected.into(),
                "Pass a path relative to the workspace root, without `..` and without symbolic links.",
            ),
        };
        ToolError::new(code, error.to_string(), recovery)
    }
}

/// `O_PATH` opens an entry without reading it (so a FIFO cannot block) and
/// with `O_NOFOLLOW` opens a symbolic link as itself, which `fstat` reports.
const LOOKUP: OFlags = OFlags::PATH.union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// Files the server publishes are readable by the user's other tools.
const FILE_MODE: u32 = 0o644;
const DIR_MODE: u32 = 0o755;

fn file_type(stat: &Stat) -> FileType {
    FileType::from_raw_mode(stat.st_mode)
}

impl WorkspaceRoot {
    /// Opens `path` as the root: it must exist and be a directory.
    pub fn open(path: &Path) -> Result<Self, ConfineError> {
        let fail = |source| ConfineError::Root {
            path: path.to_path_buf(),
            source,
        };
        let root = path.canonicalize().map_err(fail)?;
        let dir = rustix::fs::open(
            &root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| fail(errno.into()))?;
        Ok(Self {
            root,
            dir: Arc::new(dir),
        })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Resolves a path that must already exist inside the root: a directory,
    /// or a regular file with one link.
    pub fn existing(&self, requested: &str) -> Result<Confined, ConfineError> {
        self.walk(requested, false)
    }

    /// Resolves a directory inside the root, creating the components that do
    /// not exist yet (an output directory).
    pub fn create_dir_all(&self, requested: &str) -> Result<Confined, ConfineError> {
        let confined = self.walk(requested, true)?;
        if !confined.directory {
            return Err(ConfineError::NotADirectory {
                requested: requested.to_owned(),
            });
        }
        Ok(confined)
    }

    /// The existing entry `name` (one plain component) of `dir`, a
    /// directory this root resolved.
    pub fn child(&self, dir: &Confined, name: &str) -> Result<Confined, ConfineError> {
        let path = dir.path.join(name);
        let requested = self.display_relative(&path);
        if matches!(name, "" | "." | "..") || name.contains('/') {
            return Err(ConfineError::OutsideRoot { requested });
        }
        self.step(&requested, dir, &path, OsStr::new(name), false)?
            .ok_or(ConfineError::Missing { requested })
    }

    /// Refuses `names` inside `dir` that exist as a symbolic link, a
    /// hard-linked file or a special file: the files a child process reads
    /// or writes there by its own choice (a manifest, a lock file, its state
    /// directory), which no tool argument names.
    pub fn check_members(&self, dir: &Confined, names: &[&str]) -> Result<(), ConfineError> {
        for name in names {
            let path = dir.path.join(name);
            let requested = self.display_relative(&path);
            match rustix::fs::statat(&dir.handle, *name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => check_entry(&requested, &path, &stat)?,
                Err(rustix::io::Errno::NOENT) => {}
                Err(errno) => {
                    return Err(ConfineError::Inspect {
                        requested,
                        source: errno.into(),
                    });
                }
            }
        }
        Ok(())
    }

    fn walk(&self, requested: &str, create: bool) -> Result<Confined, ConfineError> {
        if requested.contains('\0') {
            return Err(ConfineError::Nul {
                requested: requested.to_owned(),
            });
        }
        let relative = self.relative_part(requested)?;
        let inspect = |errno: rustix::io::Errno| ConfineError::Inspect {
            requested: requested.to_owned(),
            source: errno.into(),
        };
        let mut current = Confined {
            path: self.root.clone(),
            handle: rustix::fs::openat(&*self.dir, ".", LOOKUP, Mode::empty()).map_err(inspect)?,
            directory: true,
        };
        for component in relative.components() {
            let name = match component {
                Component::CurDir => continue,
                Component::Normal(name) => name,
                Component::ParentDir => {
                    return Err(ConfineError::ParentComponent {
                        requested: requested.to_owned(),
                    });
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ConfineError::OutsideRoot {
                        requested: requested.to_owned(),
                    });
                }
            };
            let path = current.path.join(name);
            current = self
                .step(requested, &current, &path, name, create)?
                .ok_or_else(|| ConfineError::Missing {
                    requested: requested.to_owned(),
                })?;
        }
        Ok(current)
    }

    /// Opens `name` relative to `parent` without following a link, creating
    /// it as a directory first when `create` is set and it is absent.
    /// `None`: it does not exist.
    fn step(
        &self,
        requested: &str,
        parent: &Confined,
        path: &Path,
        name: &OsStr,
        create: bool,
    ) -> Result<Option<Confined>, ConfineError> {
        let inspect = |errno: rustix::io::Errno| ConfineError::Inspect {
            requested: requested.to_owned(),
            source: errno.into(),
        };
        if !parent.directory {
            return Err(ConfineError::NotADirectory {
                requested: requested.to_owned(),
            });
        }
        let handle = match rustix::fs::openat(&parent.handle, name, LOOKUP, Mode::empty()) {
            Ok(handle) => handle,
            Err(rustix::io::Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&parent.handle, name, Mode::from_raw_mode(DIR_MODE)) {
                    // Another process creating it first is fine: what is
                    // there now is opened and checked like anything else.
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(errno) => {
                        return Err(ConfineError::Write {
                            path: path.to_path_buf(),
                            source: errno.into(),
                        });
                    }
                }
                rustix::fs::openat(&parent.handle, name, LOOKUP, Mode::empty()).map_err(inspect)?
            }
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(errno) => return Err(inspect(errno)),
        };
        let stat = rustix::fs::fstat(&handle).map_err(inspect)?;
        check_entry(requested, path, &stat)?;
        Ok(Some(Confined {
            path: path.to_path_buf(),
            handle,
            directory: file_type(&stat) == FileType::Directory,
        }))
    }

    /// Copies every regular file below `from` (a private directory only the
    /// server writes to) into `into`, a directory this root resolved, and
    /// returns the published paths relative to the root, sorted.
    ///
    /// Each file is written under a fresh name created with `O_EXCL |
    /// O_NOFOLLOW` and then renamed over its destination, so a link or a
    /// hard-linked file planted at the destination is replaced, never
    /// written through; one found there is still refused, because the agent
    /// asked for something the root's rules forbid. Subdirectories are made
    /// and entered with the same no-follow walk as every lookup.
    pub fn publish(&self, from: &Path, into: &Confined) -> Result<Vec<String>, ConfineError> {
        let mut published = Vec::new();
        self.publish_dir(from, into, &mut published)?;
        published.sort();
        Ok(published)
    }

    fn publish_dir(
        &self,
        from: &Path,
        into: &Confined,
        published: &mut Vec<String>,
    ) -> Result<(), ConfineError> {
        let read = |source| ConfineError::Write {
            path: from.to_path_buf(),
            source,
        };
        for entry in std::fs::read_dir(from).map_err(read)? {
            let entry = entry.map_err(read)?;
            let kind = entry.file_type().map_err(read)?;
            let name = entry.file_name();
            let target = into.path.join(&name);
            let requested = self.display_relative(&target);
            if kind.is_dir() {
                let dir = self
                    .step(&requested, into, &target, &name, true)?
                    .ok_or_else(|| ConfineError::Missing {
                        requested: requested.clone(),
                    })?;
                if !dir.directory {
                    return Err(ConfineError::NotADirectory { requested });
                }
                self.publish_dir(&entry.path(), &dir, published)?;
            } else if kind.is_file() {
                publish_file(&entry.path(), into, &name, &target, &requested)?;
                published.push(requested);
            } else {
                // The tool made a link or a special file: nothing the agent
                // should receive through the root.
                return Err(ConfineError::Special {
                    requested,
                    path: entry.path(),
                });
            }
        }
        Ok(())
    }

    /// The part of `requested` below the root: itself when relative, the
    /// remainder when absolute and inside the root.
    fn relative_part<'a>(&self, requested: &'a str) -> Result<&'a Path, ConfineError> {
        let path = Path::new(requested);
        if !path.is_absolute() {
            return Ok(path);
        }
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(ConfineError::ParentComponent {
                requested: requested.to_owned(),
            });
        }
        path.strip_prefix(&self.root)
            .map_err(|_| ConfineError::OutsideRoot {
                requested: requested.to_owned(),
            })
    }

    /// `path` relative to the root, for display in results.
    pub fn display_relative(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Refuses a link, a hard-linked regular file, or a special file.
fn check_entry(requested: &str, path: &Path, stat: &Stat) -> Result<(), ConfineError> {
    match file_type(stat) {
        FileType::Directory => Ok(()),
        FileType::RegularFile if stat.st_nlink > 1 => Err(ConfineError::HardLink {
            requested: requested.to_owned(),
            path: path.to_path_buf(),
        }),
        FileType::RegularFile => Ok(()),
        FileType::Symlink => Err(ConfineError::Symlink {
            requested: requested.to_owned(),
            link: path.to_path_buf(),
        }),
        _ => Err(ConfineError::Special {
            requested: requested.to_owned(),
            path: path.to_path_buf(),
        }),
    }
}

/// Writes `source` to `name` in `into` through a fresh file and a rename.
fn publish_file(
    source: &Path,
    into: &Confined,
    name: &OsStr,
    target: &Path,
    requested: &str,
) -> Result<(), ConfineError> {
    let write = |source: io::Error| ConfineError::Write {
        path: target.to_path_buf(),
        source,
    };
    // A directory in the way passes here and makes the rename fail.
    match rustix::fs::statat(&into.handle, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => check_entry(requested, target, &stat)?,
        Err(rustix::io::Errno::NOENT) => {}
        Err(errno) => return Err(write(errno.into())),
    }
    let mut from = File::open(source).map_err(write)?;
    let partial = partial_name(name);
    let handle = rustix::fs::openat(
        &into.handle,
        &partial,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(FILE_MODE),
    )
    .map_err(|errno| write(errno.into()))?;
    let mut to = File::from(handle);
    let written = io::copy(&mut from, &mut to)
        .and_then(|_| to.sync_all())
        .and_then(|()| {
            rustix::fs::renameat(&into.handle, &partial, &into.handle, name).map_err(Into::into)
        });
    if let Err(error) = written {
        // The partial file is ours alone; a failure to remove it leaves a
        // dot-file behind, which is not worth hiding the first error for.
        let _ = rustix::fs::unlinkat(&into.handle, &partial, AtFlags::empty());
        return Err(write(error));
    }
    Ok(())
}

/// A name no other publication uses at the same time: the process id and a
/// per-process counter, hidden as a dot-file.
fn partial_name(name: &OsStr) -> std::ffi::OsString {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let sequence = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut partial = std::ffi::OsString::from(".");
    partial.push(name);
    partial.push(format!(".{}-{sequence}.somite-partial", std::process::id()));
    partial
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn workspace() -> (tempfile::TempDir, WorkspaceRoot) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("project/sub")).expect("mkdir");
        std::fs::write(dir.path().join("project/main.nf"), "workflow {}").expect("write");
        let root = WorkspaceRoot::open(dir.path()).expect("root");
        (dir, root)
    }

    #[test]
    fn relative_paths_inside_the_root_resolve() {
        let (_dir, root) = workspace();
        let resolved = root.existing("project/main.nf").expect("inside");
        assert_eq!(resolved.path(), root.path().join("project/main.nf"));
        assert!(!resolved.is_dir());
        assert_eq!(root.existing(".").expect("root").path(), root.path());
        assert!(root.existing("").expect("root").is_dir());
    }

    #[test]
    fn parent_components_are_rejected_even_when_they_stay_inside() {
        let (_dir, root) = workspace();
        for path in [
            "../etc",
            "project/../project/main.nf",
            "project/sub/../../..",
        ] {
            assert!(
                matches!(
                    root.existing(path),
                    Err(ConfineError::ParentComponent { .. })
                ),
                "{path}"
            );
        }
    }

    #[test]
    fn absolute_paths_are_accepted_only_inside_the_root() {
        let (_dir, root) = workspace();
        assert!(matches!(
            root.existing("/etc/passwd"),
            Err(ConfineError::OutsideRoot { .. })
        ));
        let inside = root.path().join("project/main.nf");
        let inside = inside.to_str().expect("utf-8 temp path");
        assert!(root.existing(inside).is_ok());
    }

    #[test]
    fn symbolic_links_are_rejected_wherever_they_point() {
        let (dir, root) = workspace();
        symlink("/etc", dir.path().join("escape")).expect("symlink");
        symlink(dir.path().join("project"), dir.path().join("alias")).expect("symlink");
        symlink("nowhere", dir.path().join("dangling")).expect("symlink");
        for path in ["escape", "escape/passwd", "alias/main.nf", "dangling"] {
            assert!(
                matches!(root.existing(path), Err(ConfineError::Symlink { .. })),
                "{path}"
            );
        }
        for path in ["escape/new-dir", "dangling/new-dir"] {
            assert!(
                matches!(root.create_dir_all(path), Err(ConfineError::Symlink { .. })),
                "{path}"
            );
        }
        assert!(!Path::new("/etc/new-dir").exists());
    }

    #[test]
    fn a_hard_link_to_a_file_outside_the_root_is_refused() {
        let (dir, root) = workspace();
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("secret.nf"), "secret").expect("write");
        std::fs::hard_link(
            outside.path().join("secret.nf"),
            dir.path().join("project/linked.nf"),
        )
        .expect("hard link");
        let refused = root.existing("project/linked.nf");
        assert!(
            matches!(refused, Err(ConfineError::HardLink { .. })),
            "{refused:?}"
        );
        let envelope = ToolError::from(refused.expect_err("refused"));
        assert_eq!(envelope.code, ToolCode::PathRejected);
        let project = root.existing("project").expect("project");
        assert!(matches!(
            root.check_members(&project, &["main.nf", "linked.nf"]),
            Err(ConfineError::HardLink { .. })
        ));
        assert!(root.check_members(&project, &["main.nf", "absent"]).is_ok());
    }

    #[test]
    fn special_files_are_refused() {
        let (dir, root) = workspace();
        let socket = dir.path().join("project/daemon.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        assert!(matches!(
            root.existing("project/daemon.sock"),
            Err(ConfineError::Special { .. })
        ));
    }

    #[test]
    fn missing_paths_are_reported_and_output_directories_created() {
        let (dir, root) = workspace();
        assert!(matches!(
            root.existing("project/absent.nf"),
            Err(ConfineError::Missing { .. })
        ));
        let created = root.create_dir_all("project/out/envs").expect("created");
        assert_eq!(created.path(), root.path().join("project/out/envs"));
        assert!(dir.path().join("project/out/envs").is_dir());
        assert!(matches!(
            root.create_dir_all("project/main.nf"),
            Err(ConfineError::NotADirectory { .. })
        ));
    }

    #[test]
    fn a_lookup_holds_the_entry_it_checked() {
        // Swapping the directory for a link after the lookup does not move
        // what the handle refers to.
        let (dir, root) = workspace();
        let outside = tempfile::tempdir().expect("outside");
        let out = root.create_dir_all("out").expect("out");
        std::fs::rename(dir.path().join("out"), dir.path().join("out.old")).expect("rename");
        symlink(outside.path(), dir.path().join("out")).expect("symlink");
        let staging = tempfile::tempdir().expect("staging");
        std::fs::write(staging.path().join("spec.txt"), "@EXPLICIT\n").expect("write");
        let published = root.publish(staging.path(), &out).expect("published");
        assert_eq!(published, ["out/spec.txt"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out.old/spec.txt")).expect("inside"),
            "@EXPLICIT\n"
        );
        assert_eq!(std::fs::read_dir(outside.path()).expect("ls").count(), 0);
    }

    #[test]
    fn publishing_replaces_nothing_through_a_link() {
        let (dir, root) = workspace();
        let outside = tempfile::tempdir().expect("outside");
        let victim = outside.path().join("victim.txt");
        std::fs::write(&victim, "keep").expect("write");
        let staging = tempfile::tempdir().expect("staging");
        std::fs::create_dir(staging.path().join("nested")).expect("mkdir");
        std::fs::write(staging.path().join("nested/spec.txt"), "new").expect("write");
        std::fs::write(staging.path().join("top.txt"), "new").expect("write");

        let out = root.create_dir_all("out").expect("out");
        std::fs::create_dir(dir.path().join("out/nested")).expect("mkdir");
        symlink(&victim, dir.path().join("out/nested/spec.txt")).expect("symlink");
        assert!(matches!(
            root.publish(staging.path(), &out),
            Err(ConfineError::Symlink { .. })
        ));
        std::fs::remove_file(dir.path().join("out/nested/spec.txt")).expect("rm");
        std::fs::hard_link(&victim, dir.path().join("out/nested/spec.txt")).expect("link");
        assert!(matches!(
            root.publish(staging.path(), &out),
            Err(ConfineError::HardLink { .. })
        ));
        assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep");

        std::fs::remove_file(dir.path().join("out/nested/spec.txt")).expect("rm");
        let published = root.publish(staging.path(), &out).expect("published");
        assert_eq!(published, ["out/nested/spec.txt", "out/top.txt"]);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("out"))
            .expect("ls")
            .map(|entry| entry.expect("entry").file_name())
            .collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }
}
