//! GraphTransaction application: shapes, every rejection code, revisions.

use crate::common;
use crate::common::{catalog, ops, small_graph};
use serde_json::{Value, json};
use somite_workflow::ErrorCode;
use somite_workflow::canonical_state::CanonicalState;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::limits::MAX_TRANSACTION_OPERATIONS;
use somite_workflow::transaction::{
    GraphTransaction, apply_operations, apply_operations_in_id_order,
};

fn apply(
    doc: &WorkflowDocument,
    values: Vec<Value>,
) -> Result<WorkflowDocument, somite_workflow::SomiteError> {
    apply_operations(doc, &catalog(), &ops(values))
}

fn rejected(doc: &WorkflowDocument, values: Vec<Value>) -> (ErrorCode, usize) {
    let err = apply(doc, values).expect_err("the edit must be rejected");
    let index = err
        .details
        .as_ref()
        .and_then(|d| d["operation_index"].as_u64())
        .expect("the error names its operation") as usize;
    (err.code, index)
}

#[test]
fn added_operators_pin_the_catalog_revision_and_ports() {
    let cat = catalog();
    let doc = small_graph(&cat);
    let qc = doc.node("qc").unwrap();
    let entry = cat.get("qc.check").unwrap();
    assert_eq!(qc.operator_revision, entry.revision);
    assert_eq!(qc.ports, entry.contract.ports);
    assert_eq!(doc.edges.len(), 1);
    doc.validate().unwrap();
}

#[test]
fn documents_round_trip_through_json_with_identical_revisions() {
    let doc = small_graph(&catalog());
    let bytes = serde_json::to_vec(&doc).unwrap();
    let back = WorkflowDocument::from_json(&bytes).unwrap();
    assert_eq!(back, doc);
    assert_eq!(back.graph_revision(), doc.graph_revision());
    assert_eq!(back.state_revision("x"), doc.state_revision("x"));
}

#[test]
fn layout_and_notes_change_only_the_state_revision() {
    let doc = small_graph(&catalog());
    for edit in [
        json!({"op": "move", "node_id": "qc", "x": 999, "y": -5}),
        json!({"op": "add_note", "note_id": "n1", "text": "hello", "x": 1, "y": 2}),
        json!({"op": "set_title", "title": "Renamed"}),
    ] {
        let next = apply(&doc, vec![edit.clone()]).unwrap();
        assert_ne!(next.state_revision("l"), doc.state_revision("l"), "{edit}");
        assert_eq!(next.graph_revision(), doc.graph_revision(), "{edit}");
    }
}

#[test]
fn parameters_and_edges_change_both_revisions() {
    let doc = small_graph(&catalog());
    for edit in [
        json!({"op": "set_param", "node_id": "qc", "param": "threads", "value": 4}),
        json!({"op": "disconnect", "edge_id": "e1"}),
    ] {
        let next = apply(&doc, vec![edit.clone()]).unwrap();
        assert_ne!(next.state_revision("l"), doc.state_revision("l"), "{edit}");
        assert_ne!(next.graph_revision(), doc.graph_revision(), "{edit}");
    }
}

#[test]
fn the_bound_location_is_part_of_the_state_revision() {
    let doc = small_graph(&catalog());
    assert_ne!(
        doc.state_revision("a.somite.json"),
        doc.state_revision("b.somite.json")
    );
}

#[test]
fn unset_param_restores_the_default_identity() {
    let doc = small_graph(&catalog());
    let set = apply(
        &doc,
        vec![json!({"op": "set_param", "node_id": "qc", "param": "mode", "value": "thorough"})],
    )
    .unwrap();
    let unset = apply(
        &set,
        vec![json!({"op": "unset_param", "node_id": "qc", "param": "mode"})],
    )
    .unwrap();
    assert_eq!(unset.graph_revision(), doc.graph_revision());
}

#[test]
fn removing_an_operator_removes_its_edges() {
    let doc = small_graph(&catalog());
    let next = apply(
        &doc,
        vec![json!({"op": "remove_operator", "node_id": "reads"})],
    )
    .unwrap();
    assert!(next.edges.is_empty());
    assert!(next.node("reads").is_none());
}

