//! A static outline of a Nextflow pipeline's source tree.
//!
//! Given the directory of a pinned, verified pipeline (the tree a source
//! store extracted), [`outline`] reads — without running Nextflow and without
//! a Groovy interpreter — what the canvas and the MCP tools show of it:
//!
//! - the entry script and every script its `include`s reach, with each
//!   include resolved to a file in the tree (`./x` → `x.nf` or `x/main.nf`);
//! - `workflow` blocks (named, and the entry workflow), the process,
//!   subworkflow and function calls in them, and the channels statically
//!   visible between those calls ([`ChannelSource`]);
//! - `process` declarations: inputs, outputs with their `emit:` names,
//!   labels, `container`, and `conda` with the `environment.yml` it names or
//!   that sits beside the module;
//! - parameters from `nextflow_schema.json` with the defaults of
//!   `nextflow.config`, and its `manifest`.
//!
//! What it cannot model degrades: an unknown construct becomes an
//! [`Opaque`] step with its location, an unreadable file or document a
//! [`Diagnostic`]; only a tree without an entry script, a tree over the
//! limits or an I/O failure is an [`OutlineError`].
//!
//! # Limits
//!
//! A hostile tree must not exhaust memory or time, so reading is bounded by
//! [`Limits`] (defaults in parentheses): files read (4096); bytes of one file
//! (1 MiB; a larger file is skipped with a diagnostic); bytes read in all
//! (64 MiB); nesting (64 levels of brackets, `${}` interpolations or `if`
//! blocks; deeper constructs become opaque). One file's tokens are held at a
//! time (tens of bytes per token, so tens of MiB at most for a file of
//! nothing but brackets), one value's channel sources are cut at
//! [`MAX_SOURCES`], and the rest of what the outline keeps grows with
//! the bytes read. Files are reached only
//! through includes from the entry script, never by walking the tree, and
//! paths never leave the root (`..` past it, or a link out of it, is
//! unresolved).

mod condition;
mod config;
mod environment;
mod error;
mod invocation;
pub mod lexer;
mod meta;
mod model;
mod schema;
mod script;
mod syntax;

pub use error::{OutlineError, Unreadable};
pub use invocation::{MAX_INVOCATIONS, invocations, runnable_invocations};
pub use model::*;
pub use script::MAX_SOURCES;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The pipeline's config, read for `params` and `manifest`.
const CONFIG_FILE: &str = "nextflow.config";
/// The pipeline's parameter schema.
const SCHEMA_FILE: &str = "nextflow_schema.json";
/// The entry script when the manifest names none.
const DEFAULT_ENTRY: &str = "main.nf";
/// The Conda environment file nf-core modules keep beside `main.nf`.
const MODULE_ENVIRONMENT: &str = "environment.yml";
/// The port documentation nf-core modules keep beside `main.nf`.
const MODULE_META: &str = "meta.yml";

/// How much of a tree the outline reads; see the crate docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Files read (scripts, config, schema, environment files); more is
    /// [`OutlineError::LimitExceeded`].
    pub max_files: u64,
    /// Bytes of one file; a larger file is skipped with a diagnostic.
    pub max_file_bytes: u64,
    /// Bytes read in all; more is [`OutlineError::LimitExceeded`].
    pub max_total_bytes: u64,
    /// Levels of brackets, interpolations and `if` blocks followed.
    pub max_nesting: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_files: 4096,
            max_file_bytes: 1 << 20,
            max_total_bytes: 64 << 20,
            max_nesting: 64,
        }
    }
}

/// Outlines the pipeline at `root` within the default [`Limits`].
pub fn outline(root: &Path) -> Result<Outline, OutlineError> {
    outline_with(root, &Limits::default())
}

