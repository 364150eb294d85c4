//! Compiled packages on disk: `.somite/compiled/<digest>/`.
//!
//! [`compile`] is the one path from the project's current graph to a frozen
//! package. It refuses a graph whose input origin needs recovery or whose
//! readiness is blocked, calls the pure compiler, lets Pixi lock the
//! package's environments when Pixi is on `PATH` (and says so in the
//! readiness when it is not), and publishes the package crash-safely: every
//! file is written durably, with its manifest mode, into a private
//! `.partial` directory that is renamed onto the digest-named one in a
//! single step. A directory that already holds the same digest is verified
//! file by file and reused, so compiling twice costs one verification.
//!
//! Pixi runs through `somite-process` like every child of Somite: with only
//! the allowlisted environment ([`crate::toolchain::pixi_environment`]) and
//! in a process group of its own, so a lock that runs past
//! [`PIXI_TIMEOUT`] is stopped together with everything it started.
//!
//! [`inspect_package_dir`] and [`verify_file_bytes`] check a directory
//! against the compiler's in-memory manifest; the verified attachment uses
//! the same checks.

use crate::durable;
use crate::layout::Layout;
use crate::project::Project;
use crate::toolchain::{InvalidPixiSetting, pixi_environment, resolve_pixi};
use serde::{Deserialize, Serialize};
use somite_api::EnvVars;
use somite_process::{Capture, Command, Interruption, Limits};
use somite_workflow::assessment::{Assessment, Item, ItemKind};
use somite_workflow::compile::{
    CLOUD_PLATFORM, CompiledPackage, MAX_PIXI_LOCK_BYTES, ManifestEntry, PackageManifest,
    PixiArtifacts, conda_spec_path,
};
use somite_workflow::resource::{BoundResources, ResourceFinding, Verification, is_reference};
use somite_workflow::{ErrorCode, SomiteError};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

type Result<T> = std::result::Result<T, SomiteError>;

/// How long one `pixi` command may run before its process group is stopped.
pub const PIXI_TIMEOUT: Duration = Duration::from_secs(300);
/// Between SIGTERM to a timed-out `pixi` command's group and SIGKILL.
pub const PIXI_TERMINATION_GRACE: Duration = Duration::from_millis(1_500);
/// The last bytes of a `pixi` command's standard error kept for its failure
/// message (its standard output is not read).
pub const PIXI_OUTPUT_LIMIT: usize = 1024 * 1024;
/// Characters of that standard error quoted in a failure.
const PIXI_MESSAGE_CHARS: usize = 2000;
/// Separates the private directories of concurrent compiles in one process.
static SCRATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The external tools a compile may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pixi: Option<PathBuf>,
    pixi_timeout: Duration,
    /// The user cache holding pinned source trees (`somite-source`), which
    /// a source workflow's compile copies its tree from.
    source_cache: Option<PathBuf>,
}

/// The source store of the environment (`XDG_CACHE_HOME` or the platform
/// default), when one can be named.
fn env_source_cache() -> Option<PathBuf> {
    somite_source::SourceConfig::from_env()
        .ok()
        .map(|c| c.cache_dir)
}

impl Toolchain {
    /// The Pixi of `SOMITE_PIXI`, else `pixi` on `PATH` (see
    /// [`crate::toolchain::resolve_pixi`]).
    pub fn from_env() -> std::result::Result<Toolchain, InvalidPixiSetting> {
        let setting = std::env::var(EnvVars::SOMITE_PIXI).ok();
        Ok(Toolchain {
            pixi: resolve_pixi(setting.as_deref())?,
            pixi_timeout: PIXI_TIMEOUT,
            source_cache: env_source_cache(),
        })
    }

    /// Uses the `pixi` at `path`.
    pub fn with_pixi(path: impl Into<PathBuf>) -> Toolchain {
        Toolchain {
            pixi: Some(path.into()),
            pixi_timeout: PIXI_TIMEOUT,
            source_cache: env_source_cache(),
        }
    }

    /// Compiles without Pixi: the package gets no lock.
    pub fn without_pixi() -> Toolchain {
        Toolchain {
            pixi: None,
            pixi_timeout: PIXI_TIMEOUT,
            source_cache: env_source_cache(),
        }
    }

