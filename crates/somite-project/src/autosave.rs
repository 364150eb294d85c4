//! The autosave copy, written beside the edit instead of in its way.
//!
//! An edit is acknowledged once the canonical graph and its sidecar are on
//! stable storage (see [`crate::project`]); the autosave copy is a
//! convenience on top of that, the file a person restores from when the
//! canonical graph was damaged by hand. Writing it durably costs as much as
//! the graph itself, so it is not on the acknowledgement path: a writer
//! thread publishes it after the answer. Nor does it compete with every
//! edit for the disk: the writer publishes at most once per
//! [`MIN_INTERVAL`], the newest state each time, so a lone edit is copied
//! at once and a burst of edits (an agent's) costs one write a second
//! instead of one per edit.
//!
//! What that means for the user: the copy is published with
//! [`durable::publish`], so it is always a whole document carrying the
//! `state_revision` it was taken at, never a torn one; after a power loss or
//! a crash it may be up to about a second of edits older than the canonical
//! graph, which still holds every acknowledged edit. A write that fails (a
//! full disk, a read-only folder) is retried with the next edit's state and
//! never fails an edit. Dropping the writer (closing the project) and
//! [`Autosave::flush`] write the newest pending state at once, so a process
//! that exits after an edit leaves its copy.
//!
//! The writer also frees the states an edit replaced: dropping a large
//! document takes as long as a good part of the edit itself, and nobody
//! waits for it.

use crate::durable;
use crate::project::Snapshot;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The least time between two writes of the copy, unless someone waits.
const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// The writer of one project's autosave copy; the thread starts with the
/// first state handed to it, so a read-only view never starts one.
pub(crate) struct Autosave {
    path: PathBuf,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<Pending>,
    wake: Condvar,
}

#[derive(Default)]
struct Pending {
    /// The newest state not yet written; a newer one replaces it.
    next: Option<Arc<Snapshot>>,
    /// States replaced since the writer last looked, to drop there.
    retired: Vec<Arc<Snapshot>>,
    /// The writer is writing a state it took.
    writing: bool,
    /// Someone waits for the pending state: write it without waiting for
    /// the interval.
    urgent: bool,
    closing: bool,
}

impl Autosave {
    pub(crate) fn new(path: PathBuf) -> Autosave {
        Autosave {
            path,
            shared: Arc::default(),
            thread: None,
        }
    }

    /// Hands `snapshot` to the writer, and `previous` (the state it
    /// replaces) to be dropped there, and returns at once.
    pub(crate) fn save(&mut self, snapshot: Arc<Snapshot>, previous: Arc<Snapshot>) {
        if self.thread.is_none() {
            let shared = self.shared.clone();
            let path = self.path.clone();
            // A thread that cannot start leaves the copy to the next edit.
            self.thread = std::thread::Builder::new()
                .name("somite-autosave".into())
                .spawn(move || write_until_closed(&shared, &path))
                .ok();
        }
        if self.thread.is_none() {
            // Nobody would write or free what is handed over.
            return;
        }
        let mut pending = lock(&self.shared);
        pending.retired.push(previous);
        if let Some(unwritten) = pending.next.replace(snapshot) {
            pending.retired.push(unwritten);
        }
        drop(pending);
        self.shared.wake.notify_all();
    }

    /// Returns once every state handed over so far has been written (or
    /// failed to be).
    pub(crate) fn flush(&self) {
        let mut pending = lock(&self.shared);
        if pending.next.is_some() {
            pending.urgent = true;
            self.shared.wake.notify_all();
        }
        while pending.next.is_some() || pending.writing {
            pending = wait(&self.shared, pending);
        }
    }
}

impl Drop for Autosave {
    fn drop(&mut self) {
        lock(&self.shared).closing = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for Autosave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Autosave")
            .field("path", &self.path)
            .field("running", &self.thread.is_some())
            .finish()
    }
}

/// A panic elsewhere while holding the lock leaves `Pending` whole (it is
/// only ever assigned), so the poison is ignored.
fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Pending> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

fn wait<'a>(
    shared: &Shared,
    guard: std::sync::MutexGuard<'a, Pending>,
) -> std::sync::MutexGuard<'a, Pending> {
    shared
        .wake
        .wait(guard)
        .unwrap_or_else(PoisonError::into_inner)
}

/// One condition variable serves the writer and [`Autosave::flush`], so
/// every change is announced to all waiters.
fn write_until_closed(shared: &Shared, path: &std::path::Path) {
    let mut pending = lock(shared);
    let mut last_write: Option<Instant> = None;
    loop {
        if !pending.retired.is_empty() {
            let retired = std::mem::take(&mut pending.retired);
            drop(pending);
            drop(retired);
            pending = lock(shared);
            continue;
        }
        let wait_for = last_write.and_then(|at| MIN_INTERVAL.checked_sub(at.elapsed()));
        let due = wait_for.is_none() || pending.urgent || pending.closing;
        if let Some(snapshot) = pending.next.take_if(|_| due) {
            pending.writing = true;
            drop(pending);
            last_write = Some(Instant::now());
            // A failure is the copy's, not the edit's: the next state retries.
            let _ = durable::publish(path, &document_bytes(&snapshot));
            drop(snapshot);
            pending = lock(shared);
            pending.writing = false;
            pending.urgent &= pending.next.is_some();
            shared.wake.notify_all();
            continue;
        }
        // The pending state is written before closing is honoured.
        if pending.closing {
            return;
        }
        pending = match (pending.next.is_some(), wait_for) {
            (true, Some(wait_for)) => {
                shared
                    .wake
                    .wait_timeout(pending, wait_for)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            _ => wait(shared, pending),
        };
    }
}

/// `{"state_revision": …, "document": …}`, with the document's JSON the
/// state already holds instead of serializing it again.
fn document_bytes(snapshot: &Snapshot) -> Vec<u8> {
    let json = snapshot.json();
    let mut bytes = Vec::with_capacity(json.len() + 128);
    bytes.extend_from_slice(b"{\"state_revision\":");
    serde_json::to_writer(&mut bytes, snapshot.state_revision()).expect("revisions serialize");
    bytes.extend_from_slice(b",\"document\":");
    bytes.extend_from_slice(json);
    bytes.push(b'}');
    bytes
}