/// Outlines the pipeline at `root` within `limits`.
pub fn outline_with(root: &Path, limits: &Limits) -> Result<Outline, OutlineError> {
    let mut tree = Tree::new(root, limits)?;

    let config = match tree.read(CONFIG_FILE)? {
        Some(src) => {
            let lexed = lexer::lex(&src, limits.max_nesting);
            tree.syntax_problems(CONFIG_FILE, &lexed);
            config::read(CONFIG_FILE, &src, &lexed, limits.max_nesting)
        }
        None => config::Config::default(),
    };
    let entry = config
        .manifest
        .main_script
        .as_deref()
        .and_then(|script| join("", script))
        .unwrap_or_else(|| DEFAULT_ENTRY.to_owned());
    if !tree.is_file(&entry) {
        return Err(OutlineError::NotANextflowRepository { entry });
    }

    let scripts = read_scripts(&mut tree, &entry)?;
    let mut scripts = resolve_calls(scripts, &mut tree.diagnostics);
    attach_environments(&mut tree, &mut scripts)?;
    attach_module_meta(&mut tree, &mut scripts)?;

    let (param_groups, mut params) = match tree.read(SCHEMA_FILE)? {
        Some(src) => match schema::read(SCHEMA_FILE, &src) {
            Ok(read) => read,
            Err(error) => {
                tree.diagnostic(
                    DiagnosticCode::InvalidDocument,
                    SCHEMA_FILE,
                    Some(u32::try_from(error.line()).unwrap_or(u32::MAX)),
                    format!("not a JSON document: {error}"),
                );
                (Vec::new(), Vec::new())
            }
        },
        None => (Vec::new(), Vec::new()),
    };
    merge_config_defaults(&mut params, config.params);

    let mut outline = Outline {
        entry,
        manifest: config.manifest,
        param_groups,
        params,
        files: scripts.keys().cloned().collect(),
        includes: Vec::new(),
        workflows: Vec::new(),
        processes: Vec::new(),
        functions: Vec::new(),
        opaque: Vec::new(),
        diagnostics: Vec::new(),
    };
    for script in scripts.into_values() {
        outline.includes.extend(script.includes);
        outline.workflows.extend(script.workflows);
        outline.processes.extend(script.processes);
        outline.functions.extend(script.functions);
        outline.opaque.extend(script.opaque);
        tree.diagnostics.extend(script.diagnostics);
    }
    outline.includes.sort_by(|a, b| a.location.cmp(&b.location));
    outline
        .workflows
        .sort_by(|a, b| a.location.cmp(&b.location));
    outline
        .processes
        .sort_by(|a, b| a.location.cmp(&b.location));
    outline
        .functions
        .sort_by(|a, b| a.location.cmp(&b.location));
    outline.opaque.sort_by(|a, b| a.location.cmp(&b.location));
    tree.diagnostics
        .sort_by(|a, b| (&a.file, a.line, &a.message).cmp(&(&b.file, b.line, &b.message)));
    outline.diagnostics = tree.diagnostics;
    Ok(outline)
}

/// The entry script and every script its includes reach, breadth first.
fn read_scripts(
    tree: &mut Tree,
    entry: &str,
) -> Result<BTreeMap<String, script::Script>, OutlineError> {
    let mut scripts = BTreeMap::new();
    let mut queued = BTreeSet::from([entry.to_owned()]);
    let mut queue = VecDeque::from([entry.to_owned()]);
    while let Some(file) = queue.pop_front() {
        let Some(src) = tree.read(&file)? else {
            continue;
        };
        let lexed = lexer::lex(&src, tree.limits.max_nesting);
        let mut script = script::read(&file, &src, &lexed, tree.limits.max_nesting);
        for include in &mut script.includes {
            if include.plugin.is_some() {
                continue;
            }
            let resolved = include_candidates(&file, &include.source)
                .into_iter()
                .find(|candidate| tree.is_file(candidate));
            match &resolved {
                Some(path) => {
                    if queued.insert(path.clone()) {
                        queue.push_back(path.clone());
                    }
                }
                None => tree.diagnostic(
                    DiagnosticCode::UnresolvedInclude,
                    &file,
                    Some(include.location.line),
                    format!("`{}` is not a script in the tree", include.source),
                ),
            }
            include.resolved = resolved;
        }
        scripts.insert(file, script);
    }
    Ok(scripts)
}

/// Files an include's path may name: `x.nf` as written, else `x.nf` or
/// `x/main.nf`.
fn include_candidates(from: &str, source: &str) -> Vec<String> {
    let Some(path) = join(parent(from), source) else {
        return Vec::new();
    };
    if path.ends_with(".nf") {
        vec![path]
    } else {
        vec![format!("{path}.nf"), format!("{path}/main.nf")]
    }
}

