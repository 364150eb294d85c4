//! The workflow domain: transactions, assessment, search and compile.
//!
//! One integration-test binary per crate (uv's `tests/it` model): the
//! crate and its test dependencies are linked once instead of once per
//! file, and the shared helpers are one module instead of a copy per
//! binary. Each file below is one area of the tests.

mod common;
mod compile_graphs;
mod nextflow_task;

mod assessment;
mod builtin_catalog;
mod compile;
mod invariants;
mod resource_binding;
mod search;
mod transactions;
