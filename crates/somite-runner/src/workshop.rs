//! Candidate proofs: an operator candidate run once, exactly, through the
//! production supervisor, in a project of its own.
//!
//! A candidate never enters the project's catalog, so it cannot be placed
//! in the project's graph to be validated. Instead each proof builds an
//! isolated project under `.somite/operator-candidates/proofs/<key>/`
//! whose own catalog holds the reviewed contracts plus this one candidate,
//! and whose graph is the smallest ready one: for every required input an
//! import of its type holding the reviewed tiny fixture, connected to the
//! candidate with its defaults. That project is validated by a
//! [`Supervisor`] with the runtime's own toolchain, exactly as a validation
//! of the user's graph runs, so the proof is bound to the candidate's
//! digest and to the run closure that validation froze, and its verdict is
//! that run's terminal evidence. The user's project, graph and catalog are
//! not touched.
//!
//! Where the candidate's executable is on `PATH`, the task proof of
//! [`crate::proof`] also runs it on the same kinds of fixtures, and is
//! recorded beside the validation as what it is ([`PROOF_KIND`]).

use crate::fixtures::{Mate, representative};
use crate::proof::fixtures::FixtureKind;
use crate::proof::{PROOF_KIND, Proof, Prover};
use crate::sandbox::Sandbox;
use crate::supervisor::{StatusPoll, Supervisor, ValidationRequest, check_idempotency_key};
use crate::{RunStatus, RunnerError, RunnerToolchain};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_api::{DomainCode, Error, WorkshopCode};
use somite_project::candidates::Candidate;
use somite_project::durable::{self, DurableError};
use somite_project::evidence::EvidenceLookup;
use somite_project::toolchain::find_on_path;
use somite_project::{Layout, Project, Seed};
use somite_workflow::operator::{OperatorKind, PortSpec};
use somite_workflow::transaction::{GraphTransaction, Operation};
use somite_workflow::types::PortType;
use somite_workflow::{Catalog, Revision, SomiteError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The candidate's node in its proof graph.
const CANDIDATE_NODE: &str = "candidate";

/// `POST /api/operator-candidates/{digest}/proofs` and
/// `somite.operator_candidate.prove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProveRequest {
    /// `^[A-Za-z0-9_-]{8,128}$`, fresh for each intended proof; it names the proof.
    pub idempotency_key: String,
}

/// What a task proof recorded, or why none ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TaskProofRecord {
    /// The task proof ran; `proof` is its record.
    Ran {
        kind: String,
        passed: bool,
        proof: Box<Proof>,
    },
    NotRun {
        kind: String,
        reason: String,
    },
}

/// The proof receipt: which candidate, which run, which closure.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProofReceipt {
    /// The idempotency key the proof was started with.
    pub proof_id: String,
    pub candidate_digest: Revision,
    pub operator_id: String,
    pub operator_revision: Revision,
    /// The validation run of the proof project.
    pub run_id: String,
    pub graph_revision: Revision,
    pub closure_digest: Revision,
    /// Input port → the reviewed fixture bound to it.
    pub fixtures: Vec<FixtureChoice>,
    pub task_proof: TaskProofRecord,
    /// True when this answered a repeated request with its original proof.
    #[serde(default)]
    pub replayed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FixtureChoice {
    pub port: String,
    pub port_type: PortType,
    /// The import operator holding it.
    pub import_operator: String,
    pub fixture: String,
}

/// `somite.operator_proof.status`: the receipt and its run's evidence.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ProofStatus {
    #[serde(flatten)]
    pub receipt: ProofReceipt,
    pub run: RunStatus,
    /// True only once the run ended and its evidence receipt for the proof
    /// graph's revision verified as passed.
    pub proven: bool,
    /// Whether the proof passed as a whole: `proven`, and the task proof ran
    /// the candidate's real tool and passed. Only such a proof lets a person
    /// accept the candidate.
    pub passed: bool,
    /// The proof graph's evidence, once the run ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<EvidenceLookup>,
}

/// The proofs of one project's candidates.
pub struct Workshop {
    layout: Layout,
    toolchain: RunnerToolchain,
    /// One supervisor per proof project, opened on first use.
    supervisors: Mutex<HashMap<String, Supervisor>>,
    /// Held for a whole start, so two starts with one key cannot both run.
    starts: Mutex<()>,
}

impl std::fmt::Debug for Workshop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workshop")
            .field("project", &self.layout.root())
            .finish()
    }
}

fn runner_error(error: RunnerError) -> Error {
    Error::from(SomiteError::from(error))
}

fn somite(error: SomiteError) -> Error {
    Error::from(error)
}

