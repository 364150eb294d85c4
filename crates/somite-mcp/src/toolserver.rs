//! What the Pixi and Nextflow servers share: the workspace root, the
//! manual, the toolchain check, and running one CLI invocation.
//!
//! A server is this core plus its own typed tools. Every CLI tool goes
//! through [`ServerCore::run`], so none can skip the version check, the
//! environment allowlist or the process bounds.

use crate::confine::{ConfineError, WorkspaceRoot};
use crate::docs::tools::{self, DocsList, DocsPage, DocsReadArgs, DocsSearch, DocsSearchArgs};
use crate::docs::{DocsCache, DocsError, Manual, ManualSpec, configured_source};
use crate::envelope::ToolError;
use crate::process::{self, BASE_ENV_ALLOWLIST, ChildEnv, ProcessReport};
use crate::toolchain::{ToolContract, Toolchain};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use somite_api::ToolCode;
use somite_process::Command;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The input of a tool that takes no arguments (a closed, empty object).
#[derive(Debug, Clone, Default, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

/// How a server is started.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// The directory every tool path is confined to.
    pub workspace_root: PathBuf,
    /// A local checkout of the manual to import when the cache lacks it
    /// (else the manual's `SOMITE_MCP_DOCS_SOURCE_*` variable).
    pub docs_source: Option<PathBuf>,
}

/// The server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Root(#[from] ConfineError),
}

/// A CLI tool's structured result: the process report, plus the tool's
/// JSON output parsed when it was asked for JSON.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CliResult {
    #[serde(flatten)]
    pub process: ProcessReport,
    /// stdout parsed as JSON, when the command was asked for JSON output and
    /// produced valid JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parsed: Option<Value>,
}

impl CliResult {
    /// A result whose stdout is plain text.
    pub fn text(process: ProcessReport) -> Self {
        Self {
            process,
            parsed: None,
        }
    }

    /// A result whose stdout should be JSON.
    pub fn json(process: ProcessReport) -> Self {
        let parsed = if process.stdout_truncated {
            None
        } else {
            serde_json::from_str(&process.stdout).ok()
        };
        Self { process, parsed }
    }
}

/// The version the server found and the manual it serves.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RuntimeInfo {
    pub binary: String,
    pub executable: String,
    pub version: String,
    /// The releases the server's contract is proven for (`0.77.1`).
    pub required: String,
    pub workspace_root: String,
    pub manual_repository: String,
    pub manual_tag: String,
    /// The tool's own description of its runtime.
    pub info: CliResult,
}

/// The shared state of one server.
#[derive(Debug)]
pub struct ServerCore {
    root: WorkspaceRoot,
    manual: Result<Arc<Manual>, Arc<DocsError>>,
    spec: &'static ManualSpec,
    contract: &'static ToolContract,
    env: ChildEnv,
    toolchain: tokio::sync::OnceCell<Toolchain>,
}

impl ServerCore {
    /// Opens the root and loads the manual (from the cache, importing it
    /// first when a source is configured). A manual that cannot be loaded
    /// leaves the documentation tools reporting `docs_unavailable`; the CLI
    /// tools still work.
    pub fn start(
        options: &ServerOptions,
        spec: &'static ManualSpec,
        contract: &'static ToolContract,
        extra_env: &[&str],
        fixed_env: &[(&str, &str)],
    ) -> Result<Self, StartError> {
        let root = WorkspaceRoot::open(&options.workspace_root)?;
        let source = configured_source(spec, options.docs_source.as_deref());
        let manual = DocsCache::from_env()
            .map_err(DocsError::from)
            .and_then(|cache| Manual::load(spec, &cache, source.as_deref()))
            .map(Arc::new)
            .map_err(|error| {
                tracing::warn!(%error, "documentation tools are unavailable");
                Arc::new(error)
            });
        let allowlist: Vec<&str> = BASE_ENV_ALLOWLIST
            .iter()
            .chain(extra_env)
            .copied()
            .collect();
        let env = fixed_env
            .iter()
            .fold(ChildEnv::inherit(&allowlist), |env, (name, value)| {
                env.with(*name, *value)
            });
        Ok(Self {
            root,
            manual,
            spec,
            contract,
            env,
            toolchain: tokio::sync::OnceCell::new(),
        })
    }

    pub fn root(&self) -> &WorkspaceRoot {
        &self.root
    }

