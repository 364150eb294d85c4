//! Every environment variable Somite reads or sets, with what it means.
//!
//! One list, in the manner of uv's `EnvVars`: a reader of the code finds
//! every variable here, and a variable set by one process and read by
//! another (the MCP capability, the manuals' cache) is the same constant on
//! both sides. Variables of the test stand-ins are listed too, because the
//! tests of several crates set them.

/// The names of Somite's environment variables.
pub struct EnvVars;

impl EnvVars {
    /// The prefix of every Somite variable. Agents and registry entries may
    /// not set or receive names with it.
    pub const PREFIX: &'static str = "SOMITE_";

    // ---- The runtime (`somite serve`) ----

    /// The loopback port `somite serve` binds (default 7310).
    pub const SOMITE_PORT: &'static str = "SOMITE_PORT";
    /// The loopback address `somite serve` binds (`127.0.0.1` or `::1`).
    pub const SOMITE_HOST: &'static str = "SOMITE_HOST";
    /// A folder holding a built web workspace to serve instead of none.
    pub const SOMITE_WEB_BUNDLE: &'static str = "SOMITE_WEB_BUNDLE";
    /// Seconds between keep-alive comments on the activity stream.
    pub const SOMITE_SSE_KEEPALIVE_SECS: &'static str = "SOMITE_SSE_KEEPALIVE_SECS";
    /// Where the ACP Registry is fetched from; `off` keeps the bundled snapshot.
    pub const SOMITE_ACP_REGISTRY_URL: &'static str = "SOMITE_ACP_REGISTRY_URL";
    /// The log filter of Somite's processes (`tracing` `EnvFilter` syntax:
    /// `warn`, `somite_server=debug`, …), read before [`Self::RUST_LOG`].
    pub const SOMITE_LOG: &'static str = "SOMITE_LOG";
    /// The conventional log filter, read when [`Self::SOMITE_LOG`] is unset.
    pub const RUST_LOG: &'static str = "RUST_LOG";

    // ---- Toolchain ----

    /// The `pixi` executable to run instead of the one on `PATH`.
    pub const SOMITE_PIXI: &'static str = "SOMITE_PIXI";
    /// Set by a compiled package's `nextflow.config` for its tasks: the
    /// package's `pixi.toml`. Owned by the compiler.
    pub const SOMITE_PIXI_MANIFEST: &'static str = somite_workflow::compile::PIXI_MANIFEST;
    /// The same path, base64-encoded, as `main.nf` passes it on.
    pub const SOMITE_B64_PIXI_MANIFEST: &'static str =
        somite_workflow::compile::PIXI_MANIFEST_ENCODED;

    // ---- MCP servers and agents ----

    /// The capability an MCP child presents to the runtime, handed over
    /// only through its environment and never forwarded to an agent.
    pub const SOMITE_MCP_CAPABILITY: &'static str = "SOMITE_MCP_CAPABILITY";
    /// Credential names (comma-separated) the user opts into an agent's
    /// environment.
    pub const SOMITE_AGENT_CREDENTIAL_ENV_NAMES: &'static str = "SOMITE_AGENT_CREDENTIAL_ENV_NAMES";
    /// Where the Pixi and Nextflow MCP servers keep their imported manuals.
    pub const SOMITE_MCP_DOCS_CACHE_DIR: &'static str = "SOMITE_MCP_DOCS_CACHE_DIR";
    /// `off` forbids fetching manuals from upstream.
    pub const SOMITE_MCP_DOCS_FETCH: &'static str = "SOMITE_MCP_DOCS_FETCH";
    /// The upstream API base the manuals are listed from.
    pub const SOMITE_MCP_DOCS_UPSTREAM_API: &'static str = "SOMITE_MCP_DOCS_UPSTREAM_API";
    /// The upstream raw-file base the manuals are fetched from.
    pub const SOMITE_MCP_DOCS_UPSTREAM_RAW: &'static str = "SOMITE_MCP_DOCS_UPSTREAM_RAW";
    /// A local checkout of Pixi's manual to import instead of fetching it.
    pub const SOMITE_MCP_DOCS_SOURCE_PIXI: &'static str = "SOMITE_MCP_DOCS_SOURCE_PIXI";
    /// A local checkout of Nextflow's manual to import instead of fetching it.
    pub const SOMITE_MCP_DOCS_SOURCE_NEXTFLOW: &'static str = "SOMITE_MCP_DOCS_SOURCE_NEXTFLOW";

    // ---- Source workflows ----

    /// Replaces the nf-core catalog URL (`https://nf-co.re/pipelines.json`);
    /// any http(s) URL, so tests and mirrors can serve it.
    pub const SOMITE_NFCORE_PIPELINES_URL: &'static str = "SOMITE_NFCORE_PIPELINES_URL";
    /// Replaces the GitHub REST API base (`https://api.github.com`), without
    /// a trailing slash; any http(s) URL.
    pub const SOMITE_GITHUB_API_URL: &'static str = "SOMITE_GITHUB_API_URL";
    /// A GitHub token, sent as `Authorization: Bearer` to the API only when
    /// set and non-empty; never logged, never shown.
    pub const GITHUB_TOKEN: &'static str = "GITHUB_TOKEN";

    // ---- Public data (NCBI, Ensembl) ----

