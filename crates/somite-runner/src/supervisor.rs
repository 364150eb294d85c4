//! The one run supervisor behind Run and Validate, for people and agents
//! alike.
//!
//! A start is synchronous and decides everything that can be refused before
//! any process exists, in this order: the idempotency key (a replay returns
//! the original launch, a different launch under the same key is
//! rejected), the input-origin binding, the Workflow assessment
//! (`workflow_not_ready`), for a validation a reviewed fixture for every
//! root, `pixi` on PATH (`toolchain_missing`), and the production compile.
//! Only then is the launch recorded and its supervision task spawned on the
//! Tokio runtime the supervisor was opened in.
//!
//! The task lays out the launch directory (binding fixtures for a
//! validation), runs `pixi run --frozen --manifest-path <launch>/pixi.toml
//! run <profile>` in its own process group, follows Nextflow's trace into
//! node states, and on exit (or cancellation: SIGTERM to the group, then
//! SIGKILL) settles every node, records a validation's evidence receipt
//! while the phase is still `finalizing`, and ends the run. Every status
//! change is republished durably to the run's record, sent to long-polling
//! readers through a `watch` channel and to subscribers (the activity
//! feed) through a `broadcast` channel.
//!
//! A source workflow (one pinned `workflow.source` node) goes through the
//! same steps with two differences: its parameters (its own samplesheets,
//! no fixture stands for them) keep their values, relative paths resolved
//! against the project folder, and its validation runs the package's
//! `preview` task (Nextflow `-preview`: the pipeline compiles and its DAG
//! resolves, no task runs), whose receipt says so and names the pinned
//! commit and tree digest.

use crate::error::{RunnerError, run_failure};
use crate::launch::{self, BoundFixture, Configuration};
use crate::limits::{EVENT_CAPACITY, MAX_STATUS_WAIT, MAX_TRACE_BYTES, TRACE_POLL_INTERVAL};
use crate::process::{self, Launch, LogCapture};
use crate::receipt::{self, ValidationRecord};
use crate::status::{NodeState, RunKind, RunPhase, RunStarted, RunStatus};
use crate::store::{self, RunRecord};
use crate::timestamp;
use crate::trace::{self, Ending, NodeTasks};
use serde::{Deserialize, Serialize};
use serde_json::json;
use somite_project::compiled::{self, PixiOutcome, Toolchain};
use somite_project::durable::{self, DurableError};
use somite_project::evidence::{
    self, DigestedFile, EvidenceLookup, ReceiptConfiguration, SourcePreview, UnexercisedNode,
};
use somite_project::records::{Lookup, Records};
use somite_project::toolchain::find_on_path;
use somite_project::{Layout, Project};
use somite_workflow::SomiteError;
use somite_workflow::canonical::{is_revision, revision_of};
use somite_workflow::compile::{NodeMap, PREVIEW_TASK, PROFILES, TRACE_FILE};
use somite_workflow::graph::Edge;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::sync::{broadcast, watch};

/// The external tool a run needs. Only Pixi: the package's own locked
/// environment provides Nextflow and Java.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunnerToolchain {
    pixi: Option<PathBuf>,
    env: BTreeMap<OsString, OsString>,
    /// The store of pinned source trees a source workflow compiles from;
    /// the environment's user cache when unset.
    source_cache: Option<PathBuf>,
}

impl RunnerToolchain {
    /// Finds `pixi` on `PATH`.
    pub fn from_path() -> RunnerToolchain {
        RunnerToolchain {
            pixi: find_on_path("pixi"),
            ..RunnerToolchain::default()
        }
    }

    /// Uses the `pixi` at `path` (tests pass a stand-in here).
    pub fn with_pixi(path: impl Into<PathBuf>) -> RunnerToolchain {
        RunnerToolchain {
            pixi: Some(path.into()),
            ..RunnerToolchain::default()
        }
    }

    /// No Pixi: every start fails with `toolchain_missing`.
    pub fn without_pixi() -> RunnerToolchain {
        RunnerToolchain::default()
    }

