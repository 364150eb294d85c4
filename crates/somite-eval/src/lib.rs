//! Somite's agent evaluation harness.
//!
//! An evaluation runs one [`Scenario`] against a real ACP agent through the
//! same boundary a user's agent meets — `somite serve`, the launcher, the
//! three stdio MCP servers, the permission policy — and writes redacted
//! evidence plus a deterministic [`Score`] under
//! `.somite/mcp-agent-evals/<timestamp>-<scenario>/`.
//!
//! The pieces are split so scoring can be trusted: [`scenario`] is the fixed
//! data of each task, [`evidence`] reads what was recorded, [`score`] is a
//! pure function of that evidence, and only [`driver`] does I/O. CI runs every
//! scenario with the scripted test agent (a good and a deliberately wrong
//! plan each, in `plans/`), which tests the scoring itself.

pub mod data;
pub mod driver;
pub mod evidence;
pub mod resource;
pub mod scenario;
pub mod score;
pub mod source;
#[cfg(test)]
mod testing;
pub mod workshop;

pub use driver::{AgentChoice, EvalConfig, EvalError, EvalOutcome, rescore, run};
pub use evidence::Evidence;
pub use scenario::{Scenario, UnknownScenario};
pub use score::{Check, SCORE_FORMAT, Score, Status, score};
