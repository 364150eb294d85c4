//! `somite`'s integration tests, as a user and an agent drive the binary.
//!
//! One integration-test binary per crate (uv's `tests/it` model): the
//! crate and its test dependencies are linked once instead of once per
//! file, and the shared helpers are one module instead of a copy per
//! binary. Each file below is one area of the tests.

mod support;

/// The loopback nf-co.re/GitHub stand-in of somite-source's own tests.
#[path = "../../../somite-source/tests/it/common.rs"]
#[allow(dead_code)] // the stand-in's helpers for somite-source's own tests
mod standin;

mod agent_session;
mod cli;
mod compile_cli;
mod corpus;
mod docs_cli;
mod eval;
mod mcp_interop;
mod mcp_pixi_nextflow;
mod mcp_scale;
mod mcp_somite;
mod resources;
mod runs;
mod serve;
mod source;
