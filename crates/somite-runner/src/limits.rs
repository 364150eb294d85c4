//! Every size, count and time limit of the run supervisor, in one place.
//!
//! Each is a documented promise of runs and evidence, or a bound
//! that keeps a misbehaving pipeline from exhausting Somite's memory or
//! disk; tests refer to these names so a limit cannot drift from its check.

use std::time::Duration;

/// The longest a status long-poll waits for a change: a promise to the
/// runtime's clients, so declared with the wire contract.
pub use somite_api::limits::MAX_STATUS_WAIT;
/// How long a process group has to exit after SIGTERM before SIGKILL.
pub const TERMINATION_GRACE: Duration = Duration::from_millis(1_500);
/// How long the supervisor keeps reading a stream after the group is gone
/// (a process that escaped the group may still hold it open).
pub const STREAM_DRAIN_GRACE: Duration = Duration::from_millis(1_500);
/// How often the trace file is read while a run is going.
pub const TRACE_POLL_INTERVAL: Duration = Duration::from_millis(200);
/// The largest trace file read (one short row per task).
pub const MAX_TRACE_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes of each of stdout and stderr kept in the run's log files.
pub const MAX_LOG_BYTES: u64 = 8 * 1024 * 1024;
/// Lines of stderr shown in a failed run's status.
pub const STDERR_TAIL_LINES: usize = 40;
/// Bytes of stderr kept in memory for that tail.
pub const STDERR_TAIL_BYTES: usize = 16 * 1024;
/// Characters of one stderr tail line.
pub const MAX_TAIL_LINE_CHARS: usize = 500;
/// Artifacts a receipt lists; a run that produced more is listed up to this
/// many, in path order, and the receipt says so.
pub const MAX_RECEIPT_ARTIFACTS: usize = 4_096;
/// Status snapshots buffered for slow event subscribers.
pub const EVENT_CAPACITY: usize = 1_024;
/// The largest run record read back from disk.
pub const MAX_RUN_RECORD_BYTES: u64 = 16 * 1024 * 1024;
/// The largest idempotency record file read back from disk.
pub const MAX_LAUNCH_RECORDS_BYTES: u64 = 16 * 1024 * 1024;
