//! One open project: its catalog, its current graph, and the only code path
//! that changes that graph on disk.
//!
//! [`Project::apply_transaction`] is compare-and-swap over the full state
//! revision with idempotent replay: the key is looked up first (so a retry of
//! an applied edit replays even though its base is now stale), then the base
//! revision is compared, then the pure domain applies and validates the
//! operations, and only then is the edit committed.
//!
//! # One edit, one crash-atomic commit
//!
//! The input-origin sidecar is the commit record: it binds the graph's bytes
//! (by digest) to their location *and* carries the idempotency records, and
//! it is on stable storage before the graph is renamed into place. It also
//! remembers the digest of the graph it replaces and the key of the edit
//! that replaces it. Whatever a crash interrupts, opening the project again
//! finds one of three states:
//!
//! - the graph is the one the sidecar records: the edit landed, whole;
//! - the graph is the one the sidecar *replaced*: the edit never landed, so
//!   its record is dropped and a retry with its key applies it afresh (the
//!   client was never told it succeeded);
//! - anything else: someone changed or moved the files by hand, and the
//!   project refuses writes, compile, run, validate and export with
//!   `input_origin_recovery_required` until the user rebinds explicitly.
//!
//! Recovery is automatic and exact, and a retried key always answers
//! truthfully. An edit is acknowledged only after the graph's rename is on
//! stable storage: there is no log that publishes the graph later.
//!
//! What an edit waits for is about a bare durable write of the graph's
//! bytes. The graph file holds exactly the state's canonical JSON, made once
//! per state ([`Snapshot::json`]), so there is nothing to serialize at
//! commit time, and they go to one worker thread ([`durable::Stager`]) to
//! be staged in a temporary file as soon as they exist; the state's
//! revisions are hashed while the disk writes. An edit's sidecar is one
//! entry of a ring, overwritten in place ([`crate::sidecar`]): one small
//! write and one data sync, no rename, no directory sync, and an entry torn
//! by a crash is recognised and ignored (its edit was never acknowledged).
//! The entry is written and synced while the graph is staged, since
//! nothing orders those two: only the graph's rename must follow the
//! entry. The autosave copy is written after the answer,
//! off the edit's path ([`crate::autosave`]), whose writer also frees the
//! state the edit replaced; the copy is a convenience, and failing to
//! write it does not un-commit the edit.
//!
//! # Writers and readers
//!
//! [`Project::open`] takes the project's lock ([`crate::lock`]): one writer
//! per project, and only the writer removes stale temporary files.
//! [`Project::read`] takes no lock and writes nothing, so `somite graph
//! show` or `assess` can never disturb a running server; it reads the graph
//! before the sidecar, which (as the sidecar is written first) can only
//! ever see the states crash recovery already reconciles: an entry it reads
//! while the writer overwrites it is torn to the reader too, and ignored.
//! It retries the rare read that straddles two edits.

use crate::autosave::Autosave;
use crate::durable::{self, DurableError, Stager};
use crate::layout::Layout;
use crate::lock::{self, Claim, LOCK_WAIT, ProjectLock};
use crate::records::{Lookup, Records};
use crate::sidecar::{self, CommitRecord, Found, Newest, Replaced, Ring};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use somite_workflow::assessment::{Assessment, FileEvidence, InputProbe, assess_at};
use somite_workflow::canonical::digest_bytes;
use somite_workflow::canonical_state::CanonicalState;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::limits::MAX_DOCUMENT_BYTES;
use somite_workflow::resource::{ResourceFinding, ResourceResolver, Verification};
use somite_workflow::transaction::{GraphTransaction, apply_operations_in_id_order};
use somite_workflow::{Catalog, ErrorCode, Revision, SomiteError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

type Result<T> = std::result::Result<T, SomiteError>;

/// How often [`Project::read`] reads again when the graph and its sidecar
/// straddle two edits of a running writer, and how long it pauses between.
const READ_ATTEMPTS: usize = 40;
const READ_RETRY_PAUSE: Duration = Duration::from_millis(5);

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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TransactionOutcome {
    pub previous_state_revision: Revision,
    pub state_revision: Revision,
    pub graph_revision: Revision,
    pub summary: String,
    pub operations: usize,
    /// True when this repeated an already-applied request.
    #[serde(default)]
    pub replayed: bool,
}

/// What readiness finds on this machine for the graph's inputs.
struct ProjectInputs<'a> {
    root: &'a Path,
    resources: Option<&'a dyn ResourceResolver>,
}

