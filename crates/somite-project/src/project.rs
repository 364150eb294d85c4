//! One open project: its catalog, its current graph, and the only code path
//! that changes that graph on disk.
//!
//! [`Project::apply_transaction`] is compare-and-swap over the full state
//! revision with idempotent replay: the key is looked up first (so a retry of
//! an applied edit replays even though its base is now stale), then the base
//! revision is compared, then the pure domain applies and validates the
//! operations, and only then are the canonical graph, its input-origin
//! sidecar, the autosave and the idempotency record published, each durably.
//! Those are separate files, not one crash-atomic commit: if a crash leaves
//! the graph and its sidecar disagreeing, the project refuses edits, compile,
//! run, validate and export with `input_origin_recovery_required` until the
//! user rebinds explicitly.

use crate::durable::{self, DurableError};
use crate::layout::Layout;
use crate::records::{Lookup, Records};
use serde::{Deserialize, Serialize};
use somite_workflow::assessment::{Assessment, assess};
use somite_workflow::canonical::digest_bytes;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::limits::MAX_DOCUMENT_BYTES;
use somite_workflow::transaction::{GraphTransaction, apply_operations};
use somite_workflow::{Catalog, ErrorCode, Revision, SomiteError};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, SomiteError>;

/// Where a new project's graph comes from before its first edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    Empty,
    /// A small example, so someone opening Somite for the first time sees a
    /// real graph at once.
    Example,
}

/// What a transaction did. Replays return the stored original with
/// `replayed: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransactionOutcome {
    pub previous_state_revision: Revision,
    pub state_revision: Revision,
    pub graph_revision: Revision,
    pub summary: String,
    pub operations: usize,
    #[serde(default)]
    pub replayed: bool,
}

/// The sidecar binding the canonical graph to its location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputOrigin {
    pub location: String,
    /// BLAKE3 of the canonical graph file's bytes.
    pub document_digest: Revision,
    pub state_revision: Revision,
    pub graph_revision: Revision,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Autosave {
    state_revision: Revision,
    document: WorkflowDocument,
}

/// Why the graph could not be matched to its sidecar on open.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecoveryNeeded {
    pub reason: String,
}

#[derive(Debug)]
pub struct Project {
    layout: Layout,
    catalog: Catalog,
    document: WorkflowDocument,
    state_revision: Revision,
    records: Records<TransactionOutcome>,
    recovery: Option<RecoveryNeeded>,
}

