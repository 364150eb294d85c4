//! Crash-safe publication of whole files.
//!
//! The guarantee: after [`publish`] returns `Ok`, the target holds exactly the
//! new bytes and survives a crash or power loss; if the process dies at any
//! point before that, the target holds exactly its previous content (or is
//! still absent). A reader never sees a partially written target.
//!
//! It works by writing the bytes to a temporary file in the target's
//! directory, forcing them to stable storage, atomically renaming the
//! temporary file over the target and finally forcing the directory entry to
//! stable storage. A crash can therefore leave a stray temporary file behind,
//! but never a torn target; [`remove_stale_temp_files`] clears those strays
//! when a project is opened again.
//!
//! [`read_capped`] is the matching reader: it refuses oversized files before
//! reading them, so a corrupt or hostile file cannot exhaust memory.
//!
//! Every module reports a [`DurableError`] through the one conversion into
//! the envelope below, so the same failure has the same code everywhere.

use bytes::Bytes;
use somite_workflow::{ErrorCode, SomiteError};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// Why a durable read or write failed. Every variant names the path involved
/// and its message says what the caller can do next.
#[derive(Debug, thiserror::Error)]
pub enum DurableError {
    /// The file to read does not exist; kept apart from other I/O failures
    /// because callers usually treat "absent" as a normal state.
    #[error("{} does not exist; check the path, or create the file first", .path.display())]
    NotFound { path: PathBuf },

    /// The file is bigger than the caller is willing to hold in memory.
    #[error(
        "{} is {actual} bytes, more than the {limit}-byte limit; \
         shrink or replace the file, or raise the limit if it is legitimate",
        .path.display()
    )]
    TooLarge {
        path: PathBuf,
        limit: u64,
        actual: u64,
    },

    /// The target path does not name a file (for example `/` or `dir/..`),
    /// so there is nothing to rename a temporary file over.
    #[error("{} does not name a file; pass the path of a file to publish", .path.display())]
    InvalidPath { path: PathBuf },

    /// Reading the file failed for a reason other than its absence.
    #[error(
        "could not read {}: {source}; check that it is a readable regular file, then retry",
        .path.display()
    )]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// A step before the atomic rename failed (or the rename itself). The
    /// target still holds its previous content, so retrying is safe.
    #[error(
        "could not {op} {}: {source}; the target is unchanged; \
         check permissions and free disk space, then retry",
        .path.display()
    )]
    Write {
        /// The step that failed, e.g. "write temporary file".
        op: &'static str,
        /// The path that step acted on.
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// Writing a file in place ([`InPlace`]) failed: unlike a
    /// publication, the file may now be torn.
    #[error(
        "could not {op} {}: {source}; the file may be torn; \
         check permissions and free disk space, then retry",
        .path.display()
    )]
    Overwrite {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The new content is in place, but its directory entry could not be
    /// forced to disk, so a power loss might still revert to the old content.
    #[error(
        "published {} but could not sync its directory: {source}; the new content is \
         visible but may not survive a power loss; retry the publish to make it durable",
        .path.display()
    )]
    NotDurable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl DurableError {
    /// The stable code this failure is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            DurableError::TooLarge { .. } => ErrorCode::PayloadTooLarge,
            DurableError::NotFound { .. } => ErrorCode::NotFound,
            _ => ErrorCode::Io,
        }
    }

    fn recovery(&self) -> &'static str {
        match self {
            DurableError::TooLarge { .. } => "shrink or replace the file, then retry",
            DurableError::NotFound { .. } => "check the path, or create the file first",
            _ => somite_workflow::error::IO_RECOVERY,
        }
    }
}

impl From<DurableError> for SomiteError {
    fn from(error: DurableError) -> SomiteError {
        SomiteError::new(error.code(), error.to_string(), error.recovery())
    }
}

/// Distinguishes temporary files of concurrent publications within one
/// process; the process id in the name separates processes.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Suffix of every temporary file [`publish`] creates, and the pattern
/// [`remove_stale_temp_files`] looks for.
const TEMP_SUFFIX: &str = ".tmp";

/// Atomically and durably replaces the file at `path` with `bytes`, creating
/// it (and any missing parent directories) if needed.
///
/// On error the target is left with its previous content, except for
/// [`DurableError::NotDurable`], where the new content is already visible.
/// The temporary file is removed on every error path the process survives.
pub fn publish(path: &Path, bytes: &[u8]) -> Result<(), DurableError> {
    publish_with(path, bytes, || {})
}