impl InputProbe for ProjectInputs<'_> {
    fn exists(&self, path: &str) -> bool {
        let p = Path::new(path);
        if p.is_absolute() {
            p.exists()
        } else {
            self.root.join(p).exists()
        }
    }

    fn resource(&self, reference: &str) -> Option<ResourceFinding> {
        self.resources
            .map(|resources| resources.resolve(reference, Verification::Sizes))
    }
}

/// Why the graph could not be matched to its sidecar on open.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecoveryNeeded {
    pub reason: String,
    /// The graph file, the digest (and location) its sidecar recorded and
    /// the digest found: the assessment's input-origin item shows them.
    pub file: FileEvidence,
}

#[derive(Debug)]
pub struct Project {
    layout: Layout,
    catalog: Catalog,
    /// The current state, shared with readers that outlive the lock.
    current: Arc<Snapshot>,
    records: Records<TransactionOutcome>,
    /// The digest of the graph file this state is bound to; none while the
    /// graph exists only in memory (a seed) or is not bound (recovery).
    committed_digest: Option<Revision>,
    recovery: Option<RecoveryNeeded>,
    /// Where the next commit goes in the sidecar's ring.
    ring: Ring,
    /// A sidecar of an older format (or the idempotency records file before
    /// them) is still on disk, to remove once the ring holds what it held.
    legacy_leftover: bool,
    /// Stages the graph's bytes while the sidecar's entry is written.
    stager: Stager,
    /// Writes the autosave copy after each commit. Declared before `lock`
    /// so that dropping the project finishes the copy before another
    /// writer can take the project.
    autosave: Autosave,
    /// Held by a writer; none for a read-only [`Project::read`].
    lock: Option<ProjectLock>,
    /// Where `somite-resource:` references resolve (the user's resource
    /// store); none where no store is known, and such references stay open
    /// requirements.
    resources: Option<Arc<dyn ResourceResolver>>,
}

/// One state of the graph, immutable once made: the document, its
/// identities computed once when it was staged, and its canonical JSON.
/// Readers share it (`Arc`) instead of copying the document or hashing it
/// again on every read.
#[derive(Debug)]
pub struct Snapshot {
    document: WorkflowDocument,
    state_revision: Revision,
    /// The canonical JSON and graph revision, and where each node's and
    /// edge's bytes lie in the JSON, so the next state's are copied for
    /// what an edit left alone.
    canonical: CanonicalState,
}

impl Snapshot {
    /// The state revision is a digest of the document's canonical JSON, so
    /// that JSON is written once and kept: it is the graph file's content,
    /// the autosave copy's document and the body reads are served from.
    fn new(document: WorkflowDocument, location: &str) -> Snapshot {
        Snapshot::with(CanonicalState::of(&document), document, location)
    }

    fn with(canonical: CanonicalState, document: WorkflowDocument, location: &str) -> Snapshot {
        Snapshot {
            state_revision: WorkflowDocument::state_revision_of_canonical(
                canonical.json(),
                location,
            ),
            document,
            canonical,
        }
    }

    pub fn document(&self) -> &WorkflowDocument {
        &self.document
    }

    pub fn state_revision(&self) -> &Revision {
        &self.state_revision
    }

    pub fn graph_revision(&self) -> &Revision {
        self.canonical.graph_revision()
    }

    /// The document's canonical JSON, serialized once per state.
    pub fn json(&self) -> &Bytes {
        self.canonical.json()
    }
}