/// Fills each call's target through its file's includes and declarations.
fn resolve_calls(
    mut scripts: BTreeMap<String, script::Script>,
    diagnostics: &mut Vec<Diagnostic>,
) -> BTreeMap<String, script::Script> {
    let mut declared: HashMap<(String, String), TargetKind> = HashMap::new();
    for (file, script) in &scripts {
        let named = script
            .processes
            .iter()
            .map(|p| (&p.name, TargetKind::Process))
            .chain(
                script
                    .workflows
                    .iter()
                    .filter_map(|w| w.name.as_ref().map(|n| (n, TargetKind::Workflow))),
            )
            .chain(
                script
                    .functions
                    .iter()
                    .map(|f| (&f.name, TargetKind::Function)),
            );
        for (name, kind) in named {
            declared.insert((file.clone(), name.clone()), kind);
        }
    }
    let read: BTreeSet<String> = scripts.keys().cloned().collect();
    for (file, script) in &mut scripts {
        let mut scope: HashMap<String, CallTarget> = HashMap::new();
        for ((declaring, name), kind) in &declared {
            if declaring == file {
                scope.insert(
                    name.clone(),
                    CallTarget {
                        kind: *kind,
                        name: name.clone(),
                        file: file.clone(),
                    },
                );
            }
        }
        for include in &script.includes {
            // A file that was not read (over the size limit) has its own
            // diagnostic; its names are unknown, not missing.
            let Some(resolved) = include.resolved.as_ref().filter(|r| read.contains(*r)) else {
                continue;
            };
            for item in &include.items {
                match declared.get(&(resolved.clone(), item.name.clone())) {
                    Some(kind) => {
                        scope.insert(
                            item.alias.clone().unwrap_or_else(|| item.name.clone()),
                            CallTarget {
                                kind: *kind,
                                name: item.name.clone(),
                                file: resolved.clone(),
                            },
                        );
                    }
                    None => diagnostics.push(Diagnostic {
                        code: DiagnosticCode::UnknownIncludeName,
                        message: format!("`{resolved}` declares no `{}`", item.name),
                        file: file.clone(),
                        line: Some(include.location.line),
                    }),
                }
            }
        }
        for workflow in &mut script.workflows {
            for call in &mut workflow.calls {
                call.target = scope.get(&call.name).cloned();
            }
        }
    }
    scripts
}

/// Reads the `environment.yml` each process's `conda` directive names, or
/// the one beside its script.
fn attach_environments(
    tree: &mut Tree,
    scripts: &mut BTreeMap<String, script::Script>,
) -> Result<(), OutlineError> {
    let mut read: BTreeMap<String, Option<Environment>> = BTreeMap::new();
    for (file, script) in scripts.iter_mut() {
        let dir = parent(file);
        for process in &mut script.processes {
            let named = process
                .conda
                .as_ref()
                .and_then(|c| c.directive.as_deref())
                .and_then(|d| environment_path(dir, d));
            let path = match (&process.conda, named) {
                (_, Some(path)) => path,
                (None, None) => match join(dir, MODULE_ENVIRONMENT) {
                    Some(path) if tree.is_file(&path) => path,
                    _ => continue,
                },
                (Some(_), None) => continue,
            };
            let environment = match read.get(&path) {
                Some(known) => known.clone(),
                None => {
                    let parsed = match tree.read(&path)? {
                        Some(src) => match environment::read(&path, &src) {
                            Ok(environment) => Some(environment),
                            Err(error) => {
                                tree.diagnostic(
                                    DiagnosticCode::InvalidDocument,
                                    &path,
                                    None,
                                    format!("not a Conda environment file: {error}"),
                                );
                                None
                            }
                        },
                        None => None,
                    };
                    read.insert(path.clone(), parsed.clone());
                    parsed
                }
            };
            process
                .conda
                .get_or_insert_with(|| Conda {
                    directive: None,
                    packages: Vec::new(),
                    environment: None,
                })
                .environment = environment;
        }
    }
    Ok(())
}

/// Reads the `meta.yml` beside a module script that declares exactly one
/// process (an nf-core module): it documents that process's ports.
fn attach_module_meta(
    tree: &mut Tree,
    scripts: &mut BTreeMap<String, script::Script>,
) -> Result<(), OutlineError> {
    for (file, script) in scripts.iter_mut() {
        let [process] = script.processes.as_mut_slice() else {
            continue;
        };
        let Some(path) = join(parent(file), MODULE_META).filter(|p| tree.is_file(p)) else {
            continue;
        };
        let Some(src) = tree.read(&path)? else {
            continue;
        };
        match meta::read(&path, &src) {
            Ok(meta) => process.meta = Some(meta),
            Err(error) => tree.diagnostic(
                DiagnosticCode::InvalidDocument,
                &path,
                None,
                format!("not an nf-core module meta.yml: {error}"),
            ),
        }
    }
    Ok(())
}