    /// Adds one variable to the command's environment, on top of the
    /// allowlist ([`process::ENV_ALLOWLIST`]).
    #[must_use]
    pub fn with_env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Compiles source workflows from the pinned trees in `cache_dir`.
    #[must_use]
    pub fn with_source_cache(mut self, cache_dir: impl Into<PathBuf>) -> Self {
        self.source_cache = Some(cache_dir.into());
        self
    }

    pub fn pixi(&self) -> Option<&Path> {
        self.pixi.as_deref()
    }

    /// The compile toolchain of a launch: this Pixi and source store.
    fn compile_toolchain(&self, pixi: &Path) -> Toolchain {
        let toolchain = Toolchain::with_pixi(pixi);
        match &self.source_cache {
            Some(cache) => toolchain.with_source_cache(cache),
            None => toolchain,
        }
    }

    fn usable_pixi(&self) -> Result<&Path, RunnerError> {
        self.pixi
            .as_deref()
            .filter(|p| p.is_file())
            .ok_or(RunnerError::ToolchainMissing)
    }
}

/// `POST /api/runs` and `somite.run.start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// `^[A-Za-z0-9_-]{8,128}$`, fresh for each intended launch.
    pub idempotency_key: String,
    /// One of the package's Nextflow profiles; `local` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// `POST /api/validations` and `somite.validation.start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidationRequest {
    pub idempotency_key: String,
}

/// How long a status read may wait for a change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusPoll {
    /// 0 answers at once; larger values are capped at 25,000.
    #[serde(default)]
    pub wait_ms: u64,
    /// When set and the status has another revision already, answer at once.
    #[serde(default)]
    pub since_revision: Option<u64>,
}

/// The run supervisor of one project. Cheap to clone; every clone is the
/// same supervisor.
#[derive(Clone)]
pub struct Supervisor {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor")
            .field("project", &self.inner.layout.root())
            .field("pixi", &self.inner.toolchain.pixi())
            .field("runs", &lock(&self.inner.runs).len())
            .finish()
    }
}

struct Inner {
    layout: Layout,
    toolchain: RunnerToolchain,
    runtime: Handle,
    runs: Mutex<HashMap<String, Arc<RunHandle>>>,
    /// Held for a whole start, so two starts with one key cannot both launch.
    launches: Mutex<Records<RunStarted>>,
    events: broadcast::Sender<RunStatus>,
    recovered: Vec<RunStatus>,
}

/// One launch known to this process.
struct RunHandle {
    status: watch::Sender<RunStatus>,
    cancel: watch::Sender<bool>,
    process_group: Mutex<Option<i32>>,
    /// Orders record publications, so the newest status is the last written.
    persist: Mutex<()>,
}

impl RunHandle {
    fn new(status: RunStatus) -> RunHandle {
        RunHandle {
            status: watch::Sender::new(status),
            cancel: watch::Sender::new(false),
            process_group: Mutex::new(None),
            persist: Mutex::new(()),
        }
    }

    fn snapshot(&self) -> RunStatus {
        self.status.borrow().clone()
    }

    fn cancel_requested(&self) -> bool {
        *self.cancel.borrow()
    }
}

/// Everything the supervision task needs, decided at start.
struct LaunchPlan {
    kind: RunKind,
    profile: String,
    launch: Launch,
    launch_dir: PathBuf,
    package: somite_workflow::compile::CompiledPackage,
    configuration: Configuration,
    bound: Vec<BoundFixture>,
    /// The nodes a validation stood in for with fixtures.
    unexercised: Vec<UnexercisedNode>,
    node_map: NodeMap,
    edges: Vec<Edge>,
    /// The command as a receipt shows it: `pixi` and launch-relative paths.
    shown_command: Vec<String>,
    /// The package task the command runs (`run`, or `preview`).
    task: &'static str,
    /// For a validation of a source pipeline: what its `-preview` is
    /// evidence of.
    source_preview: Option<SourcePreview>,
}

