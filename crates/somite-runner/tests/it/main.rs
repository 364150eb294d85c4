//! The run supervisor against the test stand-in for `pixi` and, where present, the real tools.
//!
//! One integration-test binary per crate (uv's `tests/it` model): the
//! crate and its test dependencies are linked once instead of once per
//! file, and the shared helpers are one module instead of a copy per
//! binary. Each file below is one area of the tests.

mod support;

mod cancel;
mod proofs;
mod real_toolchain;
mod restart;
mod runs;
mod sandbox;
mod source_preview;
mod validation;
mod workshop;
