//! `somite mcp nextflow`: the Nextflow MCP server.
//!
//! Intent-level tools over the Nextflow 26.04 CLI: analysis (lint with
//! `-o json`, resolved configuration, `inspect`, a preview DAG from
//! `-preview`, the processes and parameters of a project), runs (preview,
//! stub, full) and history (`nextflow log`). Every invocation is a fixed
//! argument array built from typed inputs; scripts, parameter files and
//! projects are paths confined to the workspace root, and names are checked
//! so none can be read as an option. Remote projects (`nextflow run
//! owner/repo`), `-bg`, `-with-tower`, secrets, plugin management, cleanup
//! (`nextflow clean`, `drop`) and arbitrary commands are not exposed. See
//! `docs/nextflow-mcp.md` for every tool's exact surface.

use crate::confine::Confined;
use crate::docs::NEXTFLOW_MANUAL;
use crate::effects::{self, Effect, Effects};
use crate::envelope::{ToolError, ToolOutcome, argument_error, outcome_schema};
use crate::limits::{DEFAULT_TIMEOUT, STREAM_CAPTURE_LIMIT};
use crate::toolchain::NEXTFLOW_CONTRACT;
use crate::toolserver::cli_server_tools;
use crate::toolserver::{
    CliResult, ServerCore, ServerOptions, StartError, checked_name, requested_timeout,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use somite_api::ToolCode;
use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Variables Nextflow may need beyond the base allowlist: its Java and its
/// home (plugins, assets). `NXF_VER` is deliberately absent: it would make
/// the launcher fetch another release behind the version check's back.
const NEXTFLOW_ENV_ALLOWLIST: &[&str] = &["JAVA_HOME", "JAVA_CMD", "NXF_HOME", "NXF_JAVA_HOME"];
/// What Nextflow reads and writes in a project directory by its own choice
/// (configuration, run metadata and history, task work directories): none
/// may be a symbolic link or a hard-linked file, or a run would write
/// through it outside the root.
const NEXTFLOW_MEMBERS: &[&str] = &["nextflow.config", ".nextflow", ".nextflow.log", "work"];
/// Fixed for every invocation: plain log lines, no ANSI progress.
const NEXTFLOW_FIXED_ENV: &[(&str, &str)] = &[("NXF_ANSI_LOG", "false"), ("NO_COLOR", "1")];

const INSTRUCTIONS: &str = "Nextflow 26.04 tools for the workspace root this server was started with. \
Read the versioned manual with nextflow_docs_search / nextflow_docs_read before guessing syntax. \
Projects, scripts and parameter files are paths relative to the workspace root. Lint and history \
change nothing; analysis writes Nextflow's own metadata (.nextflow/) in the project; runs execute \
the pipeline.";

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnalyzeAction {
    /// `nextflow lint -o json`: syntax and static errors of the scripts and configs.
    Lint,
    /// `nextflow config -flat`: the resolved configuration.
    Config,
    /// `nextflow inspect -format json`: each process's container.
    Inspect,
    /// `nextflow run -preview -with-dag`: the workflow DAG, without running any process.
    PreviewDag,
    /// The project's process names (from `nextflow inspect`).
    Processes,
    /// The project's resolved parameters (the `params.*` of `nextflow config -flat`).
    Params,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeArgs {
    pub action: AnalyzeAction,
    /// Project directory, relative to the root (default `.`).
    #[serde(default)]
    pub project: Option<String>,
    /// Script, relative to the root (default `<project>/main.nf`); for lint, default: the whole project.
    #[serde(default)]
    pub script: Option<String>,
    /// Configuration profile(s), comma-separated.
    #[serde(default)]
    pub profile: Option<String>,
    /// A JSON or YAML parameter file, relative to the root.
    #[serde(default)]
    pub params_file: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// `-preview`: evaluate the workflow without running processes.
    Preview,
    /// `-stub-run`: run each process's `stub:` block instead of its script.
    Stub,
    /// Run the pipeline for real.
    Full,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunArgs {
    pub mode: RunMode,
    #[serde(default)]
    pub project: Option<String>,
    /// Script, relative to the root (default `<project>/main.nf`).
    #[serde(default)]
    pub script: Option<String>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub params_file: Option<String>,
    /// `-resume`: reuse cached task results of the previous run.
    #[serde(default)]
    pub resume: bool,
    /// Seconds before the run is stopped (default 120).
    #[serde(default)]
    #[schemars(range(min = 1, max = 3600))]
    pub timeout_seconds: Option<u32>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HistoryAction {
    /// `nextflow log`: the project's past runs.
    Runs,
    /// `nextflow log RUN -f FIELDS`: the tasks (trace) of one past run.
    Run,
}

/// Trace fields `nextflow log -f` can print.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TraceField {
    TaskId,
    Hash,
    NativeId,
    Process,
    Tag,
    Name,
    Status,
    Exit,
    Module,
    Container,
    Cpus,
    Time,
    Disk,
    Memory,
    Attempt,
    Submit,
    Start,
    Complete,
    Duration,
    Realtime,
    Queue,
    Pcpu,
    Pmem,
    PeakRss,
    PeakVmem,
    Rss,
    Vmem,
    Rchar,
    Wchar,
    Workdir,
    Script,
    Stdout,
    Stderr,
    ErrorAction,
}

impl TraceField {
    fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

const DEFAULT_TRACE_FIELDS: [TraceField; 7] = [
    TraceField::Name,
    TraceField::Status,
    TraceField::Exit,
    TraceField::Hash,
    TraceField::Duration,
    TraceField::Realtime,
    TraceField::Workdir,
];

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryArgs {
    pub action: HistoryAction,
    #[serde(default)]
    pub project: Option<String>,
    /// Run name (e.g. `tiny_leavitt`) or session id (run).
    #[serde(default)]
    pub run_name: Option<String>,
    /// Fields to show (run); default name, status, exit, hash, duration, realtime, workdir.
    #[serde(default)]
    #[schemars(length(max = 34))]
    pub fields: Vec<TraceField>,
}

/// The Nextflow MCP server.
#[derive(Debug, Clone)]
pub struct NextflowServer {
    core: Arc<ServerCore>,
    tool_router: ToolRouter<Self>,
}

/// The resolved project directory and script.
struct Project {
    dir: PathBuf,
    script: PathBuf,
}

fn flag(name: &str, value: impl Into<OsString>) -> [OsString; 2] {
    [OsString::from(name), value.into()]
}

impl NextflowServer {
    /// Starts the server's state (no I/O on stdio yet).
    pub fn start(options: &ServerOptions) -> Result<Self, StartError> {
        let core = ServerCore::start(
            options,
            &NEXTFLOW_MANUAL,
            &NEXTFLOW_CONTRACT,
            NEXTFLOW_ENV_ALLOWLIST,
            NEXTFLOW_FIXED_ENV,
        )?;
        Ok(Self {
            core: Arc::new(core),
            tool_router: effects::finish(
                Self::tool_router() + Self::shared_tools(),
                tool_effects,
                argument_error,
            ),
        })
    }

    /// The tools this server advertises, as `tools/list` returns them.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// The project directory, checked with the files Nextflow keeps in it.
    fn project_dir(&self, project: Option<&str>) -> Result<Confined, ToolError> {
        let root = self.core.root();
        let dir = root.existing(project.unwrap_or("."))?;
        if !dir.is_dir() {
            return Err(ToolError::new(
                ToolCode::InvalidArgument,
                format!(
                    "project {:?} is not a directory",
                    root.display_relative(dir.path())
                ),
                "Pass the project directory, relative to the workspace root.",
            ));
        }
        root.check_members(&dir, NEXTFLOW_MEMBERS)?;
        Ok(dir)
    }

    fn project(&self, project: Option<&str>, script: Option<&str>) -> Result<Project, ToolError> {
        let root = self.core.root();
        let dir = self.project_dir(project)?;
        let script = match script {
            Some(script) => root.existing(script)?,
            None => root.child(&dir, "main.nf")?,
        };
        Ok(Project {
            dir: dir.path().to_path_buf(),
            script: script.path().to_path_buf(),
        })
    }

    fn selection_args(
        &self,
        profile: Option<&str>,
        params_file: Option<&str>,
    ) -> Result<Vec<OsString>, ToolError> {
        let mut argv = Vec::new();
        if let Some(profile) = profile {
            argv.extend(flag("-profile", checked_name("profile", profile)?));
        }
        if let Some(params_file) = params_file {
            argv.extend(flag(
                "-params-file",
                self.core.root().existing(params_file)?.path(),
            ));
        }
        Ok(argv)
    }

    async fn analyze(
        &self,
        args: AnalyzeArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        match args.action {
            AnalyzeAction::Lint => self.lint(&args, cancel).await,
            AnalyzeAction::Config | AnalyzeAction::Params => {
                let project = self.project(args.project.as_deref(), args.script.as_deref())?;
                let mut argv = vec![OsString::from("config"), OsString::from("-flat")];
                if let Some(profile) = &args.profile {
                    argv.extend(flag("-profile", checked_name("profile", profile)?));
                }
                argv.push(project.dir.clone().into());
                let report = self
                    .core
                    .run(&project.dir, argv, DEFAULT_TIMEOUT, cancel)
                    .await?;
                let mut result = CliResult::text(report);
                if args.action == AnalyzeAction::Params {
                    result.parsed = Some(Value::Object(flat_params(&result.process.stdout)));
                }
                Ok(result)
            }
            AnalyzeAction::Inspect | AnalyzeAction::Processes => {
                let project = self.project(args.project.as_deref(), args.script.as_deref())?;
                let mut argv = vec![
                    OsString::from("inspect"),
                    OsString::from("-format"),
                    OsString::from("json"),
                ];
                argv.extend(
                    self.selection_args(args.profile.as_deref(), args.params_file.as_deref())?,
                );
                argv.push(project.script.into());
                let report = self
                    .core
                    .run(&project.dir, argv, DEFAULT_TIMEOUT, cancel)
                    .await?;
                let mut result = CliResult::json(report);
                if args.action == AnalyzeAction::Processes {
                    result.parsed = result.parsed.as_ref().map(process_names);
                }
                Ok(result)
            }
            AnalyzeAction::PreviewDag => {
                let project = self.project(args.project.as_deref(), args.script.as_deref())?;
                let dag_dir = tempfile::tempdir().map_err(|error| {
                    ToolError::new(
                        ToolCode::ProcessFailed,
                        format!("cannot create a directory for the DAG: {error}"),
                        "Check TMPDIR.",
                    )
                })?;
                let dag_file = dag_dir.path().join("dag.mmd");
                let mut argv = vec![
                    OsString::from("run"),
                    project.script.into(),
                    OsString::from("-preview"),
                ];
                argv.extend(flag("-with-dag", &dag_file));
                argv.extend(flag("-ansi-log", "false"));
                argv.extend(
                    self.selection_args(args.profile.as_deref(), args.params_file.as_deref())?,
                );
                let report = self
                    .core
                    .run(&project.dir, argv, DEFAULT_TIMEOUT, cancel)
                    .await?;
                let mut result = CliResult::text(report);
                result.parsed = read_bounded(&dag_file).map(|(dag, truncated)| {
                    json!({ "dag_format": "mermaid", "dag": dag, "dag_truncated": truncated })
                });
                Ok(result)
            }
        }
    }

    /// `nextflow lint -o json` over one script or the whole project.
    async fn lint(
        &self,
        args: &AnalyzeArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let dir = self.project_dir(args.project.as_deref())?;
        let target = match &args.script {
            Some(script) => self.core.root().existing(script)?.path().to_path_buf(),
            None => dir.path().to_path_buf(),
        };
        let argv = vec!["lint".into(), "-o".into(), "json".into(), target.into()];
        let report = self
            .core
            .run(dir.path(), argv, DEFAULT_TIMEOUT, cancel)
            .await?;
        Ok(CliResult::json(report))
    }

    async fn run(&self, args: RunArgs, cancel: &CancellationToken) -> Result<CliResult, ToolError> {
        let project = self.project(args.project.as_deref(), args.script.as_deref())?;
        let mut argv = vec![OsString::from("run"), project.script.into()];
        argv.extend(flag("-ansi-log", "false"));
        match args.mode {
            RunMode::Preview => argv.push("-preview".into()),
            RunMode::Stub => argv.push("-stub-run".into()),
            RunMode::Full => {}
        }
        argv.extend(self.selection_args(args.profile.as_deref(), args.params_file.as_deref())?);
        if args.resume {
            argv.push("-resume".into());
        }
        let timeout = requested_timeout(args.timeout_seconds);
        Ok(CliResult::text(
            self.core.run(&project.dir, argv, timeout, cancel).await?,
        ))
    }

    async fn history(
        &self,
        args: HistoryArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let dir = self.project_dir(args.project.as_deref())?;
        let dir = dir.path();
        match args.action {
            HistoryAction::Runs => {
                let report = self
                    .core
                    .run(dir, vec!["log".into()], DEFAULT_TIMEOUT, cancel)
                    .await?;
                Ok(CliResult::text(report))
            }
            HistoryAction::Run => {
                let run_name = args.run_name.as_deref().ok_or_else(|| {
                    ToolError::new(
                        ToolCode::InvalidArgument,
                        "run needs run_name",
                        "Pass a run name from the runs action.",
                    )
                })?;
                let fields: Vec<TraceField> = if args.fields.is_empty() {
                    DEFAULT_TRACE_FIELDS.to_vec()
                } else {
                    args.fields.clone()
                };
                let names: Vec<String> = fields.iter().map(|field| field.name()).collect();
                let mut argv = vec![OsString::from("log"), checked_name("run name", run_name)?];
                argv.extend(flag("-f", names.join(",")));
                argv.extend(flag("-s", "\t"));
                let report = self.core.run(dir, argv, DEFAULT_TIMEOUT, cancel).await?;
                let mut result = CliResult::text(report);
                if result.process.ok && !result.process.stdout_truncated {
                    result.parsed = Some(tab_rows(&result.process.stdout, &names));
                }
                Ok(result)
            }
        }
    }
}

/// `params.x = value` lines of `nextflow config -flat`, as a map.
fn flat_params(config: &str) -> Map<String, Value> {
    config
        .lines()
        .filter_map(|line| line.strip_prefix("params."))
        .filter_map(|line| line.split_once(" = "))
        .map(|(name, value)| {
            (
                name.trim().to_owned(),
                Value::String(value.trim().to_owned()),
            )
        })
        .collect()
}

/// The process names of `nextflow inspect -format json` output.
fn process_names(inspected: &Value) -> Value {
    let names: Vec<Value> = inspected
        .get("processes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|process| process.get("name").cloned())
        .collect();
    json!({ "processes": names })
}

/// Tab-separated rows keyed by `fields`.
fn tab_rows(text: &str, fields: &[String]) -> Value {
    let rows: Vec<Value> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let row: Map<String, Value> = fields
                .iter()
                .cloned()
                .zip(
                    line.split('\t')
                        .map(|cell| Value::String(cell.trim().to_owned())),
                )
                .collect();
            Value::Object(row)
        })
        .collect();
    json!({ "tasks": rows })
}

/// Up to [`STREAM_CAPTURE_LIMIT`] bytes of a file Nextflow wrote, if it did.
fn read_bounded(path: &std::path::Path) -> Option<(String, bool)> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(STREAM_CAPTURE_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let truncated = bytes.len() > STREAM_CAPTURE_LIMIT;
    bytes.truncate(STREAM_CAPTURE_LIMIT);
    Some((String::from_utf8_lossy(&bytes).into_owned(), truncated))
}

/// What each tool's work does (see [`effects`]); its annotations follow.
pub fn tool_effects(tool: &str) -> Option<Effects> {
    use Effect::{Destroys, ReachesNetwork, Writes};
    Some(match tool {
        // The manual, the version banner, and `nextflow log` over the
        // project's own history.
        somite_api::tools::nextflow::DOCS_SEARCH
        | somite_api::tools::nextflow::DOCS_READ
        | somite_api::tools::nextflow::DOCS_LIST
        | somite_api::tools::nextflow::RUNTIME_INFO
        | somite_api::tools::nextflow::HISTORY => Effects::READ_LOCAL,
        // `lint`, `config`, `inspect` and `-preview` write `.nextflow/` and
        // may download the plugins the configuration names.
        somite_api::tools::nextflow::ANALYZE => Effects {
            effects: &[Writes, ReachesNetwork],
            idempotent: true,
        },
        // A pipeline runs its processes' scripts and fetches their
        // containers and packages.
        somite_api::tools::nextflow::RUN => Effects {
            effects: &[Writes, Destroys, ReachesNetwork],
            idempotent: false,
        },
        _ => return None,
    })
}

#[tool_router]
impl NextflowServer {
    /// Analyse a project without running its processes: lint (`-o json`), resolved config, inspect, preview DAG, process names, parameters.
    #[tool(
        name = "nextflow_analyze",
        annotations(title = "Analyse a Nextflow project"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn nextflow_analyze(
        &self,
        Parameters(args): Parameters<AnalyzeArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.analyze(args, &cancel).await.into()
    }

    /// Run a pipeline script of the workspace: preview (`-preview`), stub (`-stub-run`) or full.
    #[tool(
        name = "nextflow_run",
        annotations(title = "Run a Nextflow pipeline"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn nextflow_run(
        &self,
        Parameters(args): Parameters<RunArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.run(args, &cancel).await.into()
    }

    /// Read the history of a project: its past runs, or the task trace of one run (`nextflow log`).
    #[tool(
        name = "nextflow_history",
        annotations(title = "Nextflow run history"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn nextflow_history(
        &self,
        Parameters(args): Parameters<HistoryArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.history(args, &cancel).await.into()
    }
}

cli_server_tools! {
    server: NextflowServer,
    implementation: "somite-nextflow",
    instructions: INSTRUCTIONS,
    manual: "Nextflow 26.04",
    docs_search: ("nextflow_docs_search", "Search the Nextflow manual"),
    docs_read: ("nextflow_docs_read", "Read a Nextflow manual page"),
    docs_list: ("nextflow_docs_list", "List the Nextflow manual"),
    runtime_info: (
        "nextflow_runtime_info",
        "Nextflow runtime",
        "The installed Nextflow's version (checked against 26.04.x) and `nextflow info -o json`."
    ),
    runtime_info_args: ["info", "-o", "json"],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_read_from_flat_config() {
        let config =
            "process.executor = 'local'\nparams.reads = 'data/*.fq'\nparams.outdir = 'results'\n";
        let params = flat_params(config);
        assert_eq!(params.len(), 2);
        assert_eq!(params["reads"], "'data/*.fq'");
    }

    #[test]
    fn trace_rows_are_keyed_by_field() {
        let fields = vec!["name".to_owned(), "status".to_owned()];
        let rows = tab_rows("hello (1)\tCOMPLETED\n", &fields);
        assert_eq!(rows["tasks"][0]["status"], "COMPLETED");
        assert_eq!(TraceField::PeakRss.name(), "peak_rss");
    }
}
