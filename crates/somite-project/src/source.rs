//! Source workflows in the project: from a verified tree and its static
//! outline to the canvas node, and back from the node to the tree.
//!
//! The pipeline store (`somite-source`) and the outline (`somite-outline`)
//! know nothing of graphs; the workflow domain knows nothing of stores. This
//! module joins them once for every surface (HTTP, MCP, CLI, compile):
//! [`binding_of`] turns a pinned, outlined tree into the node's
//! [`SourceBinding`], [`place_transaction`] wraps it in the one
//! `GraphTransaction` that puts it on an empty canvas (so compare-and-swap,
//! idempotent replay and the feed work exactly as for any edit), and
//! [`verified_outline`] re-opens a node's tree — checking its digest again —
//! whenever the tree is used.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_outline::{ConfigDefault, ConfigValue, Outline, OutlineError};
use somite_source::{
    CommitSha, PinnedSource, SourceOrigin, SourceStore, TreeDigest, VerifiedSource,
};
use somite_workflow::Revision;
use somite_workflow::compile::{PackageFile, SourceEnvironment, SourceInputs, SourceProcessRun};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::source::{
    BundledFile, EnvironmentChoice, InvocationPort, InvocationPortRef, PinnedInput, SourceBinding,
    SourceInvocation, SourceParam, SourceParamType, SourceProcess, SourceProvider,
    UnfrozenEnvironment, infer_port_type,
};
use somite_workflow::source_environment::{EnvironmentSpec, freeze};
use somite_workflow::source_paths::{PathRefusal, PathTarget, bundled_value, path_target};
use somite_workflow::transaction::{GraphTransaction, Operation};
use somite_workflow::{ErrorCode, SomiteError};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Where a source node stands unless the caller says otherwise.
pub const DEFAULT_POSITION: (f64, f64) = (80.0, 80.0);

