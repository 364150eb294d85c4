//! Evidence built by hand for the scoring unit tests: a feed of agent
//! events in the shapes the runtime records them, so each check can be
//! tested against exactly the behaviour it judges.

use serde_json::{Value, json};

use crate::evidence::{Evidence, FeedEvent};
use crate::scenario::Scenario;

/// An agent event at `cursor`.
pub(crate) fn agent(cursor: u64, data: Value) -> FeedEvent {
    FeedEvent {
        cursor,
        kind: somite_api::FeedKind::Agent.as_str().to_owned(),
        time_ms: 0,
        data,
    }
}

/// A Somite tool call in its final state, Codex-shaped, with its output.
pub(crate) fn tool_call(
    cursor: u64,
    id: &str,
    tool: &str,
    arguments: Value,
    status: &str,
    output: Value,
) -> FeedEvent {
    call_on(cursor, id, "somite", tool, arguments, status, output)
}

/// A tool call on any server.
pub(crate) fn call_on(
    cursor: u64,
    id: &str,
    server: &str,
    tool: &str,
    arguments: Value,
    status: &str,
    output: Value,
) -> FeedEvent {
    agent(
        cursor,
        json!({"type": "tool_call", "tool_call": {
            "tool_call_id": id, "title": tool, "kind": "other", "status": status,
            "identity": {"server": server, "tool": tool},
            "raw_input": {"server": server, "tool": tool, "arguments": arguments},
            "raw_output": output,
            "content": [], "locations": [],
        }}),
    )
}

/// A successful transaction that left `document`, by the agent or a person.
pub(crate) fn transaction(cursor: u64, by_agent: bool, document: Value) -> FeedEvent {
    FeedEvent {
        cursor,
        kind: somite_api::FeedKind::Transaction.as_str().to_owned(),
        time_ms: 0,
        data: json!({
            "source": {"kind": if by_agent { "agent" } else { "human" }},
            "outcome": {"state_revision": format!("s{cursor}"), "replayed": false},
            "document": document,
        }),
    }
}

/// The evidence of a turn of `scenario`: these events, then `reply`.
pub(crate) fn evidence(
    scenario: Scenario,
    mut events: Vec<FeedEvent>,
    reply: &str,
    final_document: Value,
    final_readiness: Value,
) -> Evidence {
    events.push(agent(1000, json!({"type": "agent_message", "text": reply})));
    Evidence {
        harness: serde_json::from_value(json!({
            "scenario": scenario, "turn": 1, "turn_outcome": null, "timed_out": false,
            "feed_gaps": 0, "injections": [], "refusals": [],
            "toolchain": {"pixi": "/usr/bin/pixi", "source": "PATH"},
            "cleanup_cancelled_runs": [], "problems": [],
        }))
        .expect("a harness record"),
        events,
        initial_workflow: Value::Null,
        final_workflow: json!({ "document": final_document }),
        final_readiness,
        runs: Vec::new(),
        evidence: Value::Null,
    }
}