/// A state on its way to disk: its graph file is being staged.
struct Pending {
    snapshot: Snapshot,
    staging: durable::Staging,
}

/// What reading the project's files found.
struct Loaded {
    document: WorkflowDocument,
    records: Records<TransactionOutcome>,
    committed_digest: Option<Revision>,
    recovery: Option<RecoveryNeeded>,
    /// The sidecar on disk is not what a writer would write for this state
    /// (an edit that never landed, an older format): rewrite it.
    sidecar_outdated: bool,
    newest: Newest,
    legacy_leftover: bool,
}

impl Project {
    /// Opens the project at `root` for writing: takes its lock (waiting a
    /// moment for a short-lived writer), completes or forgets an edit a crash
    /// interrupted, and removes stray temporary files. A project without a
    /// graph starts from `seed` in memory. While a server holds the project
    /// this fails with `project_in_use`, naming the server.
    pub fn open(root: impl Into<PathBuf>, seed: Seed) -> Result<Project> {
        match lock::claim(&Layout::new(root), LOCK_WAIT)? {
            Claim::Acquired(lock) => Project::open_locked(lock, seed),
            Claim::HeldByServer(server) => Err(lock::in_use_by_server(
                &server,
                "make the change in that server (its web workspace or HTTP API), or stop it first",
            )),
        }
    }

