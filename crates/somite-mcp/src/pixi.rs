//! `somite mcp pixi`: the Pixi MCP server.
//!
//! Intent-level tools over the Pixi 0.77 CLI, each mapped to a fixed
//! argument array built from typed, closed inputs: nothing an agent sends is
//! ever interpreted by a shell or can become an extra option (names are
//! checked, package specs follow `--`). `pixi exec`, `pixi shell`,
//! authentication, tokens, insecure TLS and arbitrary commands are not
//! exposed; `pixi run` only runs a task the manifest defines. See
//! `docs/pixi-mcp.md` for every tool's exact surface.

use crate::docs::PIXI_MANUAL;
use crate::effects::{self, Effect, Effects};
use crate::envelope::{ToolError, ToolOutcome, argument_error, outcome_schema};
use crate::toolchain::PIXI_CONTRACT;
use crate::toolserver::cli_server_tools;
use crate::toolserver::{
    CliResult, ServerCore, ServerOptions, StartError, checked_name, checked_text, requested_timeout,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use somite_api::{DomainCode, ToolCode};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Variables Pixi may need beyond the base allowlist: where it keeps its
/// own installation and package cache.
const PIXI_ENV_ALLOWLIST: &[&str] = &["PIXI_HOME", "PIXI_CACHE_DIR", "RATTLER_CACHE_DIR"];
/// Fixed for every invocation: no colour codes or progress bars in captured output.
const PIXI_FIXED_ENV: &[(&str, &str)] = &[
    ("PIXI_COLOR", "never"),
    ("PIXI_NO_PROGRESS", "true"),
    ("NO_COLOR", "1"),
];

/// What Pixi reads and writes in a workspace directory by its own choice:
/// none may be a symbolic link or a hard-linked file, or a write through it
/// (`pixi add` rewriting the manifest, `pixi install` filling `.pixi/envs`)
/// would land outside the root.
const PIXI_MEMBERS: &[&str] = &[".pixi", "pixi.toml", "pyproject.toml", "pixi.lock"];

/// The arguments before every subcommand.
const GLOBAL_ARGS: [&str; 3] = ["--color", "never", "--no-progress"];

const INSTRUCTIONS: &str = "Pixi 0.77 tools for the workspace root this server was started with. \
Read the versioned manual with pixi_docs_search / pixi_docs_read before guessing flags. Paths are \
relative to the workspace root. Inspection, package search, `pixi_lock` check and `pixi_task` list \
do not change files; dependency edits, locking, exports, installs and task runs do.";

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InspectAction {
    /// `pixi info --json`: the workspace's environments, features, platforms and tasks.
    Manifest,
    /// `pixi list --json`: the locked packages of one environment.
    Packages,
    /// `pixi tree`: the dependency tree of one environment.
    Tree,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectArgs {
    pub action: InspectAction,
    /// Workspace directory or manifest, relative to the root (default `.`).
    #[serde(default)]
    pub workspace: Option<String>,
    /// Environment (packages, tree); default: the default environment.
    #[serde(default)]
    pub environment: Option<String>,
    /// Platform such as `linux-64` (packages, tree).
    #[serde(default)]
    pub platform: Option<String>,
    /// Only packages named in the manifest (packages).
    #[serde(default)]
    pub explicit: bool,
    /// Regular expression filtering package names (packages, tree).
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageSearchArgs {
    /// A package name or conda MatchSpec, e.g. `samtools` or `samtools>=1.20`.
    pub query: String,
    /// Channels to search (names or URLs); default: the workspace's or conda-forge.
    #[serde(default)]
    #[schemars(length(max = 8))]
    pub channels: Vec<String>,
    /// Platform such as `linux-64`.
    #[serde(default)]
    pub platform: Option<String>,
    /// Versions shown per package.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// Workspace whose channels to use, relative to the root.
    #[serde(default)]
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DependencyAction {
    /// `pixi add`
    Add,
    /// `pixi remove`
    Remove,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DependencyArgs {
    pub action: DependencyAction,
    /// Package names or MatchSpecs (conda) / requirements (PyPI).
    #[schemars(length(min = 1, max = 32))]
    pub specs: Vec<String>,
    /// Edit `[pypi-dependencies]` instead of conda dependencies.
    #[serde(default)]
    pub pypi: bool,
    #[serde(default)]
    pub feature: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub environment: Option<String>,
    /// Also install the changed environment (default: only the manifest and lock file change).
    #[serde(default)]
    pub install: bool,
    #[serde(default)]
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LockAction {
    /// `pixi lock --json`: solve and write `pixi.lock`.
    Lock,
    /// `pixi lock --check --dry-run --json`: is `pixi.lock` up to date? Writes nothing.
    Check,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockArgs {
    pub action: LockAction,
    #[serde(default)]
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceAction {
    Name,
    Version,
    Channels,
    Platforms,
    Environments,
    Features,
    /// `pixi workspace export conda-explicit-spec`: explicit lock files per
    /// environment and platform, written to `output_dir`.
    ExportCondaExplicitSpec,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceArgs {
    pub action: WorkspaceAction,
    #[serde(default)]
    pub workspace: Option<String>,
    /// Output directory for exports, relative to the root.
    #[serde(default)]
    pub output_dir: Option<String>,
    #[serde(default)]
    pub environment: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LockMode {
    /// `--locked`: fail when `pixi.lock` is out of date with the manifest.
    #[default]
    Locked,
    /// `--frozen`: use `pixi.lock` as it is, never update it.
    Frozen,
    /// Update `pixi.lock` when needed.
    Update,
}

impl LockMode {
    fn flag(self) -> Option<&'static str> {
        match self {
            Self::Locked => Some("--locked"),
            Self::Frozen => Some("--frozen"),
            Self::Update => None,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentAction {
    /// `pixi install`
    Install,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentArgs {
    pub action: EnvironmentAction,
    /// The environment to install; default: the default environment.
    #[serde(default)]
    pub environment: Option<String>,
    /// Install every environment.
    #[serde(default)]
    pub all: bool,
    #[serde(default)]
    pub lock_mode: LockMode,
    #[serde(default)]
    pub workspace: Option<String>,
    /// Seconds before the install is stopped (default 120).
    #[serde(default)]
    #[schemars(range(min = 1, max = 3600))]
    pub timeout_seconds: Option<u32>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TaskAction {
    /// `pixi task list --json`
    List,
    /// `pixi run TASK` for a task the manifest defines.
    Run,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    pub action: TaskAction,
    /// The task to run (run); must be defined in the manifest.
    #[serde(default)]
    pub task: Option<String>,
    #[serde(default)]
    pub environment: Option<String>,
    #[serde(default)]
    pub lock_mode: LockMode,
    #[serde(default)]
    pub workspace: Option<String>,
    /// Seconds before the task is stopped (default 120).
    #[serde(default)]
    #[schemars(range(min = 1, max = 3600))]
    pub timeout_seconds: Option<u32>,
}

/// The Pixi MCP server.
#[derive(Debug, Clone)]
pub struct PixiServer {
    core: Arc<ServerCore>,
    tool_router: ToolRouter<Self>,
}

/// The resolved `--manifest-path` and the directory to run in.
struct Workspace {
    manifest_path: PathBuf,
    cwd: PathBuf,
}

fn args<const N: usize>(fixed: [&str; N]) -> Vec<OsString> {
    fixed.iter().map(OsString::from).collect()
}

fn invalid(message: impl Into<String>, recovery: impl Into<String>) -> ToolError {
    ToolError::new(ToolCode::InvalidArgument, message, recovery)
}

impl PixiServer {
    /// Starts the server's state (no I/O on stdio yet).
    pub fn start(options: &ServerOptions) -> Result<Self, StartError> {
        let core = ServerCore::start(
            options,
            &PIXI_MANUAL,
            &PIXI_CONTRACT,
            PIXI_ENV_ALLOWLIST,
            PIXI_FIXED_ENV,
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

    fn workspace(&self, requested: Option<&str>) -> Result<Workspace, ToolError> {
        let root = self.core.root();
        let manifest = root.existing(requested.unwrap_or("."))?;
        let manifest_path = manifest.path().to_path_buf();
        let dir = if manifest.is_dir() {
            manifest
        } else {
            let parent = manifest_path.parent().unwrap_or(root.path());
            root.existing(&root.display_relative(parent))?
        };
        root.check_members(&dir, PIXI_MEMBERS)?;
        Ok(Workspace {
            manifest_path,
            cwd: dir.path().to_path_buf(),
        })
    }

    /// `pixi <global args> <args...>` in the workspace.
    async fn pixi(
        &self,
        workspace: &Workspace,
        args: Vec<OsString>,
        timeout: std::time::Duration,
        cancel: &CancellationToken,
    ) -> Result<crate::process::ProcessReport, ToolError> {
        let mut argv = self::args(GLOBAL_ARGS);
        argv.extend(args);
        self.core.run(&workspace.cwd, argv, timeout, cancel).await
    }

    async fn inspect(
        &self,
        args: InspectArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let workspace = self.workspace(args.workspace.as_deref())?;
        let mut argv = match args.action {
            InspectAction::Manifest => self::args(["info", "--json"]),
            InspectAction::Packages => self::args(["list", "--json", "--frozen", "--no-install"]),
            InspectAction::Tree => self::args(["tree", "--frozen", "--no-install"]),
        };
        if args.action != InspectAction::Manifest {
            if let Some(environment) = &args.environment {
                argv.extend([
                    OsString::from("--environment"),
                    checked_name("environment", environment)?,
                ]);
            }
            if let Some(platform) = &args.platform {
                argv.extend([
                    OsString::from("--platform"),
                    checked_name("platform", platform)?,
                ]);
            }
        }
        if args.explicit && args.action == InspectAction::Packages {
            argv.push("--explicit".into());
        }
        argv.extend([
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ]);
        if let Some(filter) = &args.filter
            && args.action != InspectAction::Manifest
        {
            argv.push(checked_text("filter", filter)?);
        }
        let report = self
            .pixi(&workspace, argv, crate::limits::DEFAULT_TIMEOUT, cancel)
            .await?;
        Ok(match args.action {
            InspectAction::Tree => CliResult::text(report),
            _ => CliResult::json(report),
        })
    }

    async fn package_search(
        &self,
        args: PackageSearchArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let workspace = self.workspace(args.workspace.as_deref())?;
        let mut argv = self::args(["search", "--json"]);
        for channel in &args.channels {
            argv.extend([
                OsString::from("--channel"),
                checked_text("channel", channel)?,
            ]);
        }
        if let Some(platform) = &args.platform {
            argv.extend([
                OsString::from("--platform"),
                checked_name("platform", platform)?,
            ]);
        }
        if let Some(limit) = args.limit {
            argv.extend([
                OsString::from("--limit"),
                OsString::from(limit.clamp(1, 100).to_string()),
            ]);
        }
        if args.workspace.is_some() {
            argv.extend([
                OsString::from("--manifest-path"),
                workspace.manifest_path.clone().into(),
            ]);
        }
        argv.extend([OsString::from("--"), checked_text("query", &args.query)?]);
        Ok(CliResult::json(
            self.pixi(&workspace, argv, crate::limits::DEFAULT_TIMEOUT, cancel)
                .await?,
        ))
    }

    async fn dependency(
        &self,
        args: DependencyArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        if args.specs.is_empty() || args.specs.len() > 32 {
            return Err(invalid(
                "specs needs 1 to 32 package specs",
                "Pass the packages to add or remove.",
            ));
        }
        let workspace = self.workspace(args.workspace.as_deref())?;
        let mut argv = match args.action {
            DependencyAction::Add => self::args(["add"]),
            DependencyAction::Remove => self::args(["remove"]),
        };
        if args.pypi {
            argv.push("--pypi".into());
        }
        for (flag, kind, value) in [
            ("--feature", "feature", &args.feature),
            ("--platform", "platform", &args.platform),
            ("--environment", "environment", &args.environment),
        ] {
            if let Some(value) = value {
                argv.extend([OsString::from(flag), checked_name(kind, value)?]);
            }
        }
        if !args.install {
            argv.push("--no-install".into());
        }
        argv.extend([
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ]);
        argv.push("--".into());
        for spec in &args.specs {
            argv.push(checked_text("package spec", spec)?);
        }
        Ok(CliResult::text(
            self.pixi(&workspace, argv, crate::limits::DEFAULT_TIMEOUT, cancel)
                .await?,
        ))
    }

    async fn lock(
        &self,
        args: LockArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let workspace = self.workspace(args.workspace.as_deref())?;
        let mut argv = match args.action {
            LockAction::Lock => self::args(["lock", "--json"]),
            LockAction::Check => self::args(["lock", "--check", "--dry-run", "--json"]),
        };
        argv.extend([
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ]);
        Ok(CliResult::json(
            self.pixi(&workspace, argv, crate::limits::DEFAULT_TIMEOUT, cancel)
                .await?,
        ))
    }

    async fn workspace_tool(
        &self,
        args: WorkspaceArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let workspace = self.workspace(args.workspace.as_deref())?;
        // Pixi resolves the output directory itself, by name, after the
        // server checked it: a directory swapped for a link in between would
        // redirect its writes. So Pixi writes into a private directory and
        // the server publishes the files through the handle it checked.
        let mut export = None;
        let mut argv = vec![
            OsString::from("workspace"),
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ];
        let json = match args.action {
            WorkspaceAction::Name => {
                argv.extend(self::args(["name", "get"]));
                false
            }
            WorkspaceAction::Version => {
                argv.extend(self::args(["version", "get"]));
                false
            }
            WorkspaceAction::Channels => {
                argv.extend(self::args(["channel", "list", "--urls"]));
                false
            }
            WorkspaceAction::Platforms => {
                argv.extend(self::args(["platform", "list", "--json"]));
                true
            }
            WorkspaceAction::Environments => {
                argv.extend(self::args(["environment", "list"]));
                false
            }
            WorkspaceAction::Features => {
                argv.extend(self::args(["feature", "list"]));
                false
            }
            WorkspaceAction::ExportCondaExplicitSpec => {
                let output_dir = args.output_dir.as_deref().ok_or_else(|| {
                    invalid(
                        "export_conda_explicit_spec needs output_dir",
                        "Pass an output directory relative to the workspace root.",
                    )
                })?;
                let output_dir = self.core.root().create_dir_all(output_dir)?;
                let staging = tempfile::tempdir().map_err(|error| {
                    ToolError::new(
                        ToolCode::WriteFailed,
                        format!("cannot create a private directory for the export: {error}"),
                        "Check TMPDIR.",
                    )
                })?;
                argv.extend(self::args(["export", "conda-explicit-spec", "--frozen"]));
                if let Some(environment) = &args.environment {
                    argv.extend([
                        OsString::from("--environment"),
                        checked_name("environment", environment)?,
                    ]);
                }
                if let Some(platform) = &args.platform {
                    argv.extend([
                        OsString::from("--platform"),
                        checked_name("platform", platform)?,
                    ]);
                }
                argv.push(staging.path().into());
                export = Some((output_dir, staging));
                false
            }
        };
        let report = self
            .pixi(&workspace, argv, crate::limits::DEFAULT_TIMEOUT, cancel)
            .await?;
        let mut result = if json {
            CliResult::json(report)
        } else {
            CliResult::text(report)
        };
        if let Some((output_dir, staging)) = export
            && result.process.ok
        {
            let root = self.core.root();
            let files = root.publish(staging.path(), &output_dir)?;
            result.parsed = Some(json!({
                "output_dir": root.display_relative(output_dir.path()),
                "files": files,
            }));
        }
        Ok(result)
    }

    async fn environment(
        &self,
        args: EnvironmentArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let EnvironmentAction::Install = args.action;
        let workspace = self.workspace(args.workspace.as_deref())?;
        let mut argv = self::args(["install"]);
        match (&args.environment, args.all) {
            (Some(_), true) => {
                return Err(invalid(
                    "pass either environment or all, not both",
                    "Choose one environment or all of them.",
                ));
            }
            (Some(environment), false) => {
                argv.extend([
                    OsString::from("--environment"),
                    checked_name("environment", environment)?,
                ]);
            }
            (None, true) => argv.push("--all".into()),
            (None, false) => {}
        }
        argv.extend(args.lock_mode.flag().map(OsString::from));
        argv.extend([
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ]);
        let timeout = requested_timeout(args.timeout_seconds);
        Ok(CliResult::text(
            self.pixi(&workspace, argv, timeout, cancel).await?,
        ))
    }

    async fn task(
        &self,
        args: TaskArgs,
        cancel: &CancellationToken,
    ) -> Result<CliResult, ToolError> {
        let workspace = self.workspace(args.workspace.as_deref())?;
        let environment = args
            .environment
            .as_deref()
            .map(|environment| checked_name("environment", environment))
            .transpose()?;
        let mut list = vec![
            OsString::from("task"),
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
            OsString::from("list"),
            OsString::from("--json"),
        ];
        if let Some(environment) = &environment {
            list.extend([OsString::from("--environment"), environment.clone()]);
        }
        let listed = CliResult::json(
            self.pixi(&workspace, list, crate::limits::DEFAULT_TIMEOUT, cancel)
                .await?,
        );
        if args.action == TaskAction::List {
            return Ok(listed);
        }
        let task = args.task.as_deref().ok_or_else(|| {
            invalid(
                "run needs task",
                "Pass the name of a task from the list action.",
            )
        })?;
        let task_arg = checked_name("task", task)?;
        let defined = listed
            .parsed
            .as_ref()
            .is_some_and(|tasks| names_in(tasks).any(|name| name == task));
        if !defined {
            return Err(ToolError::new(
                DomainCode::NotFound,
                format!("the workspace defines no task {task:?}"),
                "Run pixi_task with action list and pick one of its task names.",
            )
            .with_details(serde_json::to_value(&listed).unwrap_or(Value::Null)));
        }
        let mut argv = self::args(["run"]);
        argv.extend(args.lock_mode.flag().map(OsString::from));
        if let Some(environment) = environment {
            argv.extend([OsString::from("--environment"), environment]);
        }
        argv.extend([
            OsString::from("--manifest-path"),
            workspace.manifest_path.clone().into(),
        ]);
        argv.push(task_arg);
        let timeout = requested_timeout(args.timeout_seconds);
        Ok(CliResult::text(
            self.pixi(&workspace, argv, timeout, cancel).await?,
        ))
    }
}

/// Every string stored under a `"name"` key anywhere in `value`.
fn names_in(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::Object(map) => Box::new(
            map.get("name")
                .and_then(Value::as_str)
                .into_iter()
                .chain(map.values().flat_map(names_in)),
        ),
        Value::Array(items) => Box::new(items.iter().flat_map(names_in)),
        _ => Box::new(std::iter::empty()),
    }
}

/// What each tool's work does (see [`effects`]); its annotations follow.
pub fn tool_effects(tool: &str) -> Option<Effects> {
    use Effect::{Destroys, ReachesNetwork, Writes};
    Some(match tool {
        // The manual, `pixi info`, and `list`/`tree` with `--frozen
        // --no-install` read what is on disk.
        somite_api::tools::pixi::DOCS_SEARCH
        | somite_api::tools::pixi::DOCS_READ
        | somite_api::tools::pixi::DOCS_LIST
        | somite_api::tools::pixi::RUNTIME_INFO
        | somite_api::tools::pixi::INSPECT => Effects::READ_LOCAL,
        // `pixi search` queries the channels and writes nothing.
        somite_api::tools::pixi::PACKAGE_SEARCH => Effects {
            effects: &[ReachesNetwork],
            idempotent: true,
        },
        // `add`/`remove` rewrite the manifest and re-solve the lock file.
        somite_api::tools::pixi::DEPENDENCY => Effects {
            effects: &[Writes, Destroys, ReachesNetwork],
            idempotent: false,
        },
        // `lock` solves against the channels and rewrites `pixi.lock`;
        // `install` downloads packages into `.pixi/envs`.
        somite_api::tools::pixi::LOCK | somite_api::tools::pixi::ENVIRONMENT => Effects {
            effects: &[Writes, ReachesNetwork],
            idempotent: true,
        },
        // Metadata reads plus a `--frozen` export from the lock file.
        somite_api::tools::pixi::WORKSPACE => Effects {
            effects: &[Writes],
            idempotent: true,
        },
        // A task runs the manifest's own command, which may do anything.
        somite_api::tools::pixi::TASK => Effects {
            effects: &[Writes, Destroys, ReachesNetwork],
            idempotent: false,
        },
        _ => return None,
    })
}

#[tool_router]
impl PixiServer {
    /// Inspect a workspace without changing it: its manifest (`pixi info`), an environment's locked packages (`pixi list`), or its dependency tree (`pixi tree`).
    #[tool(
        name = "pixi_inspect",
        annotations(title = "Inspect a Pixi workspace"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_inspect(
        &self,
        Parameters(args): Parameters<InspectArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.inspect(args, &cancel).await.into()
    }

    /// Search conda channels for a package (`pixi search --json`).
    #[tool(
        name = "pixi_package_search",
        annotations(title = "Search conda packages"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_package_search(
        &self,
        Parameters(args): Parameters<PackageSearchArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.package_search(args, &cancel).await.into()
    }

    /// Add or remove dependencies in the manifest (`pixi add` / `pixi remove`, with `--no-install` unless install is true). Writes pixi.toml and pixi.lock.
    #[tool(
        name = "pixi_dependency",
        annotations(title = "Add or remove a Pixi dependency"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_dependency(
        &self,
        Parameters(args): Parameters<DependencyArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.dependency(args, &cancel).await.into()
    }

    /// Solve and write pixi.lock (`lock`), or check whether it is up to date without writing (`check`).
    #[tool(
        name = "pixi_lock",
        annotations(title = "Lock a Pixi workspace"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_lock(
        &self,
        Parameters(args): Parameters<LockArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.lock(args, &cancel).await.into()
    }

    /// Read workspace metadata (name, version, channels, platforms, environments, features) or export conda explicit specs from the lock file to a directory.
    #[tool(
        name = "pixi_workspace",
        annotations(title = "Pixi workspace metadata and export"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_workspace(
        &self,
        Parameters(args): Parameters<WorkspaceArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.workspace_tool(args, &cancel).await.into()
    }

    /// Install an environment (`pixi install`); downloads packages.
    #[tool(
        name = "pixi_environment",
        annotations(title = "Install a Pixi environment"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_environment(
        &self,
        Parameters(args): Parameters<EnvironmentArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.environment(args, &cancel).await.into()
    }

    /// List the workspace's tasks (`list`, read-only) or run one task the manifest defines (`run`, executes its command).
    #[tool(
        name = "pixi_task",
        annotations(title = "List or run a Pixi task"),
        output_schema = outcome_schema::<CliResult>()
    )]
    async fn pixi_task(
        &self,
        Parameters(args): Parameters<TaskArgs>,
        cancel: CancellationToken,
    ) -> ToolOutcome<CliResult> {
        self.task(args, &cancel).await.into()
    }
}

cli_server_tools! {
    server: PixiServer,
    implementation: "somite-pixi",
    instructions: INSTRUCTIONS,
    manual: "Pixi 0.77",
    docs_search: ("pixi_docs_search", "Search the Pixi manual"),
    docs_read: ("pixi_docs_read", "Read a Pixi manual page"),
    docs_list: ("pixi_docs_list", "List the Pixi manual"),
    runtime_info: (
        "pixi_runtime_info",
        "Pixi runtime",
        "The installed Pixi's version (checked against 0.77.x) and `pixi info --json`."
    ),
    runtime_info_args: ["info", "--json"],
}
