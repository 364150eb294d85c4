//! The `data` scenario: reference-guided work needs the current human
//! reference assembly from NCBI.
//!
//! Somite's public-data search answers with the assembly's facts, where they
//! came from, and a source recipe — the native operators that fetch it,
//! parameters filled. The good outcome applies that recipe as it came, in
//! one transaction, picks the assembly NCBI itself calls the reference
//! genome, and tells the user which one it is and where it comes from. A
//! recipe edited by hand (another accession, an invented parameter) is no
//! longer what the provider answered, even when it still validates.

use serde_json::Value;
use somite_api::tools::somite as tools;

use crate::evidence::ToolCall;
use crate::score::{Check, Facts, check, describe, nodes};

/// The blind task.
pub const PROMPT: &str = "This workflow imports my paired human reads. I want to \
     map them to the current human reference genome assembly from NCBI: please add \
     that reference to the workflow, and tell me exactly which assembly it is and \
     where it comes from.";

/// How NCBI marks the assembly to use for a species (`refseq_category`).
const REFERENCE_GENOME: &str = "reference genome";

/// The checks, in their fixed order (documented in docs/agent-evaluation.md).
pub(crate) fn checks(facts: &Facts<'_>) -> Vec<Check> {
    let applied = applied_recipe(facts);
    vec![
        searched_public_data(facts),
        recipe_applied_unchanged(facts, applied.as_ref()),
        current_reference_chosen(applied.as_ref()),
        placed_in_one_edit(facts, applied.as_ref()),
        provenance_reported(facts, applied.as_ref()),
        facts.no_web_research(),
    ]
}

/// An assembly result with a recipe, from a search answer.
struct Offered {
    result: Value,
    operations: Value,
}

/// Every assembly result with a recipe the agent's searches returned.
fn offered(facts: &Facts<'_>) -> Vec<Offered> {
    facts
        .somite_calls(tools::SOURCE_SEARCH)
        .filter(|call| call.completed())
        .flat_map(|call| {
            call.output()
                .get("results")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter(|result| result.get("kind").and_then(Value::as_str) == Some("assembly"))
        .filter_map(|result| {
            let operations = result.pointer("/recipe/operations")?.clone();
            Some(Offered { result, operations })
        })
        .collect()
}

/// A recipe the agent applied exactly, and the call that did.
struct Applied {
    result: Value,
    call: ToolCall,
}

/// The first completed transaction whose operations are exactly an offered
/// recipe's.
fn applied_recipe(facts: &Facts<'_>) -> Option<Applied> {
    let offered = offered(facts);
    facts
        .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
        .filter(|call| call.completed())
        .find_map(|call| {
            let operations = call.arguments().get("operations").cloned()?;
            offered
                .iter()
                .find(|offer| same_json(&offer.operations, &operations))
                .map(|offer| Applied {
                    result: offer.result.clone(),
                    call: call.clone(),
                })
        })
}

/// JSON equality where numbers compare by value (`0` and `0.0` agree:
/// positions are floats the agent may write either way).
fn same_json(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(l), Value::Number(r)) => l.as_f64() == r.as_f64(),
        (Value::Array(l), Value::Array(r)) => {
            l.len() == r.len() && l.iter().zip(r).all(|(l, r)| same_json(l, r))
        }
        (Value::Object(l), Value::Object(r)) => {
            l.len() == r.len()
                && l.iter()
                    .all(|(key, value)| r.get(key).is_some_and(|other| same_json(value, other)))
        }
        _ => left == right,
    }
}

fn result_id(result: &Value) -> &str {
    result.get("id").and_then(Value::as_str).unwrap_or_default()
}

fn searched_public_data(facts: &Facts<'_>) -> Check {
    let offered = offered(facts);
    check(
        "searched_public_data",
        !offered.is_empty(),
        if offered.is_empty() {
            format!(
                "no completed {} answer offered an assembly with a recipe",
                tools::SOURCE_SEARCH
            )
        } else {
            let ids: Vec<&str> = offered
                .iter()
                .map(|offer| result_id(&offer.result))
                .collect();
            format!("the search offered assemblies {ids:?} with recipes")
        },
    )
}

fn recipe_applied_unchanged(facts: &Facts<'_>, applied: Option<&Applied>) -> Check {
    let id = "recipe_applied_unchanged";
    if let Some(applied) = applied {
        return check(
            id,
            true,
            format!(
                "{} applied the recipe of {} exactly as the search returned it",
                describe(&applied.call),
                result_id(&applied.result)
            ),
        );
    }
    let edits: Vec<String> = facts
        .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
        .filter(|call| call.completed())
        .map(describe)
        .collect();
    check(
        id,
        false,
        format!(
            "no transaction's operations are a returned recipe unchanged (agent edits: {edits:?})"
        ),
    )
}