    /// Opens the project whose lock the caller already holds.
    pub fn open_locked(lock: ProjectLock, seed: Seed) -> Result<Project> {
        let layout = lock.layout().clone();
        lock.remove_stale_announcement();
        for dir in [
            layout.data(),
            parent(&layout.legacy_input_origin()),
            parent(&layout.legacy_transaction_records()),
        ] {
            match durable::remove_stale_temp_files(&dir) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(SomiteError::io(&dir, &e)),
            }
        }
        let catalog = load_catalog(&layout)?;
        let loaded = load(&layout, &catalog, seed)?;
        let sidecar_outdated = loaded.sidecar_outdated;
        let mut project = Project::from_loaded(layout, catalog, loaded, Some(lock));
        if sidecar_outdated {
            project.rewrite_sidecar()?;
        } else if project.legacy_leftover && project.committed_digest.is_some() {
            // A migration that a crash interrupted after the ring was whole.
            remove_legacy_files(&project.layout)?;
            project.legacy_leftover = false;
        }
        Ok(project)
    }

    /// A read-only view of the project as last committed, for commands that
    /// only look: no lock, nothing written, safe beside a running server.
    /// Every write method refuses on it.
    pub fn read(root: impl Into<PathBuf>, seed: Seed) -> Result<Project> {
        let layout = Layout::new(root);
        let catalog = load_catalog(&layout)?;
        let mut attempt = 1;
        loop {
            let loaded = load(&layout, &catalog, seed)?;
            if loaded.recovery.is_none() || attempt == READ_ATTEMPTS {
                return Ok(Project::from_loaded(layout, catalog, loaded, None));
            }
            // A writer may have published several edits between our read of
            // the graph and of its sidecar; a real mismatch persists.
            attempt += 1;
            std::thread::sleep(READ_RETRY_PAUSE);
        }
    }

    fn from_loaded(
        layout: Layout,
        catalog: Catalog,
        loaded: Loaded,
        lock: Option<ProjectLock>,
    ) -> Project {
        let current = Arc::new(Snapshot::new(loaded.document, &layout.graph_location()));
        Project {
            autosave: Autosave::new(layout.autosave()),
            layout,
            catalog,
            current,
            records: loaded.records,
            committed_digest: loaded.committed_digest,
            recovery: loaded.recovery,
            ring: Ring::after(loaded.newest),
            legacy_leftover: loaded.legacy_leftover,
            stager: Stager::default(),
            lock,
            resources: None,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Reads the catalog again (reviewed contracts plus `.somite/operators/`)
    /// and swaps it in only if it loads; the graph is untouched, so every
    /// node keeps the revision it pinned.
    pub fn reload_catalog(&mut self) -> Result<&Revision> {
        self.catalog = load_catalog(&self.layout)?;
        Ok(self.catalog.revision())
    }

    pub fn document(&self) -> &WorkflowDocument {
        &self.current.document
    }

    pub fn state_revision(&self) -> &Revision {
        &self.current.state_revision
    }

    pub fn graph_revision(&self) -> Revision {
        self.current.graph_revision().clone()
    }

    /// The current state, to read after the project's lock is released.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current.clone()
    }

    /// Why the project refuses writes, if it does.
    pub fn recovery_needed(&self) -> Option<&RecoveryNeeded> {
        self.recovery.as_ref()
    }

    /// Announces that this process serves the project at `url` (see
    /// [`crate::lock`]); only a writer can.
    pub fn announce_server(&mut self, url: &str, instance: &str) -> Result<()> {
        self.lock
            .as_mut()
            .ok_or_else(read_only)?
            .announce_server(url, instance)
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

    /// Resolves `somite-resource:` references in this project's readiness
    /// and compiles through `resources` (the user's resource store).
    pub fn set_resources(&mut self, resources: Arc<dyn ResourceResolver>) {
        self.resources = Some(resources);
    }

    /// Where references resolve, if a store is known.
    pub fn resources(&self) -> Option<&Arc<dyn ResourceResolver>> {
        self.resources.as_ref()
    }

    /// The assessment of the graph alone, without facts about this machine,
    /// led by the input-origin item while the graph is not bound. Input
    /// paths are resolved against the project folder and managed-resource
    /// references checked cheaply (sizes against the record; a compile
    /// re-hashes them).
    pub fn assess_graph(&self) -> Assessment {
        let probe = ProjectInputs {
            root: self.layout.root(),
            resources: self.resources.as_deref(),
        };
        let mut assessment = assess_at(
            self.document(),
            self.current.graph_revision().clone(),
            &self.catalog,
            &probe,
        );
        if let Some(recovery) = &self.recovery {
            assessment.add_input_origin_item(&recovery.reason, recovery.file.clone());
        }
        assessment
    }

    /// Applies one transaction with compare-and-swap and idempotent replay.
    pub fn apply_transaction(&mut self, txn: &GraphTransaction) -> Result<TransactionOutcome> {
        txn.check_envelope()?;
        self.ensure_writer()?;
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
        if txn.base_state_revision != *self.state_revision() {
            return Err(self.stale());
        }
        let next = apply_operations_in_id_order(
            self.document(),
            self.current.canonical.nodes_by_id(),
            &self.catalog,
            &txn.operations,
        )?;
        crate::source::check_paths_exist(&next, &txn.operations, self.layout.root())?;
        // The next state's canonical forms are built from this state's, at
        // the cost of what the edit changed.
        let canonical = self.current.canonical.next(&next);
        let pending = self.begin(canonical, next)?;
        let outcome = TransactionOutcome {
            previous_state_revision: self.state_revision().clone(),
            state_revision: pending.snapshot.state_revision.clone(),
            graph_revision: pending.snapshot.graph_revision().clone(),
            summary: txn.summary.clone(),
            operations: txn.operations.len(),
            replayed: false,
        };
        let mut records = self.records.clone();
        records.insert(txn.idempotency_key.clone(), digest, outcome.clone());
        self.commit(pending, records, Some(&txn.idempotency_key))?;
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
        self.ensure_writer()?;
        self.ensure_bound()?;
        if base_state_revision != *self.state_revision() {
            return Err(self.stale());
        }
        let previous = self.state_revision().clone();
        let pending = self.begin(CanonicalState::of(&document), document)?;
        self.commit(pending, self.records.clone(), None)?;
        Ok(TransactionOutcome {
            previous_state_revision: previous,
            state_revision: self.state_revision().clone(),
            graph_revision: self.graph_revision(),
            summary: "Import a workflow document".into(),
            operations: 0,
            replayed: false,
        })
    }

    /// Saves the graph as a portable `.somite.json` document at `path`.
    pub fn save_document(&self, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self.document()).expect("documents serialize");
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the workflow exceeds {MAX_DOCUMENT_BYTES} bytes"),
                "split the workflow or remove large notes",
            ));
        }
        durable::publish(path, &bytes).map_err(SomiteError::from)
    }

    /// Binds the current graph to its location again after the user changed
    /// or moved the project's files, and makes the graph itself durable if it
    /// only existed in memory.
    pub fn rebind(&mut self) -> Result<Revision> {
        self.ensure_writer()?;
        self.commit_current()?;
        Ok(self.state_revision().clone())
    }

    /// Makes a graph that exists only in memory (a new project's seed)
    /// durable, so every reader of the project's files sees what a server
    /// shows. A graph already on disk, or one awaiting an explicit rebind,
    /// is left alone.
    pub fn persist_seed(&mut self) -> Result<()> {
        self.ensure_writer()?;
        if self.committed_digest.is_some() || self.recovery.is_some() {
            return Ok(());
        }
        self.commit_current()
    }

    /// Returns once the autosave copy, written after each edit's answer,
    /// holds the newest committed state (or failed to be written). Closing
    /// the project does the same.
    pub fn flush_autosave(&self) {
        self.autosave.flush();
    }

    fn ensure_writer(&self) -> Result<()> {
        match self.lock {
            Some(_) => Ok(()),
            None => Err(read_only()),
        }
    }

    /// Commits the current document again, with the current records: what
    /// a rebind and the first save of a seed do.
    fn commit_current(&mut self) -> Result<()> {
        let document = self.document().clone();
        let pending = self.begin(CanonicalState::of(&document), document)?;
        self.commit(pending, self.records.clone(), None)
    }

    /// Starts committing `document` (whose canonical forms are
    /// `canonical`): its graph file's bytes go to the staging worker at
    /// once, and the state's revisions are computed while the disk writes.
    fn begin(&mut self, canonical: CanonicalState, document: WorkflowDocument) -> Result<Pending> {
        // The graph file holds exactly the state's canonical JSON: the bytes
        // its revision is computed over and reads are served from, made
        // once. The file lives in `.somite/`, which git ignores, so
        // indenting it would buy no diffs; portable documents
        // (`save_document`) are indented. Graphs written indented, or in
        // struct order, by older versions still open: the sidecar binds
        // bytes by digest, whatever their layout.
        let bytes = canonical.json().clone();
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the workflow would exceed {MAX_DOCUMENT_BYTES} bytes"),
                "split the workflow or remove large notes",
            ));
        }
        // Staging the graph (writing and syncing a temporary file) needs only
        // its bytes and is invisible, so the worker does it while this
        // thread hashes the state and writes and syncs the sidecar's entry:
        // only the graph's rename has to wait for the entry.
        let staging = self.stager.stage(self.layout.graph(), bytes);
        let snapshot = Snapshot::with(canonical, document, &self.layout.graph_location());
        Ok(Pending { snapshot, staging })
    }

    /// Commits the state `pending` holds as the canonical graph with
    /// `records` (see the module docs): the sidecar first, then the graph,
    /// then the autosave copy. `key` is the edit's idempotency key, if it
    /// has one; its record is then the newest of `records`.
    fn commit(
        &mut self,
        pending: Pending,
        records: Records<TransactionOutcome>,
        key: Option<&str>,
    ) -> Result<()> {
        let Pending {
            snapshot: staged,
            staging,
        } = pending;
        let document_digest = digest_bytes(staged.json());
        let replaces = self.recovery.is_none().then(|| Replaced {
            document_digest: self.committed_digest.clone(),
            idempotency_key: key.map(str::to_owned),
        });
        let record = CommitRecord {
            location: self.layout.graph_location(),
            document_digest: document_digest.clone(),
            state_revision: staged.state_revision.clone(),
            graph_revision: staged.graph_revision().clone(),
            replaces,
            transactions: None,
        };
        let added = key.and_then(|key| records.shared().last().filter(|r| r.key == key));
        // Until the graph's rename, a crash (or a failure below) leaves the
        // previous graph in place, which recovery recognises as "never
        // landed"; an entry torn by a crash is ignored, which leaves the
        // same.
        let sidecar = self
            .ring
            .write(&self.layout, &record, &records, added.map(|r| &**r));
        let graph = staging.wait();
        sidecar.map_err(SomiteError::from)?;
        let committed = match graph.and_then(durable::Staged::publish) {
            Ok(()) => Ok(()),
            // The new graph is in place but its directory entry may not
            // survive a power loss: the edit is applied (a retry with its key
            // replays it), and the caller is told the truth about durability.
            Err(e @ DurableError::NotDurable { .. }) => {
                let mut error = SomiteError::from(e).with_detail("committed", true);
                error.recovery = "the edit is applied but the disk did not confirm it is durable; \
                                  check the disk, then retry with the same idempotency key to confirm it was kept"
                    .into();
                Err(error)
            }
            Err(e) => {
                // The ring records an edit that did not happen.
                self.ring.diverge();
                return Err(SomiteError::from(e));
            }
        };
        self.records = records;
        let previous = std::mem::replace(&mut self.current, Arc::new(staged));
        self.committed_digest = Some(document_digest);
        self.recovery = None;
        if self.legacy_leftover {
            // The ring holds what the older files held now. Removing them
            // can wait for the next open if it fails: the ring wins anyway.
            self.legacy_leftover = remove_legacy_files(&self.layout).is_err();
        }
        // The previous state is a whole document to free: the autosave
        // writer drops it, after the answer.
        self.autosave.save(self.current.clone(), previous);
        committed
    }

    /// Writes the sidecar a writer would write for the current, committed
    /// state: after recovery dropped an edit that never landed, or to move
    /// an older project's sidecar (and records) into the ring.
    fn rewrite_sidecar(&mut self) -> Result<()> {
        let Some(document_digest) = self.committed_digest.clone() else {
            return Ok(());
        };
        let record = CommitRecord {
            location: self.layout.graph_location(),
            document_digest,
            state_revision: self.state_revision().clone(),
            graph_revision: self.graph_revision(),
            replaces: None,
            transactions: None,
        };
        self.ring
            .write(&self.layout, &record, &self.records, None)
            .map_err(SomiteError::from)?;
        if self.legacy_leftover {
            remove_legacy_files(&self.layout)?;
            self.legacy_leftover = false;
        }
        Ok(())
    }
}