    pub fn contract(&self) -> &'static ToolContract {
        self.contract
    }

    fn manual(&self) -> Result<Arc<Manual>, ToolError> {
        self.manual
            .as_ref()
            .map(Arc::clone)
            .map_err(|error| ToolError::from(error.as_ref()))
    }

    pub fn docs_list(&self) -> Result<DocsList, ToolError> {
        Ok(tools::list(&*self.manual()?))
    }

    pub fn docs_read(&self, args: &DocsReadArgs) -> Result<DocsPage, ToolError> {
        tools::read(&*self.manual()?, args)
    }

    pub async fn docs_search(&self, args: DocsSearchArgs) -> Result<DocsSearch, ToolError> {
        let manual = self.manual()?;
        tokio::task::spawn_blocking(move || tools::search(&manual, &args))
            .await
            .map_err(|error| {
                ToolError::new(
                    ToolCode::SearchFailed,
                    error.to_string(),
                    "Retry the search.",
                )
            })?
    }

    /// The checked binary (checked once per server; a failure is retried on
    /// the next call, so installing the tool does not need a restart).
    pub async fn toolchain(&self, cancel: &CancellationToken) -> Result<&Toolchain, ToolError> {
        self.toolchain
            .get_or_try_init(|| self.contract.check(&self.env, self.root.path(), cancel))
            .await
    }

    /// Runs the checked binary with `args` in `cwd` (already confined).
    pub async fn run(
        &self,
        cwd: &Path,
        args: Vec<OsString>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<ProcessReport, ToolError> {
        let toolchain = self.toolchain(cancel).await?;
        let command = Command::new(&toolchain.executable, cwd, self.env.clone()).args(args);
        process::run(&command, timeout, cancel)
            .await
            .map_err(|error| {
                ToolError::new(
                    ToolCode::ProcessFailed,
                    error.to_string(),
                    "Check the installation of the tool and the workspace directory.",
                )
            })
    }

    /// Runtime information: the checked version plus the tool's own report.
    pub async fn runtime_info(
        &self,
        info_args: &[&str],
        info_is_json: bool,
        cancel: &CancellationToken,
    ) -> Result<RuntimeInfo, ToolError> {
        let toolchain = self.toolchain(cancel).await?.clone();
        let report = self
            .run(
                self.root.path(),
                info_args.iter().map(OsString::from).collect(),
                crate::limits::DEFAULT_TIMEOUT,
                cancel,
            )
            .await?;
        Ok(RuntimeInfo {
            binary: self.contract.binary.to_owned(),
            executable: toolchain.executable.display().to_string(),
            version: toolchain.version,
            required: self.contract.proven_label(),
            workspace_root: self.root.path().display().to_string(),
            manual_repository: self.spec.repository.to_owned(),
            manual_tag: self.spec.tag.to_owned(),
            info: if info_is_json {
                CliResult::json(report)
            } else {
                CliResult::text(report)
            },
        })
    }
}

/// The timeout a tool asked for, bounded; the default when it asked for none.
pub fn requested_timeout(seconds: Option<u32>) -> Duration {
    seconds.map_or(crate::limits::DEFAULT_TIMEOUT, |seconds| {
        Duration::from_secs(u64::from(seconds.max(1))).min(crate::limits::MAX_TIMEOUT)
    })
}

/// Checks a name passed as one argument (environment, feature, platform,
/// task, profile): non-empty, no leading `-` (it would read as an option),
/// and only characters such names use.
pub fn checked_name(kind: &str, value: &str) -> Result<OsString, ToolError> {
    let valid = !value.is_empty()
        && value.len() <= 128
        && !value.starts_with('-')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if valid {
        Ok(OsString::from(value))
    } else {
        Err(ToolError::new(
            ToolCode::InvalidArgument,
            format!("{kind} {value:?} is not a valid name"),
            format!(
                "Pass a {kind} name of letters, digits, `_`, `-`, `.` or `:` that does not start with `-`."
            ),
        ))
    }
}

/// Checks free text passed as one argument (a package spec or query): no
/// leading `-`, no control characters, bounded.
pub fn checked_text(kind: &str, value: &str) -> Result<OsString, ToolError> {
    let valid = !value.trim().is_empty()
        && value.len() <= 256
        && !value.starts_with('-')
        && !value.chars().any(char::is_control);
    if valid {
        Ok(OsString::from(value))
    } else {
        Err(ToolError::new(
            ToolCode::InvalidArgument,
            format!("{kind} {value:?} is not acceptable"),
            format!("Pass a {kind} of at most 256 characters that does not start with `-`."),
        ))
    }
}