    /// Stops each `pixi` command after `timeout` instead of [`PIXI_TIMEOUT`].
    #[must_use]
    pub fn with_pixi_timeout(mut self, timeout: Duration) -> Toolchain {
        self.pixi_timeout = timeout;
        self
    }

    pub fn pixi(&self) -> Option<&Path> {
        self.pixi.as_deref()
    }

    /// Copies pinned source trees from the store in `cache_dir`.
    #[must_use]
    pub fn with_source_cache(mut self, cache_dir: impl Into<PathBuf>) -> Toolchain {
        self.source_cache = Some(cache_dir.into());
        self
    }
}

/// What Pixi contributed to a compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PixiOutcome {
    /// `pixi.lock` and the cloud profiles' conda locks are in the package.
    Locked,
    /// Pixi is not installed; the package has no lock.
    Unavailable,
    /// Pixi ran but a step failed; the package has no lock.
    Failed { step: String, detail: String },
}

/// [`PixiOutcome`] as a compile summary reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PixiState {
    Locked,
    /// Pixi is not installed: the package has no lock.
    Unavailable,
    Failed,
}

/// A published package.
#[derive(Debug, Clone)]
pub struct CompileOutcome {
    pub package: CompiledPackage,
    /// `.somite/compiled/<hex digest>`.
    pub path: PathBuf,
    /// The readiness the compile passed, plus a `toolchain` item when Pixi
    /// could not lock the package.
    pub assessment: Assessment,
    pub pixi: PixiOutcome,
    /// Whether an identical, verified package was already on disk.
    pub reused: bool,
}

/// What every surface (CLI, HTTP, MCP) reports about a compile.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CompileSummary {
    /// The run-closure digest naming the package.
    pub digest: String,
    /// Where the package is, as the caller chose to show it.
    pub path: String,
    /// The semantic revision the package was compiled from.
    pub graph_revision: String,
    pub files: usize,
    pub bytes: u64,
    /// True when an identical, verified package was already on disk.
    pub reused: bool,
    pub pixi: PixiState,
    /// Why Pixi could not lock the package, when it ran and failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pixi_failure: Option<String>,
    /// Informational readiness items, such as a missing Pixi.
    pub toolchain: Vec<Item>,
}

impl CompileOutcome {
    /// The outcome's summary, showing the package at `path`.
    pub fn summary(&self, path: String) -> CompileSummary {
        let (pixi, pixi_failure) = match &self.pixi {
            PixiOutcome::Locked => (PixiState::Locked, None),
            PixiOutcome::Unavailable => (PixiState::Unavailable, None),
            PixiOutcome::Failed { step, detail } => {
                (PixiState::Failed, Some(format!("{step}: {detail}")))
            }
        };
        CompileSummary {
            digest: self.package.digest().to_string(),
            path,
            graph_revision: self.package.run_closure().graph_revision.to_string(),
            files: self.package.manifest().files.len(),
            bytes: self.package.total_size(),
            reused: self.reused,
            pixi,
            pixi_failure,
            toolchain: self
                .assessment
                .items
                .iter()
                .filter(|i| i.kind == ItemKind::Toolchain)
                .cloned()
                .collect(),
        }
    }
}

/// Compiles the project's current graph and publishes the package.
pub fn compile(project: &Project, toolchain: &Toolchain) -> Result<CompileOutcome> {
    compile_substituted(project, toolchain, &BTreeSet::new())
}

