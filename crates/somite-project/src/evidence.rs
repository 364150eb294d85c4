//! Evidence receipts: the immutable record that a graph revision was
//! validated, and how.
//!
//! A validation's claim must outlive the conversation, the run and the
//! process that made it, and must not be quietly editable afterwards. So a
//! [`Receipt`] names its own digest (the revision of its canonical JSON
//! without the `digest` field), is written once under
//! `.somite/evidence/receipts/<hex>.json` and never replaced, and is
//! re-verified every time it is read: a file whose bytes no longer hash to
//! its name is reported as tampered, never returned as evidence. An index
//! (`.somite/evidence/index.json`, replaced atomically with
//! [`durable::publish`]) finds the receipts of one graph revision without
//! reading them all; [`reconcile_index`] re-adds receipts a crash left out
//! of it.
//!
//! The run supervisor builds receipts; this module only stores and checks
//! them, so anything else that reads evidence (export, the HTTP runtime)
//! gets the same verification.

use crate::durable::{self, DurableError};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_workflow::canonical::{is_revision, revision_of};
use somite_workflow::{ErrorCode, Revision, SomiteError};
use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

/// The `schema` of every receipt.
pub const RECEIPT_SCHEMA: &str = "somite.evidence-receipt";
pub const RECEIPT_SCHEMA_VERSION: u32 = 1;
/// The `schema` of the index.
pub const INDEX_SCHEMA: &str = "somite.evidence-index";
/// The largest receipt or index file read back (receipts are a few KiB;
/// the artifact list of a large run can make one bigger).
pub const MAX_EVIDENCE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Serialises index updates within this process: two validations finishing
/// together must not each publish an index missing the other's receipt.
static INDEX_LOCK: Mutex<()> = Mutex::new(());

type Result<T> = std::result::Result<T, SomiteError>;

/// The verdict of a validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceiptResult {
    /// Every node ran (or was cached) and produced its declared outputs;
    /// for a source pipeline, its `-preview` succeeded (see
    /// [`Receipt::source_preview`]).
    Passed,
    /// A node or the run itself failed.
    Failed,
    /// The run ended without failing, but what happened to some node could
    /// not be observed.
    Inconclusive,
}

/// The verdict on one node or edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ItemResult {
    Passed,
    Failed,
    /// Never ran, because the run stopped first or it had nothing to do.
    NotRun,
}

/// One value of `params.json` that the run used instead of the packaged
/// one, disclosed in the run status and the receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ParameterOverride {
    /// `inputs` (an input path), `values` (a tool parameter) or `params`
    /// (a parameter of a source pipeline).
    pub scope: String,
    pub node_id: String,
    pub param: String,
    /// The value in the package's `params.json`.
    pub packaged: Value,
    /// The value the run used.
    pub used: Value,
    /// Why, in words a reviewer can check.
    pub reason: String,
}

/// A root input bound to a content-addressed fixture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FixtureBinding {
    pub node_id: String,
    pub param: String,
    /// The port type the fixture represents (`Fastq`, `Bam`, ...).
    pub port_type: String,
    /// The reviewed fixture's name, e.g. `fastq-paired-r1`.
    pub fixture: String,
    /// Relative to the project folder: `.somite/fixtures/<hex>/<file>`.
    pub path: String,
    pub digest: Revision,
    pub bytes: u64,
}

/// A tool node a validation did not run, because it cannot run offline
/// (it downloads public data): reviewed fixtures of its output types stood
/// in for its outputs, and nothing about the node itself was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UnexercisedNode {
    pub node_id: String,
    pub operator_id: String,
    /// Why, in words (`needs the network`).
    pub reason: String,
}

/// What the receipt is about: exactly one semantic graph revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReceiptSubject {
    pub graph_revision: Revision,
}

/// The configuration the package ran with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReceiptConfiguration {
    /// The Nextflow profile (`local`, ...).
    pub profile: String,
    /// BLAKE3 of the `params.json` the run used.
    pub params_digest: Revision,
    /// BLAKE3 of the package's own `params.json`.
    pub packaged_params_digest: Revision,
    /// Every value that differs between the two.
    pub overrides: Vec<ParameterOverride>,
}