/// The tiny fixture a task proof stages for a port of `ty`.
fn task_fixture(ty: PortType, port: &str) -> Option<FixtureKind> {
    Some(match ty {
        PortType::Fastq => match Mate::of_param(port) {
            Mate::First => FixtureKind::ReadsR1,
            Mate::Second => FixtureKind::ReadsR2,
        },
        PortType::Fasta => FixtureKind::Genome,
        PortType::FastaGz => FixtureKind::GenomeGz,
        PortType::Gtf => FixtureKind::Annotation,
        PortType::GtfGz => FixtureKind::AnnotationGz,
        PortType::Gff3 => FixtureKind::AnnotationGff3,
        PortType::Bed => FixtureKind::Regions,
        _ => return None,
    })
}

/// One input of the proof graph.
struct PlannedInput {
    choice: FixtureChoice,
    import_param: String,
    import_port: String,
    file_name: String,
    bytes: Vec<u8>,
}

/// The candidate's input ports a run must bind: a fixture feeds each.
fn required_inputs(candidate: &Candidate) -> impl Iterator<Item = &PortSpec> {
    candidate
        .contract
        .ports
        .inputs
        .iter()
        .filter(|p| !p.optional)
}

/// For each required input of the candidate, the reviewed import operator
/// and tiny fixture of a type it accepts; `fixture_unsupported` naming the
/// type when there is none.
fn plan_inputs(catalog: &Catalog, candidate: &Candidate) -> Result<Vec<PlannedInput>, Error> {
    let mut planned = Vec::new();
    for port in required_inputs(candidate) {
        let accepted = std::iter::once(port.ty).chain(port.union.iter().copied());
        let found = if port.resource.is_some() {
            None
        } else {
            accepted.clone().find_map(|ty| {
                let fixture = representative(ty, Mate::of_param(&port.name))?;
                let crate::fixtures::FixtureContent::File(bytes) = fixture.content else {
                    return None;
                };
                let import = catalog.entries().find_map(|e| {
                    let c = &e.contract;
                    let out = match c.ports.outputs.as_slice() {
                        [one] if c.kind == OperatorKind::Source && one.ty == ty => one,
                        _ => return None,
                    };
                    let param = out.import_param.clone()?;
                    (out.resource_profile.is_none() && c.params.len() == 1)
                        .then(|| (c.id.clone(), out.name.clone(), param))
                })?;
                Some(PlannedInput {
                    choice: FixtureChoice {
                        port: port.name.clone(),
                        port_type: ty,
                        import_operator: import.0,
                        fixture: fixture.name.to_owned(),
                    },
                    import_port: import.1,
                    import_param: import.2,
                    file_name: fixture.file_name.to_owned(),
                    bytes,
                })
            })
        };
        match found {
            Some(input) => planned.push(input),
            None => {
                let types: Vec<&str> = accepted.map(|t| t.name()).collect();
                let named = match &port.resource {
                    Some(need) => format!("the managed resource `{}`", need.profile),
                    None => types.join(" | "),
                };
                return Err(Error::new(
                    WorkshopCode::FixtureUnsupported,
                    format!(
                        "input `{}` takes {named}, for which Somite has no reviewed tiny fixture",
                        port.name
                    ),
                    "a candidate can be proven only when each required input takes a type with a fixture (FASTQ, FASTQ.gz, FASTA, FASTA.gz, GTF, GTF.gz, SAM, BAM)",
                )
                .with_details(json!({"port": port.name, "types": types})));
            }
        }
    }
    Ok(planned)
}

impl Workshop {
    /// The proofs of the project at `layout`, run with `toolchain` (the
    /// runtime supervisor's own).
    pub fn new(layout: Layout, toolchain: RunnerToolchain) -> Workshop {
        Workshop {
            layout,
            toolchain,
            supervisors: Mutex::new(HashMap::new()),
            starts: Mutex::new(()),
        }
    }

    fn proof_root(&self, proof_id: &str) -> PathBuf {
        self.layout.candidate_proofs().join(proof_id)
    }

    fn receipt_path(&self, proof_id: &str) -> PathBuf {
        self.proof_root(proof_id).join("proof.json")
    }

