//! The autosave copy, written beside the edit instead of in its way.
//!
//! An edit is acknowledged once the canonical graph and its sidecar are on
//! stable storage (see [`crate::project`]); the autosave copy is a
//! convenience on top of that, the file a person restores from when the
//! canonical graph was damaged by hand. Writing it durably costs as much as
//! the graph itself, so it is not on the acknowledgement path: a writer
//! thread publishes it after the answer, coalescing a burst of edits into
//! one write of the newest state.
//!
//! What that means for the user: the copy is published with
//! [`durable::publish`], so it is always a whole document carrying the
//! `state_revision` it was taken at, never a torn one; after a power loss it
//! may be a few edits older than the canonical graph, which still holds
//! every acknowledged edit. A write that fails (a full disk, a read-only
//! folder) is retried with the next edit's state and never fails an edit.
//! Dropping the writer (closing the project) writes the newest pending state
//! before it returns, so a process that exits after an edit leaves its copy.
//!
//! The writer also frees the states an edit replaced: dropping a large
//! document takes as long as a good part of the edit itself, and nobody
//! waits for it.

use crate::durable;
use crate::project::Snapshot;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

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
    loop {
        while pending.next.is_none() && pending.retired.is_empty() && !pending.closing {
            pending = wait(shared, pending);
        }
        let retired = std::mem::take(&mut pending.retired);
        // The pending state is written before closing is honoured.
        let next = pending.next.take();
        if next.is_none() && retired.is_empty() {
            return;
        }
        pending.writing = next.is_some();
        drop(pending);
        drop(retired);
        if let Some(snapshot) = next {
            // A failure is the copy's, not the edit's: the next state retries.
            let _ = durable::publish(path, &document_bytes(&snapshot));
        }
        pending = lock(shared);
        pending.writing = false;
        shared.wake.notify_all();
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