/// [`compile`], with the tool nodes of `substituted` planned as graph
/// inputs (see [`somite_workflow::compile::compile_substituted`]): the
/// package a validation runs when some nodes cannot run offline.
pub fn compile_substituted(
    project: &Project,
    toolchain: &Toolchain,
    substituted: &BTreeSet<String>,
) -> Result<CompileOutcome> {
    project.ensure_bound()?;
    // The graph's own readiness, without facts about this machine, so the
    // packaged assessment.json is the same wherever the graph is compiled.
    let mut assessment = project.assess_graph();
    let package = match project.document().source_node().and_then(|n| n.source()) {
        Some(binding) => {
            // Readiness first, so a blocked source is refused before its
            // tree is read.
            somite_workflow::compile::gate(&assessment)?;
            let cache = toolchain.source_cache.clone().ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::NotFound,
                    "cannot compile: no user cache folder holds pinned sources",
                    "set XDG_CACHE_HOME (or HOME) and resolve the pipeline again",
                )
            })?;
            let store = somite_source::SourceStore::new(somite_source::SourceConfig::new(cache))
                .map_err(|e| SomiteError::new(ErrorCode::Io, e.to_string(), e.recovery()))?;
            let inputs = crate::source::compile_inputs(&store, binding)?;
            somite_workflow::compile::compile_source(project.document(), &assessment, inputs)?
        }
        None => {
            // Readiness first, so a blocked graph is refused before any
            // resource tree is hashed.
            somite_workflow::compile::gate(&assessment)?;
            let resources = bound_resources(project)?;
            somite_workflow::compile::compile_substituted(
                project.document(),
                project.catalog(),
                &assessment,
                &resources,
                substituted,
            )?
        }
    };
    let compiled_dir = project.layout().compiled();
    let (package, pixi) = match toolchain.pixi() {
        None => (package, PixiOutcome::Unavailable),
        Some(pixi) => match lock_with_pixi(pixi, toolchain.pixi_timeout, &package, &compiled_dir) {
            Ok(artifacts) => (package.with_pixi_artifacts(artifacts)?, PixiOutcome::Locked),
            Err(PixiFailure { step, detail }) => (package, PixiOutcome::Failed { step, detail }),
        },
    };
    match &pixi {
        PixiOutcome::Locked => {}
        PixiOutcome::Unavailable => assessment.add_toolchain_item(
            "pixi",
            "Pixi is not on PATH, so the compiled package has no pixi.lock and no conda \
             locks for the cloud profiles; a run would have to solve the environments itself.",
            "Install Pixi 0.77 (https://pixi.sh), then compile again",
        ),
        PixiOutcome::Failed { step, detail } => assessment.add_toolchain_item(
            "pixi",
            &format!("`pixi {step}` failed, so the compiled package has no pixi.lock: {detail}"),
            "Check Pixi's message (network access, channel availability), then compile again",
        ),
    }
    let (path, reused) = publish_package(project.layout(), &package)?;
    Ok(CompileOutcome {
        package,
        path,
        assessment,
        pixi,
        reused,
    })
}

/// The managed resources the graph's reference inputs name, each
/// re-hashed against the digest recorded at install: a compile (and so a
/// run) binds only a tree whose every byte is still what was installed.
fn bound_resources(project: &Project) -> Result<BoundResources> {
    let mut bound = BoundResources::new();
    for node in &project.document().nodes {
        let Some(entry) = project.catalog().get(&node.operator_id) else {
            continue;
        };
        for port in &entry.contract.ports.outputs {
            let Some(reference) = port
                .import_param
                .as_ref()
                .and_then(|param| node.params.get(param))
                .and_then(serde_json::Value::as_str)
                .filter(|value| is_reference(value))
            else {
                continue;
            };
            let finding = match project.resources() {
                Some(resources) => resources.resolve(reference, Verification::Digest),
                None => ResourceFinding::Missing {
                    code: somite_api::ResourceCode::ResourceReferenceInvalid
                        .as_str()
                        .to_owned(),
                    detail: "no managed-resource store is available".into(),
                },
            };
            match finding {
                ResourceFinding::Verified(resolved) => {
                    bound.insert(reference.to_owned(), resolved);
                }
                ResourceFinding::Missing { detail, .. }
                | ResourceFinding::Tampered { detail, .. } => {
                    return Err(SomiteError::new(
                        ErrorCode::WorkflowNotReady,
                        format!("cannot compile: {detail}"),
                        "install the resource again (or choose a folder on this machine), then compile",
                    )
                    .with_detail("node_id", &node.id)
                    .with_detail("reference", reference));
                }
            }
        }
    }
    Ok(bound)
}

/// Why Pixi could not lock a package.
struct PixiFailure {
    step: String,
    detail: String,
}