    /// Replaces the NCBI Datasets v2 base
    /// (`https://api.ncbi.nlm.nih.gov/datasets/v2`); any http(s) URL.
    pub const SOMITE_NCBI_DATASETS_URL: &'static str = "SOMITE_NCBI_DATASETS_URL";
    /// Replaces the NCBI E-utilities base
    /// (`https://eutils.ncbi.nlm.nih.gov/entrez/eutils`); any http(s) URL.
    pub const SOMITE_NCBI_EUTILS_URL: &'static str = "SOMITE_NCBI_EUTILS_URL";
    /// Replaces the Ensembl REST base (`https://rest.ensembl.org`); any http(s) URL.
    pub const SOMITE_ENSEMBL_REST_URL: &'static str = "SOMITE_ENSEMBL_REST_URL";
    /// Replaces the Ensembl release file server (`https://ftp.ensembl.org/pub`);
    /// any http(s) URL.
    pub const SOMITE_ENSEMBL_FTP_URL: &'static str = "SOMITE_ENSEMBL_FTP_URL";
    /// The user's NCBI API key: sent as `api_key` to NCBI only when set and
    /// non-empty (raising NCBI's limit from 3 to 10 requests a second);
    /// never logged, cached under, or returned.
    pub const NCBI_API_KEY: &'static str = "NCBI_API_KEY";
    // ---- Managed resources ----

    /// The store of installed resources (reference databases), replacing
    /// the platform data folder (`$XDG_DATA_HOME/somite/resources`,
    /// `~/.local/share/somite/resources`, `~/Library/Application
    /// Support/Somite/resources` on macOS).
    pub const SOMITE_RESOURCE_DIR: &'static str = "SOMITE_RESOURCE_DIR";
    /// A folder of extra provider files, each marked `test_only = true`; the
    /// only providers that may download over plain HTTP from loopback.
    pub const SOMITE_RESOURCE_PROVIDERS_DIR: &'static str = "SOMITE_RESOURCE_PROVIDERS_DIR";
    /// Replaces the scheme and host of every reviewed provider's URL
    /// (`https://genome-idx.s3.amazonaws.com`), for a mirror or a stand-in.
    pub const SOMITE_RESOURCE_BASE_URL: &'static str = "SOMITE_RESOURCE_BASE_URL";
    /// Bytes: caps the free disk space Somite believes the store has, so a
    /// test can provoke `insufficient_disk`.
    pub const SOMITE_RESOURCE_FREE_DISK_LIMIT: &'static str = "SOMITE_RESOURCE_FREE_DISK_LIMIT";
    /// The user data folder's parent (`$XDG_DATA_HOME/somite`), when absolute.
    pub const XDG_DATA_HOME: &'static str = "XDG_DATA_HOME";

    // ---- The user's folders ----

    /// The user cache folder's parent (`$XDG_CACHE_HOME/somite`), when absolute.
    pub const XDG_CACHE_HOME: &'static str = "XDG_CACHE_HOME";
    /// The home folder, for `~/.cache/somite` (`~/Library/Caches/Somite` on macOS).
    pub const HOME: &'static str = "HOME";

    // ---- Evaluation ----

    /// The agent command `somite eval` drives when none is given.
    pub const SOMITE_EVAL_AGENT: &'static str = "SOMITE_EVAL_AGENT";

    // ---- Test stand-ins and test-only switches (never read by Somite) ----

    /// The stand-in Pixi appends each invocation to this file.
    pub const SOMITE_STANDIN_LOG: &'static str = "SOMITE_STANDIN_LOG";
    /// Milliseconds the stand-in spends on each task.
    pub const SOMITE_STANDIN_STEP_MS: &'static str = "SOMITE_STANDIN_STEP_MS";
    /// The node whose task the stand-in fails.
    pub const SOMITE_STANDIN_FAIL_NODE: &'static str = "SOMITE_STANDIN_FAIL_NODE";
    /// `1`: the stand-in's run never finishes on its own.
    pub const SOMITE_STANDIN_HANG: &'static str = "SOMITE_STANDIN_HANG";
    /// `1`: the stand-in reports every task as cached.
    pub const SOMITE_STANDIN_CACHED: &'static str = "SOMITE_STANDIN_CACHED";
    /// `1`: the stand-in's pipeline fails to compile (a `-preview` fails).
    pub const SOMITE_STANDIN_SCRIPT_ERROR: &'static str = "SOMITE_STANDIN_SCRIPT_ERROR";
    /// The stand-in starts a grandchild and writes its pid here.
    pub const SOMITE_STANDIN_GRANDCHILD_PID_FILE: &'static str =
        "SOMITE_STANDIN_GRANDCHILD_PID_FILE";
    /// `1`: the operator-proof test rewrites its coverage file.
    pub const SOMITE_UPDATE_COVERAGE: &'static str = "SOMITE_UPDATE_COVERAGE";
    /// A file each test whose tool is absent appends `test<TAB>reason` to
    /// (`somite_test_support::skipped`); `scripts/test` sets it and prints
    /// how many were skipped and why.
    pub const SOMITE_TEST_SKIP_LOG: &'static str = "SOMITE_TEST_SKIP_LOG";
    /// `1`: the wire-schema test rewrites `web/src/api/generated/wire.schema.json`.
    pub const SOMITE_UPDATE_WIRE_SCHEMAS: &'static str = "SOMITE_UPDATE_WIRE_SCHEMAS";
    /// The durable-write crash test's child: the file it publishes.
    pub const SOMITE_DURABLE_CRASH_CHILD: &'static str = "SOMITE_DURABLE_CRASH_CHILD";
    /// The durable-write crash test's child: where it stops.
    pub const SOMITE_DURABLE_CRASH_MODE: &'static str = "SOMITE_DURABLE_CRASH_MODE";
    /// Printed by the durable-write crash test's child when it stops.
    pub const SOMITE_DURABLE_CRASH_POINT_REACHED: &'static str =
        "SOMITE_DURABLE_CRASH_POINT_REACHED";
    /// The project crash test's child: the project it writes to.
    pub const SOMITE_CRASH_CHILD_PROJECT: &'static str = "SOMITE_CRASH_CHILD_PROJECT";
}
