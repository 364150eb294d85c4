//! Somite's workflow domain.
//!
//! Everything here is pure: a workflow document goes in, a validated
//! document, a readiness assessment or a search page comes out. The project
//! store, the HTTP runtime and the MCP servers call into this crate and do
//! their I/O at their own edges, so a human edit and an agent edit pass through
//! exactly the same checks.

pub mod assessment;
pub mod canonical;
pub mod canonical_state;
mod canonical_writer;
pub mod catalog;
mod change;
pub mod compile;
pub mod error;
pub mod graph;
pub mod limits;
pub mod operator;
pub mod resource;
pub mod search;
pub mod source;
pub mod source_environment;
pub mod source_map;
pub mod source_paths;
pub mod source_reach;
pub mod transaction;
pub mod types;
pub mod variant;

pub use canonical::Revision;
pub use catalog::Catalog;
pub use error::{ErrorCode, SomiteError};