    fn read_receipt(&self, proof_id: &str) -> Result<Option<ProofReceipt>, Error> {
        match durable::read_capped(&self.receipt_path(proof_id), 16 * 1024 * 1024) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                Error::new(
                    DomainCode::InvalidDocument,
                    format!("proof receipt {proof_id}: {e}"),
                    "prove the candidate again with a fresh key",
                )
            }),
            Err(DurableError::NotFound { .. }) => Ok(None),
            Err(e) => Err(somite(SomiteError::from(e))),
        }
    }

    fn supervisor(&self, proof_id: &str) -> Result<Supervisor, Error> {
        let mut supervisors = self.supervisors.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(supervisor) = supervisors.get(proof_id) {
            return Ok(supervisor.clone());
        }
        let supervisor = Supervisor::open(&self.proof_root(proof_id), self.toolchain.clone())
            .map_err(runner_error)?;
        supervisors.insert(proof_id.to_owned(), supervisor.clone());
        Ok(supervisor)
    }

    /// Proves `candidate` once under `request`'s key: a repeat with the same
    /// candidate replays the original receipt, another candidate under the
    /// same key is `idempotency_conflict`. Blocking (durable I/O, the task
    /// proof); call it off the async executor, inside the Tokio runtime.
    pub fn prove(
        &self,
        catalog: &Catalog,
        candidate: &Candidate,
        request: &ProveRequest,
    ) -> Result<ProofReceipt, Error> {
        let key = &request.idempotency_key;
        check_idempotency_key(key).map_err(runner_error)?;
        let _start = self.starts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(original) = self.read_receipt(key)? {
            if original.candidate_digest != candidate.digest {
                return Err(runner_error(RunnerError::IdempotencyConflict));
            }
            return Ok(ProofReceipt {
                replayed: true,
                ..original
            });
        }
        // The candidate's command is nobody's reviewed code: without a
        // sandbox it does not run at all.
        let sandbox = Sandbox::probe().map_err(|reason| {
            Error::new(
                WorkshopCode::IsolationUnavailable,
                format!("this machine cannot isolate a candidate's proof: {reason}"),
                "Install bubblewrap (Debian: `apt install bubblewrap`, which scripts/setup does) on a kernel with user namespaces, then prove again.",
            )
        })?;
        let inputs = plan_inputs(catalog, candidate)?;
        let root = self.proof_root(key);
        // A folder without a receipt is a start a crash interrupted: it
        // never answered, so it starts afresh.
        if root.exists() {
            std::fs::remove_dir_all(&root).map_err(|e| somite(SomiteError::io(&root, &e)))?;
        }
        let proof_layout = Layout::new(&root);
        let contract_path = proof_layout
            .operators()
            .join(format!("{}.json", candidate.operator_id));
        let contract = serde_json::to_vec_pretty(&candidate.contract).expect("contracts serialize");
        publish(&contract_path, &contract)?;
        for input in &inputs {
            publish(&root.join("inputs").join(&input.file_name), &input.bytes)?;
        }
        let mut project = Project::open(&root, Seed::Empty).map_err(somite)?;
        let mut operations = Vec::new();
        for (index, input) in inputs.iter().enumerate() {
            operations.push(operation(json!({
                "op": "add_operator",
                "node_id": format!("fixture_{}", input.choice.port),
                "operator_id": input.choice.import_operator,
                "params": {input.import_param.as_str(): format!("inputs/{}", input.file_name)},
                "x": 0, "y": 120 * index,
            }))?);
        }
        operations.push(operation(json!({
            "op": "add_operator",
            "node_id": CANDIDATE_NODE,
            "operator_id": candidate.operator_id,
            "x": 320, "y": 0,
        }))?);
        for input in &inputs {
            let node = format!("fixture_{}", input.choice.port);
            operations.push(operation(json!({
                "op": "connect",
                "edge_id": format!("{node}-candidate"),
                "from_node": node,
                "from_port": input.import_port,
                "to_node": CANDIDATE_NODE,
                "to_port": input.choice.port,
            }))?);
        }
        let transaction = GraphTransaction {
            base_state_revision: project.state_revision().clone(),
            idempotency_key: format!("proof-graph-{key}"),
            summary: format!("Proof graph of {}", candidate.operator_id),
            operations,
        };
        project.apply_transaction(&transaction).map_err(somite)?;
        let supervisor = self.supervisor(key)?;
        let started = supervisor
            .start_validation(
                &project,
                &ValidationRequest {
                    idempotency_key: key.clone(),
                },
            )
            .map_err(runner_error)?;
        let task_proof = task_proof(
            project.catalog(),
            candidate,
            &root.join("task-proof"),
            &sandbox,
        );
        let receipt = ProofReceipt {
            proof_id: key.clone(),
            candidate_digest: candidate.digest.clone(),
            operator_id: candidate.operator_id.clone(),
            operator_revision: candidate.operator_revision.clone(),
            run_id: started.run_id,
            graph_revision: started.graph_revision,
            closure_digest: started.closure_digest,
            fixtures: inputs.into_iter().map(|i| i.choice).collect(),
            task_proof,
            replayed: false,
        };
        let bytes = serde_json::to_vec_pretty(&receipt).expect("receipts serialize");
        publish(&self.receipt_path(key), &bytes)?;
        Ok(receipt)
    }

    /// Every proof receipt of the project, oldest proof id first.
    pub fn receipts(&self) -> Result<Vec<ProofReceipt>, Error> {
        let dir = self.layout.candidate_proofs();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(somite(SomiteError::io(&dir, &e))),
        };
        let mut ids: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|id| check_idempotency_key(id).is_ok())
            .collect();
        ids.sort();
        let mut receipts = Vec::new();
        for id in ids {
            receipts.extend(self.read_receipt(&id)?);
        }
        Ok(receipts)
    }

    /// The status of every proof of the candidate `digest`, oldest first,
    /// without waiting.
    pub async fn proofs_of(&self, digest: &Revision) -> Result<Vec<ProofStatus>, Error> {
        let mut statuses = Vec::new();
        for receipt in self.receipts()? {
            if receipt.candidate_digest == *digest {
                let now = StatusPoll {
                    wait_ms: 0,
                    since_revision: None,
                };
                statuses.push(self.status(&receipt.proof_id, now).await?);
            }
        }
        Ok(statuses)
    }

    /// Refuses with `proof_required` unless a proof of exactly this
    /// candidate passed.
    pub async fn require_passed_proof(&self, digest: &Revision) -> Result<(), Error> {
        let proofs = self.proofs_of(digest).await?;
        if proofs.iter().any(|p| p.passed) {
            return Ok(());
        }
        let why = match proofs.last() {
            None => "it was never proven".to_owned(),
            Some(last) if !last.run.phase.is_terminal() => {
                format!("its proof {} has not ended", last.receipt.proof_id)
            }
            Some(last) => format!("its proof {} did not pass", last.receipt.proof_id),
        };
        Err(Error::new(
            WorkshopCode::ProofRequired,
            format!("candidate {digest} cannot be accepted: {why}"),
            "Prove this exact candidate (Project tools, or the agent's somite.operator_candidate.prove) and accept it once a proof passed; a changed candidate needs its own proof.",
        ))
    }

    /// The proof's receipt with its run's status, waiting like run status
    /// (`wait_ms`), and, once the run ended, its evidence.
    pub async fn status(&self, proof_id: &str, poll: StatusPoll) -> Result<ProofStatus, Error> {
        let unknown = || {
            Error::new(
                WorkshopCode::CandidateNotFound,
                format!("no candidate proof {proof_id}"),
                "use the proof_id somite.operator_candidate.prove returned",
            )
        };
        if check_idempotency_key(proof_id).is_err() {
            return Err(unknown());
        }
        let receipt = self.read_receipt(proof_id)?.ok_or_else(unknown)?;
        let supervisor = self.supervisor(proof_id)?;
        let run = supervisor
            .status(&receipt.run_id, poll)
            .await
            .map_err(runner_error)?;
        let evidence = if run.phase.is_terminal() {
            Some(
                supervisor
                    .evidence(&receipt.graph_revision)
                    .map_err(runner_error)?,
            )
        } else {
            None
        };
        let proven = evidence.as_ref().is_some_and(|e| e.validated);
        Ok(ProofStatus {
            proven,
            passed: proven
                && matches!(
                    receipt.task_proof,
                    TaskProofRecord::Ran { passed: true, .. }
                ),
            receipt,
            run,
            evidence,
        })
    }
}