#[test]
fn each_rejection_has_its_own_code_and_names_the_operation() {
    let doc = small_graph(&catalog());
    let ok = json!({"op": "move", "node_id": "qc", "x": 1, "y": 1});
    let cases: Vec<(Value, ErrorCode)> = vec![
        (
            json!({"op": "add_operator", "node_id": "n", "operator_id": "qc.nope", "x": 0, "y": 0}),
            ErrorCode::UnknownOperator,
        ),
        (
            json!({"op": "add_operator", "node_id": "qc", "operator_id": "qc.check", "x": 0, "y": 0}),
            ErrorCode::DuplicateId,
        ),
        (
            json!({"op": "add_note", "note_id": "e1", "text": "", "x": 0, "y": 0}),
            ErrorCode::DuplicateId,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "nope", "value": 1}),
            ErrorCode::UnknownParam,
        ),
        (
            json!({"op": "unset_param", "node_id": "qc", "param": "nope"}),
            ErrorCode::UnknownParam,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "threads", "value": "four"}),
            ErrorCode::InvalidParamType,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "threads", "value": 1.5}),
            ErrorCode::InvalidParamType,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "strict", "value": 1}),
            ErrorCode::InvalidParamType,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "threads", "value": 17}),
            ErrorCode::ParamOutOfRange,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "ratio", "value": -0.1}),
            ErrorCode::ParamOutOfRange,
        ),
        (
            json!({"op": "set_param", "node_id": "qc", "param": "mode", "value": "slow"}),
            ErrorCode::ParamOutOfRange,
        ),
        (
            json!({"op": "set_param", "node_id": "ghost", "param": "threads", "value": 2}),
            ErrorCode::UnknownNode,
        ),
        (
            json!({"op": "move", "node_id": "ghost", "x": 0, "y": 0}),
            ErrorCode::UnknownNode,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "qc", "from_port": "report", "to_node": "qc", "to_port": "mate"}),
            ErrorCode::IncompatiblePorts,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "reads", "from_port": "file", "to_node": "qc", "to_port": "fastq"}),
            ErrorCode::PortAlreadyConnected,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "qc", "from_port": "trimmed", "to_node": "qc", "to_port": "mate"}),
            ErrorCode::Cycle,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "reads", "from_port": "nope", "to_node": "qc", "to_port": "mate"}),
            ErrorCode::UnknownPort,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "reads", "from_port": "file", "to_node": "ghost", "to_port": "mate"}),
            ErrorCode::UnknownNode,
        ),
        (
            // The input is taken, but the unknown node is the first thing wrong.
            json!({"op": "connect", "edge_id": "e2", "from_node": "ghost", "from_port": "file", "to_node": "qc", "to_port": "fastq"}),
            ErrorCode::UnknownNode,
        ),
        (
            json!({"op": "connect", "edge_id": "e2", "from_node": "reads", "from_port": "nope", "to_node": "qc", "to_port": "fastq"}),
            ErrorCode::UnknownPort,
        ),
        (
            json!({"op": "disconnect", "edge_id": "nope"}),
            ErrorCode::UnknownEdge,
        ),
        (
            json!({"op": "edit_note", "note_id": "nope", "text": "x"}),
            ErrorCode::UnknownNote,
        ),
        (
            json!({"op": "remove_note", "note_id": "nope"}),
            ErrorCode::UnknownNote,
        ),
        (
            json!({"op": "add_operator", "node_id": "bad id!", "operator_id": "qc.check", "x": 0, "y": 0}),
            ErrorCode::InvalidTransaction,
        ),
    ];
    for (bad, code) in cases {
        let (got, index) = rejected(&doc, vec![ok.clone(), bad.clone()]);
        assert_eq!(got, code, "{bad}");
        assert_eq!(index, 1, "{bad}");
    }
}

#[test]
fn a_cycle_across_nodes_is_rejected() {
    let cat = catalog();
    let doc = apply(
        &small_graph(&cat),
        vec![
            json!({"op": "add_operator", "node_id": "qc2", "operator_id": "qc.check", "x": 0, "y": 0}),
            json!({"op": "connect", "edge_id": "e2", "from_node": "qc", "from_port": "trimmed", "to_node": "qc2", "to_port": "fastq"}),
        ],
    )
    .unwrap();
    let (code, index) = rejected(
        &doc,
        vec![
            json!({"op": "connect", "edge_id": "e3", "from_node": "qc2", "from_port": "trimmed", "to_node": "qc", "to_port": "mate"}),
        ],
    );
    assert_eq!((code, index), (ErrorCode::Cycle, 0));
}

