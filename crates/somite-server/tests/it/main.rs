//! The runtime's HTTP edge over real loopback sockets.
//!
//! One integration-test binary per crate (uv's `tests/it` model): the
//! crate and its test dependencies are linked once instead of once per
//! file, and the shared helpers are one module instead of a copy per
//! binary. Each file below is one area of the tests.

mod support;

mod connections;
mod http;
mod registry;
mod workshop;
