//! The crate's one integration-test binary: a loopback stand-in of nf-co.re
//! and the GitHub API ([`common`]) serving the fixtures in `tests/data`.

mod archive;
mod catalog;
mod common;
mod resolve;
mod schemas;
mod store;
