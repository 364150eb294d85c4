//! The `source` scenario: start from nf-core/demo instead of an empty
//! workflow.
//!
//! The good outcome is one `workflow.source` node pinned to the release the
//! nf-core catalog calls latest (a tag and the commit it names, never a
//! moving branch), placed on the empty canvas it was given, with the two
//! parameters the user named set within the pipeline's schema, so the
//! Workflow assessment has nothing left to ask. Everything is read from the
//! evidence: the release the catalog showed the agent is in its own search
//! answer, so the score holds against the loopback stand-in and the real
//! nf-co.re alike.
//!
//! Parameters may be set through an ordinary transaction or through the
//! typed `somite.source_workflow.edit`; both are scored alike (the good plan
//! uses the edit tool, the wrong one a transaction). A replacement of a
//! process call is not part of this task: it leaves the source blocked until
//! it is promoted, which the user did not ask for.

use serde_json::Value;
use somite_api::tools::somite as tools;

use crate::evidence::ToolCall;
use crate::scenario::{OUTDIR, SAMPLESHEET_PATH};
use crate::score::{Check, Facts, Node, check, describe, nodes};
use somite_workflow::ErrorCode;

/// The pipeline the user asks for.
pub const PIPELINE: &str = "nf-core/demo";

/// What placing the node onto a canvas that already holds nodes answers.
const CANVAS_NOT_EMPTY: ErrorCode = ErrorCode::CanvasNotEmpty;

/// The codes a parameter edit outside the pipeline's schema is refused with.
const SCHEMA_REFUSALS: [ErrorCode; 6] = [
    ErrorCode::ParamOutOfRange,
    ErrorCode::ParamNotInEnum,
    ErrorCode::ParamPatternMismatch,
    ErrorCode::ParamPathNotFound,
    ErrorCode::InvalidParamType,
    ErrorCode::UnknownParam,
];

/// The blind task: the pipeline and the two values, nothing of how.
#[must_use]
pub fn prompt() -> String {
    format!(
        "I would like to run the nf-core demo pipeline on my reads instead of \
         building a workflow from scratch, using its latest release. My \
         samplesheet is {SAMPLESHEET_PATH} and the results should go to \
         {OUTDIR}/. Please set it up here so that it is ready to run, and tell \
         me exactly which version you used."
    )
}

/// The checks, in their fixed order (documented in docs/agent-evaluation.md).
pub(crate) fn checks(facts: &Facts<'_>) -> Vec<Check> {
    vec![
        searched_nfcore(facts),
        resolved_on_empty_canvas(facts),
        pinned_latest_release(facts),
        required_params_set(facts),
        params_within_schema(facts),
        ready_to_run(facts),
        facts.mcp_tools_only(),
    ]
}

fn resolve_calls<'f>(facts: &'f Facts<'_>) -> impl Iterator<Item = &'f ToolCall> {
    facts.calls.iter().filter(|call| {
        call.is_somite(tools::SOURCE_RESOLVE_NFCORE) || call.is_somite(tools::SOURCE_RESOLVE_GITHUB)
    })
}

/// The catalog's entry for [`PIPELINE`] in the agent's latest completed
/// search that listed it.
fn catalog_entry(facts: &Facts<'_>) -> Option<Value> {
    facts
        .somite_calls(tools::SOURCE_SEARCH_NFCORE)
        .filter(|call| call.completed())
        .filter_map(|call| {
            call.output()
                .get("matches")?
                .as_array()?
                .iter()
                .find(|entry| entry.get("repository").and_then(Value::as_str) == Some(PIPELINE))
                .cloned()
        })
        .last()
}

fn searched_nfcore(facts: &Facts<'_>) -> Check {
    let entry = catalog_entry(facts);
    let releases = entry
        .as_ref()
        .and_then(|entry| entry.get("releases")?.as_array().map(Vec::len))
        .unwrap_or(0);
    check(
        "searched_nfcore",
        releases > 0,
        match entry {
            Some(_) => format!("the nf-core search listed {PIPELINE} with {releases} release(s)"),
            None => format!(
                "no completed {} answer listed {PIPELINE}",
                tools::SOURCE_SEARCH_NFCORE
            ),
        },
    )
}

/// The one node a resolve places, if the final canvas holds it.
pub(crate) fn source_node<'d>(facts: &Facts<'d>) -> Option<Node<'d>> {
    nodes(facts.final_document)
        .into_iter()
        .find(|node| node.operator() == "workflow.source")
}