/// [`publish`] with a hook that runs after the temporary file is on stable
/// storage and before the rename, so a test can crash the process at exactly
/// the point where only the temporary file holds the new content.
fn publish_with(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(),
) -> Result<(), DurableError> {
    let staged = stage(path, bytes)?;
    before_rename();
    staged.publish()
}

/// The first half of [`publish`], for a caller that must order several
/// publications: `bytes` are in a temporary file next to `path` and on
/// stable storage, and nothing is visible at `path` yet.
///
/// Staging is the slow part (the data's sync), and it depends on nothing
/// but the bytes, so a caller can stage one file while it publishes
/// another that must land first, and pay for the two syncs once.
/// [`Staged::publish`] makes it visible and durable; dropping it
/// unpublished removes the temporary file.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    temp_path: PathBuf,
    published: bool,
}

/// Writes `bytes` to a fresh temporary file beside `path` (creating missing
/// parent directories durably) and forces them to stable storage.
pub fn stage(path: &Path, bytes: &[u8]) -> Result<Staged, DurableError> {
    let file_name = path.file_name().ok_or_else(|| DurableError::InvalidPath {
        path: path.to_owned(),
    })?;
    create_dir_durably(parent_dir(path))?;
    let (temp_path, file) = create_temp_file(parent_dir(path), file_name)?;
    // From here the temporary file is removed on every error path (`Drop`).
    let staged = Staged {
        path: path.to_owned(),
        temp_path,
        published: false,
    };
    write_and_sync(file, bytes, &staged.temp_path)?;
    Ok(staged)
}

impl Staged {
    /// Renames the staged bytes over the target and syncs its directory.
    /// The errors are [`publish`]'s: before the rename the target is
    /// unchanged; [`DurableError::NotDurable`] means it changed.
    pub fn publish(mut self) -> Result<(), DurableError> {
        fs::rename(&self.temp_path, &self.path).map_err(|source| DurableError::Write {
            op: "rename the temporary file over",
            path: self.path.clone(),
            source,
        })?;
        self.published = true;
        // The rename is atomic but lives only in the directory's in-memory
        // state until the directory itself is synced.
        sync_dir(parent_dir(&self.path)).map_err(|source| DurableError::NotDurable {
            path: self.path.clone(),
            source,
        })
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.published {
            // Best effort: the original error is what the caller needs, and a
            // temporary file that cannot be removed now is harmless because
            // `remove_stale_temp_files` clears it when the project is reopened.
            let _ = fs::remove_file(&self.temp_path);
        }
    }
}

/// A file rewritten in place, one region at a time: a positioned write and
/// a data sync per region, without [`publish`]'s temporary file, rename and
/// directory sync.
///
/// The price: a crash or a failure part-way can leave the region torn, a
/// mix of old and new bytes. It is therefore only for files whose reader
/// recognises a torn region and does without it (the input-origin
/// sidecar's checksummed entries). The file must exist already: create it
/// with [`publish`], so its directory entry is durable too.
#[derive(Debug)]
pub struct InPlace {
    path: PathBuf,
    file: File,
}

