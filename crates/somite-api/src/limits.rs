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

/// The largest remote input Somite pins (downloads once and digests): the
/// biggest reference files nf-core defaults name are tens of GiB.
pub const MAX_PINNED_INPUT_BYTES: u64 = 64 << 30;

/// How long the runtime keeps an idle HTTP connection open for a client's
/// next request. A client that pools connections to the runtime (the MCP
/// adapter) drops its idle ones after [`RUNTIME_POOL_IDLE`], well before,
/// so it never sends a request on a connection the runtime is closing.
pub const RUNTIME_KEEP_ALIVE: Duration = Duration::from_secs(5);

/// How long a client of the runtime keeps an idle pooled connection: half
/// of [`RUNTIME_KEEP_ALIVE`], so the client's timer, which starts when it
/// has read a response, expires before the runtime's, which started when
/// the runtime wrote it.
pub const RUNTIME_POOL_IDLE: Duration = Duration::from_millis(2_500);
const _: () = assert!(
    RUNTIME_POOL_IDLE.as_millis() * 2 <= RUNTIME_KEEP_ALIVE.as_millis(),
    "a pooled connection must expire well before the runtime closes it"
);