/// The node binding of `pinned`, whose tree `outline` describes: its typed
/// parameters (a schema default, else the config's), its processes with
/// whether Pixi can freeze their environments, its invocations, and the
/// digests of the files of the tree that parameter defaults name.
///
/// A default that is a URL with a user name or password refuses the whole
/// pipeline (`url_credentials`, naming the parameter, never the URL): placing
/// it would write the credential into the project.
pub fn binding_of(
    pinned: &PinnedSource,
    outline: &Outline,
) -> Result<SourceBinding, somite_api::Error> {
    let root = pinned.source.path();
    let (provider, release, git_ref) = match &pinned.origin {
        SourceOrigin::NfCore { release, .. } => {
            (SourceProvider::NfCore, Some(release.clone()), None)
        }
        SourceOrigin::GitHub { git_ref, .. } => (
            SourceProvider::GitHub,
            None,
            Some(git_ref.as_str().to_owned()),
        ),
    };
    let params = outline
        .params
        .iter()
        // Only what the schema declares is typed; config-only settings
        // (`params.genomes`, institutional profiles) are not a form field.
        .filter(|p| p.location.file == "nextflow_schema.json")
        .map(|p| SourceParam {
            name: p.name.clone(),
            group: p.group.clone(),
            ty: p
                .types
                .iter()
                .find_map(|t| SourceParamType::from_schema(t))
                .or_else(|| p.default.as_ref().and_then(type_of_value))
                .unwrap_or(SourceParamType::String),
            description: p.description.clone(),
            help_text: p.help_text.clone(),
            default: p
                .default
                .clone()
                .filter(|v| !v.is_null())
                .or_else(|| p.config_default.as_ref().and_then(config_default_value)),
            enum_values: p.enum_values.clone(),
            pattern: p.pattern.clone(),
            minimum: p.minimum.as_ref().and_then(serde_json::Value::as_f64),
            maximum: p.maximum.as_ref().and_then(serde_json::Value::as_f64),
            format: p.format.clone(),
            exists: p.exists == Some(true),
            required: p.required,
            hidden: p.hidden,
        })
        .collect();
    let params: Vec<SourceParam> = params;
    for param in &params {
        if let Some(default) = param.default.as_ref().and_then(Value::as_str)
            && path_target(default) == Err(PathRefusal::Credentials)
        {
            return Err(SomiteError::new(
                ErrorCode::UrlCredentials,
                format!(
                    "{}'s default for `{}` is a URL with a user name or password",
                    pinned.repository.as_str(),
                    param.name
                ),
                "Somite does not place a pipeline whose defaults carry credentials; use a release without them",
            )
            .with_detail("param", &param.name)
            .into());
        }
    }
    let mut frozen: BTreeMap<String, Option<UnfrozenEnvironment>> = BTreeMap::new();
    let mut processes = Vec::with_capacity(outline.processes.len());
    for p in &outline.processes {
        let declared = declared_environment(p);
        let unfrozen = match &declared {
            Some((file, env)) => match frozen.get(file) {
                Some(known) => known.clone(),
                None => {
                    let text = std::fs::read_to_string(root.join(file)).ok();
                    let refusal = freeze(&EnvironmentSpec {
                        file,
                        channels: &env.channels,
                        dependencies: &env.dependencies,
                        pip: &env.pip,
                        text: text.as_deref(),
                    })
                    .err()
                    .map(UnfrozenEnvironment::from);
                    frozen.insert(file.clone(), refusal.clone());
                    refusal
                }
            },
            None => None,
        };
        processes.push(SourceProcess {
            name: p.name.clone(),
            file: p.location.file.clone(),
            line: p.location.line,
            environment: declared.map(|(file, _)| file),
            exec: p.body.as_deref() == Some("exec"),
            container: p
                .container
                .as_ref()
                .map(|c| c.images.clone())
                .unwrap_or_default(),
            unfrozen,
        });
    }
    let bundled_files = bundled_files(root, &params)?;
    let invocations = invocations_of(outline)?;
    Ok(SourceBinding {
        provider,
        repository: pinned.repository.as_str().to_owned(),
        release,
        git_ref,
        commit: pinned.source.commit.as_str().to_owned(),
        tree_digest: pinned.source.tree_digest.as_str().to_owned(),
        entry: outline.entry.clone(),
        name: outline
            .manifest
            .name
            .clone()
            .unwrap_or_else(|| pinned.repository.as_str().to_owned()),
        description: outline.manifest.description.clone(),
        nextflow_version: outline.manifest.nextflow_version.clone(),
        params,
        processes,
        invocations,
        bundled_files,
    })
}

/// A config default as a parameter value: a literal as it is, and a string
/// naming a file of the pipeline (`"${projectDir}/assets/x"`, which the
/// outline keeps as an expression) in the form readiness reads.
fn config_default_value(default: &ConfigDefault) -> Option<Value> {
    match &default.value {
        ConfigValue::Literal(Value::Null) => None,
        ConfigValue::Literal(value) => Some(value.clone()),
        ConfigValue::Expression(text) => {
            let inner = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))?;
            match path_target(inner) {
                Ok(PathTarget::Bundled(path)) => Some(Value::String(bundled_value(path))),
                _ => None,
            }
        }
    }
}

/// The files of the tree at `root` that parameter defaults name, each with
/// its size and BLAKE3; a named file the tree does not hold is left out
/// (readiness then says so).
fn bundled_files(
    root: &Path,
    params: &[SourceParam],
) -> Result<Vec<BundledFile>, somite_api::Error> {
    let mut paths: BTreeSet<&str> = BTreeSet::new();
    for param in params {
        if let Some(Ok(PathTarget::Bundled(path))) = param
            .default
            .as_ref()
            .and_then(Value::as_str)
            .map(path_target)
        {
            paths.insert(path);
        }
    }
    let mut files = Vec::new();
    for path in paths {
        let full = root.join(path);
        // The store admits no link that leaves the tree; a folder or a
        // missing file is not a bundled file.
        if !full.is_file() {
            continue;
        }
        let mut hasher = blake3::Hasher::new();
        let bytes = std::fs::File::open(&full)
            .and_then(|mut file| std::io::copy(&mut file, &mut hasher))
            .map_err(|e| somite_api::Error::from(SomiteError::io(Path::new(path), &e)))?;
        files.push(BundledFile {
            path: path.to_owned(),
            bytes,
            digest: format!("blake3:{}", hasher.finalize().to_hex()),
        });
    }
    Ok(files)
}