impl InPlace {
    /// Opens the existing file at `path` for writing in place.
    pub fn open(path: &Path) -> Result<InPlace, DurableError> {
        match OpenOptions::new().write(true).open(path) {
            Ok(file) => Ok(InPlace {
                path: path.to_owned(),
                file,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(DurableError::NotFound {
                path: path.to_owned(),
            }),
            Err(source) => Err(DurableError::Overwrite {
                op: "open",
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Writes `bytes` at `offset` and forces them to stable storage.
    pub fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<(), DurableError> {
        let error = |op| {
            move |source| DurableError::Overwrite {
                op,
                path: self.path.clone(),
                source,
            }
        };
        self.file
            .write_all_at(bytes, offset)
            .map_err(error("write"))?;
        self.file.sync_data().map_err(error("sync"))
    }
}

/// One worker thread that stages files ([`stage`]) for its owner, so the
/// owner can publish something that must land first meanwhile; one thread
/// for all of its owner's publications instead of one per publication. The
/// thread starts with the first staging; dropping the stager stops it.
#[derive(Debug, Default)]
pub struct Stager {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Job {
    path: PathBuf,
    bytes: Bytes,
    done: mpsc::SyncSender<Result<Staged, DurableError>>,
}

/// A staging under way; [`Staging::wait`] returns its result.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    outcome: StagingOutcome,
}

#[derive(Debug)]
enum StagingOutcome {
    Running(mpsc::Receiver<Result<Staged, DurableError>>),
    Done(Result<Staged, DurableError>),
}

impl Stager {
    /// Starts staging `bytes` for `path` on the worker; where the worker
    /// cannot run, stages them here and now instead.
    pub fn stage(&mut self, path: PathBuf, bytes: Bytes) -> Staging {
        if self.jobs.is_none() {
            let (jobs, queue) = mpsc::channel::<Job>();
            let started = std::thread::Builder::new()
                .name("somite-stager".into())
                .spawn(move || {
                    for job in queue {
                        // The owner may have stopped waiting; the staged
                        // file is then dropped, which removes it.
                        let _ = job.done.send(stage(&job.path, &job.bytes));
                    }
                });
            if let Ok(thread) = started {
                self.jobs = Some(jobs);
                self.thread = Some(thread);
            }
        }
        let Some(jobs) = &self.jobs else {
            return Staging {
                outcome: StagingOutcome::Done(stage(&path, &bytes)),
                path,
            };
        };
        let (done, result) = mpsc::sync_channel(1);
        let job = Job {
            path: path.clone(),
            bytes,
            done,
        };
        let outcome = match jobs.send(job) {
            Ok(()) => StagingOutcome::Running(result),
            // The worker is gone (it could only have panicked): stage here,
            // and start another one next time.
            Err(mpsc::SendError(job)) => {
                self.jobs = None;
                StagingOutcome::Done(stage(&job.path, &job.bytes))
            }
        };
        Staging { path, outcome }
    }
}

impl Staging {
    /// The staged file, once the worker has written and synced it.
    pub fn wait(self) -> Result<Staged, DurableError> {
        match self.outcome {
            StagingOutcome::Done(result) => result,
            StagingOutcome::Running(result) => result.recv().unwrap_or_else(|_| {
                Err(DurableError::Write {
                    op: "stage (the worker stopped)",
                    path: self.path,
                    source: io::Error::other("the staging thread ended before it answered"),
                })
            }),
        }
    }
}

impl Drop for Stager {
    fn drop(&mut self) {
        // Closing the queue ends the worker once its last job is done.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads the whole file at `path`, refusing one larger than `limit` bytes
/// without reading it, so an oversized file cannot exhaust memory.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, DurableError> {
    let read_error = |source: io::Error| {
        if source.kind() == io::ErrorKind::NotFound {
            DurableError::NotFound {
                path: path.to_owned(),
            }
        } else {
            DurableError::Read {
                path: path.to_owned(),
                source,
            }
        }
    };
    let too_large = |actual: u64| DurableError::TooLarge {
        path: path.to_owned(),
        limit,
        actual,
    };

    let file = File::open(path).map_err(read_error)?;
    let len = file.metadata().map_err(read_error)?.len();
    if len > limit {
        return Err(too_large(len));
    }

    // The file may grow between the size check and the read, so the read is
    // capped too; one byte past the limit is enough to detect that.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    (&file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let read = bytes.len() as u64;
    if read > limit {
        let now = file.metadata().map_or(read, |meta| meta.len());
        return Err(too_large(now.max(read)));
    }
    Ok(bytes)
}

/// Removes the temporary files (`.<name>.<pid>.<counter>.tmp`) that
/// [`publish`] leaves in `dir` when a process dies mid-publication, and
/// returns how many it removed.
///
/// Call it when opening a project, while no other process publishes into
/// `dir`: it cannot tell a crashed process's file from a live one's. Files
/// carrying this process's id are kept because they may belong to a
/// publication running on another thread. Other files are never touched.
pub fn remove_stale_temp_files(dir: &Path) -> io::Result<usize> {
    let own_pid = std::process::id();
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        match temp_file_pid(&entry.file_name()) {
            Some(pid) if pid != own_pid => {}
            _ => continue,
        }
        match fs::remove_file(entry.path()) {
            Ok(()) => removed += 1,
            // Someone else cleaned it up first; the outcome is the same.
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    // No directory sync: a removal lost to a power cut only brings back a
    // stray temporary file, which the next call removes again.
    Ok(removed)
}

/// The process id in a name of the form `.<name>.<pid>.<counter>.tmp`, or
/// `None` if the name is not one `publish` creates.
fn temp_file_pid(name: &OsStr) -> Option<u32> {
    let stem = name
        .as_encoded_bytes()
        .strip_prefix(b".")?
        .strip_suffix(TEMP_SUFFIX.as_bytes())?;
    let mut parts = stem.rsplitn(3, |&byte| byte == b'.');
    let counter = parts.next()?;
    let pid = parts.next()?;
    let target = parts.next()?;
    if target.is_empty() || !is_decimal(counter) || !is_decimal(pid) {
        return None;
    }
    std::str::from_utf8(pid).ok()?.parse().ok()
}

fn is_decimal(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit)
}

/// The directory holding `path`, with `.` standing in for the empty parent of
/// a bare relative file name so it can be opened and synced.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Creates `dir` and its missing ancestors, syncing each new directory's
/// parent so the new entries survive a power loss along with the file.
fn create_dir_durably(dir: &Path) -> Result<(), DurableError> {
    if dir.is_dir() {
        return Ok(());
    }
    let parent = parent_dir(dir);
    create_dir_durably(parent)?;
    match fs::create_dir(dir) {
        Ok(()) => {}
        // Another process created it concurrently; it may not have synced
        // the parent, so sync it here anyway.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
        Err(source) => {
            return Err(DurableError::Write {
                op: "create directory",
                path: dir.to_owned(),
                source,
            });
        }
    }
    sync_dir(parent).map_err(|source| DurableError::Write {
        op: "sync directory",
        path: parent.to_owned(),
        source,
    })
}

/// Creates a fresh temporary file next to the target. `create_new` guarantees
/// it is never someone else's file, so a failed publish cannot damage it.
fn create_temp_file(dir: &Path, file_name: &OsStr) -> Result<(PathBuf, File), DurableError> {
    let pid = std::process::id();
    loop {
        let counter = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = OsString::from(".");
        name.push(file_name);
        name.push(format!(".{pid}.{counter}{TEMP_SUFFIX}"));
        let temp_path = dir.join(name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp_path)
        {
            Ok(file) => return Ok((temp_path, file)),
            // A crashed process that had our pid left this name behind;
            // the counter moves on, so the loop ends.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(DurableError::Write {
                    op: "create temporary file",
                    path: temp_path,
                    source,
                });
            }
        }
    }
}

/// Writes `bytes` and forces them to stable storage, so the rename can only
/// ever expose complete content. The file is closed on return, before the
/// rename.
fn write_and_sync(mut file: File, bytes: &[u8], temp_path: &Path) -> Result<(), DurableError> {
    let write_error = |op, source| DurableError::Write {
        op,
        path: temp_path.to_owned(),
        source,
    };
    file.write_all(bytes)
        .map_err(|source| write_error("write temporary file", source))?;
    file.sync_all()
        .map_err(|source| write_error("sync temporary file", source))
}

/// Forces a directory's entries (new names, renames) to stable storage.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Windows cannot open a directory as a `File`, and NTFS journals renames
/// itself, so there is nothing further to sync.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_writes_change_only_their_region_and_need_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ring");
        assert!(matches!(
            InPlace::open(&path).unwrap_err(),
            DurableError::NotFound { .. }
        ));
        publish(&path, &[0; 12]).unwrap();
        let file = InPlace::open(&path).unwrap();
        file.write_at(4, b"abcd").unwrap();
        file.write_at(10, b"yz").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\0\0\0\0abcd\0\0yz");
    }

    /// The one conversion every module uses: the same failure has the same
    /// code (before it, the compiler and the evidence store reported an
    /// oversized or missing file as `io_error`, the project as what it is).
    #[test]
    fn every_durable_error_maps_to_its_documented_code() {
        let path = PathBuf::from("/p/graph.json");
        let cases = [
            (
                DurableError::TooLarge {
                    path: path.clone(),
                    limit: 1,
                    actual: 2,
                },
                "payload_too_large",
            ),
            (DurableError::NotFound { path: path.clone() }, "not_found"),
            (DurableError::InvalidPath { path: path.clone() }, "io_error"),
            (
                DurableError::Read {
                    path,
                    source: io::Error::other("disk"),
                },
                "io_error",
            ),
        ];
        for (error, code) in cases {
            let envelope = SomiteError::from(error);
            assert_eq!(envelope.code.as_str(), code);
            assert!(!envelope.recovery.is_empty());
        }
    }
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc;
    use std::thread;
    use std::time::{Duration, Instant};

    /// Tells the child test which file to publish; its absence means the
    /// child test is running normally and must do nothing.
    const CHILD_TARGET_ENV: &str = somite_api::EnvVars::SOMITE_DURABLE_CRASH_CHILD;
    /// Tells the child test where to stop: `before-rename` or `after-rename`.
    const CHILD_MODE_ENV: &str = somite_api::EnvVars::SOMITE_DURABLE_CRASH_MODE;
    /// Printed by the child once it has reached the crash point.
    const MARKER: &str = somite_api::EnvVars::SOMITE_DURABLE_CRASH_POINT_REACHED;
    /// Ceiling on every wait for the child, so a broken test fails instead of
    /// hanging.
    const CEILING: Duration = Duration::from_secs(30);
    /// How long the child parks at the crash point; far beyond `CEILING`, so
    /// only the parent's kill ends it.
    const CHILD_PARK: Duration = Duration::from_secs(120);

    const OLD: &[u8] = b"old complete content\n";

    /// Large enough (1 MiB) that a torn write would be visible, and patterned
    /// so a mix-up with `OLD` cannot pass.
    fn new_content() -> Vec<u8> {
        (0..1 << 20).map(|i| b'a' + (i % 26) as u8).collect()
    }

    /// Names of `publish`'s temporary files in `dir`, with their pids.
    fn temp_files(dir: &Path) -> Vec<(PathBuf, u32)> {
        fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap())
            .filter_map(|entry| Some((entry.path(), temp_file_pid(&entry.file_name())?)))
            .collect()
    }

    /// Compares a file's content without dumping a megabyte of bytes when
    /// the comparison fails.
    fn assert_holds(path: &Path, expected: &[u8], what: &str) {
        let actual = fs::read(path).unwrap();
        assert!(
            actual == expected,
            "{} holds {} bytes that are not the {what} ({} bytes)",
            path.display(),
            actual.len(),
            expected.len()
        );
    }

    fn entries(dir: &Path) -> Vec<OsString> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn publish_creates_then_replaces_content_without_leftovers() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a").join("b");
        let target = dir.join("state.json");

        publish(&target, b"first, longer content").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"first, longer content");

