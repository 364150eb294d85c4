//! Limits more than one crate enforces or relies on.
//!
//! A limit one crate owns stays in that crate's `limits` module; the ones
//! here are promises the runtime makes to its clients (the MCP adapter, the
//! ACP client), so both sides name the same constant.

use std::time::Duration;

/// The largest `.somite.json` document, owned by the domain. The ACP frame
/// bound and the MCP adapter's response bound are derived from it.
pub const MAX_DOCUMENT_BYTES: u64 = somite_workflow::limits::MAX_DOCUMENT_BYTES;

/// The longest a run-status long-poll waits for a change (`wait_ms`). The
/// MCP adapter's quick-call deadline must stay above it.
pub const MAX_STATUS_WAIT: Duration = Duration::from_millis(25_000);

/// The largest operator candidate (contract plus evidence, as JSON) a
/// project keeps; the web form and the MCP tool describe the same bound.
pub const MAX_CANDIDATE_BYTES: usize = 64 * 1024;

/// The most operator candidates one project keeps at once.
pub const MAX_CANDIDATES: usize = 32;