impl Supervisor {
    /// Opens the supervisor of the project at `project_root`: marks every
    /// run a previous Somite process left unfinished as failed (`run_lost`),
    /// re-indexes evidence receipts a crash left out of the index, and loads
    /// the remembered launches.
    ///
    /// # Panics
    /// Outside a Tokio runtime: runs are supervised on the runtime that
    /// opened the supervisor.
    pub fn open(
        project_root: &Path,
        toolchain: RunnerToolchain,
    ) -> Result<Supervisor, RunnerError> {
        let runtime = Handle::current();
        let root = project_root
            .canonicalize()
            .map_err(|e| RunnerError::io(project_root, e))?;
        let layout = Layout::new(root);
        let recovered = store::recover(&layout)?;
        evidence::reconcile_index(&layout)?;
        let launches = store::read_launches(&layout)?;
        let runs = recovered
            .iter()
            .map(|s| (s.run_id.clone(), Arc::new(RunHandle::new(s.clone()))))
            .collect();
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        Ok(Supervisor {
            inner: Arc::new(Inner {
                layout,
                toolchain,
                runtime,
                runs: Mutex::new(runs),
                launches: Mutex::new(launches),
                events,
                recovered,
            }),
        })
    }

    /// The toolchain this supervisor runs with: candidate proofs
    /// ([`crate::workshop`]) run with the same one.
    pub fn toolchain(&self) -> &RunnerToolchain {
        &self.inner.toolchain
    }

    /// The runs [`open`](Supervisor::open) found unfinished and marked lost,
    /// for the activity feed to announce.
    pub fn recovered_runs(&self) -> &[RunStatus] {
        &self.inner.recovered
    }

    /// Every status change of every run, as it happens.
    pub fn subscribe(&self) -> broadcast::Receiver<RunStatus> {
        self.inner.events.subscribe()
    }

    /// Starts a run of the project's current graph on its configured inputs.
    pub fn start_run(
        &self,
        project: &Project,
        request: &RunRequest,
    ) -> Result<RunStarted, RunnerError> {
        self.start(
            project,
            RunKind::Run,
            &request.idempotency_key,
            request.profile.as_deref(),
        )
    }

    /// Starts a validation of the project's current graph on representative
    /// fixtures; it ends with an evidence receipt.
    pub fn start_validation(
        &self,
        project: &Project,
        request: &ValidationRequest,
    ) -> Result<RunStarted, RunnerError> {
        self.start(project, RunKind::Validation, &request.idempotency_key, None)
    }

    /// The status of `run_id`. With `poll.wait_ms` > 0 it waits (at most
    /// 25 s) until the status changes, and answers at once when the run
    /// has ended or `poll.since_revision` is already out of date.
    pub async fn status(&self, run_id: &str, poll: StatusPoll) -> Result<RunStatus, RunnerError> {
        let run = self.inner.handle(run_id)?;
        let mut changes = run.status.subscribe();
        let current = changes.borrow_and_update().clone();
        let wait = Duration::from_millis(poll.wait_ms).min(MAX_STATUS_WAIT);
        let out_of_date = poll.since_revision.is_some_and(|r| r != current.revision);
        if wait.is_zero() || current.phase.is_terminal() || out_of_date {
            return Ok(current);
        }
        let _ = tokio::time::timeout(wait, changes.changed()).await;
        Ok(changes.borrow().clone())
    }

    /// Asks `run_id` to stop: the phase becomes `cancelling` and the whole
    /// process group gets SIGTERM, then SIGKILL after the grace period; the
    /// run ends `cancelled`. Cancelling a run that has ended, or is already
    /// finalizing, changes nothing and returns its status.
    pub fn cancel(&self, run_id: &str) -> Result<RunStatus, RunnerError> {
        let run = self.inner.handle(run_id)?;
        let stoppable = |phase| matches!(phase, RunPhase::Preparing | RunPhase::Running);
        if stoppable(run.snapshot().phase) {
            self.inner.update(&run, |s| {
                if stoppable(s.phase) {
                    s.phase = RunPhase::Cancelling;
                    s.progress.message = "cancelling: stopping the run's process group".into();
                }
            });
            run.cancel.send_replace(true);
        }
        Ok(run.snapshot())
    }