/// The outline's invocations with their ports typed (see
/// [`somite_workflow::source::infer_port_type`]).
pub fn invocations_of(outline: &Outline) -> Result<Vec<SourceInvocation>, somite_api::Error> {
    let port = |p: &somite_outline::InvocationPort| InvocationPort {
        name: p.name.clone(),
        ty: infer_port_type(&p.patterns, p.description.as_deref()),
        text: p.text.clone(),
        from: p
            .from
            .iter()
            .map(|r| InvocationPortRef {
                invocation: r.invocation.clone(),
                port: r.port.clone(),
            })
            .collect(),
    };
    Ok(somite_outline::runnable_invocations(outline)?
        .into_iter()
        .map(|i| SourceInvocation {
            id: i.id,
            call: i.call,
            workflow: i.workflow,
            process: i.process,
            file: i.location.file,
            line: i.location.line,
            inputs: i.inputs.iter().map(port).collect(),
            outputs: i.outputs.iter().map(port).collect(),
            reach: i.reach,
        })
        .collect())
}

fn type_of_value(value: &serde_json::Value) -> Option<SourceParamType> {
    match value {
        serde_json::Value::Bool(_) => Some(SourceParamType::Boolean),
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => Some(SourceParamType::Integer),
        serde_json::Value::Number(_) => Some(SourceParamType::Number),
        serde_json::Value::String(_) => Some(SourceParamType::String),
        _ => None,
    }
}

/// The transaction placing `binding` as node `node_id` on an empty canvas.
pub fn place_transaction(
    binding: SourceBinding,
    base_state_revision: Revision,
    idempotency_key: String,
    node_id: String,
    (x, y): (f64, f64),
) -> GraphTransaction {
    let pinned = match (&binding.release, &binding.git_ref) {
        (Some(release), _) => format!("{}@{release}", binding.repository),
        (None, Some(r)) => format!("{}@{r}", binding.repository),
        (None, None) => binding.repository.clone(),
    };
    GraphTransaction {
        base_state_revision,
        idempotency_key,
        summary: format!("Start from {pinned} ({})", &binding.commit[..7]),
        operations: vec![Operation::PlaceSource {
            node_id,
            source: Box::new(binding),
            x,
            y,
        }],
    }
}

/// Refuses a `set_param` of a source path parameter whose schema says
/// `exists: true` when nothing is at that path (relative to the project
/// folder): the pure domain checks the value's shape, this the file system.
/// A file that disappears later is a readiness item instead.
pub fn check_paths_exist(
    doc: &WorkflowDocument,
    operations: &[Operation],
    root: &Path,
) -> Result<(), SomiteError> {
    for (index, op) in operations.iter().enumerate() {
        let Operation::SetParam {
            node_id,
            param,
            value,
        } = op
        else {
            continue;
        };
        // Only a string can name a path; checking that first spares the
        // search for the node on every other value.
        let Some(path) = value.as_str() else {
            continue;
        };
        let Some(spec) = doc
            .node(node_id)
            .and_then(|n| n.source())
            .and_then(|b| b.param(param))
        else {
            continue;
        };
        if spec.is_path() && spec.exists && !root.join(path).exists() {
            return Err(SomiteError::new(
                ErrorCode::ParamPathNotFound,
                format!("`{param}` names `{path}`, and nothing is there"),
                "choose an existing file (a path relative to the project folder, or absolute)",
            )
            .with_detail("param", param)
            .with_detail("path", path)
            .at_operation(index));
        }
    }
    Ok(())
}

