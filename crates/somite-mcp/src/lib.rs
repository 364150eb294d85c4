//! `somite-mcp`: Somite's stdio MCP servers for the local toolchain.
//!
//! An agent reaches Pixi and Nextflow only through these servers, so they
//! are where the toolchain boundary is enforced: intent-level tools with
//! closed schemas instead of "run this command", paths confined to one
//! workspace root, fixed argument arrays, an environment allowlist, bounded
//! output and time, and cancellation that takes the whole process group down.
//! Each server also carries the manual of the exact tool release its CLI
//! contract is proven against, searchable offline.
//!
//! Layout:
//! - [`limits`]: every number the specification fixes, in one place.
//! - [`envelope`]: the `{code, message, recovery}` failure envelope and the
//!   success-or-failure output schema every tool declares.
//! - [`confine`]: workspace-root path containment.
//! - [`process`]: the CLI tools' bounded reports, run through `somite-process`.
//! - [`toolchain`]: locating a binary and checking its version fails closed.
//! - [`effects`]: each tool's declared effects, the annotations derived from
//!   them, standard schemas and structured argument errors for every server.
//! - [`docs`]: the versioned manual catalog, its cache, Markdown
//!   normalisation and full-text index.
//! - [`pixi`] and [`nextflow`]: the two MCP servers.
//! - [`toolserver`]: what both servers share (root, manual, running the CLI).
//! - [`somite_proxy`]: the Somite MCP server, a typed proxy onto the
//!   loopback runtime's capability-guarded routes.
//! - [`serve`]: running a server over stdio.

pub mod confine;
pub mod docs;
pub mod effects;
pub mod envelope;
pub mod limits;
pub mod nextflow;
pub mod pixi;
pub mod process;
pub mod serve;
pub mod somite_proxy;
pub mod toolchain;
pub mod toolserver;
