//! The project store on real folders.
//!
//! One integration-test binary per crate (uv's `tests/it` model): the
//! crate and its test dependencies are linked once instead of once per
//! file, and the shared helpers are one module instead of a copy per
//! binary. Each file below is one area of the tests.

mod compile_fixture;

mod attach;
mod compile;
mod crash;
mod export;
mod nf_core_modules;
mod pipelines;
mod pixi_schema;
mod source;
mod transactions;
