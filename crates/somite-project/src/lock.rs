//! One writer per project.
//!
//! Two processes that both believe they own `.somite/` lose acknowledged
//! edits: each publishes from its own in-memory graph and the later one
//! silently overwrites the other's, and each cleans up "stale" temporary
//! files that are in fact the other's publication in progress. So writing a
//! project requires an exclusive, advisory lock on `.somite/project.lock`
//! (an OS file lock: released by the kernel when its holder exits, however it
//! exits, so a crash never leaves a project locked).
//!
//! `somite serve` holds the lock for its whole life and announces its URL in
//! `.somite/server.json`, so a second server can say where the first one is
//! and a CLI edit can go through the running server (its canvas and feed
//! then see the edit) instead of being applied behind its back. A CLI
//! command that writes holds the lock only while it writes; a writer that
//! finds the lock taken by such a short-lived command waits for it briefly.
//! Readers take no lock: every file is published by an atomic rename, and
//! [`crate::Project::read`] reconciles the graph with its commit record the
//! same way crash recovery does.

use crate::durable;
use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use somite_workflow::{ErrorCode, SomiteError};
use std::fs::{File, OpenOptions, TryLockError};
use std::time::{Duration, Instant};

/// How long a writer waits for a lock held by a process that has not
/// announced a server: a CLI edit holds it for milliseconds, a server that is
/// still starting announces itself within a second.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// How often a waiting writer looks again.
const LOCK_POLL: Duration = Duration::from_millis(25);

/// The largest `server.json` read; it holds a URL and a process id.
const MAX_ANNOUNCEMENT_BYTES: u64 = 4096;

/// The exclusive right to write one project, held until dropped.
#[derive(Debug)]
pub struct ProjectLock {
    /// Kept open: the lock lives as long as this descriptor.
    _file: File,
    layout: Layout,
    announced: bool,
}

/// What `.somite/server.json` says about the server holding the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerAnnouncement {
    /// The base URL, e.g. `http://127.0.0.1:7310`.
    pub url: String,
    pub pid: u32,
    /// The server's start (its feed epoch), which its `/api/health` names
    /// too: a killed server's announcement names a port another project's
    /// server may hold now, and only this tells them apart.
    pub instance: String,
}

/// The outcome of claiming a project for writing.
#[derive(Debug)]
pub enum Claim {
    /// This process now holds the project.
    Acquired(ProjectLock),
    /// A running server holds it: write through that server.
    HeldByServer(ServerAnnouncement),
}

/// Claims `layout`'s project for writing: takes the lock, or names the
/// server that holds it, or, when the holder announced no server (a CLI
/// command writing, a server still starting), waits up to `wait` for it.
pub fn claim(layout: &Layout, wait: Duration) -> Result<Claim, SomiteError> {
    claim_with(layout, wait, true)
}

/// Claims the project after its announcement proved stale (its server is
/// gone, or another one answers at its URL): waits for the lock whatever the
/// announcement says, and removes it once held.
pub fn claim_past_stale(layout: &Layout, wait: Duration) -> Result<ProjectLock, SomiteError> {
    match claim_with(layout, wait, false)? {
        Claim::Acquired(lock) => {
            lock.remove_stale_announcement();
            Ok(lock)
        }
        Claim::HeldByServer(_) => unreachable!("announcements are not consulted"),
    }
}

fn claim_with(layout: &Layout, wait: Duration, trust: bool) -> Result<Claim, SomiteError> {
    let path = layout.lock();
    std::fs::create_dir_all(layout.data()).map_err(|e| SomiteError::io(&layout.data(), &e))?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| SomiteError::io(&path, &e))?;
    let deadline = Instant::now() + wait;
    loop {
        match file.try_lock() {
            Ok(()) => {
                return Ok(Claim::Acquired(ProjectLock {
                    _file: file,
                    layout: layout.clone(),
                    announced: false,
                }));
            }
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(SomiteError::io(&path, &e)),
        }
        // A stale announcement (its server was killed) can only be read
        // while someone else holds the lock for a moment; the caller confirms
        // the server's instance before sending it anything
        // ([`claim_past_stale`] when it does not match).
        if trust && let Some(server) = read_announcement(layout) {
            return Ok(Claim::HeldByServer(server));
        }
        if Instant::now() >= deadline {
            return Err(SomiteError::new(
                ErrorCode::ProjectInUse,
                format!(
                    "another Somite process is writing the project at {}",
                    layout.root().display()
                ),
                "wait for the other `somite` command to finish, then retry",
            ));
        }
        std::thread::sleep(LOCK_POLL);
    }
}

/// The refusal when a server holds the project and the caller cannot go
/// through it.
pub fn in_use_by_server(server: &ServerAnnouncement, recovery: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::ProjectInUse,
        format!(
            "the project is open in the Somite server at {} (process {})",
            server.url, server.pid
        ),
        recovery,
    )
    .with_detail("server_url", &server.url)
}

impl ProjectLock {
    /// The project this lock is for.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Records that this process serves the project at `url`, so other
    /// Somite processes can find it. Removed again when the lock is dropped.
    pub fn announce_server(&mut self, url: &str, instance: &str) -> Result<(), SomiteError> {
        let announcement = ServerAnnouncement {
            url: url.to_owned(),
            pid: std::process::id(),
            instance: instance.to_owned(),
        };
        let bytes = serde_json::to_vec_pretty(&announcement).expect("announcements serialize");
        durable::publish(&self.layout.server_announcement(), &bytes).map_err(|e| {
            SomiteError::new(
                ErrorCode::Io,
                e.to_string(),
                "check the project folder's permissions and free disk space",
            )
        })?;
        self.announced = true;
        Ok(())
    }

    /// Removes an announcement a killed server left behind; only the lock's
    /// holder may, since only then is no server using it.
    pub(crate) fn remove_stale_announcement(&self) {
        // Absent is the normal case; any other failure leaves a file whose
        // URL answers nothing, which readers already handle.
        let _ = std::fs::remove_file(self.layout.server_announcement());
    }
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        if self.announced {
            let _ = std::fs::remove_file(self.layout.server_announcement());
        }
    }
}

/// The announcement, if one is there and readable; anything else reads as
/// "no server announced" and the caller keeps waiting for the lock.
fn read_announcement(layout: &Layout) -> Option<ServerAnnouncement> {
    let bytes = durable::read_capped(&layout.server_announcement(), MAX_ANNOUNCEMENT_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_waits_then_names_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let Claim::Acquired(mut first) = claim(&layout, Duration::ZERO).unwrap() else {
            panic!("the first claim takes the lock");
        };
        let refused = claim(&layout, Duration::ZERO).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ProjectInUse);

        first.announce_server("http://127.0.0.1:9", "0123").unwrap();
        match claim(&layout, Duration::ZERO).unwrap() {
            Claim::HeldByServer(server) => {
                assert_eq!(server.url, "http://127.0.0.1:9");
                assert_eq!(server.pid, std::process::id());
            }
            Claim::Acquired(_) => panic!("the server holds the lock"),
        }

        drop(first);
        assert!(!layout.server_announcement().exists());
        assert!(matches!(
            claim(&layout, Duration::ZERO).unwrap(),
            Claim::Acquired(_)
        ));
    }
}
