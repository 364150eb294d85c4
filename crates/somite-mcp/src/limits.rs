//! The limits the specification fixes for the Pixi and Nextflow servers.
//!
//! Kept together so a reviewer can check them against the specification in
//! one place, and so tests and documentation refer to the same names.

use std::time::Duration;

/// How long a CLI invocation may run unless the tool's input asks otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest timeout an agent may ask for on a long-running tool
/// (`pixi_environment`, `pixi_task` run, `nextflow_run`).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Bytes kept from each of a child's stdout and stderr; the rest is drained
/// and counted but not kept.
pub const STREAM_CAPTURE_LIMIT: usize = 1024 * 1024;

/// Between SIGTERM to a process group and SIGKILL.
pub const TERMINATION_GRACE: Duration = Duration::from_millis(1500);

/// The largest manual page the catalog accepts.
pub const MAX_PAGE_BYTES: u64 = 512 * 1024;

/// The largest manual (sum of its pages) the catalog accepts.
pub const MAX_CORPUS_BYTES: u64 = 32 * 1024 * 1024;

/// Default and largest slice of a page returned by one docs read.
pub const DEFAULT_READ_BYTES: usize = 32 * 1024;
pub const MAX_READ_BYTES: usize = 128 * 1024;

/// Default and largest number of hits one docs search returns.
pub const DEFAULT_SEARCH_HITS: usize = 8;
pub const MAX_SEARCH_HITS: usize = 25;

/// Longest docs search query, in characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// Characters of context in one search snippet.
pub const SNIPPET_CHARS: usize = 240;