    /// The evidence receipts of `graph_revision`, each re-verified.
    pub fn evidence(&self, graph_revision: &str) -> Result<EvidenceLookup, RunnerError> {
        if !is_revision(graph_revision) {
            return Err(RunnerError::InvalidRevision {
                revision: graph_revision.to_owned(),
            });
        }
        Ok(evidence::lookup(&self.inner.layout, graph_revision)?)
    }

    fn start(
        &self,
        project: &Project,
        kind: RunKind,
        key: &str,
        profile: Option<&str>,
    ) -> Result<RunStarted, RunnerError> {
        check_idempotency_key(key)?;
        let profile = check_profile(profile)?;
        let document = project.document();
        let graph_revision = project.graph_revision();
        let roots = launch::root_inputs(document);
        let launch_digest = revision_of(&json!({
            "kind": kind,
            "graph_revision": graph_revision,
            "profile": profile,
            "inputs": roots,
        }));
        let mut launches = lock(&self.inner.launches);
        match launches.lookup(key, &launch_digest) {
            Lookup::Replay(original) => {
                return Ok(RunStarted {
                    replayed: true,
                    ..original.clone()
                });
            }
            Lookup::Conflict => return Err(RunnerError::IdempotencyConflict),
            Lookup::New => {}
        }

        project.ensure_bound()?;
        let action = match kind {
            RunKind::Run => "run",
            RunKind::Validation => "validate",
        };
        project.assess_graph().gate(action)?;
        // A source pipeline reads its own samplesheets: no fixture stands
        // for them, and its validation is the frozen package's `-preview`.
        let source = document
            .source_node()
            .and_then(|n| Some((n.id.as_str(), n.source()?)));
        let (bound, substitution) = match kind {
            RunKind::Run => (Vec::new(), launch::Substitution::default()),
            RunKind::Validation if source.is_some() => {
                (Vec::new(), launch::Substitution::default())
            }
            RunKind::Validation => {
                // Downloads cannot run offline: fixtures stand in for them.
                let substitution = launch::substitution(document, project.catalog());
                let all_roots: Vec<_> = roots.iter().chain(&substitution.roots).cloned().collect();
                (launch::bind_fixtures(&all_roots)?, substitution)
            }
        };
        let pixi = self.inner.toolchain.usable_pixi()?.to_owned();
        let compiled = compiled::compile_substituted(
            project,
            &self.inner.toolchain.compile_toolchain(&pixi),
            &substitution.node_ids(),
        )?;
        if let PixiOutcome::Failed { step, detail } = &compiled.pixi {
            return Err(RunnerError::PixiLockFailed {
                step: step.clone(),
                detail: detail.clone(),
            });
        }
        let package = compiled.package;
        let node_map: NodeMap = package
            .file("node-map.json")
            .and_then(|f| serde_json::from_slice(&f.bytes).ok())
            .ok_or_else(|| {
                RunnerError::Project(SomiteError::new(
                    somite_workflow::ErrorCode::InvalidDocument,
                    "the compiled package has no readable node-map.json",
                    "compile the workflow again",
                ))
            })?;
        let layout = &self.inner.layout;
        let configuration = match (source, kind) {
            (Some((node_id, binding)), _) => {
                launch::source_configuration(&package, node_id, binding, layout.root())?
            }
            (None, RunKind::Run) => launch::run_configuration(&package, layout.root())?,
            (None, RunKind::Validation) => {
                launch::validation_configuration(&package, &bound, &layout.fixtures(), |node| {
                    document.node(node).map(|n| n.operator_id.clone())
                })?
            }
        };

        let run_id = store::new_run_id(key);
        let run_dir = store::run_dir(layout, &run_id);
        let launch_dir = store::launch_dir(layout, &run_id);
        let source_preview = match kind {
            RunKind::Validation => package
                .run_closure()
                .source
                .as_ref()
                .map(receipt::source_preview),
            RunKind::Run => None,
        };
        let task: &[&str] = match source_preview {
            Some(_) => &[PREVIEW_TASK],
            None => &["run", &profile],
        };
        let (launch, shown_command) = launch_command(
            pixi,
            &launch_dir,
            &run_dir,
            task,
            process::child_environment(&self.inner.toolchain.env),
        );
        let task = if source_preview.is_some() {
            PREVIEW_TASK
        } else {
            "run"
        };

        let states = trace::live_states(&node_map, &BTreeMap::new(), false);
        let status = RunStatus {
            run_id: run_id.clone(),
            kind,
            phase: RunPhase::Preparing,
            revision: 0,
            graph_revision: graph_revision.clone(),
            closure_digest: package.digest().clone(),
            profile: profile.clone(),
            progress: trace::progress(&node_map, &states, "preparing"),
            states,
            exit_code: None,
            error: None,
            evidence_receipt: None,
            overrides: configuration.overrides.clone(),
            fixtures: launch::fixture_bindings(&bound),
            unexercised: substitution.nodes.clone(),
            output_dir: store::relative_to_project(layout, &launch_dir.join(&configuration.outdir)),
            stderr_tail: Vec::new(),
            started_at: timestamp::now(),
            ended_at: None,
        };
        let started = RunStarted {
            run_id: run_id.clone(),
            kind,
            graph_revision,
            closure_digest: package.digest().clone(),
            profile,
            replayed: false,
        };
        let mut record = RunRecord {
            status,
            process_group: None,
        };
        store::write_record(layout, &record)?;
        let mut remembered = launches.clone();
        remembered.insert(key.to_owned(), launch_digest, started.clone());
        if let Err(error) = store::write_launches(layout, &remembered) {
            record.status.phase = RunPhase::Failed;
            record.status.error = Some(SomiteError::from(RunnerError::Io {
                path: layout.runs(),
                source: std::io::Error::other("the launch could not be remembered"),
            }));
            record.status.ended_at = Some(timestamp::now());
            let _ = store::write_record(layout, &record);
            return Err(error);
        }
        *launches = remembered;
        drop(launches);

        let run = Arc::new(RunHandle::new(record.status.clone()));
        lock(&self.inner.runs).insert(run_id, Arc::clone(&run));
        let _ = self.inner.events.send(record.status);
        let plan = Arc::new(LaunchPlan {
            kind,
            profile: started.profile.clone(),
            launch,
            launch_dir,
            package,
            configuration,
            bound,
            unexercised: substitution.nodes,
            node_map,
            edges: document.edges.iter().map(|e| Edge::clone(e)).collect(),
            shown_command,
            task,
            source_preview,
        });
        self.inner
            .runtime
            .spawn(supervise(Arc::clone(&self.inner), run, plan));
        Ok(started)
    }
}