fn operation(value: Value) -> Result<Operation, Error> {
    serde_json::from_value(value).map_err(|e| {
        Error::new(
            DomainCode::InvalidTransaction,
            format!("the proof graph's edit does not parse: {e}"),
            "report this: the workshop built an edit the graph refuses",
        )
    })
}

fn publish(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    durable::publish(path, bytes).map_err(|e| somite(SomiteError::from(e)))
}

/// Runs the task proof when the candidate's executable is on `PATH` and
/// every input has a task-proof fixture; otherwise says why not.
fn task_proof(
    catalog: &Catalog,
    candidate: &Candidate,
    root: &Path,
    sandbox: &Sandbox,
) -> TaskProofRecord {
    let not_run = |reason: String| TaskProofRecord::NotRun {
        kind: PROOF_KIND.to_owned(),
        reason,
    };
    let tool = candidate
        .contract
        .bin
        .clone()
        .unwrap_or_else(|| candidate.operator_id.clone());
    if find_on_path(&tool).is_none() {
        return not_run(format!("`{tool}` is not on PATH"));
    }
    let mut fixtures = Vec::new();
    for port in required_inputs(candidate) {
        match task_fixture(port.ty, &port.name) {
            Some(kind) => fixtures.push((port.name.clone(), kind)),
            None => {
                return not_run(format!(
                    "no task-proof fixture for input `{}` of type {}",
                    port.name, port.ty
                ));
            }
        }
    }
    match Prover::new(catalog, root).prove_on(&candidate.operator_id, &fixtures, sandbox) {
        Ok(proof) => TaskProofRecord::Ran {
            kind: PROOF_KIND.to_owned(),
            passed: proof.passed,
            proof: Box::new(proof),
        },
        Err(error) => not_run(SomiteError::from(error).message),
    }
}