/// Runs `pixi lock`, then exports the cloud platform's conda explicit locks,
/// in a private directory holding only the package's `pixi.toml`.
fn lock_with_pixi(
    pixi: &Path,
    timeout: Duration,
    package: &CompiledPackage,
    compiled_dir: &Path,
) -> std::result::Result<PixiArtifacts, PixiFailure> {
    let failure = |step: &str, detail: String| PixiFailure {
        step: step.to_owned(),
        detail,
    };
    let scratch = compiled_dir.join(format!(
        ".pixi-{}-{}",
        std::process::id(),
        SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let manifest = scratch.join("pixi.toml");
        let pixi_toml = package
            .file("pixi.toml")
            .expect("every package has a pixi.toml");
        fs::create_dir_all(&scratch)
            .and_then(|()| fs::write(&manifest, &pixi_toml.bytes))
            .map_err(|e| failure("lock", format!("cannot prepare {}: {e}", scratch.display())))?;

        let mut lock_args: Vec<OsString> = vec!["lock".into(), "--manifest-path".into()];
        lock_args.push(manifest.clone().into_os_string());
        run_bounded(pixi, &lock_args, &scratch, timeout)
            .map_err(|detail| failure("lock", detail))?;
        let lock = durable::read_capped(&scratch.join("pixi.lock"), MAX_PIXI_LOCK_BYTES)
            .map_err(|e| failure("lock", e.to_string()))?;
        if !String::from_utf8_lossy(&lock)
            .lines()
            .any(|line| line.trim() == "version: 7")
        {
            return Err(failure(
                "lock",
                "pixi.lock is not a version 7 lock file; use Pixi 0.77".into(),
            ));
        }

        let specs_dir = scratch.join("conda");
        let mut export_args: Vec<OsString> = vec![
            "workspace".into(),
            "export".into(),
            "conda-explicit-spec".into(),
            specs_dir.clone().into_os_string(),
            "--frozen".into(),
            "--manifest-path".into(),
            manifest.into_os_string(),
        ];
        for environment in package.environments() {
            export_args.push("--environment".into());
            export_args.push(environment.into());
        }
        export_args.push("--platform".into());
        export_args.push(CLOUD_PLATFORM.into());
        run_bounded(pixi, &export_args, &scratch, timeout)
            .map_err(|detail| failure("workspace export conda-explicit-spec", detail))?;
        let mut conda_specs = BTreeMap::new();
        for environment in package.environments() {
            let path = scratch.join(conda_spec_path(environment));
            let spec = durable::read_capped(&path, MAX_PIXI_LOCK_BYTES)
                .map_err(|e| failure("workspace export conda-explicit-spec", e.to_string()))?;
            conda_specs.insert(environment.to_owned(), spec);
        }
        Ok(PixiArtifacts { lock, conda_specs })
    })();
    // Best effort: a leftover scratch directory is private and harmless.
    let _ = fs::remove_dir_all(&scratch);
    result
}

/// Runs `program args` in `cwd` with no shell, no standard input and only
/// the allowlisted environment, stopping its whole process group after
/// `timeout`. Returns why it failed, quoting the end of its standard error.
fn run_bounded(
    program: &Path,
    args: &[OsString],
    cwd: &Path,
    timeout: Duration,
) -> std::result::Result<(), String> {
    let command = Command::new(program, cwd, pixi_environment()).args(args);
    let limits = Limits {
        timeout,
        grace: PIXI_TERMINATION_GRACE,
        stdout: Capture::Discard,
        stderr: Capture::Tail(PIXI_OUTPUT_LIMIT),
    };
    let finished = somite_process::run_blocking(&command, &limits).map_err(|e| e.to_string())?;
    if finished.interruption == Some(Interruption::TimedOut) {
        return Err(format!("timed out after {} s", timeout.as_secs()));
    }
    if finished.success() {
        return Ok(());
    }
    let message = String::from_utf8_lossy(finished.stderr.bytes());
    let message = message.trim();
    let skip = message.chars().count().saturating_sub(PIXI_MESSAGE_CHARS);
    let tail: String = message.chars().skip(skip).collect();
    Err(format!("exited with {}: {tail}", finished.status))
}