/// Declares, once for both CLI servers, the tools every one of them has —
/// the manual's `*_docs_search`, `*_docs_read` and `*_docs_list` and the
/// installed tool's `*_runtime_info` — as the router `shared_tools`, which
/// the server adds to its own, and its MCP handler.
///
/// A `macro_rules!` emits the whole `#[tool_router]` impl because rmcp's
/// attribute sees only the tokens of the impl block it decorates: `#[tool]`
/// methods produced by a macro inside it would be invisible. Names and titles
/// are literals because rmcp's attributes accept nothing else; descriptions
/// are built from the manual's label.
macro_rules! cli_server_tools {
    (
        server: $server:ident,
        implementation: $implementation:tt,
        instructions: $instructions:expr,
        manual: $manual:tt,
        docs_search: ($docs_search:tt, $docs_search_title:tt),
        docs_read: ($docs_read:tt, $docs_read_title:tt),
        docs_list: ($docs_list:tt, $docs_list_title:tt),
        runtime_info: ($runtime_info:tt, $runtime_info_title:tt, $runtime_info_description:tt),
        runtime_info_args: $runtime_info_args:expr $(,)?
    ) => {
        #[rmcp::tool_router(router = shared_tools)]
        impl $server {
            #[rmcp::tool(
                name = $docs_search,
                description = concat!(
                    "Full-text search of the ",
                    $manual,
                    " manual; returns ranked pages with snippets."
                ),
                annotations(title = $docs_search_title),
                output_schema = $crate::envelope::outcome_schema::<$crate::docs::tools::DocsSearch>()
            )]
            async fn docs_search(
                &self,
                rmcp::handler::server::wrapper::Parameters(args): rmcp::handler::server::wrapper::Parameters<
                    $crate::docs::tools::DocsSearchArgs,
                >,
            ) -> $crate::envelope::ToolOutcome<$crate::docs::tools::DocsSearch> {
                self.core.docs_search(args).await.into()
            }

            #[rmcp::tool(
                name = $docs_read,
                description = concat!(
                    "Read one page of the ",
                    $manual,
                    " manual as Markdown, in bounded slices."
                ),
                annotations(title = $docs_read_title),
                output_schema = $crate::envelope::outcome_schema::<$crate::docs::tools::DocsPage>()
            )]
            async fn docs_read(
                &self,
                rmcp::handler::server::wrapper::Parameters(args): rmcp::handler::server::wrapper::Parameters<
                    $crate::docs::tools::DocsReadArgs,
                >,
            ) -> $crate::envelope::ToolOutcome<$crate::docs::tools::DocsPage> {
                self.core.docs_read(&args).into()
            }

            #[rmcp::tool(
                name = $docs_list,
                description = concat!(
                    "List every page of the ",
                    $manual,
                    " manual (path, title, size)."
                ),
                annotations(title = $docs_list_title),
                output_schema = $crate::envelope::outcome_schema::<$crate::docs::tools::DocsList>()
            )]
            async fn docs_list(
                &self,
                rmcp::handler::server::wrapper::Parameters(_args): rmcp::handler::server::wrapper::Parameters<
                    $crate::docs::tools::DocsListArgs,
                >,
            ) -> $crate::envelope::ToolOutcome<$crate::docs::tools::DocsList> {
                self.core.docs_list().into()
            }

            #[rmcp::tool(
                name = $runtime_info,
                description = $runtime_info_description,
                annotations(title = $runtime_info_title),
                output_schema = $crate::envelope::outcome_schema::<$crate::toolserver::RuntimeInfo>()
            )]
            async fn runtime_info(
                &self,
                rmcp::handler::server::wrapper::Parameters(_args): rmcp::handler::server::wrapper::Parameters<
                    $crate::toolserver::NoArguments,
                >,
                cancel: tokio_util::sync::CancellationToken,
            ) -> $crate::envelope::ToolOutcome<$crate::toolserver::RuntimeInfo> {
                self.core
                    .runtime_info(&$runtime_info_args, true, &cancel)
                    .await
                    .into()
            }
        }

        #[rmcp::tool_handler(router = self.tool_router)]
        impl rmcp::ServerHandler for $server {
            fn get_info(&self) -> rmcp::model::ServerConfig {
                use rmcp::model::{Implementation, ProtocolVersion, ServerCapabilities, ServerConfig};
                ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
                    .with_server_info(Implementation::new(
                        $implementation,
                        env!("CARGO_PKG_VERSION"),
                    ))
                    .with_instructions($instructions)
                    .with_protocol_version(ProtocolVersion::V_2025_11_25)
            }

            fn supported_protocol_versions(
                &self,
            ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
                std::borrow::Cow::Borrowed($crate::serve::SUPPORTED_PROTOCOL_VERSIONS)
            }
        }
    };
}
pub(crate) use cli_server_tools;