impl Inner {
    /// The run `run_id`, from memory or, for a run of an earlier process,
    /// from its record.
    fn handle(&self, run_id: &str) -> Result<Arc<RunHandle>, RunnerError> {
        let not_found = || RunnerError::RunNotFound {
            run_id: run_id.to_owned(),
        };
        if !store::is_run_id(run_id) {
            return Err(not_found());
        }
        let mut runs = lock(&self.runs);
        if let Some(run) = runs.get(run_id) {
            return Ok(Arc::clone(run));
        }
        let record = store::read_record(&self.layout, run_id)?.ok_or_else(not_found)?;
        let run = Arc::new(RunHandle::new(record.status));
        runs.insert(run_id.to_owned(), Arc::clone(&run));
        Ok(run)
    }

    /// Applies `change`; when it changed anything, bumps the revision,
    /// republishes the record and only then shows the new status to
    /// readers and subscribers, so nobody sees a state the record does not
    /// hold yet.
    fn update(&self, run: &RunHandle, change: impl FnOnce(&mut RunStatus)) {
        let _order = lock(&run.persist);
        let before = run.snapshot();
        let mut status = before.clone();
        change(&mut status);
        if status == before {
            return;
        }
        status.revision = before.revision + 1;
        let record = RunRecord {
            status,
            process_group: *lock(&run.process_group),
        };
        if let Err(error) = store::write_record(&self.layout, &record) {
            tracing::warn!(run_id = %record.status.run_id, %error, "cannot save a run record");
        }
        run.status.send_replace(record.status.clone());
        let _ = self.events.send(record.status);
    }