/// Publishes `package` under `.somite/compiled/<hex>/`, or verifies and
/// reuses the directory that already holds it. Returns its path and whether
/// it was reused.
fn publish_package(layout: &Layout, package: &CompiledPackage) -> Result<(PathBuf, bool)> {
    let compiled = layout.compiled();
    let target = compiled.join(package.directory_name());
    let mut stale = None;
    if fs::symlink_metadata(&target).is_ok() {
        if verify_package_dir(&target, package.manifest()).is_ok() {
            return Ok((target, true));
        }
        // A damaged copy of this digest: move it aside so the rename below
        // can replace it, and remove it once the good copy is in place.
        let aside = unique_sibling(&compiled, package.directory_name(), "damaged");
        fs::rename(&target, &aside).map_err(|e| SomiteError::io(&target, &e))?;
        stale = Some(aside);
    }

    let partial = unique_sibling(&compiled, package.directory_name(), "partial");
    let written = write_package_files(&partial, package).and_then(|()| {
        match fs::rename(&partial, &target) {
            Ok(()) => Ok(false),
            // Another compile published the same digest first.
            Err(_) if verify_package_dir(&target, package.manifest()).is_ok() => Ok(true),
            Err(e) => Err(SomiteError::io(&target, &e)),
        }
    });
    if !matches!(written, Ok(false)) {
        let _ = fs::remove_dir_all(&partial);
    }
    let reused = written?;
    sync_dir(&compiled).map_err(|e| SomiteError::io(&compiled, &e))?;
    if let Some(stale) = stale {
        let _ = fs::remove_dir_all(stale);
    }
    Ok((target, reused))
}