/// The pipeline starts from the empty canvas it was given: no resolve was
/// refused for a non-empty canvas, and the agent added nothing before it.
fn resolved_on_empty_canvas(facts: &Facts<'_>) -> Check {
    let id = "resolved_on_empty_canvas";
    let refused: Vec<String> = resolve_calls(facts)
        .filter(|call| call.error_code().as_deref() == Some(CANVAS_NOT_EMPTY.as_str()))
        .map(describe)
        .collect();
    if !refused.is_empty() {
        return check(
            id,
            false,
            format!("resolves refused with {CANVAS_NOT_EMPTY}: {refused:?}"),
        );
    }
    let Some(placed) = resolve_calls(facts).find(|call| call.completed()) else {
        return check(id, false, "no resolve placed the pipeline");
    };
    let before = facts
        .calls
        .iter()
        .filter(|call| call.is_somite(tools::GRAPH_APPLY_TRANSACTION) && call.completed())
        .filter(|call| call.last_cursor < placed.first_cursor)
        .map(describe)
        .collect::<Vec<_>>();
    check(
        id,
        before.is_empty(),
        if before.is_empty() {
            format!(
                "{} placed the pipeline on the empty canvas",
                describe(placed)
            )
        } else {
            format!("the agent edited the canvas before resolving: {before:?}")
        },
    )
}

