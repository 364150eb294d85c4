//! The kinds of event on the runtime's activity feed.
//!
//! The feed (`GET /api/activity`, the SSE stream) carries one `kind` per
//! event; the web workspace, the tests and the evaluation branch on it.
//! Each feed has an [`Epoch`], so a reader can tell a position of this feed
//! from one of another server process's.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The identity of one feed, unique per server start, as lowercase hex.
/// `<epoch>:<cursor>` is a position a reader follows the feed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Epoch(String);

impl Epoch {
    /// The epoch named by `bytes` (the server draws them at random).
    pub fn from_bytes(bytes: &[u8]) -> Epoch {
        Epoch(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Epoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an activity-feed event reports. The wire form is the snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FeedKind {
    /// A graph transaction was applied (by a person or an agent).
    Transaction,
    /// The project was rebound to a new input location.
    Rebind,
    /// A package was compiled.
    Compile,
    /// A run or validation changed status.
    Run,
    /// The Agent panel's session: messages, tool calls, permissions.
    Agent,
    /// An operator candidate was drafted, proven, accepted or rejected.
    Workshop,
    /// A managed resource's install job: state, bytes, rate and ETA.
    Resource,
    /// A project's pinned pipeline source being fetched again onto this
    /// machine: `fetching`, then `fetched` or `failed`.
    Source,
}

impl FeedKind {
    /// Every kind, for documentation and exhaustive tests.
    pub const ALL: [FeedKind; 8] = [
        FeedKind::Transaction,
        FeedKind::Rebind,
        FeedKind::Compile,
        FeedKind::Run,
        FeedKind::Agent,
        FeedKind::Workshop,
        FeedKind::Resource,
        FeedKind::Source,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedKind::Transaction => "transaction",
            FeedKind::Rebind => "rebind",
            FeedKind::Compile => "compile",
            FeedKind::Run => "run",
            FeedKind::Agent => "agent",
            FeedKind::Workshop => "workshop",
            FeedKind::Resource => "resource",
            FeedKind::Source => "source",
        }
    }
}

impl std::fmt::Display for FeedKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<FeedKind> for serde_json::Value {
    fn eq(&self, kind: &FeedKind) -> bool {
        self.as_str() == Some(kind.as_str())
    }
}

/// The SSE event that tells a reader its position is not one of this feed's
/// (the runtime restarted): it must reload, then follow from the new position.
pub const SSE_RESET: &str = "reset";
/// The SSE event that tells a reader events after its position were evicted.
pub const SSE_GAP: &str = "gap";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_as_str() {
        for kind in FeedKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert_eq!(
                serde_json::from_value::<FeedKind>(kind.as_str().into()).unwrap(),
                kind
            );
        }
    }
}