        publish(&target, b"second").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"second");

        assert_eq!(entries(&dir), [OsString::from("state.json")]);
    }

    #[test]
    fn failed_publish_removes_its_temp_file_and_keeps_the_target() {
        let root = tempfile::tempdir().unwrap();
        // A directory cannot be replaced by a file, so the rename fails after
        // the temporary file has been written.
        let target = root.path().join("occupied");
        fs::create_dir(&target).unwrap();

        let error = publish(&target, b"content").unwrap_err();
        assert!(
            matches!(&error, DurableError::Write { path, .. } if *path == target),
            "{error:?}"
        );
        assert!(target.is_dir());
        assert_eq!(entries(root.path()), [OsString::from("occupied")]);
    }

    #[test]
    fn publish_rejects_a_path_without_a_file_name() {
        let error = publish(Path::new("/"), b"content").unwrap_err();
        assert!(
            matches!(error, DurableError::InvalidPath { .. }),
            "{error:?}"
        );
    }

    #[test]
    fn read_capped_refuses_oversized_and_reports_missing_files() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("ten");
        fs::write(&path, b"0123456789").unwrap();

        assert_eq!(read_capped(&path, 10).unwrap(), b"0123456789");
        match read_capped(&path, 9) {
            Err(DurableError::TooLarge {
                path: reported,
                limit: 9,
                actual: 10,
            }) => assert_eq!(reported, path),
            other => panic!("expected TooLarge, got {other:?}"),
        }

        let missing = root.path().join("missing");
        match read_capped(&missing, 10) {
            Err(DurableError::NotFound { path: reported }) => assert_eq!(reported, missing),
            other => panic!("expected NotFound, got {other:?}"),
        }
    }

    #[test]
    fn remove_stale_temp_files_removes_only_foreign_publish_temp_files() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        let own = format!(".state.json.{}.0.tmp", std::process::id());
        // A pid that is not ours: one more than ours cannot collide.
        let stale = format!(".state.json.{}.7.tmp", std::process::id() + 1);
        let keep = [
            "state.json",
            ".state.json",
            "state.json.1.2.tmp",
            ".state.json.x.2.tmp",
            ".1.2.tmp",
            own.as_str(),
        ];
        for name in keep.iter().chain([&stale.as_str()]) {
            fs::write(dir.join(name), b"x").unwrap();
        }
        fs::create_dir(dir.join(".sub.1.2.tmp")).unwrap();

        assert_eq!(remove_stale_temp_files(dir).unwrap(), 1);
        assert!(!dir.join(&stale).exists());
        for name in keep {
            assert!(dir.join(name).exists(), "{name} was removed");
        }
        assert!(dir.join(".sub.1.2.tmp").is_dir());
    }

    /// Not a test of its own: the crash tests run it in a child process,
    /// which parks at the crash point named by `CHILD_MODE_ENV` until killed.
    #[test]
    #[ignore = "child process of the crash test"]
    fn crash_child() {
        let Some(target) = std::env::var_os(CHILD_TARGET_ENV) else {
            return;
        };
        let target = PathBuf::from(target);
        let park = || {
            println!("{MARKER}");
            io::stdout().flush().unwrap();
            thread::sleep(CHILD_PARK);
        };
        match std::env::var(CHILD_MODE_ENV).as_deref() {
            Ok("before-rename") => publish_with(&target, &new_content(), park).unwrap(),
            Ok("after-rename") => {
                publish(&target, &new_content()).unwrap();
                park();
            }
            other => panic!("unknown {CHILD_MODE_ENV}: {other:?}"),
        }
    }

    /// Kills the child even when an assertion fails first, so no test leaves
    /// a parked process behind.
    struct KillOnDrop(Child);

    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Runs `crash_child` in a fresh copy of this test binary, waits until it
    /// reports reaching the crash point, kills it and returns its pid.
    fn crash_child_at(mode: &str, target: &Path) -> u32 {
        // `module_path!()` starts with the crate name, which test filters omit.
        let module = module_path!()
            .split_once("::")
            .map_or(module_path!(), |(_, rest)| rest);
        let test_name = format!("{module}::crash_child");
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &test_name, "--nocapture", "--include-ignored"])
            .env(CHILD_TARGET_ENV, target)
            .env(CHILD_MODE_ENV, mode)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = KillOnDrop(child);
        let pid = child.0.id();

        // Read on a thread so the wait for the marker can time out.
        let stdout = child.0.stdout.take().unwrap();
        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            let mut seen = String::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.contains(MARKER) {
                    let _ = sender.send(Ok(()));
                    return;
                }
                seen.push_str(&line);
                seen.push('\n');
            }
            let _ = sender.send(Err(seen));
        });
        match receiver.recv_timeout(CEILING) {
            Ok(Ok(())) => {}
            Ok(Err(seen)) => panic!("child ended before the crash point; stdout:\n{seen}"),
            Err(error) => panic!("child did not reach the crash point in {CEILING:?}: {error}"),
        }

        child.0.kill().unwrap();
        let deadline = Instant::now() + CEILING;
        let status = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "killed child did not exit");
            thread::sleep(Duration::from_millis(10));
        };
        assert!(!status.success(), "child was not killed: {status}");
        pid
    }

    #[test]
    fn crash_before_rename_keeps_old_content() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("state.json");
        publish(&target, OLD).unwrap();

        let child_pid = crash_child_at("before-rename", &target);

        // A process crash is survived by the page cache, so this checks the
        // ordering of steps, not the power-loss guarantee the syncs provide.
        assert_holds(&target, OLD, "old content");
        let temps = temp_files(root.path());
        assert_eq!(temps.len(), 1, "{temps:?}");
        let (temp_path, temp_pid) = &temps[0];
        assert_eq!(*temp_pid, child_pid);
        // The hook runs only once the new content is complete on disk.
        assert_holds(temp_path, &new_content(), "complete new content");

        assert_eq!(remove_stale_temp_files(root.path()).unwrap(), 1);
        assert!(temp_files(root.path()).is_empty());

        publish(&target, b"after recovery").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"after recovery");
        assert_eq!(entries(root.path()), [OsString::from("state.json")]);
    }

    #[test]
    fn crash_after_rename_keeps_new_content() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("state.json");
        publish(&target, OLD).unwrap();

        crash_child_at("after-rename", &target);

        assert_holds(&target, &new_content(), "complete new content");
        assert!(temp_files(root.path()).is_empty());
        assert_eq!(remove_stale_temp_files(root.path()).unwrap(), 0);
        assert_eq!(entries(root.path()), [OsString::from("state.json")]);
    }
}
