//! Confining agent-supplied paths to one workspace root.
//!
//! Every path a tool accepts names something inside the root the server was
//! started with (`--workspace-root`). A path is rejected when it contains a
//! `..` component, is absolute and outside the root, or crosses a symbolic
//! link at any component — an in-root symlink could point anywhere, and
//! following none is the rule that is easy to state and to check. The root
//! itself is canonicalised once, when the server starts.
//!
//! The check is made on the file system as it is when the tool is called; a
//! process racing to swap a directory for a link afterwards is outside this
//! boundary (the agent runs as the same user and is not sandboxed).

use crate::envelope::{ErrorCode, ToolError};
use std::io;
use std::path::{Component, Path, PathBuf};

/// A canonical directory that every tool path must stay inside.
#[derive(Debug, Clone)]
pub struct WorkspaceRoot {
    root: PathBuf,
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
    #[error("path {requested:?} contains a NUL byte")]
    Nul { requested: String },
    #[error("path {requested:?} does not exist in the workspace")]
    Missing { requested: String },
    #[error("path {requested:?} cannot be inspected: {source}")]
    Inspect {
        requested: String,
        source: io::Error,
    },
}

impl From<ConfineError> for ToolError {
    fn from(error: ConfineError) -> Self {
        let (code, recovery) = match &error {
            ConfineError::Missing { .. } => (
                ErrorCode::NotFound,
                "Pass a path relative to the workspace root that exists.",
            ),
            _ => (
                ErrorCode::PathRejected,
                "Pass a path relative to the workspace root, without `..` and without symbolic links.",
            ),
        };
        ToolError::new(code, error.to_string(), recovery)
    }
}

impl WorkspaceRoot {
    /// Opens `path` as the root: it must exist and be a directory.
    pub fn open(path: &Path) -> Result<Self, ConfineError> {
        let root = path.canonicalize().map_err(|source| ConfineError::Root {
            path: path.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(ConfineError::Root {
                path: path.to_path_buf(),
                source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Ok(Self { root })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Resolves a path that must already exist inside the root.
    pub fn existing(&self, requested: &str) -> Result<PathBuf, ConfineError> {
        self.resolve(requested, true)
    }

    /// Resolves a path that may not exist yet (an output directory); every
    /// component that does exist is still checked.
    pub fn creatable(&self, requested: &str) -> Result<PathBuf, ConfineError> {
        self.resolve(requested, false)
    }

    fn resolve(&self, requested: &str, must_exist: bool) -> Result<PathBuf, ConfineError> {
        if requested.contains('\0') {
            return Err(ConfineError::Nul {
                requested: requested.to_owned(),
            });
        }
        let relative = self.relative_part(requested)?;
        let mut resolved = self.root.clone();
        let mut exists = true;
        for component in relative.components() {
            match component {
                Component::CurDir => continue,
                Component::Normal(name) => resolved.push(name),
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
            }
            if !exists {
                continue;
            }
            match std::fs::symlink_metadata(&resolved) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    return Err(ConfineError::Symlink {
                        requested: requested.to_owned(),
                        link: resolved,
                    });
                }
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => exists = false,
                Err(source) => {
                    return Err(ConfineError::Inspect {
                        requested: requested.to_owned(),
                        source,
                    });
                }
            }
        }
        if must_exist && !exists {
            return Err(ConfineError::Missing {
                requested: requested.to_owned(),
            });
        }
        Ok(resolved)
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
        assert_eq!(resolved, root.path().join("project/main.nf"));
        assert_eq!(root.existing(".").expect("root"), root.path());
        assert_eq!(root.existing("").expect("root"), root.path());
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
        for path in ["escape", "escape/passwd", "alias/main.nf"] {
            assert!(
                matches!(root.existing(path), Err(ConfineError::Symlink { .. })),
                "{path}"
            );
        }
        assert!(matches!(
            root.creatable("escape/new-dir"),
            Err(ConfineError::Symlink { .. })
        ));
    }

    #[test]
    fn missing_paths_are_reported_or_allowed_for_outputs() {
        let (_dir, root) = workspace();
        assert!(matches!(
            root.existing("project/absent.nf"),
            Err(ConfineError::Missing { .. })
        ));
        assert_eq!(
            root.creatable("project/out/envs").expect("creatable"),
            root.path().join("project/out/envs")
        );
    }
}
