//! Run records on disk: what survives a restart of Somite.
//!
//! Each launch has a folder `.somite/runs/<run_id>/` whose `run.json` is
//! republished durably on every status change, so after a crash the record
//! says how far the run got, and which process group was running it. The
//! launches themselves are remembered in `.somite/runs/launches.json` (the
//! newest 256 idempotency keys), so a client whose response was lost can
//! retry after a restart and still get its original `run_id`.
//!
//! On start-up [`recover`] turns every record still in a non-terminal phase
//! into an honest `failed` with reason `run_lost`, stopping the old process
//! group if it is demonstrably still that run's: a run is never left
//! looking as if it were still running.

use crate::error::RunnerError;
use crate::limits::{MAX_LAUNCH_RECORDS_BYTES, MAX_RUN_RECORD_BYTES};
use crate::process::stop_lost_group;
use crate::status::{NodeState, RunStarted, RunStatus};
use crate::timestamp;
use serde::{Deserialize, Serialize};
use somite_project::Layout;
use somite_project::durable::{self, DurableError};
use somite_project::records::Records;
use somite_workflow::{ErrorCode, SomiteError};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What `run.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub status: RunStatus,
    /// The process group of `pixi run` while it is running.
    pub process_group: Option<i32>,
}

/// Separates run ids minted in the same millisecond.
static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh run id: `run-<unix ms>-<8 hex>`, sortable by start time.
pub fn new_run_id(idempotency_key: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut hasher = blake3::Hasher::new();
    hasher.update(idempotency_key.as_bytes());
    hasher.update(&now.as_nanos().to_le_bytes());
    hasher.update(&std::process::id().to_le_bytes());
    hasher.update(&RUN_COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let hex = hasher.finalize().to_hex();
    format!("run-{:013}-{}", now.as_millis(), &hex[..8])
}

/// Whether `id` has the shape [`new_run_id`] gives, so it can name a folder
/// without any path trickery.
pub fn is_run_id(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("run-") else {
        return false;
    };
    let Some((millis, hex)) = rest.split_once('-') else {
        return false;
    };
    !millis.is_empty()
        && millis.len() <= 20
        && millis.bytes().all(|b| b.is_ascii_digit())
        && hex.len() == 8
        && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub fn run_dir(layout: &Layout, run_id: &str) -> PathBuf {
    layout.runs().join(run_id)
}

pub fn record_path(layout: &Layout, run_id: &str) -> PathBuf {
    run_dir(layout, run_id).join("run.json")
}

pub fn launch_dir(layout: &Layout, run_id: &str) -> PathBuf {
    run_dir(layout, run_id).join("launch")
}

fn launches_path(layout: &Layout) -> PathBuf {
    layout.runs().join("launches.json")
}

pub fn write_record(layout: &Layout, record: &RunRecord) -> Result<(), RunnerError> {
    let mut bytes = serde_json::to_vec_pretty(record).expect("run records serialize");
    bytes.push(b'\n');
    durable::publish(&record_path(layout, &record.status.run_id), &bytes)?;
    Ok(())
}

/// The record of `run_id`, or `None` when there is none.
pub fn read_record(layout: &Layout, run_id: &str) -> Result<Option<RunRecord>, RunnerError> {
    let path = record_path(layout, run_id);
    match durable::read_capped(&path, MAX_RUN_RECORD_BYTES) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| RunnerError::CorruptRecord {
                    path,
                    detail: e.to_string(),
                })
        }
        Err(DurableError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

pub fn read_launches(layout: &Layout) -> Result<Records<RunStarted>, RunnerError> {
    let path = launches_path(layout);
    match durable::read_capped(&path, MAX_LAUNCH_RECORDS_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| RunnerError::CorruptRecord {
            path,
            detail: e.to_string(),
        }),
        Err(DurableError::NotFound { .. }) => Ok(Records::default()),
        Err(e) => Err(e.into()),
    }
}

pub fn write_launches(layout: &Layout, launches: &Records<RunStarted>) -> Result<(), RunnerError> {
    let bytes = serde_json::to_vec(launches).expect("launch records serialize");
    durable::publish(&launches_path(layout), &bytes)?;
    Ok(())
}

/// Marks every run a previous process left unfinished as lost, and returns
/// their new statuses.
pub fn recover(layout: &Layout) -> Result<Vec<RunStatus>, RunnerError> {
    let runs = layout.runs();
    let entries = match fs::read_dir(&runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RunnerError::io(&runs, e)),
    };
    let mut ids: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| is_run_id(name))
        .collect();
    ids.sort();
    let mut lost = Vec::new();
    for run_id in ids {
        let dir = run_dir(layout, &run_id);
        if let Err(error) = durable::remove_stale_temp_files(&dir) {
            tracing::warn!(dir = %dir.display(), %error, "cannot clear a run folder's temporary files");
        }
        let mut record = match read_record(layout, &run_id) {
            Ok(Some(record)) => record,
            Ok(None) => continue,
            // One unreadable record must not keep Somite from starting; a
            // status read of that run reports it.
            Err(error) => {
                tracing::warn!(%run_id, %error, "cannot read a run record");
                continue;
            }
        };
        if record.status.phase.is_terminal() {
            continue;
        }
        let stopped = record
            .process_group
            .is_some_and(|pgid| stop_lost_group(pgid, &launch_dir(layout, &run_id)));
        mark_lost(&mut record, stopped);
        write_record(layout, &record)?;
        lost.push(record.status);
    }
    Ok(lost)
}

fn mark_lost(record: &mut RunRecord, stopped: bool) {
    let status = &mut record.status;
    let was = status.phase.name();
    status.phase = crate::status::RunPhase::Failed;
    status.revision += 1;
    for state in status.states.values_mut() {
        if !state.is_settled() {
            *state = NodeState::Cancelled;
        }
    }
    let detail = if stopped {
        "; its leftover processes were stopped"
    } else {
        ""
    };
    status.error = Some(
        SomiteError::new(
            ErrorCode::RunLost,
            format!("Somite restarted while this run was {was}, so its outcome is unknown{detail}"),
            "start the run again with a fresh idempotency key",
        )
        .with_detail("phase_when_lost", was),
    );
    status.progress.message = format!("lost: Somite restarted while the run was going{detail}");
    status.ended_at = Some(timestamp::now());
    record.process_group = None;
}

/// A path under the project, relative to the project folder, for display.
pub fn relative_to_project(layout: &Layout, path: &Path) -> String {
    path.strip_prefix(layout.root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_fresh_and_have_a_safe_shape() {
        let a = new_run_id("key-00000001");
        let b = new_run_id("key-00000001");
        assert_ne!(a, b);
        assert!(is_run_id(&a), "{a}");
        for bad in [
            "run-",
            "run-1-",
            "run-1-ABCDEF12",
            "run-1-abcdef1",
            "run-../x-abcdef12",
            "../run-1-abcdef12",
            "run-1-abcdef12/..",
        ] {
            assert!(!is_run_id(bad), "{bad}");
        }
    }
}
