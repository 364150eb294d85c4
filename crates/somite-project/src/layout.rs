//! Where everything lives under a project's `.somite/` folder.
//!
//! One place names every path so the store, the runner and the server cannot
//! disagree about the project's layout on disk.

use std::path::{Path, PathBuf};

/// The folder, under the project root, that holds all Somite data.
pub const DATA_DIR: &str = ".somite";

#[derive(Debug, Clone)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// The layout of the project at `root`, made absolute against the
    /// current folder: Pixi, Nextflow and agents run in folders of their
    /// own, where a relative path (`somite serve` in the project, whose root
    /// is `.`) would name somewhere else. Lexical, so a symlinked project
    /// keeps the path it was opened by; only an unreadable current folder
    /// leaves `root` as given.
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        let root = root.into();
        Layout {
            root: std::path::absolute(&root).unwrap_or(root),
        }
    }

    /// The project folder; relative input paths resolve against it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn data(&self) -> PathBuf {
        self.root.join(DATA_DIR)
    }

    /// The canonical graph.
    pub fn graph(&self) -> PathBuf {
        self.data().join("web.somite.json")
    }

    pub fn autosave(&self) -> PathBuf {
        self.data().join("autosave.somite.json")
    }

    /// The input-origin sidecar that binds the canonical graph to its
    /// location, with the idempotency records: a ring of entries, one
    /// overwritten in place per commit (see the `sidecar` module).
    pub fn input_origin_ring(&self) -> PathBuf {
        self.data().join("input-origins").join("web.commits")
    }

    /// The sidecar as two slot files written in turn, each with every
    /// idempotency record, before it became a ring; read when there is no
    /// ring, and removed once there is.
    pub fn legacy_input_origin_slots(&self) -> [PathBuf; 2] {
        let dir = self.data().join("input-origins");
        [dir.join("web.0.commit"), dir.join("web.1.commit")]
    }

    /// The sidecar as one file, written whole, before it became two slots;
    /// read when there is neither a ring nor a whole slot, and removed once
    /// there is a ring.
    pub fn legacy_input_origin(&self) -> PathBuf {
        self.data().join("input-origins").join("web.json")
    }

    /// Where idempotency records lived before they joined the sidecar;
    /// read once to migrate an older project, then removed.
    pub fn legacy_transaction_records(&self) -> PathBuf {
        self.data().join("idempotency").join("transactions.json")
    }

    /// The file whose OS lock makes one process the project's only writer.
    pub fn lock(&self) -> PathBuf {
        self.data().join("project.lock")
    }

    /// Where the server holding the project announces its URL.
    pub fn server_announcement(&self) -> PathBuf {
        self.data().join("server.json")
    }

    pub fn operators(&self) -> PathBuf {
        self.data().join("operators")
    }

    /// Operator candidates waiting for a person's decision; never read
    /// into the catalog.
    pub fn operator_candidates(&self) -> PathBuf {
        self.data().join("operator-candidates")
    }

    /// The isolated projects candidate proofs run in, one per proof.
    pub fn candidate_proofs(&self) -> PathBuf {
        self.operator_candidates().join("proofs")
    }

    pub fn catalog(&self) -> PathBuf {
        self.data().join("catalog")
    }

    pub fn fixtures(&self) -> PathBuf {
        self.data().join("fixtures")
    }

    pub fn compiled(&self) -> PathBuf {
        self.data().join("compiled")
    }

    pub fn runs(&self) -> PathBuf {
        self.data().join("runs")
    }

    pub fn evidence(&self) -> PathBuf {
        self.data().join("evidence")
    }

    pub fn transcripts(&self) -> PathBuf {
        self.data().join("agent-transcripts")
    }

    /// The location a workflow document is bound to, as recorded in the
    /// sidecar and covered by the state revision.
    pub fn graph_location(&self) -> String {
        format!("{DATA_DIR}/web.somite.json")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_root_is_made_absolute_against_the_current_folder() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(Layout::new(".").root(), cwd);
        assert_eq!(Layout::new("project").root(), cwd.join("project"));
        assert_eq!(
            Layout::new("/srv/project").root(),
            Path::new("/srv/project")
        );
    }
}