/// Removes the older formats' sidecars and idempotency records, once the
/// ring holds what they held.
fn remove_legacy_files(layout: &Layout) -> Result<()> {
    for path in sidecar::legacy_files(layout) {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(SomiteError::io(&path, &e)),
        }
    }
    Ok(())
}

fn load_catalog(layout: &Layout) -> Result<Catalog> {
    let mut contracts = Catalog::builtin_contracts()?;
    contracts.extend(Catalog::read_dir(&layout.operators())?);
    Catalog::new(contracts)
}

/// Reads the graph, then its sidecar (in that order: the sidecar is
/// published first, so it is never older than the graph read before it), and
/// reconciles them as the module docs describe.
fn load(layout: &Layout, catalog: &Catalog, seed: Seed) -> Result<Loaded> {
    let graph = match durable::read_capped(&layout.graph(), MAX_DOCUMENT_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(DurableError::NotFound { .. }) => None,
        Err(e) => return Err(SomiteError::from(e)),
    };
    let graph_digest = graph.as_deref().map(digest_bytes);
    let document = match &graph {
        Some(bytes) => WorkflowDocument::from_json(bytes)?,
        None => seed_document(seed, catalog)?,
    };
    let sidecar::Read {
        found,
        newest,
        legacy_leftover,
    } = sidecar::read(layout).map_err(SomiteError::from)?;
    let location = layout.graph_location();
    // What the sidecar recorded (digest, and location when it differs),
    // against what was found.
    let unbound = |reason: &str, records, recorded: Option<(&Revision, &str)>| Loaded {
        document: document.clone(),
        records,
        committed_digest: None,
        recovery: Some(RecoveryNeeded {
            reason: reason.to_owned(),
            file: FileEvidence {
                path: location.clone(),
                found: graph.is_some(),
                recorded_digest: recorded.map(|(digest, _)| digest.clone()),
                found_digest: graph_digest.clone(),
                recorded_location: recorded
                    .map(|(_, at)| at)
                    .filter(|at| *at != location)
                    .map(str::to_owned),
            },
        }),
        sidecar_outdated: false,
        newest,
        legacy_leftover,
    };
    let (record, legacy_format) = match found {
        Found::Missing if graph.is_none() => {
            return Ok(Loaded {
                document,
                records: read_legacy_records(layout)?,
                committed_digest: None,
                recovery: None,
                sidecar_outdated: false,
                newest,
                legacy_leftover,
            });
        }
        Found::Missing => {
            return Ok(unbound(
                "the input-origin sidecar is missing",
                read_legacy_records(layout)?,
                None,
            ));
        }
        Found::Unreadable(why) => {
            return Ok(unbound(
                &format!("the input-origin sidecar is unreadable: {why}"),
                read_legacy_records(layout)?,
                None,
            ));
        }
        Found::Older(record) => (record, true),
        Found::Ring(record) => (record, false),
    };
    let mut records = match record.transactions {
        Some(records) => records,
        None => read_legacy_records(layout)?,
    };
    let recorded = Some((&record.document_digest, record.location.as_str()));
    if record.location != location {
        return Ok(unbound(
            &format!("the sidecar binds {}, not {location}", record.location),
            records,
            recorded,
        ));
    }
    if graph_digest.as_ref() == Some(&record.document_digest) {
        return Ok(Loaded {
            document,
            records,
            committed_digest: graph_digest,
            recovery: None,
            sidecar_outdated: legacy_format,
            newest,
            legacy_leftover,
        });
    }
    match record.replaces {
        Some(replaced) if replaced.document_digest == graph_digest => {
            // The sidecar was published, the graph never was: the edit did
            // not happen, and its key must not claim it did.
            if let Some(key) = &replaced.idempotency_key {
                records.remove(key);
            }
            Ok(Loaded {
                document,
                records,
                committed_digest: graph_digest,
                recovery: None,
                sidecar_outdated: true,
                newest,
                legacy_leftover,
            })
        }
        _ => Ok(unbound(
            "the graph on disk is not the one its sidecar recorded (changed or moved by hand?)",
            records,
            recorded,
        )),
    }
}