/// One pinned node: the catalog's latest release of [`PIPELINE`], by tag
/// and by the commit that tag names, and nothing else on the canvas.
fn pinned_latest_release(facts: &Facts<'_>) -> Check {
    let id = "pinned_latest_release";
    let count = nodes(facts.final_document).len();
    let Some(node) = source_node(facts) else {
        return check(id, false, "no workflow.source node in the final workflow");
    };
    if count != 1 {
        return check(
            id,
            false,
            format!("the canvas holds {count} nodes besides the pipeline's one"),
        );
    }
    let pin = |key: &str| {
        node.0
            .pointer(&format!("/source/{key}"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let repository = pin("repository").unwrap_or_default();
    if repository != PIPELINE {
        return check(
            id,
            false,
            format!("the node is {repository}, not {PIPELINE}"),
        );
    }
    let commit = pin("commit").unwrap_or_default();
    let Some(release) = pin("release") else {
        let moving = pin("git_ref").unwrap_or_default();
        return check(
            id,
            false,
            format!("pinned to the ref `{moving}` ({commit}), not to a release"),
        );
    };
    let Some(latest) = catalog_entry(facts).and_then(|entry| entry.get("latest_release").cloned())
    else {
        return check(
            id,
            false,
            format!("release {release} placed, but no catalog answer says which is latest"),
        );
    };
    let field = |key: &str| latest.get(key).and_then(Value::as_str).unwrap_or_default();
    let (tag, tag_commit) = (field("tag"), field("commit"));
    check(
        id,
        release == tag && commit == tag_commit,
        format!("pinned {release} at {commit}; the catalog's latest is {tag} at {tag_commit}"),
    )
}

fn required_params_set(facts: &Facts<'_>) -> Check {
    let id = "required_params_set";
    let Some(node) = source_node(facts) else {
        return check(id, false, "no workflow.source node in the final workflow");
    };
    let value = |name: &str| node.param(name).and_then(Value::as_str).map(str::to_owned);
    let (input, outdir) = (value("input"), value("outdir"));
    let set = input.as_deref() == Some(SAMPLESHEET_PATH)
        && outdir
            .as_deref()
            .is_some_and(|dir| dir.trim_end_matches('/') == OUTDIR);
    check(
        id,
        set,
        format!(
            "input is {input:?} and outdir {outdir:?}; the user named {SAMPLESHEET_PATH} and {OUTDIR}/"
        ),
    )
}

/// No edit sent a value the pipeline's schema forbids (a pattern, an enum,
/// a type or an unknown parameter), through either edit path (an ordinary
/// transaction or `somite.source_workflow.edit`): the schema is in the
/// node's contract for the agent to read first.
fn params_within_schema(facts: &Facts<'_>) -> Check {
    let refused: Vec<String> = facts
        .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
        .chain(facts.somite_calls(tools::SOURCE_WORKFLOW_EDIT))
        .filter_map(|call| {
            let code = call.error_code()?;
            SCHEMA_REFUSALS
                .iter()
                .any(|refusal| refusal.as_str() == code)
                .then(|| format!("{} ({code})", describe(call)))
        })
        .collect();
    check(
        "params_within_schema",
        refused.is_empty(),
        if refused.is_empty() {
            "no parameter edit was refused by the pipeline's schema".to_owned()
        } else {
            format!("edits refused by the pipeline's schema: {refused:?}")
        },
    )
}

/// The Workflow assessment asks nothing more of the pipeline's node.
fn ready_to_run(facts: &Facts<'_>) -> Check {
    let id = "ready_to_run";
    let Some(node) = source_node(facts) else {
        return check(id, false, "no workflow.source node in the final workflow");
    };
    let assessed = facts
        .evidence
        .final_readiness
        .get("nodes")
        .and_then(Value::as_array)
        .and_then(|assessed| {
            assessed
                .iter()
                .find(|entry| entry.get("node_id").and_then(Value::as_str) == Some(node.id()))
        });
    let ready = assessed
        .and_then(|entry| entry.get("ready"))
        .and_then(Value::as_bool);
    check(
        id,
        ready == Some(true),
        match ready {
            Some(true) => format!("the assessment finds node `{}` ready", node.id()),
            Some(false) => format!(
                "the assessment still has open items on node `{}`: {}",
                node.id(),
                assessed
                    .and_then(|entry| entry.get("items"))
                    .unwrap_or(&Value::Null)
            ),
            None => format!("the final assessment does not list node `{}`", node.id()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Evidence, FeedEvent};
    use crate::scenario::Scenario;
    use crate::score::{Status, score};
    use crate::testing::{evidence, tool_call, transaction};
    use serde_json::json;

    const V100: &str = "705f18e4b1540f207cf8ffdc97ee5bd70a0b022c";
    const V101: &str = "04060b4644d68649180db796e89a3db2a466a8d8";

    fn search() -> FeedEvent {
        let release = |tag: &str, commit: &str| json!({"tag": tag, "commit": commit, "published_at": "2024-01-01T00:00:00Z"});
        tool_call(
            1,
            "search",
            tools::SOURCE_SEARCH_NFCORE,
            json!({"query": "demo"}),
            "completed",
            json!({"matches": [{
                "repository": PIPELINE,
                "latest_release": release("1.0.1", V101),
                "releases": [release("1.0.1", V101), release("1.0.0", V100)],
            }]}),
        )
    }

    fn resolve(cursor: u64, id: &str, status: &str, output: Value) -> FeedEvent {
        tool_call(
            cursor,
            id,
            tools::SOURCE_RESOLVE_NFCORE,
            json!({"pipeline": PIPELINE, "release": "1.0.1"}),
            status,
            output,
        )
    }

    fn set_params(cursor: u64, id: &str, status: &str, output: Value) -> FeedEvent {
        tool_call(
            cursor,
            id,
            tools::GRAPH_APPLY_TRANSACTION,
            json!({"operations": [{"op": "set_param", "node_id": "demo", "param": "input", "value": SAMPLESHEET_PATH}]}),
            status,
            output,
        )
    }

    fn node(source: Value, params: Value) -> Value {
        json!({"id": "demo", "operator_id": "workflow.source", "source": source, "params": params})
    }

    fn pinned() -> Value {
        json!({"repository": PIPELINE, "release": "1.0.1", "git_ref": null, "commit": V101})
    }

    fn filled() -> Value {
        json!({"input": SAMPLESHEET_PATH, "outdir": "results/"})
    }

    fn readiness(ready: bool) -> Value {
        json!({"nodes": [{"node_id": "demo", "ready": ready, "items": if ready { json!([]) } else { json!(["demo:outdir"]) }}]})
    }

    fn turn(events: Vec<FeedEvent>, document: Value, ready: bool) -> Evidence {
        evidence(
            Scenario::Source,
            events,
            "nf-core/demo 1.0.1 is pinned and ready.",
            document,
            readiness(ready),
        )
    }

    fn good() -> Evidence {
        let document = json!({"nodes": [node(pinned(), filled())], "edges": []});
        turn(
            vec![
                search(),
                resolve(2, "resolve", "completed", json!({"replayed": false})),
                set_params(3, "params", "completed", json!({"state_revision": "s"})),
                transaction(4, true, document.clone()),
            ],
            document,
            true,
        )
    }

    fn status(evidence: &Evidence, id: &str) -> (Status, String) {
        let check = score(evidence).check(id).cloned().unwrap();
        (check.status, check.reason)
    }

    #[test]
    fn searching_pinning_the_latest_release_and_filling_its_params_passes_every_check() {
        let score = score(&good());
        assert_eq!((score.passed, score.failed), (7, 0), "{score:#?}");
    }

    #[test]
    fn a_resolve_onto_a_canvas_the_agent_filled_first_fails_the_empty_canvas() {
        let mut refused = good();
        refused.events.insert(
            1,
            tool_call(
                1,
                "early",
                tools::GRAPH_APPLY_TRANSACTION,
                json!({"operations": []}),
                "completed",
                json!({}),
            ),
        );
        refused.events.insert(
            2,
            resolve(
                1,
                "first",
                "failed",
                json!({"code": CANVAS_NOT_EMPTY.as_str(), "recovery": "remove every node"}),
            ),
        );
        let (status, reason) = status(&refused, "resolved_on_empty_canvas");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("first"), "{reason}");

        // Edited first, then resolved (say, after removing the node again).
        let mut edited_first = good();
        edited_first.events.insert(
            0,
            tool_call(
                0,
                "early",
                tools::GRAPH_APPLY_TRANSACTION,
                json!({}),
                "completed",
                json!({}),
            ),
        );
        let (status, reason) = self::status(&edited_first, "resolved_on_empty_canvas");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("early"), "{reason}");
    }

    #[test]
    fn a_moving_branch_an_older_release_or_an_extra_node_is_not_the_latest_release() {
        let with = |source: Value, extra: bool| {
            let mut nodes = vec![node(source, filled())];
            if extra {
                nodes.push(json!({"id": "reads", "operator_id": "files.import", "params": {}}));
            }
            let mut evidence = good();
            evidence.final_workflow = json!({"document": {"nodes": nodes, "edges": []}});
            status(&evidence, "pinned_latest_release")
        };
        let (branch, reason) = with(
            json!({"repository": PIPELINE, "release": null, "git_ref": "master", "commit": V101}),
            false,
        );
        assert_eq!(branch, Status::Fail);
        assert!(reason.contains("`master`"), "{reason}");
        let (older, reason) = with(
            json!({"repository": PIPELINE, "release": "1.0.0", "commit": V100}),
            false,
        );
        assert_eq!(older, Status::Fail, "{reason}");
        let (crowded, _) = with(pinned(), true);
        assert_eq!(crowded, Status::Fail);
        let (latest, _) = with(pinned(), false);
        assert_eq!(latest, Status::Pass);

        let mut unsearched = good();
        unsearched.events.remove(0);
        let (status, reason) = status(&unsearched, "pinned_latest_release");
        assert_eq!(status, Status::Fail, "{reason}");
        assert_eq!(self::status(&unsearched, "searched_nfcore").0, Status::Fail);
    }

    #[test]
    fn a_value_the_schema_refused_and_params_left_unset_fail_their_checks() {
        let mut violating = good();
        violating.events.insert(
            2,
            set_params(
                2,
                "bad",
                "failed",
                json!({"code": "param_out_of_range", "recovery": "choose a value the pipeline's schema allows"}),
            ),
        );
        let (status, reason) = status(&violating, "params_within_schema");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("param_out_of_range"), "{reason}");

        // The same through the typed source edit.
        let mut through_edit = good();
        through_edit.events.insert(
            2,
            tool_call(
                2,
                "bad-edit",
                tools::SOURCE_WORKFLOW_EDIT,
                json!({"node_id": "demo", "edits": [{"op": "set_param", "param": "input", "value": "data/samplesheet.txt"}]}),
                "failed",
                json!({"code": "param_pattern_mismatch", "recovery": "choose a value the pipeline's schema allows"}),
            ),
        );
        let (status, reason) = self::status(&through_edit, "params_within_schema");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("param_pattern_mismatch"), "{reason}");

        let unset = turn(
            good().events,
            json!({"nodes": [node(pinned(), json!({"input": SAMPLESHEET_PATH}))]}),
            false,
        );
        assert_eq!(self::status(&unset, "required_params_set").0, Status::Fail);
        let (status, reason) = self::status(&unset, "ready_to_run");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("demo:outdir"), "{reason}");
    }
}