/// The node's pinned tree, fetched again when this machine's store lacks it
/// (see [`SourceStore::ensure`]): the project names its source by commit and
/// tree digest, so it opens anywhere.
pub async fn ensure_pinned(
    store: &SourceStore,
    binding: &SourceBinding,
) -> Result<VerifiedSource, somite_api::Error> {
    let repository: somite_source::Repository = binding
        .repository
        .parse()
        .map_err(somite_api::Error::from)?;
    let commit: CommitSha = binding.commit.parse().map_err(somite_api::Error::from)?;
    let digest: TreeDigest = binding
        .tree_digest
        .parse()
        .map_err(somite_api::Error::from)?;
    Ok(store.ensure(&repository, &commit, &digest).await?)
}

/// Opens the node's pinned tree (its digest checked again now) and outlines it.
pub fn verified_outline(
    store: &SourceStore,
    binding: &SourceBinding,
) -> Result<(VerifiedSource, Outline), somite_api::Error> {
    let commit: CommitSha = binding.commit.parse().map_err(somite_api::Error::from)?;
    let digest: TreeDigest = binding
        .tree_digest
        .parse()
        .map_err(somite_api::Error::from)?;
    let verified = store.open(&commit, Some(&digest))?;
    let outline = somite_outline::outline(verified.path()).map_err(somite_api::Error::from)?;
    Ok((verified, outline))
}

/// Outlines a freshly pinned tree and builds its binding: what both resolve
/// surfaces do before placing the node.
pub fn outline_pinned(pinned: &PinnedSource) -> Result<SourceBinding, somite_api::Error> {
    let outline: Result<Outline, OutlineError> = somite_outline::outline(pinned.source.path());
    binding_of(pinned, &outline?)
}

/// The Conda environment `process` declares, keyed by the file declaring
/// it: the `environment.yml` its directive names (or the one beside it),
/// else its own script when the directive lists the packages inline
/// (`conda "conda-forge::python=3.9.5"`, as fetchngs' local modules do).
fn declared_environment(process: &somite_outline::Process) -> Option<(String, SourceEnvironment)> {
    let conda = process.conda.as_ref()?;
    let (file, channels, dependencies, pip) = match &conda.environment {
        Some(env) => (
            env.file.clone(),
            env.channels.clone(),
            env.dependencies.clone(),
            env.pip.clone(),
        ),
        None if !conda.packages.is_empty() => (
            process.location.file.clone(),
            Vec::new(),
            conda.packages.clone(),
            Vec::new(),
        ),
        None => return None,
    };
    let env = SourceEnvironment {
        file: file.clone(),
        channels,
        dependencies,
        pip,
    };
    Some((file, env))
}

/// Reads what the compiler needs from the node's verified tree: every file
/// with its mode, every environment a process uses, and the names each
/// process runs under. A store failure keeps its message; its code is
/// carried in `details.source_code` because a compile reports domain codes.
pub fn compile_inputs(
    store: &SourceStore,
    binding: &SourceBinding,
) -> Result<SourceInputs, SomiteError> {
    let as_domain = |e: somite_api::Error| {
        let code = match e.code.as_str() {
            "source_not_found" => ErrorCode::NotFound,
            "io_error" => ErrorCode::Io,
            _ => ErrorCode::InvalidDocument,
        };
        SomiteError::new(code, format!("cannot compile: {}", e.message), e.recovery)
            .with_detail("source_code", e.code.as_str())
    };
    let (verified, outline) = verified_outline(store, binding).map_err(as_domain)?;
    let tree = read_tree(verified.path()).map_err(|e| SomiteError::io(verified.path(), &e))?;
    let mut environments = Vec::new();
    let mut seen = BTreeSet::new();
    let mut processes = Vec::new();
    for process in &outline.processes {
        let declared = declared_environment(process);
        let environment = declared.as_ref().map(|(file, _)| file.clone());
        if let Some((file, env)) = declared
            && seen.insert(file)
        {
            environments.push(env);
        }
        let mut selectors: BTreeSet<String> = BTreeSet::from([process.name.clone()]);
        for include in &outline.includes {
            if include.resolved.as_deref() != Some(process.location.file.as_str()) {
                continue;
            }
            for item in &include.items {
                if item.name == process.name
                    && let Some(alias) = &item.alias
                {
                    selectors.insert(alias.clone());
                }
            }
        }
        processes.push(SourceProcessRun {
            name: process.name.clone(),
            file: process.location.file.clone(),
            selectors: selectors.into_iter().collect(),
            environment,
        });
    }
    Ok(SourceInputs {
        tree,
        environments,
        processes,
    })
}

