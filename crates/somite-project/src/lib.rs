//! The Somite project on disk: the `.somite/` layout, durable publication,
//! one writer per project, the canonical graph committed crash-atomically
//! with its input-origin sidecar and the idempotency records that survive a
//! restart, and write-once evidence receipts.

pub mod attach;
mod autosave;
pub mod candidates;
pub mod compiled;
pub mod durable;
pub mod evidence;
mod example;
pub mod export;
pub mod layout;
pub mod lock;
pub mod project;
pub mod records;
mod sidecar;
pub mod source;
pub mod toolchain;
pub mod views;
pub mod workflow_read;

pub use layout::Layout;
pub use project::{Project, Seed, Snapshot, TransactionOutcome};