/// Who checked, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Verifier {
    pub name: String,
    pub version: String,
    /// The command the verifier ran, program first (the program as a bare
    /// name, so a receipt does not depend on where Pixi is installed).
    pub command: Vec<String>,
}

/// One node of the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeResult {
    pub node_id: String,
    /// The node state the run ended with (`done`, `cached`, `failed`, ...).
    pub state: String,
    pub result: ItemResult,
    /// The task's exit status, when the trace recorded one.
    pub exit: Option<i32>,
    /// Nextflow's task hash, when the trace recorded one.
    pub task_hash: Option<String>,
}

/// One edge of the graph: whether data flowed along it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EdgeResult {
    pub edge_id: String,
    pub from_node: String,
    pub from_port: String,
    pub to_node: String,
    pub to_port: String,
    pub result: ItemResult,
}

/// A file the run produced, by digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DigestedFile {
    /// Relative to the run's launch directory.
    pub path: String,
    pub bytes: u64,
    pub digest: Revision,
}

/// What a validation of a pinned source pipeline checked. Its tasks cannot
/// run on reviewed fixtures (the pipeline reads its own samplesheets), so
/// its evidence is Nextflow's `-preview` of the frozen package: a narrower
/// claim than a fixture run, and the receipt says exactly which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourcePreview {
    /// `owner/name` of the pinned pipeline.
    pub repository: String,
    /// The commit the run closure pins.
    pub commit: String,
    /// The tree digest the run closure pins, verified before the launch.
    pub tree_digest: Revision,
    /// What a passing preview shows.
    pub proves: String,
    /// What it does not show.
    pub does_not_prove: String,
}

/// One immutable validation record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub schema: String,
    pub schema_version: u32,
    /// `blake3:<hex>` of the canonical JSON of every other field.
    pub digest: Revision,
    /// RFC 3339 UTC.
    pub recorded_at: String,
    pub run_id: String,
    pub subject: ReceiptSubject,
    /// The package digest, as observed in the launch directory before the run.
    pub closure_digest: Revision,
    pub configuration: ReceiptConfiguration,
    pub fixtures: Vec<FixtureBinding>,
    /// The tool nodes the validation stood in for with fixtures; absent
    /// (and left out of the digest) when it ran every node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexercised: Vec<UnexercisedNode>,
    pub verifier: Verifier,
    pub result: ReceiptResult,
    /// Why the result is not `passed`, in words.
    pub reason: Option<String>,
    /// The exit status of the run's command.
    pub exit_code: Option<i32>,
    pub nodes: Vec<NodeResult>,
    pub edges: Vec<EdgeResult>,
    pub artifacts: Vec<DigestedFile>,
    pub logs: Vec<DigestedFile>,
    /// Present when the validation was a `-preview` of a source pipeline
    /// rather than a fixture run of every node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_preview: Option<SourcePreview>,
}

impl Receipt {
    /// The digest this receipt's content has: the revision of its canonical
    /// JSON without the `digest` field.
    pub fn computed_digest(&self) -> Revision {
        let mut value = serde_json::to_value(self).expect("receipts serialize");
        if let Value::Object(map) = &mut value {
            map.remove("digest");
        }
        revision_of(&value)
    }

    /// Sets `digest` to the computed one.
    pub fn sealed(mut self) -> Receipt {
        self.digest = self.computed_digest();
        self
    }

    fn file_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("receipts serialize");
        bytes.push(b'\n');
        bytes
    }
}

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    pub digest: Revision,
    pub graph_revision: Revision,
    pub result: ReceiptResult,
    pub recorded_at: String,
    pub run_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    schema: String,
    /// Oldest first.
    receipts: Vec<IndexEntry>,
}

impl Default for Index {
    fn default() -> Self {
        Index {
            schema: INDEX_SCHEMA.into(),
            receipts: Vec::new(),
        }
    }
}

/// A receipt the index lists that could not be returned as evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ReceiptProblem {
    pub digest: Revision,
    /// `tampered` (bytes no longer match the digest), `missing` or
    /// `unreadable`.
    pub problem: String,
    pub detail: String,
}