/// Every regular file under `root`, sorted, with `0o755` kept for
/// executables (nf-core's `bin/` scripts) and `0o644` for the rest.
fn read_tree(root: &Path) -> std::io::Result<Vec<PackageFile>> {
    use std::os::unix::fs::PermissionsExt;
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
                // The store admits only links that stay inside the tree; the
                // package holds what they point at, as a file of its own.
                let relative = path
                    .strip_prefix(root)
                    .expect("walked from root")
                    .to_string_lossy()
                    .replace('\\', "/");
                let executable = std::fs::metadata(&path)?.permissions().mode() & 0o111 != 0;
                files.push(PackageFile {
                    path: relative,
                    mode: if executable { 0o755 } else { 0o644 },
                    bytes: std::fs::read(&path)?,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// One typed edit of a source node: the body of
/// `POST /api/source/nodes/{id}/edit`, `somite.source_workflow.edit` and
/// `somite source edit` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceEdit {
    /// Sets a pipeline parameter, checked against the pinned schema.
    SetParam {
        param: String,
        value: Value,
    },
    UnsetParam {
        param: String,
    },
    /// Stands a catalog operator in for one invocation; `inputs` and
    /// `outputs` map invocation ports to operator ports (omitted: by type).
    ReplaceInvocation {
        invocation: String,
        operator_id: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        inputs: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        outputs: BTreeMap<String, String>,
    },
    RestoreInvocation {
        invocation: String,
    },
    /// Gives a process the pipeline leaves without a Pixi environment the
    /// one the user chooses: `{"use": "conda", "dependencies": [...]}` or
    /// `{"use": "container"}`.
    SetProcessEnvironment {
        process: String,
        choice: EnvironmentChoice,
    },
    UnsetProcessEnvironment {
        process: String,
    },
}

/// The body of a source edit: one compare-and-swap transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceEditRequest {
    /// The `state_revision` the edits were made against.
    pub base_state_revision: String,
    /// A fresh key per intended edit, `^[A-Za-z0-9_-]{8,128}$`; repeating
    /// the identical request with it replays the original result.
    pub idempotency_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub edits: Vec<SourceEdit>,
}

impl SourceEditRequest {
    /// The transaction applying these edits to source node `node_id`.
    pub fn transaction(self, node_id: &str) -> GraphTransaction {
        let node_id = node_id.to_owned();
        let summary = self
            .summary
            .unwrap_or_else(|| format!("Edit the source workflow ({} edits)", self.edits.len()));
        let operations = self
            .edits
            .into_iter()
            .map(|edit| match edit {
                SourceEdit::SetParam { param, value } => Operation::SetParam {
                    node_id: node_id.clone(),
                    param,
                    value,
                },
                SourceEdit::UnsetParam { param } => Operation::UnsetParam {
                    node_id: node_id.clone(),
                    param,
                },
                SourceEdit::ReplaceInvocation {
                    invocation,
                    operator_id,
                    inputs,
                    outputs,
                } => Operation::ReplaceInvocation {
                    node_id: node_id.clone(),
                    invocation,
                    operator_id,
                    inputs,
                    outputs,
                },
                SourceEdit::RestoreInvocation { invocation } => Operation::RestoreInvocation {
                    node_id: node_id.clone(),
                    invocation,
                },
                SourceEdit::SetProcessEnvironment { process, choice } => {
                    Operation::SetProcessEnvironment {
                        node_id: node_id.clone(),
                        process,
                        choice,
                    }
                }
                SourceEdit::UnsetProcessEnvironment { process } => {
                    Operation::UnsetProcessEnvironment {
                        node_id: node_id.clone(),
                        process,
                    }
                }
            })
            .collect();
        GraphTransaction {
            base_state_revision: self.base_state_revision,
            idempotency_key: self.idempotency_key,
            summary,
            operations,
        }
    }
}

/// The folder of the project pinned remote inputs are copied into, each
/// under the first 16 hex digits of its digest.
pub const PINNED_INPUTS_DIR: &str = "inputs/remote";

/// The body of `POST /api/source/nodes/{id}/pin` and `somite source pin`:
/// the remote input parameter to download once and pin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourcePinRequest {
    pub base_state_revision: String,
    pub idempotency_key: String,
    /// A path parameter whose value is an http(s) URL.
    pub param: String,
}