#[test]
fn resource_profiles_decide_which_directories_connect() {
    let cat = catalog();
    let doc = apply(
        &WorkflowDocument::empty("t"),
        vec![
            json!({"op": "add_operator", "node_id": "folder", "operator_id": "files.folder", "x": 0, "y": 0}),
            json!({"op": "add_operator", "node_id": "db", "operator_id": "files.db", "x": 0, "y": 0}),
            json!({"op": "add_operator", "node_id": "k", "operator_id": "class.classify", "x": 0, "y": 0}),
        ],
    )
    .unwrap();
    let (code, _) = rejected(
        &doc,
        vec![
            json!({"op": "connect", "edge_id": "x", "from_node": "folder", "from_port": "dir", "to_node": "k", "to_port": "db"}),
        ],
    );
    assert_eq!(code, ErrorCode::IncompatiblePorts);
    apply_operations(&doc, &cat, &ops(vec![json!({"op": "connect", "edge_id": "x", "from_node": "db", "from_port": "db", "to_node": "k", "to_port": "db"})])).unwrap();
}

/// Finding nodes by the id order is only faster: every edit, valid or not,
/// structural or not, comes out as without it, even when the order given
/// is not the document's.
#[test]
fn an_edit_finds_its_nodes_by_id_order_with_the_same_outcome() {
    let cat = catalog();
    let mut doc = small_graph(&cat);
    for i in (0..12).rev() {
        doc = apply(
            &doc,
            vec![json!({"op": "add_operator", "node_id": format!("n{i:02}"), "operator_id": "qc.check", "x": i, "y": 0})],
        )
        .unwrap();
    }
    let state = CanonicalState::of(&doc);
    let mut reversed = state.nodes_by_id().to_vec();
    reversed.reverse();
    let edits = [
        vec![
            json!({"op": "set_param", "node_id": "n03", "param": "threads", "value": 4}),
            json!({"op": "move", "node_id": "reads", "x": 5, "y": 5}),
            json!({"op": "set_param", "node_id": "qc", "param": "threads", "value": 2}),
        ],
        vec![
            json!({"op": "move", "node_id": "n07", "x": 1, "y": 1}),
            json!({"op": "remove_operator", "node_id": "n05"}),
            json!({"op": "move", "node_id": "n11", "x": 2, "y": 2}),
            json!({"op": "add_operator", "node_id": "a00", "operator_id": "qc.check", "x": 0, "y": 9}),
            json!({"op": "set_param", "node_id": "a00", "param": "threads", "value": 3}),
        ],
        vec![
            json!({"op": "move", "node_id": "n01", "x": 1, "y": 1}),
            json!({"op": "move", "node_id": "missing", "x": 1, "y": 1}),
        ],
        vec![
            json!({"op": "move", "node_id": "n05", "x": 0, "y": 0}),
            json!({"op": "remove_operator", "node_id": "n00"}),
            json!({"op": "move", "node_id": "n00", "x": 0, "y": 0}),
        ],
    ];
    for values in edits {
        let operations = ops(values);
        let plain = apply_operations(&doc, &cat, &operations);
        for order in [state.nodes_by_id(), &reversed[..], &[][..]] {
            let hinted = apply_operations_in_id_order(&doc, order, &cat, &operations);
            match (&plain, hinted) {
                (Ok(a), Ok(b)) => assert_eq!(a.canonical_json(), b.canonical_json()),
                (Err(a), Err(b)) => assert_eq!((a.code, &a.details), (b.code, &b.details)),
                (a, b) => panic!("{operations:?}: {a:?} against {b:?}"),
            }
        }
    }
}

#[test]
fn a_failed_transaction_leaves_the_document_untouched() {
    let doc = small_graph(&catalog());
    let before = doc.clone();
    let _ = apply(
        &doc,
        vec![
            json!({"op": "remove_operator", "node_id": "qc"}),
            json!({"op": "disconnect", "edge_id": "nope"}),
        ],
    );
    assert_eq!(doc, before);
}

fn parse(value: Value) -> Result<GraphTransaction, somite_workflow::SomiteError> {
    GraphTransaction::from_json(&serde_json::to_vec(&value).unwrap())
}

#[test]
fn the_envelope_and_operation_shapes_are_closed() {
    let base = json!({"base_state_revision": "blake3:00", "idempotency_key": "edit-0001", "summary": "s", "operations": []});
    let mut extra = base.clone();
    extra["surprise"] = json!(1);
    assert_eq!(
        parse(extra).unwrap_err().code,
        ErrorCode::InvalidTransaction
    );
    let mut unknown_op = base.clone();
    unknown_op["operations"] = json!([{"op": "explode"}]);
    assert_eq!(
        parse(unknown_op).unwrap_err().code,
        ErrorCode::InvalidTransaction
    );
    let mut extra_field = base.clone();
    extra_field["operations"] = json!([{"op": "move", "node_id": "a", "x": 1, "y": 2, "z": 3}]);
    assert_eq!(
        parse(extra_field).unwrap_err().code,
        ErrorCode::InvalidTransaction
    );
    let mut missing = base;
    missing["operations"] = json!([{"op": "move", "node_id": "a"}]);
    assert_eq!(
        parse(missing).unwrap_err().code,
        ErrorCode::InvalidTransaction
    );
}