/// Every receipt of one graph revision, each re-verified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct EvidenceLookup {
    pub graph_revision: Revision,
    /// True only when a verified receipt of a fixture run of this revision
    /// passed. A source pipeline's `-preview` runs no task, so it never
    /// sets this; it sets `previewed`.
    pub validated: bool,
    /// True when a verified receipt of Nextflow's `-preview` of this
    /// revision's pinned pipeline passed: it parses and its DAG resolves
    /// (the receipt's `source_preview` says what that does and does not
    /// prove).
    pub previewed: bool,
    /// Verified receipts, oldest first.
    pub receipts: Vec<Receipt>,
    /// Listed receipts that failed verification.
    pub problems: Vec<ReceiptProblem>,
}

/// `.somite/evidence/receipts/<hex>.json`.
pub fn receipt_path(layout: &Layout, digest: &str) -> PathBuf {
    let hex = digest.strip_prefix("blake3:").unwrap_or(digest);
    receipts_dir(layout).join(format!("{hex}.json"))
}

fn receipts_dir(layout: &Layout) -> PathBuf {
    layout.evidence().join("receipts")
}

fn index_path(layout: &Layout) -> PathBuf {
    layout.evidence().join("index.json")
}

/// Seals `receipt`, writes it once and adds it to the index. Recording the
/// same receipt again is harmless; a different file already holding its
/// name is `evidence_tampered`, and nothing is overwritten.
pub fn record(layout: &Layout, receipt: Receipt) -> Result<Receipt> {
    let receipt = receipt.sealed();
    let path = receipt_path(layout, &receipt.digest);
    let bytes = receipt.file_bytes();
    match durable::read_capped(&path, MAX_EVIDENCE_FILE_BYTES) {
        Ok(existing) if existing == bytes => {}
        Ok(_) | Err(DurableError::TooLarge { .. }) => {
            return Err(tampered(
                &receipt.digest,
                "a different file already holds this receipt's name",
            ));
        }
        Err(DurableError::NotFound { .. }) => {
            durable::publish(&path, &bytes).map_err(SomiteError::from)?;
        }
        Err(e) => return Err(SomiteError::from(e)),
    }
    let _guard = INDEX_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut index = read_index(layout)?;
    if !index.receipts.iter().any(|e| e.digest == receipt.digest) {
        index.receipts.push(index_entry(&receipt));
        publish_index(layout, &index)?;
    }
    Ok(receipt)
}

/// Reads and verifies one receipt: its file name, its `digest` field and
/// the digest of its content must all agree.
pub fn read(layout: &Layout, digest: &str) -> Result<Receipt> {
    if !is_revision(digest) {
        return Err(SomiteError::new(
            ErrorCode::NotFound,
            format!("`{digest}` is not a receipt digest"),
            "pass a `blake3:<64 hex>` digest from an evidence lookup",
        ));
    }
    let path = receipt_path(layout, digest);
    let bytes = match durable::read_capped(&path, MAX_EVIDENCE_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(DurableError::NotFound { .. }) => {
            return Err(SomiteError::new(
                ErrorCode::NotFound,
                format!("no evidence receipt {digest}"),
                "look up the graph revision's evidence to list its receipts",
            ));
        }
        Err(DurableError::TooLarge { .. }) => {
            return Err(tampered(
                digest,
                "the receipt file is larger than any receipt",
            ));
        }
        Err(e) => return Err(SomiteError::from(e)),
    };
    let receipt: Receipt = serde_json::from_slice(&bytes)
        .map_err(|e| tampered(digest, &format!("the receipt does not parse: {e}")))?;
    if receipt.digest != digest {
        return Err(tampered(digest, "the receipt names another digest"));
    }
    if receipt.computed_digest() != digest {
        return Err(tampered(
            digest,
            "the receipt's content no longer hashes to its digest",
        ));
    }
    Ok(receipt)
}