    /// Ends a run that never started its command.
    fn end_before_start(&self, run: &RunHandle, plan: &LaunchPlan, error: Option<SomiteError>) {
        self.update(run, |s| {
            let (phase, ending) = match &error {
                Some(_) => (RunPhase::Failed, Ending::Failed),
                None => (RunPhase::Cancelled, Ending::Cancelled),
            };
            trace::settle(&mut s.states, ending);
            s.phase = phase;
            s.progress = trace::progress(&plan.node_map, &s.states, phase.name());
            s.error = error;
            s.ended_at = Some(timestamp::now());
        });
    }

    /// Reads the trace and updates the node states.
    fn refresh_from_trace(&self, run: &RunHandle, plan: &LaunchPlan) {
        let tasks = read_trace(plan);
        let states = trace::live_states(&plan.node_map, &tasks, true);
        self.update(run, |s| {
            if s.states != states {
                let headline = s.phase.name();
                s.progress = trace::progress(&plan.node_map, &states, headline);
                s.states = states;
            }
        });
    }
}

/// The trace's tasks by node; an absent, oversized or unreadable trace has
/// none yet.
fn read_trace(plan: &LaunchPlan) -> BTreeMap<String, NodeTasks> {
    let path = plan.launch_dir.join(TRACE_FILE);
    let bytes = match durable::read_capped(&path, MAX_TRACE_BYTES) {
        Ok(bytes) => bytes,
        Err(DurableError::NotFound { .. }) => return BTreeMap::new(),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot read the trace");
            return BTreeMap::new();
        }
    };
    match trace::parse(&String::from_utf8_lossy(&bytes)) {
        Ok(rows) => trace::tasks_by_node(&plan.node_map, &rows),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot parse the trace");
            BTreeMap::new()
        }
    }
}

