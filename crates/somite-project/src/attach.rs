//! Verified attachments: compiled packages copied into the root the Pixi and
//! Nextflow MCP servers share with an agent session.
//!
//! The agent must be able to run Pixi and Nextflow on a package without
//! being able to change the package Somite's own runner trusts, so the
//! session never sees the canonical `.somite/compiled/<digest>/` directory.
//! [`AttachmentRoot::attach`] copies it into the shared root instead, and
//! publishes the copy only after checking it against the compiler's
//! in-memory manifest: the source must be the canonical content-addressed
//! directory, hold only regular, singly linked, listed files with their
//! listed modes (no symbolic links, hard links, FIFOs or extra files), and
//! every copied byte must hash to the listed BLAKE3 digest; the copied run
//! closure must pass its complete schema. Any failure removes the private
//! staging directory before anything becomes visible under its output path.
//!
//! Each file is first cloned with the `FICLONE` ioctl, which filesystems
//! with copy-on-write (Btrfs, XFS, bcachefs) answer by sharing the blocks;
//! where it is refused (ext4, tmpfs, across filesystems) the bytes are copied
//! with `std::io::copy`, which Linux serves with `copy_file_range(2)`. The
//! attachment says which happened ([`CopyMethod`]). Either way the copy is
//! independent of the canonical artifact: writing to one never changes the
//! other.
//!
//! The agent can change the shared root while Somite writes into it, so
//! every write there is relative to a directory handle, never a path that is
//! looked up again: the root is opened once, `packages/` and the staging
//! directory are made with `mkdirat` and opened with `O_NOFOLLOW |
//! O_DIRECTORY` (a symbolic link there is refused, not followed), files are
//! created with `O_CREAT | O_EXCL | O_NOFOLLOW` relative to their folder's
//! handle, and publication is a `renameat` between two names in the
//! `packages/` handle. A folder swapped for a link in the middle of an
//! attachment therefore cannot send a byte outside the root.
//!
//! Each attachment gets a new output path, `packages/<digest>-<n>/`, that
//! stays put until the session closes: a later compile never renames or
//! removes a package an in-flight tool call may still read. A root serves one
//! session generation; requests carrying another generation are refused, and
//! the session's package count and bytes are capped.

use crate::compiled::{PackageFault, inspect_package_dir, verify_file_bytes};
use crate::layout::Layout;
use rustix::fs::{Mode, OFlags};
use somite_workflow::compile::{CompiledPackage, PackageManifest, RunClosure};
use somite_workflow::{ErrorCode, Revision, SomiteError};
use std::fs::{self, File};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Packages one session may attach.
pub const MAX_PACKAGES_PER_SESSION: usize = 16;
/// Bytes of attached packages one session may hold.
pub const MAX_BYTES_PER_SESSION: u64 = 1024 * 1024 * 1024;
/// The folder of the shared root that holds attached packages.
pub const PACKAGES_DIR: &str = "packages";

/// The ceilings of one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    pub max_packages: usize,
    pub max_bytes: u64,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            max_packages: MAX_PACKAGES_PER_SESSION,
            max_bytes: MAX_BYTES_PER_SESSION,
        }
    }
}

/// How a package's bytes reached the shared root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CopyMethod {
    /// Every file is a copy-on-write clone: no block was duplicated.
    Reflink,
    /// The filesystem could not clone every file, so bytes were copied.
    Copy,
}

/// One verified copy in the shared root.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Attachment {
    /// The session generation that asked for it.
    pub generation: u64,
    pub digest: Revision,
    /// Relative to the shared root, e.g. `packages/<hex>-1`.
    pub output_path: String,
    pub bytes: u64,
    pub files: usize,
    pub copy_method: CopyMethod,
}

