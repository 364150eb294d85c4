//! Every size, count and time limit the domain enforces, in one place.
//!
//! Each constant is a promise of the agent specification or of Somite's
//! documented limits;
//! tests refer to these names so a limit cannot drift from its check.

/// A portable `.somite.json` graph document, opened, imported or saved.
pub const MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;
/// Operations in one `GraphTransaction`.
pub const MAX_TRANSACTION_OPERATIONS: usize = 64;
/// Characters in a catalog query.
pub const MAX_QUERY_CHARS: usize = 120;
/// Results per catalog page.
pub const MAX_SEARCH_LIMIT: usize = 50;
/// Results per catalog page when the caller does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 12;
/// Bytes of an idempotency key, per the run and edit key pattern.
pub const IDEMPOTENCY_KEY_CHARS: std::ops::RangeInclusive<usize> = 8..=128;
/// Bytes of a transaction summary.
pub const MAX_SUMMARY_CHARS: usize = 500;
/// Bytes of one note's text.
pub const MAX_NOTE_CHARS: usize = 20_000;
/// Characters of a node, edge or note id.
pub const MAX_ID_CHARS: usize = 128;
/// Characters of the workflow title.
pub const MAX_TITLE_CHARS: usize = 200;
/// Bytes of one string parameter value.
pub const MAX_STRING_PARAM_BYTES: usize = 4096;

/// The longest operator id (`family.name`): it names a file
/// (`.somite/operators/<id>.json`) and shows on a node, so it is refused
/// at the first door beyond this.
pub const MAX_OPERATOR_ID_BYTES: usize = 64;