#[test]
fn the_envelope_is_checked_before_the_operations() {
    let doc = small_graph(&catalog());
    let mv = json!({"op": "move", "node_id": "qc", "x": 1, "y": 1});
    let empty = common::txn(&doc, "edit-0001", vec![]);
    assert_eq!(
        empty.check_envelope().unwrap_err().code,
        ErrorCode::InvalidTransaction
    );
    for key in ["short", "has space!", &"k".repeat(129)] {
        let t = common::txn(&doc, key, vec![mv.clone()]);
        assert_eq!(
            t.check_envelope().unwrap_err().code,
            ErrorCode::InvalidTransaction,
            "{key}"
        );
    }
    let at_limit = common::txn(
        &doc,
        "edit-0001",
        vec![mv.clone(); MAX_TRANSACTION_OPERATIONS],
    );
    at_limit.check_envelope().unwrap();
    let over = common::txn(&doc, "edit-0001", vec![mv; MAX_TRANSACTION_OPERATIONS + 1]);
    assert_eq!(
        over.check_envelope().unwrap_err().code,
        ErrorCode::TooManyOperations
    );
}

#[test]
fn the_specification_example_parses() {
    let example = json!({
      "base_state_revision": "blake3:...",
      "idempotency_key": "edit-018f...",
      "summary": "Add reads and quality control",
      "operations": [
        {"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "params": {"path": "reads.fastq"}, "x": 80, "y": 120},
        {"op": "connect", "edge_id": "reads-to-qc", "from_node": "reads", "from_port": "file", "to_node": "qc", "to_port": "fastq"}
      ]
    });
    let txn = parse(example).unwrap();
    assert_eq!(txn.operations.len(), 2);
}

#[test]
fn documents_with_broken_invariants_are_refused_on_open() {
    let doc = small_graph(&catalog());
    let mut dangling = serde_json::to_value(&doc).unwrap();
    dangling["edges"][0]["to_port"] = json!("nope");
    let err = WorkflowDocument::from_json(&serde_json::to_vec(&dangling).unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownPort);
    let mut dup = serde_json::to_value(&doc).unwrap();
    dup["edges"][0]["id"] = json!("qc");
    let err = WorkflowDocument::from_json(&serde_json::to_vec(&dup).unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::DuplicateId);
    let err = WorkflowDocument::from_json(b"{\"schema_version\": 1}").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidDocument);
}

#[test]
fn ids_that_are_not_one_safe_path_component_are_refused() {
    let doc = small_graph(&catalog());
    for id in [".", ".."] {
        for bad in [
            json!({"op": "add_operator", "node_id": id, "operator_id": "qc.check", "x": 0, "y": 0}),
            json!({"op": "add_note", "note_id": id, "text": "", "x": 0, "y": 0}),
            json!({"op": "connect", "edge_id": id, "from_node": "qc", "from_port": "trimmed", "to_node": "qc", "to_port": "mate"}),
        ] {
            assert_eq!(
                rejected(&doc, vec![bad.clone()]),
                (ErrorCode::InvalidTransaction, 0),
                "{bad}"
            );
        }
        for (collection, index) in [("nodes", 0), ("edges", 0), ("notes", usize::MAX)] {
            let mut value = serde_json::to_value(&doc).unwrap();
            if index == usize::MAX {
                value[collection] = json!([{"id": id, "text": "", "x": 0, "y": 0}]);
            } else {
                value[collection][index]["id"] = json!(id);
            }
            let err = WorkflowDocument::from_json(&serde_json::to_vec(&value).unwrap())
                .expect_err("the id is refused on import");
            assert_eq!(err.code, ErrorCode::InvalidTransaction, "{collection} {id}");
            assert!(err.message.contains("not a valid id"), "{}", err.message);
        }
    }
    // Dots inside an id stay allowed: `sample.1` names one folder.
    apply(
        &doc,
        vec![json!({"op": "add_operator", "node_id": "sample.1", "operator_id": "qc.check", "x": 0, "y": 0})],
    )
    .unwrap();
}