/// `compiled/<hex>.<pid>.<n>.<what>`: private to this compile.
fn unique_sibling(dir: &Path, name: &str, what: &str) -> PathBuf {
    dir.join(format!(
        "{name}.{}.{}.{what}",
        std::process::id(),
        SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Writes every file durably with its manifest mode.
fn write_package_files(dir: &Path, package: &CompiledPackage) -> Result<()> {
    for file in package.files() {
        let path = dir.join(&file.path);
        durable::publish(&path, &file.bytes).map_err(SomiteError::from)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(file.mode))
            .and_then(|()| File::open(&path)?.sync_all())
            .map_err(|e| SomiteError::io(&path, &e))?;
    }
    Ok(())
}

/// Checks `dir` against `manifest`, contents included.
pub(crate) fn verify_package_dir(
    dir: &Path,
    manifest: &PackageManifest,
) -> std::result::Result<(), PackageFault> {
    for file in inspect_package_dir(dir, manifest)? {
        verify_file_bytes(&file.path, file.entry)?;
    }
    Ok(())
}

/// Why a directory is not the package its manifest describes.
#[derive(Debug, thiserror::Error)]
pub enum PackageFault {
    #[error("{} is a symbolic link; a package holds only regular files", .path.display())]
    SymbolicLink { path: PathBuf },
    #[error("{} has {links} hard links; a package file must have exactly one", .path.display())]
    HardLink { path: PathBuf, links: u64 },
    #[error("{} is a special file (FIFO, socket or device)", .path.display())]
    SpecialFile { path: PathBuf },
    #[error("{} is not listed in the package manifest", .path.display())]
    Unlisted { path: PathBuf },
    #[error("{} is listed in the package manifest but missing", .path.display())]
    Missing { path: PathBuf },
    #[error("{} has mode {actual:o}, not {expected:o}", .path.display())]
    ModeMismatch {
        path: PathBuf,
        expected: u32,
        actual: u32,
    },
    #[error("{} has {actual} bytes, not {expected}", .path.display())]
    SizeMismatch {
        path: PathBuf,
        expected: u64,
        actual: u64,
    },
    #[error("{} does not have the BLAKE3 digest the manifest records", .path.display())]
    DigestMismatch { path: PathBuf },
    #[error("{} was replaced while it was being copied", .path.display())]
    Replaced { path: PathBuf },
    #[error("{} is not the canonical location {}", .path.display(), .canonical.display())]
    NotCanonical { path: PathBuf, canonical: PathBuf },
    #[error("cannot inspect {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl From<PackageFault> for SomiteError {
    fn from(fault: PackageFault) -> SomiteError {
        let code = match fault {
            PackageFault::Io { .. } => ErrorCode::Io,
            _ => ErrorCode::InvalidDocument,
        };
        SomiteError::new(
            code,
            format!("the compiled package failed verification: {fault}"),
            "compile the workflow again; nothing was published",
        )
    }
}

/// A regular file whose path, mode and size match its manifest entry.
#[derive(Debug)]
pub(crate) struct InspectedFile<'m> {
    pub entry: &'m ManifestEntry,
    pub path: PathBuf,
    pub metadata: Metadata,
}

/// Walks `dir` without following links and matches it against `manifest`:
/// every entry is a directory on the way to a listed file or a regular,
/// singly linked, listed file with the listed mode and size; every listed
/// file is present. Contents are not read.
pub(crate) fn inspect_package_dir<'m>(
    dir: &Path,
    manifest: &'m PackageManifest,
) -> std::result::Result<Vec<InspectedFile<'m>>, PackageFault> {
    let directories: BTreeSet<String> = manifest
        .files
        .iter()
        .flat_map(|e| {
            let mut prefixes = Vec::new();
            let mut rest = e.path.as_str();
            while let Some((parent, _)) = rest.rsplit_once('/') {
                prefixes.push(parent.to_owned());
                rest = parent;
            }
            prefixes
        })
        .collect();
    let mut found = Vec::with_capacity(manifest.files.len());
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((current, prefix)) = pending.pop() {
        let io = |source| PackageFault::Io {
            path: current.clone(),
            source,
        };
        let mut entries: Vec<_> = fs::read_dir(&current)
            .map_err(io)?
            .collect::<io::Result<_>>()
            .map_err(io)?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let metadata = fs::symlink_metadata(&path).map_err(|source| PackageFault::Io {
                path: path.clone(),
                source,
            })?;
            let kind = metadata.file_type();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(PackageFault::Unlisted { path });
            };
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if kind.is_symlink() {
                return Err(PackageFault::SymbolicLink { path });
            }
            if kind.is_dir() {
                if !directories.contains(&relative) {
                    return Err(PackageFault::Unlisted { path });
                }
                pending.push((path, relative));
                continue;
            }
            if !kind.is_file() {
                return Err(PackageFault::SpecialFile { path });
            }
            if metadata.nlink() != 1 {
                return Err(PackageFault::HardLink {
                    path,
                    links: metadata.nlink(),
                });
            }
            let Some(listed) = manifest.entry(&relative) else {
                return Err(PackageFault::Unlisted { path });
            };
            let mode = metadata.mode() & 0o7777;
            if mode != listed.mode {
                return Err(PackageFault::ModeMismatch {
                    path,
                    expected: listed.mode,
                    actual: mode,
                });
            }
            if metadata.len() != listed.size {
                return Err(PackageFault::SizeMismatch {
                    path,
                    expected: listed.size,
                    actual: metadata.len(),
                });
            }
            found.push(InspectedFile {
                entry: listed,
                path,
                metadata,
            });
        }
    }
    if found.len() != manifest.files.len() {
        let seen: BTreeSet<&str> = found.iter().map(|f| f.entry.path.as_str()).collect();
        let missing = manifest
            .files
            .iter()
            .find(|e| !seen.contains(e.path.as_str()))
            .expect("fewer found than listed");
        return Err(PackageFault::Missing {
            path: dir.join(&missing.path),
        });
    }
    found.sort_by(|a, b| a.entry.path.cmp(&b.entry.path));
    Ok(found)
}

/// Reads `path` (at most one byte past the listed size) and compares its
/// size and BLAKE3 digest with `entry`.
pub(crate) fn verify_file_bytes(
    path: &Path,
    entry: &ManifestEntry,
) -> std::result::Result<(), PackageFault> {
    let io = |source| PackageFault::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut hasher = blake3::Hasher::new();
    let read = io::copy(&mut file.take(entry.size.saturating_add(1)), &mut hasher).map_err(io)?;
    if read != entry.size {
        return Err(PackageFault::SizeMismatch {
            path: path.to_owned(),
            expected: entry.size,
            actual: read,
        });
    }
    if format!("blake3:{}", hasher.finalize().to_hex()) != entry.blake3 {
        return Err(PackageFault::DigestMismatch {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// Forces a directory's entries to stable storage.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