fn read_legacy_records(layout: &Layout) -> Result<Records<TransactionOutcome>> {
    let path = layout.legacy_transaction_records();
    match durable::read_capped(&path, MAX_DOCUMENT_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidDocument,
                format!("the idempotency records do not parse: {e}"),
                format!("remove {} to forget remembered keys", path.display()),
            )
        }),
        Err(DurableError::NotFound { .. }) => Ok(Records::default()),
        Err(e) => Err(SomiteError::from(e)),
    }
}

fn parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn read_only() -> SomiteError {
    SomiteError::new(
        ErrorCode::ProjectInUse,
        "this view of the project was opened read-only",
        "open the project for writing (Project::open) to change it",
    )
}

impl Project {
    fn stale(&self) -> SomiteError {
        SomiteError::new(
            ErrorCode::StaleRevision,
            "the workflow changed since base_state_revision was read",
            "read the workflow again, then re-apply the edit on the current state_revision",
        )
        .with_detail("current_state_revision", self.state_revision())
        .with_detail("current_graph_revision", self.graph_revision())
    }
}

fn seed_document(seed: Seed, catalog: &Catalog) -> Result<WorkflowDocument> {
    let empty = WorkflowDocument::empty("Untitled workflow");
    match seed {
        Seed::Empty => Ok(empty),
        Seed::Example => crate::example::example_workflow(catalog),
    }
}