/// The life of one launch, from preparing to its terminal phase.
async fn supervise(inner: Arc<Inner>, run: Arc<RunHandle>, plan: Arc<LaunchPlan>) {
    let prepared = {
        let layout = inner.layout.clone();
        let plan = Arc::clone(&plan);
        tokio::task::spawn_blocking(move || prepare(&layout, &plan)).await
    };
    let prepared = prepared.unwrap_or_else(|join| {
        Err(RunnerError::io(
            &plan.launch_dir,
            std::io::Error::other(join.to_string()),
        ))
    });
    if let Err(error) = prepared {
        inner.end_before_start(&run, &plan, Some(SomiteError::from(error)));
        return;
    }
    if run.cancel_requested() {
        inner.end_before_start(&run, &plan, None);
        return;
    }

    let mut supervised = match process::spawn(&plan.launch) {
        Ok(supervised) => supervised,
        Err(error) => {
            let envelope = if error.kind() == std::io::ErrorKind::NotFound {
                SomiteError::from(RunnerError::ToolchainMissing)
            } else {
                SomiteError::from(RunnerError::io(&plan.launch.program, error))
            };
            inner.end_before_start(&run, &plan, Some(envelope));
            return;
        }
    };
    *lock(&run.process_group) = supervised.process_group();
    inner.update(&run, |s| {
        if s.phase == RunPhase::Preparing {
            s.phase = RunPhase::Running;
        }
        s.states = trace::live_states(&plan.node_map, &BTreeMap::new(), true);
        s.progress = trace::progress(&plan.node_map, &s.states, s.phase.name());
    });

    let mut cancel = run.cancel.subscribe();
    let mut ticker = tokio::time::interval(TRACE_POLL_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let (exit, cancelled) = loop {
        if *cancel.borrow_and_update() {
            break (supervised.terminate().await, true);
        }
        tokio::select! {
            exit = supervised.wait() => break (exit, false),
            _ = ticker.tick() => inner.refresh_from_trace(&run, &plan),
            changed = cancel.changed() => if changed.is_err() {
                break (supervised.wait().await, false);
            },
        }
    };
    let (stdout, stderr) = supervised.finish().await;
    *lock(&run.process_group) = None;
    inner.update(&run, |s| {
        if !cancelled {
            s.phase = RunPhase::Finalizing;
        }
        s.progress.message = format!("{}: recording the outcome", s.phase.name());
    });

    let tasks = read_trace(&plan);
    let mut states = trace::live_states(&plan.node_map, &tasks, true);
    let exited_cleanly = exit.as_ref().is_ok_and(ExitStatus::success);
    let ending = if cancelled {
        Ending::Cancelled
    } else if exited_cleanly && !states.values().any(|s| *s == NodeState::Failed) {
        Ending::Succeeded
    } else {
        Ending::Failed
    };
    trace::settle(&mut states, ending);
    let exit_code = exit.as_ref().ok().and_then(ExitStatus::code);
    let failure =
        (ending == Ending::Failed).then(|| describe_failure(plan.task, &exit, &states, &tasks));

    let mut receipt = None;
    let mut record_error = None;
    if plan.kind == RunKind::Validation && ending != Ending::Cancelled {
        let layout = inner.layout.clone();
        let plan = Arc::clone(&plan);
        let run_id = run.snapshot().run_id;
        let graph_revision = run.snapshot().graph_revision;
        let states = states.clone();
        let failure = failure.as_ref().map(|f| f.message.clone());
        let logs = [&stdout, &stderr].map(captured_log).to_vec();
        let recorded = tokio::task::spawn_blocking(move || {
            let unsealed = receipt::build(ValidationRecord {
                run_id: &run_id,
                graph_revision: &graph_revision,
                closure_digest: plan.package.digest(),
                configuration: ReceiptConfiguration {
                    profile: plan.profile.clone(),
                    params_digest: plan.configuration.digest.clone(),
                    packaged_params_digest: plan.configuration.packaged_digest.clone(),
                    overrides: plan.configuration.overrides.clone(),
                },
                fixtures: launch::fixture_bindings(&plan.bound),
                unexercised: plan.unexercised.clone(),
                command: plan.shown_command.clone(),
                exit_code,
                ending,
                failure,
                node_map: &plan.node_map,
                states: &states,
                tasks: &tasks,
                edges: &plan.edges,
                launch_dir: &plan.launch_dir,
                outdir: &plan.configuration.outdir,
                captured_logs: logs,
                recorded_at: timestamp::now(),
                source_preview: plan.source_preview.clone(),
            });
            evidence::record(&layout, unsealed)
        })
        .await;
        match recorded {
            Ok(Ok(saved)) => receipt = Some(saved.digest),
            Ok(Err(error)) => record_error = Some(error),
            Err(join) => {
                record_error = Some(SomiteError::from(RunnerError::io(
                    inner.layout.evidence(),
                    std::io::Error::other(join.to_string()),
                )));
            }
        }
    }

    let stderr_tail = if ending == Ending::Failed || record_error.is_some() {
        stderr.tail_lines()
    } else {
        Vec::new()
    };
    let phase = match (ending, &record_error) {
        (_, Some(_)) => RunPhase::Failed,
        (Ending::Cancelled, None) => RunPhase::Cancelled,
        (Ending::Succeeded, None) => RunPhase::Completed,
        (Ending::Failed, None) => RunPhase::Failed,
    };
    inner.update(&run, |s| {
        s.phase = phase;
        s.progress = trace::progress(&plan.node_map, &states, phase.name());
        s.states = states;
        s.exit_code = exit_code;
        s.error = record_error.or(failure);
        s.evidence_receipt = receipt;
        s.stderr_tail = stderr_tail;
        s.ended_at = Some(timestamp::now());
    });
}

/// `pixi run --frozen --manifest-path <launch>/pixi.toml <task...>` (the
/// task `run <profile>`, or a source package's `preview`), exactly as an
/// exported package is run, and the same command as a receipt shows it (a
/// bare `pixi` and launch-relative paths).
fn launch_command(
    pixi: PathBuf,
    launch_dir: &Path,
    run_dir: &Path,
    task: &[&str],
    env: somite_process::Environment,
) -> (Launch, Vec<String>) {
    let task = task.iter().copied();
    let mut args: Vec<OsString> = vec!["run".into(), "--frozen".into(), "--manifest-path".into()];
    args.push(launch_dir.join("pixi.toml").into_os_string());
    args.extend(task.clone().map(OsString::from));
    let shown = ["pixi", "run", "--frozen", "--manifest-path", "pixi.toml"]
        .into_iter()
        .chain(task)
        .map(str::to_owned)
        .collect();
    let launch = Launch {
        program: pixi,
        args,
        cwd: launch_dir.to_owned(),
        env,
        stdout_log: run_dir.join("stdout.log"),
        stderr_log: run_dir.join("stderr.log"),
    };
    (launch, shown)
}

/// Writes the fixtures of a validation and the launch directory.
fn prepare(layout: &Layout, plan: &LaunchPlan) -> Result<(), RunnerError> {
    for bound in &plan.bound {
        bound.fixture.write(layout)?;
    }
    launch::write_launch_dir(&plan.launch_dir, &plan.package, &plan.configuration.bytes)?;
    Ok(())
}

fn captured_log(capture: &LogCapture) -> DigestedFile {
    DigestedFile {
        path: capture
            .path
            .file_name()
            .map(|n| format!("../{}", n.to_string_lossy()))
            .unwrap_or_default(),
        bytes: capture.written,
        digest: capture.digest.clone(),
    }
}

/// The `run_failed` envelope: the exit, and the nodes that failed.
fn describe_failure(
    task: &str,
    exit: &std::io::Result<ExitStatus>,
    states: &BTreeMap<String, NodeState>,
    tasks: &BTreeMap<String, NodeTasks>,
) -> SomiteError {
    use std::os::unix::process::ExitStatusExt;
    let how = match exit {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was ended by signal {signal}"),
            (None, None) => "ended".to_owned(),
        },
        Err(error) => format!("could not be observed: {error}"),
    };
    let failed: Vec<String> = states
        .iter()
        .filter(|(_, s)| **s == NodeState::Failed)
        .map(|(id, _)| {
            match tasks
                .get(id)
                .and_then(NodeTasks::deciding_task)
                .and_then(|t| t.exit)
            {
                Some(exit) => format!("{id} (task exit {exit})"),
                None => id.clone(),
            }
        })
        .collect();
    let mut message = format!("`pixi run --frozen {task}` {how}");
    if !failed.is_empty() {
        message.push_str(&format!("; failed: {}", failed.join(", ")));
    }
    let failed_nodes: Vec<&String> = states
        .iter()
        .filter(|(_, s)| **s == NodeState::Failed)
        .map(|(id, _)| id)
        .collect();
    run_failure(
        message,
        "read stderr_tail (and the run's stderr.log); fix the failing node's inputs or \
         parameters, then start again with a fresh idempotency key",
    )
    .with_detail("failed_nodes", failed_nodes)
}