#[test]
fn import_paths_nextflow_would_not_stage_literally_are_refused() {
    let doc = small_graph(&catalog());
    for path in [
        "data/a\nb.fq",
        "data/a.fq\n",
        "data/a\tb.fq",
        "data/\u{1b}[31m.fq",
        "data/a\u{7f}.fq",
        "data/a\0.fq",
        "data/${HOME}.fq",
        "data/$(touch pwned).fq",
        "data/*.fq",
        "data/a?.fq",
        "data/a[12].fq",
        "data/a{1,2}.fq",
    ] {
        let set = json!({"op": "set_param", "node_id": "reads", "param": "path", "value": path});
        assert_eq!(
            rejected(&doc, vec![set]),
            (ErrorCode::ParamOutOfRange, 0),
            "{path:?}"
        );
        // A stored document with a control character in a path is invalid;
        // one with an expansion or glob character opens, and its readiness
        // (tests/it/assessment.rs) blocks the run until the file is chosen again.
        let mut value = serde_json::to_value(&doc).unwrap();
        value["nodes"][0]["params"]["path"] = json!(path);
        assert_eq!(value["nodes"][0]["id"], "reads");
        let imported = WorkflowDocument::from_json(&serde_json::to_vec(&value).unwrap());
        if path.chars().any(char::is_control) {
            let err = imported.expect_err("the path is refused on import");
            assert_eq!(err.code, ErrorCode::InvalidDocument, "{path:?}");
        } else {
            imported.unwrap_or_else(|e| panic!("{path:?} opens: {e:?}"));
        }
    }
    // What Nextflow escapes, or what bash keeps literal, stays allowed.
    for path in [
        "data/it's a \"sample\" (1); `x` & y | z.fq",
        "data/\\back\\slash.fq",
        "/home/µ/测序/#1 ~x.fq",
        "data/trailing spaces  ",
    ] {
        let set = json!({"op": "set_param", "node_id": "reads", "param": "path", "value": path});
        let next = apply(&doc, vec![set]).unwrap_or_else(|e| panic!("{path:?}: {e:?}"));
        WorkflowDocument::from_json(&serde_json::to_vec(&next).unwrap()).unwrap();
    }
}

#[test]
fn a_nul_in_a_string_parameter_is_refused_on_edit_and_on_import() {
    let doc = small_graph(&catalog());
    let mut value = serde_json::to_value(&doc).unwrap();
    let qc = value["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["id"] == "qc")
        .unwrap();
    qc["params"]["mode"] = json!("fast\0");
    let err = WorkflowDocument::from_json(&serde_json::to_vec(&value).unwrap()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidDocument);
    assert!(err.message.contains("NUL"), "{}", err.message);
}

/// A long transaction finds its nodes through an index built after a few
/// lookups and dropped whenever nodes are added or removed: every
/// operation still reaches its own node, and an unknown one is named at
/// its index.
#[test]
fn many_operations_reach_their_nodes_across_additions_and_removals() {
    let mut values = Vec::new();
    for i in 0..12 {
        values.push(json!({"op": "add_operator", "node_id": format!("q{i}"), "operator_id": "qc.check", "x": i, "y": 0}));
    }
    for round in 0..3 {
        for i in 0..12 {
            values.push(json!({"op": "set_param", "node_id": format!("q{i}"), "param": "threads", "value": 1 + (i + round) % 4}));
            values.push(
                json!({"op": "move", "node_id": format!("q{i}"), "x": i * 10 + round, "y": round}),
            );
        }
        // The nodes after the removed one move up; the one added goes last.
        values.push(json!({"op": "remove_operator", "node_id": format!("q{round}")}));
        values.push(json!({"op": "add_operator", "node_id": format!("q{round}"), "operator_id": "qc.check", "x": -1, "y": -1}));
    }
    values.push(json!({"op": "unset_param", "node_id": "q7", "param": "threads"}));
    let doc = apply(&WorkflowDocument::empty("t"), values.clone()).unwrap();
    for i in 0..12 {
        let node = doc.node(&format!("q{i}")).unwrap();
        let expected = match i {
            // Removed and added again by the last round, after its edits.
            2 => (-1.0, -1.0, None),
            7 => (72.0, 2.0, None),
            _ => ((i * 10 + 2) as f64, 2.0, Some(json!(1 + (i + 2) % 4))),
        };
        assert_eq!(
            (node.x, node.y, node.params.get("threads").cloned()),
            expected,
            "q{i}"
        );
    }
    values.push(json!({"op": "set_param", "node_id": "q99", "param": "threads", "value": 2}));
    let last = values.len() - 1;
    assert_eq!(
        rejected(&WorkflowDocument::empty("t"), values),
        (ErrorCode::UnknownNode, last)
    );
}