impl Project {
    /// Opens the project at `root`, recovering from any interrupted
    /// publication. Opening writes nothing but the removal of stray
    /// temporary files; a project without a graph starts from `seed` in memory.
    pub fn open(root: impl Into<PathBuf>, seed: Seed) -> Result<Project> {
        let layout = Layout::new(root);
        let mut contracts = Catalog::builtin_contracts()?;
        contracts.extend(Catalog::read_dir(&layout.operators())?);
        let catalog = Catalog::new(contracts)?;
        for dir in [
            layout.data(),
            layout
                .input_origin()
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            layout
                .transaction_records()
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        ] {
            match durable::remove_stale_temp_files(&dir) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&dir, e)),
            }
        }

        let location = layout.graph_location();
        let (document, recovery) = match durable::read_capped(&layout.graph(), MAX_DOCUMENT_BYTES) {
            Ok(bytes) => {
                let document = WorkflowDocument::from_json(&bytes)?;
                let recovery = check_origin(&layout, &bytes, &location)?;
                (document, recovery)
            }
            Err(DurableError::NotFound { .. }) => (seed_document(seed, &catalog)?, None),
            Err(e) => return Err(durable_error(e)),
        };
        let records = match durable::read_capped(&layout.transaction_records(), MAX_DOCUMENT_BYTES)
        {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                SomiteError::new(
                    ErrorCode::InvalidDocument,
                    format!("the idempotency records do not parse: {e}"),
                    format!(
                        "remove {} to forget remembered keys",
                        layout.transaction_records().display()
                    ),
                )
            })?,
            Err(DurableError::NotFound { .. }) => Records::default(),
            Err(e) => return Err(durable_error(e)),
        };
        let state_revision = document.state_revision(&location);
        Ok(Project {
            layout,
            catalog,
            document,
            state_revision,
            records,
            recovery,
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn document(&self) -> &WorkflowDocument {
        &self.document
    }

    pub fn state_revision(&self) -> &Revision {
        &self.state_revision
    }

    pub fn graph_revision(&self) -> Revision {
        self.document.graph_revision()
    }

    /// Why the project refuses writes, if it does.
    pub fn recovery_needed(&self) -> Option<&RecoveryNeeded> {
        self.recovery.as_ref()
    }

    /// Refuses with `input_origin_recovery_required` while the recovered graph
    /// is not bound to its location. Every write, compile, run, validate and
    /// export passes through here first.
    pub fn ensure_bound(&self) -> Result<()> {
        match &self.recovery {
            None => Ok(()),
            Some(r) => Err(SomiteError::new(
                ErrorCode::InputOriginRecoveryRequired,
                format!(
                    "the recovered workflow is not bound to its location: {}",
                    r.reason
                ),
                "inspect the graph, then rebind it explicitly with `somite project rebind`",
            )),
        }
    }

    /// The Workflow assessment of the current graph, with input paths
    /// resolved against the project folder and a missing Pixi (the one
    /// `toolchain` runs would use) noted.
    pub fn assess(&self, toolchain: &crate::compiled::Toolchain) -> Assessment {
        let mut assessment = self.assess_graph();
        crate::toolchain::note_missing_tools(&mut assessment, toolchain.pixi());
        assessment
    }

    /// The assessment of the graph alone, without facts about this machine.
    pub fn assess_graph(&self) -> Assessment {
        let root = self.layout.root().to_path_buf();
        assess(&self.document, &self.catalog, &move |path: &str| {
            let p = Path::new(path);
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                root.join(p)
            };
            p.exists()
        })
    }

    /// Applies one transaction with compare-and-swap and idempotent replay.
    pub fn apply_transaction(&mut self, txn: &GraphTransaction) -> Result<TransactionOutcome> {
        txn.check_envelope()?;
        let digest = txn.content_digest();
        match self.records.lookup(&txn.idempotency_key, &digest) {
            Lookup::Replay(outcome) => {
                return Ok(TransactionOutcome {
                    replayed: true,
                    ..outcome.clone()
                });
            }
            Lookup::Conflict => {
                return Err(SomiteError::new(
                    ErrorCode::IdempotencyConflict,
                    "this idempotency key was already used for a different edit",
                    "use a fresh idempotency key for each intended edit",
                ));
            }
            Lookup::New => {}
        }
        self.ensure_bound()?;
        if txn.base_state_revision != self.state_revision {
            return Err(stale(&self.state_revision, &self.document));
        }
        let next = apply_operations(&self.document, &self.catalog, &txn.operations)?;
        let previous = self.state_revision.clone();
        self.publish(next)?;
        let outcome = TransactionOutcome {
            previous_state_revision: previous,
            state_revision: self.state_revision.clone(),
            graph_revision: self.document.graph_revision(),
            summary: txn.summary.clone(),
            operations: txn.operations.len(),
            replayed: false,
        };
        self.records
            .insert(txn.idempotency_key.clone(), digest, outcome.clone());
        let records = serde_json::to_vec(&self.records).expect("records serialize");
        durable::publish(&self.layout.transaction_records(), &records).map_err(durable_error)?;
        Ok(outcome)
    }

    /// Replaces the graph with a portable `.somite.json` document, with
    /// compare-and-swap on `base_state_revision` like any edit. The document
    /// is capped at the document envelope and validated before anything is
    /// written; nodes whose pinned contracts are not in this catalog are
    /// kept and reported by readiness, never silently retyped.
    pub fn import_document(
        &mut self,
        bytes: &[u8],
        base_state_revision: &str,
    ) -> Result<TransactionOutcome> {
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the document exceeds {MAX_DOCUMENT_BYTES} bytes"),
                "split the workflow; a portable document holds at most 64 MiB",
            ));
        }
        let document = WorkflowDocument::from_json(bytes)?;
        self.ensure_bound()?;
        if base_state_revision != self.state_revision {
            return Err(stale(&self.state_revision, &self.document));
        }
        let previous = self.state_revision.clone();
        self.publish(document)?;
        Ok(TransactionOutcome {
            previous_state_revision: previous,
            state_revision: self.state_revision.clone(),
            graph_revision: self.document.graph_revision(),
            summary: "Import a workflow document".into(),
            operations: 0,
            replayed: false,
        })
    }

    /// Saves the graph as a portable `.somite.json` document at `path`.
    pub fn save_document(&self, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(&self.document).expect("documents serialize");
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the workflow exceeds {MAX_DOCUMENT_BYTES} bytes"),
                "split the workflow or remove large notes",
            ));
        }
        durable::publish(path, &bytes).map_err(durable_error)
    }

    /// Binds the current graph to its location again after a recovery, and
    /// makes the graph itself durable if it only existed in memory.
    pub fn rebind(&mut self) -> Result<Revision> {
        let document = self.document.clone();
        self.publish(document)?;
        self.recovery = None;
        Ok(self.state_revision.clone())
    }

    /// Publishes `document` as the canonical graph, its sidecar and autosave.
    fn publish(&mut self, document: WorkflowDocument) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(&document).expect("documents serialize");
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the workflow would exceed {MAX_DOCUMENT_BYTES} bytes"),
                "split the workflow or remove large notes",
            ));
        }
        let location = self.layout.graph_location();
        let state_revision = document.state_revision(&location);
        durable::publish(&self.layout.graph(), &bytes).map_err(durable_error)?;
        let origin = InputOrigin {
            location,
            document_digest: digest_bytes(&bytes),
            state_revision: state_revision.clone(),
            graph_revision: document.graph_revision(),
        };
        let origin_bytes = serde_json::to_vec_pretty(&origin).expect("origins serialize");
        durable::publish(&self.layout.input_origin(), &origin_bytes).map_err(durable_error)?;
        self.document = document;
        self.state_revision = state_revision;
        let autosave = Autosave {
            state_revision: self.state_revision.clone(),
            document: self.document.clone(),
        };
        let autosave_bytes = serde_json::to_vec(&autosave).expect("autosave serializes");
        durable::publish(&self.layout.autosave(), &autosave_bytes).map_err(durable_error)?;
        Ok(())
    }
}

