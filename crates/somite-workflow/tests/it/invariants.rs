//! Property tests: whatever sequence of operations is thrown at a document,
//! every accepted result satisfies every invariant, and every rejected one
//! changes nothing.

use crate::common;
use proptest::prelude::*;
use serde_json::{Value, json};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::{Operation, apply_operations};

const NODE_IDS: &[&str] = &["n0", "n1", "n2", "n3", "n4"];
const EDGE_IDS: &[&str] = &["e0", "e1", "e2", "e3", "e4", "n0"];
const OPERATORS: &[&str] = &[
    "files.reads",
    "files.pair",
    "files.db",
    "qc.check",
    "class.classify",
    "qc.missing",
];
const OUT_PORTS: &[&str] = &["file", "r1", "r2", "db", "report", "trimmed", "dir"];
const IN_PORTS: &[&str] = &["fastq", "mate", "reads", "db", "nope"];
const PARAMS: &[&str] = &["threads", "mode", "path", "sample", "ratio", "strict"];

fn pick(items: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(items).prop_map(str::to_owned)
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..40).prop_map(|n| json!(n)),
        (-1.0f64..2.0).prop_map(|f| json!(f)),
        any::<bool>().prop_map(|b| json!(b)),
        prop::sample::select(&["fast", "thorough", "r.fq", "", "x"][..]).prop_map(|s| json!(s)),
    ]
}

fn operation() -> impl Strategy<Value = Operation> {
    let op = prop_oneof![
        3 => (pick(NODE_IDS), pick(OPERATORS), -500.0f64..500.0, -500.0f64..500.0)
            .prop_map(|(n, o, x, y)| json!({"op": "add_operator", "node_id": n, "operator_id": o, "x": x, "y": y})),
        1 => pick(NODE_IDS).prop_map(|n| json!({"op": "remove_operator", "node_id": n})),
        2 => (pick(NODE_IDS), pick(PARAMS), value())
            .prop_map(|(n, p, v)| json!({"op": "set_param", "node_id": n, "param": p, "value": v})),
        1 => (pick(NODE_IDS), pick(PARAMS)).prop_map(|(n, p)| json!({"op": "unset_param", "node_id": n, "param": p})),
        4 => (pick(EDGE_IDS), pick(NODE_IDS), pick(OUT_PORTS), pick(NODE_IDS), pick(IN_PORTS))
            .prop_map(|(e, a, ap, b, bp)| json!({"op": "connect", "edge_id": e, "from_node": a, "from_port": ap, "to_node": b, "to_port": bp})),
        1 => pick(EDGE_IDS).prop_map(|e| json!({"op": "disconnect", "edge_id": e})),
        2 => (pick(NODE_IDS), -500.0f64..500.0, -500.0f64..500.0)
            .prop_map(|(n, x, y)| json!({"op": "move", "node_id": n, "x": x, "y": y})),
        1 => (pick(&["note0", "note1", "n1"]), ".{0,20}").prop_map(|(n, t)| json!({"op": "add_note", "note_id": n, "text": t, "x": 0, "y": 0})),
        1 => (pick(&["note0", "note1"]), ".{0,20}").prop_map(|(n, t)| json!({"op": "edit_note", "note_id": n, "text": t})),
        1 => pick(&["note0", "note1"]).prop_map(|n| json!({"op": "remove_note", "note_id": n})),
    ];
    op.prop_map(|v| serde_json::from_value(v).expect("generated operations are well-formed"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn accepted_edits_keep_every_invariant_and_rejected_ones_change_nothing(
        batches in prop::collection::vec(prop::collection::vec(operation(), 1..4), 1..24)
    ) {
        let catalog = common::catalog();
        let mut doc = WorkflowDocument::empty("prop");
        for batch in batches {
            let before = doc.clone();
            match apply_operations(&doc, &catalog, &batch) {
                Ok(next) => {
                    next.validate().expect("an accepted result is valid");
                    prop_assert!(next.topological_order().is_ok());
                    let bytes = serde_json::to_vec(&next).unwrap();
                    let back = WorkflowDocument::from_json(&bytes).expect("an accepted result round-trips");
                    prop_assert_eq!(back.graph_revision(), next.graph_revision());
                    prop_assert_eq!(back.state_revision("l"), next.state_revision("l"));
                    for e in &next.edges {
                        let inputs = next.edges.iter().filter(|o| o.to_node == e.to_node && o.to_port == e.to_port).count();
                        prop_assert_eq!(inputs, 1);
                    }
                    let only_layout = batch.iter().all(|op| matches!(op, Operation::Move { .. } | Operation::AddNote { .. } | Operation::EditNote { .. } | Operation::RemoveNote { .. }));
                    if only_layout {
                        prop_assert_eq!(next.graph_revision(), before.graph_revision());
                    }
                    doc = next;
                }
                Err(error) => {
                    prop_assert_eq!(&doc, &before);
                    let index = error.details.as_ref().and_then(|d| d.get("operation_index")).and_then(Value::as_u64);
                    prop_assert!(index.is_some_and(|i| (i as usize) < batch.len()), "{:?}", error);
                }
            }
        }
    }
}
