//! The MCP crate's integration tests, one binary: the committed manuals, fetching a manual from its
//! upstream tag, and the search's relevance on a fixed query set.

mod docs_relevance;
mod fetch;
mod manuals;