/// The receipts of `graph_revision`, each re-verified on read.
pub fn lookup(layout: &Layout, graph_revision: &str) -> Result<EvidenceLookup> {
    let index = read_index(layout)?;
    let mut receipts = Vec::new();
    let mut problems = Vec::new();
    for entry in index
        .receipts
        .iter()
        .filter(|e| e.graph_revision == graph_revision)
    {
        match read(layout, &entry.digest) {
            Ok(receipt) if receipt.subject.graph_revision == graph_revision => {
                receipts.push(receipt);
            }
            Ok(_) => problems.push(ReceiptProblem {
                digest: entry.digest.clone(),
                problem: "tampered".into(),
                detail: "the receipt is about another graph revision than its index entry".into(),
            }),
            Err(e) => problems.push(ReceiptProblem {
                digest: entry.digest.clone(),
                problem: match e.code {
                    ErrorCode::EvidenceTampered => "tampered",
                    ErrorCode::NotFound => "missing",
                    _ => "unreadable",
                }
                .into(),
                detail: e.message,
            }),
        }
    }
    let passed = |preview: bool| {
        receipts
            .iter()
            .any(|r| r.result == ReceiptResult::Passed && r.source_preview.is_some() == preview)
    };
    Ok(EvidenceLookup {
        graph_revision: graph_revision.to_owned(),
        validated: passed(false),
        previewed: passed(true),
        receipts,
        problems,
    })
}

/// Adds to the index every verified receipt on disk that it does not list
/// (a crash between writing a receipt and publishing the index leaves one
/// out), and returns how many were added; an index that does not parse is
/// rebuilt from the receipts. Unverifiable files are left alone: they are
/// not evidence.
pub fn reconcile_index(layout: &Layout) -> Result<usize> {
    let dir = receipts_dir(layout);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(SomiteError::io(&dir, &e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SomiteError::io(&dir, &e))?;
        if let Some(hex) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_suffix(".json"))
        {
            names.push(format!("blake3:{hex}"));
        }
    }
    names.sort();
    let _guard = INDEX_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    // An index that does not parse is rebuilt from the receipts themselves.
    let (mut index, corrupt) = match read_index(layout) {
        Err(e) if e.code == ErrorCode::InvalidDocument => (Index::default(), true),
        other => (other?, false),
    };
    let mut added = Vec::new();
    for digest in names {
        if index.receipts.iter().any(|e| e.digest == digest) {
            continue;
        }
        if let Ok(receipt) = read(layout, &digest) {
            added.push(index_entry(&receipt));
        }
    }
    if added.is_empty() {
        if corrupt {
            publish_index(layout, &index)?;
        }
        return Ok(0);
    }
    added.sort_by(|a, b| a.recorded_at.cmp(&b.recorded_at));
    let count = added.len();
    index.receipts.extend(added);
    publish_index(layout, &index)?;
    Ok(count)
}

fn index_entry(receipt: &Receipt) -> IndexEntry {
    IndexEntry {
        digest: receipt.digest.clone(),
        graph_revision: receipt.subject.graph_revision.clone(),
        result: receipt.result,
        recorded_at: receipt.recorded_at.clone(),
        run_id: receipt.run_id.clone(),
    }
}

fn read_index(layout: &Layout) -> Result<Index> {
    let path = index_path(layout);
    match durable::read_capped(&path, MAX_EVIDENCE_FILE_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidDocument,
                format!("the evidence index does not parse: {e}"),
                format!(
                    "remove {}; it is rebuilt from the receipts when Somite starts",
                    path.display()
                ),
            )
        }),
        Err(DurableError::NotFound { .. }) => Ok(Index::default()),
        Err(e) => Err(SomiteError::from(e)),
    }
}

fn publish_index(layout: &Layout, index: &Index) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(index).expect("the index serializes");
    bytes.push(b'\n');
    durable::publish(&index_path(layout), &bytes).map_err(SomiteError::from)
}