/// The file a `conda` directive names: `${moduleDir}/x.yml` beside the
/// script, `${projectDir}/x.yml` (or `baseDir`) from the root.
fn environment_path(dir: &str, directive: &str) -> Option<String> {
    if !(directive.ends_with(".yml") || directive.ends_with(".yaml")) {
        return None;
    }
    for (prefix, base) in [
        ("${moduleDir}/", dir),
        ("${projectDir}/", ""),
        ("${baseDir}/", ""),
        ("${workflow.projectDir}/", ""),
    ] {
        if let Some(rest) = directive.strip_prefix(prefix) {
            return join(base, rest);
        }
    }
    None
}

/// Gives each parameter its `nextflow.config` default, and appends the
/// parameters only the config declares.
fn merge_config_defaults(params: &mut Vec<Param>, defaults: Vec<(String, ConfigDefault)>) {
    let mut config_only: Vec<Param> = Vec::new();
    for (name, default) in defaults {
        if let Some(param) = params.iter_mut().find(|p| p.name == name) {
            param.config_default = Some(default);
        } else if let Some(param) = config_only.iter_mut().find(|p| p.name == name) {
            param.config_default = Some(default);
        } else {
            config_only.push(Param {
                name,
                group: None,
                types: Vec::new(),
                description: None,
                help_text: None,
                default: None,
                enum_values: Vec::new(),
                pattern: None,
                required: false,
                minimum: None,
                maximum: None,
                format: None,
                exists: None,
                mimetype: None,
                schema: None,
                hidden: false,
                location: default.location.clone(),
                config_default: Some(default),
            });
        }
    }
    params.extend(config_only);
}

/// The `/`-separated directory of a relative path (`""` at the root).
fn parent(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `dir` joined with a relative `path`, `.` and `..` resolved; none when the
/// path is absolute or leaves the root.
fn join(dir: &str, path: &str) -> Option<String> {
    if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Bounded, confined reads from the pipeline's root.
struct Tree<'a> {
    root: PathBuf,
    limits: &'a Limits,
    files: u64,
    bytes: u64,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Tree<'a> {
    fn new(root: &Path, limits: &'a Limits) -> Result<Self, OutlineError> {
        let root = root.canonicalize().map_err(|source| OutlineError::Io {
            path: root.to_owned(),
            source,
        })?;
        Ok(Tree {
            root,
            limits,
            files: 0,
            bytes: 0,
            diagnostics: Vec::new(),
        })
    }

    fn diagnostic(&mut self, code: DiagnosticCode, file: &str, line: Option<u32>, message: String) {
        self.diagnostics.push(Diagnostic {
            code,
            message,
            file: file.to_owned(),
            line,
        });
    }

    fn syntax_problems(&mut self, file: &str, lexed: &lexer::Lexed) {
        for problem in &lexed.problems {
            self.diagnostic(
                DiagnosticCode::Syntax,
                file,
                Some(problem.line),
                problem.message.clone(),
            );
        }
    }

    /// The real path of a relative one when it is a regular file inside the
    /// root: links, of the file or of a folder on the way, are followed only
    /// while they stay inside.
    fn confined(&self, rel: &str) -> Option<PathBuf> {
        let target = self.root.join(rel).canonicalize().ok()?;
        (target.starts_with(&self.root) && target.is_file()).then_some(target)
    }

    fn is_file(&self, rel: &str) -> bool {
        self.confined(rel).is_some()
    }

    /// A file's bytes; none when it is not a confined regular file, or is
    /// over the size limit (with a diagnostic).
    fn read(&mut self, rel: &str) -> Result<Option<Vec<u8>>, OutlineError> {
        let Some(path) = self.confined(rel) else {
            return Ok(None);
        };
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(OutlineError::LimitExceeded {
                what: "files",
                limit: self.limits.max_files,
            });
        }
        let io = |source| OutlineError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(&path).map_err(io)?;
        let mut src = Vec::new();
        // Read one byte past the limit to tell "at" from "over" without
        // trusting a size that may change.
        file.take(self.limits.max_file_bytes + 1)
            .read_to_end(&mut src)
            .map_err(io)?;
        let len = src.len() as u64;
        if len > self.limits.max_file_bytes {
            self.diagnostic(
                DiagnosticCode::FileTooLarge,
                rel,
                None,
                format!("larger than {} bytes; not read", self.limits.max_file_bytes),
            );
            return Ok(None);
        }
        self.bytes += len;
        if self.bytes > self.limits.max_total_bytes {
            return Err(OutlineError::LimitExceeded {
                what: "bytes",
                limit: self.limits.max_total_bytes,
            });
        }
        Ok(Some(src))
    }
}