fn current_reference_chosen(applied: Option<&Applied>) -> Check {
    let id = "current_reference_chosen";
    let Some(applied) = applied else {
        return check(id, false, "no returned recipe was applied");
    };
    let category = applied
        .result
        .pointer("/facts/refseq_category")
        .and_then(Value::as_str);
    check(
        id,
        category == Some(REFERENCE_GENOME),
        format!(
            "{} is {}",
            result_id(&applied.result),
            category.map_or("not categorised by RefSeq".to_owned(), |c| format!(
                "RefSeq's `{c}`"
            ))
        ),
    )
}

/// The recipe is one edit: the only successful agent transaction, and its
/// nodes are in the final workflow with the recipe's parameters.
fn placed_in_one_edit(facts: &Facts<'_>, applied: Option<&Applied>) -> Check {
    let id = "placed_in_one_edit";
    let edits = facts
        .transactions
        .iter()
        .filter(|edit| edit.by_agent)
        .count();
    let Some(applied) = applied else {
        return check(
            id,
            false,
            format!("no returned recipe was applied ({edits} agent transaction(s))"),
        );
    };
    let final_nodes = nodes(facts.final_document);
    let missing: Vec<String> = applied
        .call
        .arguments()
        .get("operations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|operation| operation.get("op").and_then(Value::as_str) == Some("add_operator"))
        .filter(|operation| {
            let node_id = operation.get("node_id").and_then(Value::as_str);
            !final_nodes.iter().any(|node| {
                Some(node.id()) == node_id
                    && operation.get("params").is_none_or(|params| {
                        same_json(params, node.0.get("params").unwrap_or(&Value::Null))
                    })
            })
        })
        .filter_map(|operation| operation.get("node_id").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    check(
        id,
        edits == 1 && missing.is_empty(),
        if missing.is_empty() {
            format!(
                "{edits} agent transaction(s); the recipe's nodes are in the final workflow as placed"
            )
        } else {
            format!("{edits} agent transaction(s); recipe nodes missing or changed: {missing:?}")
        },
    )
}

/// The reply names the assembly and the provider the search cited, so the
/// user can check where the reference comes from.
fn provenance_reported(facts: &Facts<'_>, applied: Option<&Applied>) -> Check {
    let id = "provenance_reported";
    let Some(applied) = applied else {
        return check(id, false, "no returned recipe was applied");
    };
    let reply = facts.evidence.reply_after(0).to_lowercase();
    let accession = result_id(&applied.result).to_lowercase();
    let provider = applied
        .result
        .pointer("/provenance/provider")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // `ncbi_datasets` → the reply says NCBI; `ensembl` → Ensembl.
    let provider_word = provider.split('_').next().unwrap_or_default().to_owned();
    let names_accession = !accession.is_empty() && reply.contains(&accession);
    let names_provider = !provider_word.is_empty() && reply.contains(&provider_word);
    check(
        id,
        names_accession && names_provider,
        format!(
            "the reply {} the accession {accession} and {} the provider ({provider})",
            if names_accession {
                "names"
            } else {
                "does not name"
            },
            if names_provider {
                "names"
            } else {
                "does not name"
            },
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Evidence, FeedEvent};
    use crate::scenario::Scenario;
    use crate::score::{Status, score};
    use crate::testing::{call_on, evidence, tool_call, transaction};
    use serde_json::json;

    fn recipe(accession: &str) -> Value {
        let base = accession.to_lowercase().replace(['.', '_'], "_");
        json!([
            {"op": "add_operator", "node_id": format!("{base}_datasets"), "operator_id": "ncbi.datasets_genome",
             "params": {"accession": accession, "include": "genome,gtf"}, "x": 0.0, "y": 0.0},
            {"op": "add_operator", "node_id": format!("{base}_assembly"),
             "operator_id": "ncbi.datasets_extract_assembly", "x": 320.0, "y": 0.0},
            {"op": "connect", "edge_id": "e", "from_node": format!("{base}_datasets"), "from_port": "package",
             "to_node": format!("{base}_assembly"), "to_port": "package"},
        ])
    }

    fn result(accession: &str, category: Option<&str>) -> Value {
        json!({
            "kind": "assembly", "id": accession, "title": accession,
            "provenance": {"provider": "ncbi_datasets", "endpoint": "/genome/taxon/human/dataset_report",
                           "retrieved_at": "2026-12-04T10:00:00Z", "from_cache": false, "age_seconds": 0},
            "facts": {"kind": "assembly", "accession": accession, "refseq_category": category},
            "recipe": {"summary": "s", "operations": recipe(accession), "produces": []},
        })
    }

    fn search() -> FeedEvent {
        tool_call(
            1,
            "search",
            tools::SOURCE_SEARCH,
            json!({"query": "human", "kind": "assembly"}),
            "completed",
            json!({"results": [
                result("GCF_000001405.40", Some(REFERENCE_GENOME)),
                result("GCA_009914755.4", None),
            ]}),
        )
    }

    fn apply(cursor: u64, id: &str, operations: Value) -> FeedEvent {
        tool_call(
            cursor,
            id,
            tools::GRAPH_APPLY_TRANSACTION,
            json!({"base_state_revision": "s0", "idempotency_key": "k", "summary": "s", "operations": operations}),
            "completed",
            json!({"state_revision": "s1"}),
        )
    }

    /// The document after `operations` were applied to the seeded reads.
    fn document(operations: &Value) -> Value {
        let mut nodes =
            vec![json!({"id": "reads", "operator_id": "files.import_paired", "params": {}})];
        for operation in operations.as_array().unwrap() {
            if operation["op"] == "add_operator" {
                nodes.push(json!({
                    "id": operation["node_id"], "operator_id": operation["operator_id"],
                    "params": operation.get("params").cloned().unwrap_or(json!({})),
                }));
            }
        }
        json!({"nodes": nodes, "edges": []})
    }

    fn turn(calls: Vec<FeedEvent>, edits: &[Value], reply: &str) -> Evidence {
        let mut events = calls;
        for (n, operations) in edits.iter().enumerate() {
            events.push(transaction(100 + n as u64, true, document(operations)));
        }
        let last = edits.last().map_or(json!({"nodes": []}), document);
        evidence(Scenario::Data, events, reply, last, json!({}))
    }

    const REPLY: &str = "I added GCF_000001405.40 (GRCh38.p14), NCBI RefSeq's reference genome for \
        human, as NCBI Datasets reported it on 2026-12-04; it is fetched and extracted by two steps.";

    fn status(evidence: &Evidence, id: &str) -> (Status, String) {
        let check = score(evidence).check(id).cloned().unwrap();
        (check.status, check.reason)
    }

    #[test]
    fn the_reference_recipe_applied_as_returned_and_cited_passes_every_check() {
        let ops = recipe("GCF_000001405.40");
        // Positions written as integers are the same positions.
        let as_integers: Value =
            serde_json::from_str(&ops.to_string().replace(".0,", ",").replace(".0}", "}")).unwrap();
        assert_ne!(as_integers, ops);
        let good = turn(vec![search(), apply(2, "edit", as_integers)], &[ops], REPLY);
        let score = score(&good);
        assert_eq!((score.passed, score.failed), (6, 0), "{score:#?}");
    }

    #[test]
    fn an_edited_recipe_is_not_the_providers_answer() {
        let mut edited = recipe("GCF_000001405.40");
        edited[0]["params"]["accession"] = json!("GCF_000001405.39");
        let wrong = turn(
            vec![search(), apply(2, "edit", edited.clone())],
            &[edited],
            REPLY,
        );
        let (status, reason) = status(&wrong, "recipe_applied_unchanged");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("edit"), "{reason}");
        for id in [
            "current_reference_chosen",
            "placed_in_one_edit",
            "provenance_reported",
        ] {
            assert_eq!(self::status(&wrong, id).0, Status::Fail, "{id}");
        }
        assert_eq!(self::status(&wrong, "searched_public_data").0, Status::Pass);
    }

    #[test]
    fn another_assembly_split_edits_and_an_uncited_reply_fail_their_own_checks() {
        let t2t = recipe("GCA_009914755.4");
        let other = turn(vec![search(), apply(2, "edit", t2t.clone())], &[t2t], REPLY);
        assert_eq!(status(&other, "recipe_applied_unchanged").0, Status::Pass);
        let (status, reason) = status(&other, "current_reference_chosen");
        assert_eq!(status, Status::Fail);
        assert!(reason.contains("GCA_009914755.4"), "{reason}");

        let ops = recipe("GCF_000001405.40");
        let moved = json!([{"op": "move", "node_id": "reads", "x": 1, "y": 1}]);
        let split = turn(
            vec![
                search(),
                apply(2, "edit", ops.clone()),
                apply(3, "move", moved),
            ],
            &[ops.clone(), ops.clone()],
            REPLY,
        );
        let (status, reason) = self::status(&split, "placed_in_one_edit");
        assert_eq!(status, Status::Fail);
        assert!(reason.starts_with("2 agent"), "{reason}");

        let uncited = turn(
            vec![search(), apply(2, "edit", ops.clone())],
            &[ops],
            "I added the human reference genome.",
        );
        assert_eq!(
            self::status(&uncited, "provenance_reported").0,
            Status::Fail
        );
    }

    #[test]
    fn no_search_or_a_web_lookup_fails_what_it_should() {
        let ops = recipe("GCF_000001405.40");
        let web = call_on(
            1,
            "web",
            "web",
            "search",
            json!({"query": "GRCh38 accession"}),
            "failed",
            Value::Null,
        );
        let blind = turn(vec![web, apply(2, "edit", ops.clone())], &[ops], REPLY);
        assert_eq!(status(&blind, "searched_public_data").0, Status::Fail);
        assert_eq!(status(&blind, "recipe_applied_unchanged").0, Status::Fail);
        assert_eq!(status(&blind, "no_web_research").0, Status::Fail);
    }
}
