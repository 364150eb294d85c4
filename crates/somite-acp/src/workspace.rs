//! The disposable private workspace of one agent session.
//!
//! The agent starts in an empty directory, not in the project: repository
//! instructions and direct file inspection must not displace the native
//! workflow tools, and the real project stays reachable only through the MCP
//! capability surfaces. One private directory per session holds:
//! - `workspace/` — the agent's working directory, empty at `session/new`;
//! - `tools/` — the shared root handed to the Pixi and Nextflow servers
//!   (`--workspace-root`), empty until a compile attaches a package.
//!
//! Disconnect removes the whole directory and reports a failure explicitly.

use std::io;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::events::WorkspaceRemoval;

/// The prefix of every private workspace directory.
pub const WORKSPACE_PREFIX: &str = "somite-workflow-agent-";

/// One session's private directory (see the module docs).
#[derive(Debug)]
pub struct AgentWorkspace {
    root: TempDir,
}

impl AgentWorkspace {
    /// Creates a fresh private directory under the system temporary directory
    /// (owner-only permissions on Unix).
    ///
    /// # Errors
    /// An I/O error when the directories cannot be created.
    pub fn create() -> io::Result<Self> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(WORKSPACE_PREFIX);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o700));
        }
        let root = builder.tempdir()?;
        std::fs::create_dir(root.path().join("workspace"))?;
        std::fs::create_dir(root.path().join("tools"))?;
        Ok(Self { root })
    }

    /// The whole private directory.
    #[must_use]
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The agent's working directory.
    #[must_use]
    pub fn cwd(&self) -> PathBuf {
        self.root.path().join("workspace")
    }

    /// The shared Pixi/Nextflow root.
    #[must_use]
    pub fn tools_root(&self) -> PathBuf {
        self.root.path().join("tools")
    }

    /// Removes the whole directory.
    pub(crate) fn remove(self) -> WorkspaceRemoval {
        let path = self.root.path().to_path_buf();
        match self.root.close() {
            Ok(()) => WorkspaceRemoval::Removed { path },
            Err(error) => WorkspaceRemoval::Failed {
                path,
                error: error.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_is_private_empty_and_removed_whole() {
        let workspace = AgentWorkspace::create().expect("create");
        let root = workspace.root().to_path_buf();
        assert!(root.starts_with(std::env::temp_dir()));
        assert!(
            root.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(WORKSPACE_PREFIX))
        );
        assert_eq!(std::fs::read_dir(workspace.cwd()).expect("cwd").count(), 0);
        assert_eq!(
            std::fs::read_dir(workspace.tools_root())
                .expect("tools")
                .count(),
            0
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&root).expect("meta").permissions().mode();
            assert_eq!(mode & 0o077, 0, "{mode:o}");
        }
        std::fs::write(workspace.tools_root().join("package.txt"), "x").expect("write");
        assert_eq!(
            workspace.remove(),
            WorkspaceRemoval::Removed { path: root.clone() }
        );
        assert!(!root.exists());
    }
}
