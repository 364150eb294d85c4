//! Somite's wire contract, declared once.
//!
//! Everything another process sees or sets is named here: the environment
//! variables Somite reads or hands to its children ([`EnvVars`]), the HTTP
//! headers between the MCP adapter and the runtime ([`headers`]), the MCP
//! tool names ([`tools`]), the kinds of activity-feed event ([`FeedKind`])
//! and the limits more than one crate enforces ([`limits`]); and the failure
//! envelope ([`Error`]) with its codes, composed from one group per owner. Each crate uses
//! these constants instead of its own copy of the literal, so a name cannot
//! drift between the side that sets it and the side that reads it, tests
//! included.
//!
//! The crate sits directly above the pure domain (`somite-workflow`): a few
//! facts the domain owns (the compiled package's environment, the document
//! size bound) are re-exported here by reference, never restated.

pub mod env_vars;
pub mod error;
pub mod feed;
pub mod headers;
pub mod limits;
pub mod tools;

pub use env_vars::EnvVars;
pub use error::{
    AgentCode, DataCode, DomainCode, Error, ErrorCode, HttpCode, LinkCode, ResourceCode,
    SourceCode, ToolCode, WorkshopCode,
};
pub use feed::FeedKind;