/// The URL `param` of source node `node_id` names now, when it is one
/// Somite can pin (an http(s) file); else why not.
pub fn pinnable_url(
    doc: &WorkflowDocument,
    node_id: &str,
    param: &str,
) -> Result<String, SomiteError> {
    let binding = doc.node(node_id).and_then(|n| n.source()).ok_or_else(|| {
        SomiteError::new(
            ErrorCode::NotASourceNode,
            format!("`{node_id}` is not a source node"),
            "pin an input of the workflow.source node",
        )
    })?;
    let spec = binding.param(param).ok_or_else(|| {
        SomiteError::new(
            ErrorCode::UnknownParam,
            format!("{} has no parameter `{param}`", binding.repository),
            "read the node's parameters and use one of their names",
        )
    })?;
    let node = doc.node(node_id).expect("found above");
    let value = node
        .params
        .get(param)
        .or(spec.default.as_ref())
        .and_then(Value::as_str);
    match value.map(path_target) {
        Some(Ok(PathTarget::Remote(remote)))
            if spec.is_path() && spec.format.as_deref() != Some("directory-path") && remote.pinnable() =>
        {
            Ok(remote.url.to_owned())
        }
        _ => Err(SomiteError::new(
            ErrorCode::InvalidRequest,
            format!("`{param}` does not name an http(s) file Somite can pin"),
            "pin a file parameter whose value is an http(s) URL (readiness lists them as remote inputs)",
        )
        .with_detail("param", param)),
    }
}

impl SourcePinRequest {
    /// The transaction recording the downloaded copy at `path` (relative to
    /// the project folder) of `url` as the value of the parameter.
    pub fn transaction(
        self,
        node_id: &str,
        url: String,
        path: String,
        bytes: u64,
        digest: Revision,
    ) -> GraphTransaction {
        GraphTransaction {
            base_state_revision: self.base_state_revision,
            idempotency_key: self.idempotency_key,
            summary: format!("Pin {} to a downloaded copy", self.param),
            operations: vec![Operation::PinInput {
                node_id: node_id.to_owned(),
                pin: PinnedInput {
                    param: self.param,
                    url,
                    path,
                    bytes,
                    digest,
                },
            }],
        }
    }
}

/// The body of a promotion: the replaced invocations to promote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourcePromoteRequest {
    pub base_state_revision: String,
    pub idempotency_key: String,
    /// Fully-qualified invocation names, each with a replacement.
    pub invocations: Vec<String>,
}

impl SourcePromoteRequest {
    /// The transaction turning source node `node_id` into a native variant.
    pub fn transaction(self, node_id: &str) -> GraphTransaction {
        GraphTransaction {
            base_state_revision: self.base_state_revision,
            idempotency_key: self.idempotency_key,
            summary: format!(
                "Promote {} replaced step(s) into a native variant",
                self.invocations.len()
            ),
            operations: vec![Operation::PromoteSource {
                node_id: node_id.to_owned(),
                invocations: self.invocations,
            }],
        }
    }
}