/// Why an attachment was refused or a session could not close.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("the request belongs to session generation {requested}, not {current}")]
    ForeignGeneration { requested: u64, current: u64 },
    #[error("session generation {generation} is closed")]
    Closed { generation: u64 },
    #[error("the session already holds {limit} packages")]
    TooManyPackages { limit: usize },
    #[error("attaching {requested} more bytes would pass the session's {limit}-byte ceiling")]
    TooManyBytes { requested: u64, limit: u64 },
    #[error("{} must be an empty directory to become a shared root", .path.display())]
    RootNotEmpty { path: PathBuf },
    #[error("{} in the shared root is a symbolic link or not a directory; nothing is written through it", .path.display())]
    NotADirectory { path: PathBuf },
    #[error(transparent)]
    Package(#[from] PackageFault),
    #[error("the package's run closure is not valid: {0}")]
    InvalidRunClosure(SomiteError),
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl From<AttachError> for SomiteError {
    fn from(error: AttachError) -> SomiteError {
        let (code, recovery) = match &error {
            AttachError::ForeignGeneration { .. } | AttachError::Closed { .. } => (
                ErrorCode::StaleRevision,
                "start a new agent session; attachments belong to the session that asked",
            ),
            AttachError::TooManyPackages { .. } | AttachError::TooManyBytes { .. } => (
                ErrorCode::PayloadTooLarge,
                "start a new agent session to attach more packages",
            ),
            AttachError::Package(PackageFault::Io { .. }) | AttachError::Io { .. } => (
                ErrorCode::Io,
                "check the disk and permissions, then compile again",
            ),
            AttachError::NotADirectory { .. } => (
                ErrorCode::InvalidDocument,
                "remove the link or file in the shared root, or start a new agent session; nothing was published",
            ),
            AttachError::RootNotEmpty { .. }
            | AttachError::Package(_)
            | AttachError::InvalidRunClosure(_) => (
                ErrorCode::InvalidDocument,
                "compile the workflow again; nothing was published",
            ),
        };
        SomiteError::new(code, error.to_string(), recovery)
    }
}

/// The shared root of one agent session.
#[derive(Debug)]
pub struct AttachmentRoot {
    root: PathBuf,
    /// The root, held open: every write beneath it is relative to this.
    dir: OwnedFd,
    /// The canonical `.somite/compiled` folder packages are copied from.
    compiled: PathBuf,
    generation: u64,
    limits: SessionLimits,
    attachments: Vec<Attachment>,
    bytes: u64,
    /// Attachments ever made, so output paths are never reused.
    sequence: u64,
    closed: bool,
}

impl AttachmentRoot {
    /// Opens `root`, which must be empty or absent, for session `generation`.
    pub fn new(
        root: &Path,
        layout: &Layout,
        generation: u64,
        limits: SessionLimits,
    ) -> Result<AttachmentRoot, AttachError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| AttachError::Io { path, source }
        };
        fs::create_dir_all(root).map_err(io(root))?;
        if fs::read_dir(root).map_err(io(root))?.next().is_some() {
            return Err(AttachError::RootNotEmpty {
                path: root.to_owned(),
            });
        }
        let compiled = layout.compiled();
        fs::create_dir_all(&compiled).map_err(io(&compiled))?;
        let canonical = root.canonicalize().map_err(io(root))?;
        let dir = rustix::fs::open(&canonical, DIR_FLAGS, Mode::empty())
            .map_err(|errno| io(root)(errno.into()))?;
        Ok(AttachmentRoot {
            root: canonical,
            dir,
            compiled: compiled.canonicalize().map_err(io(&compiled))?,
            generation,
            limits,
            attachments: Vec::new(),
            bytes: 0,
            sequence: 0,
            closed: false,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The session's attachments, oldest first.
    pub fn attachments(&self) -> &[Attachment] {
        &self.attachments
    }

    /// Copies `package` from its canonical directory into the root, verified
    /// against its in-memory manifest, and returns where it is.
    pub fn attach(
        &mut self,
        generation: u64,
        package: &CompiledPackage,
    ) -> Result<Attachment, AttachError> {
        self.check_generation(generation)?;
        if self.attachments.len() >= self.limits.max_packages {
            return Err(AttachError::TooManyPackages {
                limit: self.limits.max_packages,
            });
        }
        let size = package.total_size();
        if self.bytes.saturating_add(size) > self.limits.max_bytes {
            return Err(AttachError::TooManyBytes {
                requested: size,
                limit: self.limits.max_bytes,
            });
        }
        package
            .run_closure()
            .validate()
            .map_err(AttachError::InvalidRunClosure)?;

        let source = self.canonical_source(package)?;
        let name = {
            self.sequence += 1;
            format!("{}-{}", package.directory_name(), self.sequence)
        };
        let packages_path = self.root.join(PACKAGES_DIR);
        let packages = open_dir(&self.dir, PACKAGES_DIR, Create::IfMissing, &packages_path)?;
        let staging_name = format!(".{name}.partial");
        let staging_path = packages_path.join(&staging_name);
        let published = packages_path.join(&name);
        let staging = open_dir(&packages, &staging_name, Create::Fresh, &staging_path)?;
        let copied = copy_verified(&source, &staging, &staging_path, package).and_then(|copy| {
            rustix::fs::renameat(&packages, &staging_name, &packages, &name)
                .and_then(|()| rustix::fs::fsync(&packages))
                .map(|()| copy)
                .map_err(|errno| AttachError::Io {
                    path: published.clone(),
                    source: errno.into(),
                })
        });
        let copy = match copied {
            Ok(copy) => copy,
            Err(error) => {
                // Through the handle: the staging directory Somite made, even
                // if `packages/` has been swapped for a link since.
                let _ = fs::remove_dir_all(held(&packages).join(&staging_name));
                return Err(error);
            }
        };
        let attachment = Attachment {
            generation,
            digest: package.digest().clone(),
            output_path: format!("{PACKAGES_DIR}/{name}"),
            bytes: size,
            files: package.manifest().files.len(),
            copy_method: copy,
        };
        self.bytes += size;
        self.attachments.push(attachment.clone());
        Ok(attachment)
    }

    /// Ends the session: removes every attached package and refuses further
    /// attachments. A removal failure is reported, never hidden.
    ///
    /// Closing again retries the removal and reports what is true now: the
    /// session may end by itself (its runtime closes the root then) before
    /// the user's disconnect asks, and that answer must not be a stale
    /// "closed" refusal.
    pub fn close(&mut self, generation: u64) -> Result<(), AttachError> {
        self.check_own(generation)?;
        self.closed = true;
        let packages = self.root.join(PACKAGES_DIR);
        // `remove_dir_all` removes a link without following it, and the
        // root is reached through its handle.
        match fs::remove_dir_all(held(&self.dir).join(PACKAGES_DIR)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(AttachError::Io {
                    path: packages,
                    source,
                });
            }
        }
        self.attachments.clear();
        self.bytes = 0;
        Ok(())
    }

    fn check_generation(&self, generation: u64) -> Result<(), AttachError> {
        self.check_own(generation)?;
        if self.closed {
            return Err(AttachError::Closed { generation });
        }
        Ok(())
    }

    fn check_own(&self, generation: u64) -> Result<(), AttachError> {
        if generation != self.generation {
            return Err(AttachError::ForeignGeneration {
                requested: generation,
                current: self.generation,
            });
        }
        Ok(())
    }

    /// `.somite/compiled/<hex>`, refusing any path that resolves elsewhere.
    fn canonical_source(&self, package: &CompiledPackage) -> Result<PathBuf, AttachError> {
        let expected = self.compiled.join(package.directory_name());
        let resolved = expected.canonicalize().map_err(|source| PackageFault::Io {
            path: expected.clone(),
            source,
        })?;
        let metadata = fs::symlink_metadata(&expected).map_err(|source| PackageFault::Io {
            path: expected.clone(),
            source,
        })?;
        if resolved != expected || !metadata.is_dir() {
            return Err(PackageFault::NotCanonical {
                path: resolved,
                canonical: expected,
            }
            .into());
        }
        Ok(expected)
    }
}

/// Directories in the shared root: opened as directories, never through a
/// link, and readable so that they can be synced.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Whether [`open_dir`] makes the directory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Create {
    /// It must not exist yet: a staging directory is Somite's alone.
    Fresh,
    /// It is made when absent and reused when present.
    IfMissing,
}