/// Whether the canonical graph's bytes are the ones its sidecar recorded.
fn check_origin(
    layout: &Layout,
    graph_bytes: &[u8],
    location: &str,
) -> Result<Option<RecoveryNeeded>> {
    let origin = match durable::read_capped(&layout.input_origin(), MAX_DOCUMENT_BYTES) {
        Ok(bytes) => bytes,
        Err(DurableError::NotFound { .. }) => {
            return Ok(Some(RecoveryNeeded {
                reason: "the input-origin sidecar is missing".into(),
            }));
        }
        Err(e) => return Err(durable_error(e)),
    };
    let Ok(origin) = serde_json::from_slice::<InputOrigin>(&origin) else {
        return Ok(Some(RecoveryNeeded {
            reason: "the input-origin sidecar is unreadable".into(),
        }));
    };
    if origin.location != location {
        return Ok(Some(RecoveryNeeded {
            reason: format!("the sidecar binds {}, not {location}", origin.location),
        }));
    }
    if origin.document_digest != digest_bytes(graph_bytes) {
        return Ok(Some(RecoveryNeeded {
            reason: "the graph on disk is not the one its sidecar recorded (an interrupted save?)"
                .into(),
        }));
    }
    Ok(None)
}

fn stale(current: &Revision, document: &WorkflowDocument) -> SomiteError {
    SomiteError::new(
        ErrorCode::StaleRevision,
        "the workflow changed since base_state_revision was read",
        "read the workflow again, then re-apply the edit on the current state_revision",
    )
    .with_detail("current_state_revision", current)
    .with_detail("current_graph_revision", document.graph_revision())
}

fn seed_document(seed: Seed, catalog: &Catalog) -> Result<WorkflowDocument> {
    let empty = WorkflowDocument::empty("Untitled workflow");
    match seed {
        Seed::Empty => Ok(empty),
        Seed::Example => crate::example::example_workflow(catalog),
    }
}

fn io_error(path: &Path, e: std::io::Error) -> SomiteError {
    SomiteError::new(
        ErrorCode::Io,
        format!("{}: {e}", path.display()),
        "check the project folder's permissions and free disk space",
    )
}

fn durable_error(e: DurableError) -> SomiteError {
    let code = match e {
        DurableError::TooLarge { .. } => ErrorCode::PayloadTooLarge,
        DurableError::NotFound { .. } => ErrorCode::NotFound,
        _ => ErrorCode::Io,
    };
    SomiteError::new(code, e.to_string(), "check the project folder, then retry")
}
