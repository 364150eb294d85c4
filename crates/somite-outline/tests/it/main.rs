//! The crate's one integration-test binary.

mod common;
mod degrade;
mod fixtures;
mod flow;
mod invocations;
mod tokenizer;
