//! The Somite project on disk: the `.somite/` layout, durable publication,
//! the canonical graph with its input-origin sidecar and autosave,
//! idempotency records that survive a restart, and write-once evidence
//! receipts.

pub mod attach;
pub mod compiled;
pub mod durable;
pub mod evidence;
mod example;
pub mod export;
pub mod layout;
pub mod project;
pub mod records;
pub mod toolchain;

pub use layout::Layout;
pub use project::{Project, Seed, TransactionOutcome};