/// `name` in the directory `parent` as a directory handle; a symbolic link
/// or anything but a directory there is refused. `shown` names it in errors.
fn open_dir(
    parent: &OwnedFd,
    name: &str,
    create: Create,
    shown: &Path,
) -> Result<OwnedFd, AttachError> {
    let io = |errno: rustix::io::Errno| AttachError::Io {
        path: shown.to_owned(),
        source: errno.into(),
    };
    match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o755)) {
        Ok(()) => {}
        Err(rustix::io::Errno::EXIST) if create == Create::IfMissing => {}
        Err(errno) => return Err(io(errno)),
    }
    rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty()).map_err(|errno| match errno {
        // `O_NOFOLLOW` on a link, `O_DIRECTORY` on anything else.
        rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR => AttachError::NotADirectory {
            path: shown.to_owned(),
        },
        errno => io(errno),
    })
}

/// A path the kernel resolves to the directory `handle` holds rather than by
/// name, for the standard library's path-taking functions (Somite runs on
/// Linux, where `/proc/self/fd` is such a path).
fn held(handle: &OwnedFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()))
}

/// Copies the inspected source files into the `staging` handle (shown as
/// `staging_path`), then verifies the copy through that handle: the same
/// structure, modes and sizes, every byte's digest, and a run closure that
/// parses strictly and equals the trusted one. Says whether every file
/// could be cloned copy-on-write.
fn copy_verified(
    source: &Path,
    staging: &OwnedFd,
    staging_path: &Path,
    package: &CompiledPackage,
) -> Result<CopyMethod, AttachError> {
    let manifest: &PackageManifest = package.manifest();
    let inspected = inspect_package_dir(source, manifest)?;
    let mut cloned = 0;
    for file in &inspected {
        let target = staging_path.join(&file.entry.path);
        let create_failed = |errno: rustix::io::Errno| AttachError::Io {
            path: target.clone(),
            source: errno.into(),
        };
        let mut components: Vec<&str> = file.entry.path.split('/').collect();
        let file_name = components.pop().unwrap_or_default();
        let mut parent: Option<OwnedFd> = None;
        let mut parent_path = staging_path.to_owned();
        for component in components {
            parent_path.push(component);
            let dir = open_dir(
                parent.as_ref().unwrap_or(staging),
                component,
                Create::IfMissing,
                &parent_path,
            )?;
            parent = Some(dir);
        }
        let mut from = File::open(&file.path).map_err(|source| PackageFault::Io {
            path: file.path.clone(),
            source,
        })?;
        // The file opened must be the one inspected, not a replacement.
        let opened = from.metadata().map_err(|source| PackageFault::Io {
            path: file.path.clone(),
            source,
        })?;
        if opened.dev() != file.metadata.dev() || opened.ino() != file.metadata.ino() {
            return Err(PackageFault::Replaced {
                path: file.path.clone(),
            }
            .into());
        }
        let mut to = File::from(
            rustix::fs::openat(
                parent.as_ref().unwrap_or(staging),
                file_name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            )
            .map_err(create_failed)?,
        );
        let write = |source| AttachError::Io {
            path: target.clone(),
            source,
        };
        // A refused clone leaves the new file empty; then copy the bytes.
        match rustix::fs::ioctl_ficlone(&to, &from) {
            Ok(()) => cloned += 1,
            Err(_) => {
                io::copy(&mut from, &mut to).map_err(write)?;
            }
        }
        to.set_permissions(fs::Permissions::from_mode(file.entry.mode))
            .and_then(|()| to.sync_all())
            .map_err(write)?;
    }
    let copy = held(staging);
    for file in inspect_package_dir(&copy, manifest)? {
        verify_file_bytes(&file.path, file.entry)?;
    }
    let closure_bytes =
        fs::read(copy.join("run-closure.json")).map_err(|source| AttachError::Io {
            path: staging_path.join("run-closure.json"),
            source,
        })?;
    let closure = RunClosure::from_json(&closure_bytes).map_err(AttachError::InvalidRunClosure)?;
    if &closure != package.run_closure() {
        return Err(AttachError::InvalidRunClosure(SomiteError::new(
            ErrorCode::InvalidDocument,
            "the copied run closure is not the compiler's",
            "compile the workflow again",
        )));
    }
    Ok(if cloned == inspected.len() {
        CopyMethod::Reflink
    } else {
        CopyMethod::Copy
    })
}
