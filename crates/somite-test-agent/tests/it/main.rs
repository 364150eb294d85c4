//! The test agent's integration tests, one binary: the whole ACP loop through Somite's client, and
//! interoperability with an agent on the official TypeScript SDK.

mod acp_loop;
mod common;
mod interop;