pub(crate) fn check_idempotency_key(key: &str) -> Result<(), RunnerError> {
    let valid = somite_workflow::limits::IDEMPOTENCY_KEY_CHARS.contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(RunnerError::InvalidIdempotencyKey)
    }
}

fn check_profile(profile: Option<&str>) -> Result<String, RunnerError> {
    let profile = profile.unwrap_or(PROFILES[0]);
    if PROFILES.contains(&profile) {
        Ok(profile.to_owned())
    } else {
        Err(RunnerError::UnknownProfile {
            profile: profile.to_owned(),
            known: PROFILES.to_vec(),
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idempotency_keys_follow_the_documented_pattern() {
        for good in ["abcdefgh", "run_2026-01-01", &"k".repeat(128)] {
            assert!(check_idempotency_key(good).is_ok(), "{good}");
        }
        for bad in ["short", "has space!", "ünïcode-key", &"k".repeat(129), ""] {
            assert!(check_idempotency_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_profile_defaults_to_local_and_must_be_known() {
        assert_eq!(check_profile(None).unwrap(), "local");
        assert_eq!(check_profile(Some("slurm")).unwrap(), "slurm");
        assert!(matches!(
            check_profile(Some("laptop")),
            Err(RunnerError::UnknownProfile { .. })
        ));
    }
}