fn tampered(digest: &str, why: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::EvidenceTampered,
        format!("evidence receipt {digest} failed verification: {why}"),
        "do not rely on this receipt; validate the workflow again to record fresh evidence",
    )
    .with_detail("digest", digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt(graph_revision: &str, result: ReceiptResult) -> Receipt {
        Receipt {
            schema: RECEIPT_SCHEMA.into(),
            schema_version: RECEIPT_SCHEMA_VERSION,
            digest: String::new(),
            recorded_at: "2026-01-01T00:00:00Z".into(),
            run_id: "run-test".into(),
            subject: ReceiptSubject {
                graph_revision: graph_revision.into(),
            },
            closure_digest: revision_of(&"closure"),
            configuration: ReceiptConfiguration {
                profile: "local".into(),
                params_digest: revision_of(&"params"),
                packaged_params_digest: revision_of(&"params"),
                overrides: Vec::new(),
            },
            fixtures: Vec::new(),
            unexercised: Vec::new(),
            verifier: Verifier {
                name: "test".into(),
                version: "0".into(),
                command: vec!["pixi".into()],
            },
            result,
            reason: None,
            exit_code: Some(0),
            nodes: Vec::new(),
            edges: Vec::new(),
            artifacts: Vec::new(),
            logs: Vec::new(),
            source_preview: None,
        }
    }

    #[test]
    fn a_recorded_receipt_is_found_verified_and_recording_it_again_is_harmless() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let graph = revision_of(&"graph");
        let first = record(&layout, receipt(&graph, ReceiptResult::Passed)).unwrap();
        assert_eq!(first.digest, first.computed_digest());
        let again = record(&layout, receipt(&graph, ReceiptResult::Passed)).unwrap();
        assert_eq!(again.digest, first.digest);

        let found = lookup(&layout, &graph).unwrap();
        assert!(found.validated);
        assert_eq!(found.receipts, vec![first.clone()]);
        assert!(found.problems.is_empty());
        assert_eq!(read(&layout, &first.digest).unwrap(), first);
        let other = lookup(&layout, &revision_of(&"other")).unwrap();
        assert!(!other.validated && other.receipts.is_empty());
    }

    #[test]
    fn a_failed_receipt_does_not_validate() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let graph = revision_of(&"graph");
        record(&layout, receipt(&graph, ReceiptResult::Failed)).unwrap();
        let found = lookup(&layout, &graph).unwrap();
        assert_eq!(found.receipts.len(), 1);
        assert!(!found.validated);
    }

    #[test]
    fn a_tampered_receipt_is_reported_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let graph = revision_of(&"graph");
        let sealed = record(&layout, receipt(&graph, ReceiptResult::Failed)).unwrap();
        let path = receipt_path(&layout, &sealed.digest);
        let text = fs::read_to_string(&path).unwrap();
        let forged = text.replace("\"failed\"", "\"passed\"");
        assert_ne!(forged, text);
        fs::write(&path, &forged).unwrap();

        let error = read(&layout, &sealed.digest).unwrap_err();
        assert_eq!(error.code, ErrorCode::EvidenceTampered, "{error:?}");
        let found = lookup(&layout, &graph).unwrap();
        assert!(!found.validated, "a forged pass must not validate");
        assert!(found.receipts.is_empty());
        assert_eq!(found.problems.len(), 1);
        assert_eq!(found.problems[0].problem, "tampered");

        let error = record(&layout, receipt(&graph, ReceiptResult::Failed)).unwrap_err();
        assert_eq!(error.code, ErrorCode::EvidenceTampered);
        assert_eq!(fs::read_to_string(&path).unwrap(), forged);

        fs::remove_file(&path).unwrap();
        let found = lookup(&layout, &graph).unwrap();
        assert_eq!(found.problems[0].problem, "missing");
    }

    #[test]
    fn reconcile_adds_receipts_the_index_lost() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let graph = revision_of(&"graph");
        let sealed = record(&layout, receipt(&graph, ReceiptResult::Passed)).unwrap();
        fs::remove_file(index_path(&layout)).unwrap();
        assert!(lookup(&layout, &graph).unwrap().receipts.is_empty());
        fs::write(receipts_dir(&layout).join("junk.json"), b"{}").unwrap();
        assert_eq!(reconcile_index(&layout).unwrap(), 1);
        assert_eq!(
            lookup(&layout, &graph).unwrap().receipts,
            vec![sealed.clone()]
        );
        assert_eq!(reconcile_index(&layout).unwrap(), 0);

        fs::write(index_path(&layout), b"not json").unwrap();
        assert_eq!(
            lookup(&layout, &graph).unwrap_err().code,
            ErrorCode::InvalidDocument
        );
        assert_eq!(reconcile_index(&layout).unwrap(), 1);
        assert_eq!(lookup(&layout, &graph).unwrap().receipts, vec![sealed]);
    }
}
