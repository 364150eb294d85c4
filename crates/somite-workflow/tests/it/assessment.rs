//! The Workflow assessment: ordering, resolutions, escalation and gating.

use crate::common;
use serde_json::json;
use somite_workflow::ErrorCode;
use somite_workflow::assessment::{
    AssessmentState, ControlKind, FileEvidence, ItemKind, ResolutionKind, Support, assess,
};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::apply_operations;

fn all_exist(_: &str) -> bool {
    true
}

fn none_exist(_: &str) -> bool {
    false
}

#[test]
fn an_empty_graph_is_empty_and_gated() {
    let catalog = common::catalog();
    let a = assess(&WorkflowDocument::empty("t"), &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::Empty);
    assert_eq!(
        a.gate("compile").unwrap_err().code,
        ErrorCode::WorkflowNotReady
    );
}

#[test]
fn a_complete_graph_is_ready_and_bound_to_its_revision() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let a = assess(&doc, &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::Ready, "{:#?}", a.items);
    assert_eq!(a.graph_revision, doc.graph_revision());
    assert_eq!(a.catalog_revision, *catalog.revision());
    a.gate("run").unwrap();
}

#[test]
fn a_missing_file_is_an_input_requirement_with_an_attach_resolution() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let a = assess(&doc, &catalog, &none_exist);
    assert_eq!(a.state, AssessmentState::NeedsAction);
    let item = &a.items[0];
    assert_eq!(
        (item.kind, item.node_id.as_deref(), item.field.as_deref()),
        (ItemKind::Input, Some("reads"), Some("path"))
    );
    assert!(!item.escalatable);
    assert_eq!(item.resolutions[0].kind, ResolutionKind::Attach);
    let node = a.nodes.iter().find(|n| n.node_id == "reads").unwrap();
    assert_eq!(node.badges.missing_inputs, 1);
    assert_eq!(node.input_controls[0].control, ControlKind::File);
    let err = a.gate("validate").unwrap_err();
    assert_eq!(err.details.unwrap()["next_requirement"], json!(item.id));
}

#[test]
fn a_path_nextflow_would_not_stage_literally_blocks_like_a_missing_file() {
    let catalog = common::catalog();
    let mut value = serde_json::to_value(common::small_graph(&catalog)).unwrap();
    value["nodes"][0]["params"]["path"] = json!("data/${HOME}/a[1].fq");
    let doc = WorkflowDocument::from_json(&serde_json::to_vec(&value).unwrap()).unwrap();
    let a = assess(&doc, &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::NeedsAction);
    let item = &a.items[0];
    assert_eq!(
        (item.kind, item.node_id.as_deref(), item.field.as_deref()),
        (ItemKind::Input, Some("reads"), Some("path"))
    );
    assert!(item.required);
    assert!(item.detail.contains("`$`"), "{}", item.detail);
    assert_eq!(item.resolutions[0].kind, ResolutionKind::Attach);
    a.gate("compile").unwrap_err();
}

#[test]
fn requirements_are_ordered_by_priority_then_node() {
    let catalog = common::catalog();
    let doc = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![
            json!({"op": "add_operator", "node_id": "a_reads", "operator_id": "files.reads", "x": 0, "y": 0}),
            json!({"op": "add_operator", "node_id": "k", "operator_id": "class.classify", "x": 0, "y": 0}),
            json!({"op": "connect", "edge_id": "e", "from_node": "a_reads", "from_port": "file", "to_node": "k", "to_port": "reads"}),
        ]),
    )
    .unwrap();
    let a = assess(&doc, &catalog, &all_exist);
    let kinds: Vec<_> = a
        .items
        .iter()
        .map(|i| (i.kind, i.node_id.clone().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (ItemKind::Parameter, "k".to_owned()),
            (ItemKind::Input, "a_reads".to_owned()),
            (ItemKind::ManagedResource, "k".to_owned()),
        ]
    );
    assert_eq!(a.next_requirement.as_ref(), Some(&a.items[0].id));
    assert_eq!(a.required_count, 3);
}

#[test]
fn a_missing_database_is_a_typed_escalatable_resource_with_recipes() {
    let catalog = common::catalog();
    let doc = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![
            json!({"op": "add_operator", "node_id": "k", "operator_id": "class.classify", "params": {"sample": "s1"}, "x": 0, "y": 0}),
        ]),
    )
    .unwrap();
    let a = assess(&doc, &catalog, &all_exist);
    let db = a
        .items
        .iter()
        .find(|i| i.kind == ItemKind::ManagedResource)
        .unwrap();
    assert_eq!(db.field.as_deref(), Some("db"));
    assert!(db.escalatable);
    let download = db
        .resolutions
        .iter()
        .find(|r| r.kind == ResolutionKind::Download)
        .unwrap();
    assert!(
        download.recommended
            && download.download_bytes.is_some()
            && download.scientific_effect.is_some()
    );
    assert!(
        db.resolutions
            .iter()
            .any(|r| r.kind == ResolutionKind::Connect
                && r.operator_id.as_deref() == Some("files.db"))
    );
    assert!(
        !db.resolutions
            .iter()
            .any(|r| r.operator_id.as_deref() == Some("files.folder")),
        "a plain folder lacks the profile"
    );
    assert_eq!(db.recipes[0].id, "standard-8@2024-09-04");
    // File and connection work is never escalated.
    let reads = a
        .items
        .iter()
        .find(|i| i.field.as_deref() == Some("reads"))
        .unwrap();
    assert!(!reads.escalatable);
}

#[test]
fn a_node_whose_contract_left_the_catalog_is_unsupported() {
    let catalog = common::catalog();
    let mut doc = common::small_graph(&catalog);
    std::sync::Arc::make_mut(&mut doc.nodes[1]).operator_revision =
        format!("blake3:{}", "0".repeat(64));
    let a = assess(&doc, &catalog, &all_exist);
    let node = a.nodes.iter().find(|n| n.node_id == "qc").unwrap();
    assert_eq!(node.support, Support::UnsupportedContract);
    assert!(
        a.items
            .iter()
            .any(|i| i.kind == ItemKind::LegacyTool && i.required)
    );
}

#[test]
fn inputs_alone_are_building() {
    let catalog = common::catalog();
    let doc = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![json!({"op": "add_operator", "node_id": "r", "operator_id": "files.reads", "params": {"path": "x"}, "x": 0, "y": 0})]),
    )
    .unwrap();
    assert_eq!(
        assess(&doc, &catalog, &all_exist).state,
        AssessmentState::Building
    );
}

#[test]
fn toolchain_items_inform_without_blocking() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let mut a = assess(&doc, &catalog, &all_exist);
    a.add_toolchain_item("pixi", "pixi is not on PATH", "install Pixi 0.77");
    assert_eq!(a.counts[&ItemKind::Toolchain], 1);
    a.gate("compile").unwrap();
}

#[test]
fn the_assessment_is_deterministic() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let a = serde_json::to_string(&assess(&doc, &catalog, &none_exist)).unwrap();
    let b = serde_json::to_string(&assess(&doc, &catalog, &none_exist)).unwrap();
    assert_eq!(a, b);
}

/// The 1-based line of the `occurrence`-th line of test contract `id` that
/// starts with `starts_with`: the expectation is read off the text itself.
fn line_of(id: &str, starts_with: &str, occurrence: usize) -> u32 {
    let text = common::CONTRACTS
        .iter()
        .find(|t| t.contains(&format!("id = \"{id}\"")))
        .unwrap();
    let index = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with(starts_with))
        .nth(occurrence)
        .unwrap()
        .0;
    u32::try_from(index).unwrap() + 1
}

fn classify_alone() -> (somite_workflow::Catalog, WorkflowDocument) {
    let catalog = common::catalog();
    let doc = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![
            json!({"op": "add_operator", "node_id": "k", "operator_id": "class.classify", "x": 0, "y": 0}),
        ]),
    )
    .unwrap();
    (catalog, doc)
}

#[test]
fn each_requirement_cites_the_contract_field_and_line_it_came_from() {
    let (catalog, doc) = classify_alone();
    let revision = &catalog.get("class.classify").unwrap().revision;
    let a = assess(&doc, &catalog, &all_exist);
    let cited = |kind: ItemKind| {
        let item = a.items.iter().find(|i| i.kind == kind).unwrap();
        let contract = item.evidence.contract.as_ref().unwrap();
        assert_eq!(contract.operator_id, "class.classify");
        assert_eq!(&contract.operator_revision, revision);
        let source = contract.source.as_ref().unwrap();
        assert_eq!(source.file, "test/class.classify.toml");
        let graph = item.evidence.graph.as_ref().unwrap();
        assert_eq!(graph.node_id, "k");
        (
            contract.field.as_str(),
            source.line.unwrap(),
            graph.port.as_deref(),
            graph.param.as_deref(),
        )
    };
    assert_eq!(
        cited(ItemKind::Parameter),
        (
            "params[0].required",
            line_of("class.classify", "required = true", 0),
            None,
            Some("sample")
        )
    );
    assert_eq!(
        cited(ItemKind::ManagedResource),
        (
            "ports.in[1].resource",
            line_of("class.classify", "[ports.in.resource]", 0),
            Some("db"),
            None
        )
    );
    assert_eq!(
        cited(ItemKind::Input),
        (
            "ports.in[0]",
            line_of("class.classify", "[[ports.in]]", 0),
            Some("reads"),
            None
        )
    );
}

#[test]
fn a_missing_input_file_names_the_path_checked_and_the_import_it_feeds() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let a = assess(&doc, &catalog, &none_exist);
    let item = &a.items[0];
    let contract = item.evidence.contract.as_ref().unwrap();
    assert_eq!(contract.field, "ports.out[0].import_param");
    assert_eq!(
        contract.source.as_ref().unwrap().line,
        Some(line_of("files.reads", "import_param", 0))
    );
    let graph = item.evidence.graph.as_ref().unwrap();
    assert_eq!(
        (graph.node_id.as_str(), graph.param.as_deref()),
        ("reads", Some("path"))
    );
    let file = item.evidence.file.as_ref().unwrap();
    assert_eq!((file.path.as_str(), file.found), ("r.fastq", false));
    assert_eq!(
        file.recorded_digest, None,
        "inputs carry no recorded digest"
    );
}

#[test]
fn an_unsupported_node_shows_its_pinned_revision_against_the_catalogs() {
    let catalog = common::catalog();
    let mut doc = common::small_graph(&catalog);
    let pinned = format!("blake3:{}", "0".repeat(64));
    std::sync::Arc::make_mut(&mut doc.nodes[1]).operator_revision = pinned.clone();
    let a = assess(&doc, &catalog, &all_exist);
    let item = a
        .items
        .iter()
        .find(|i| i.kind == ItemKind::LegacyTool)
        .unwrap();
    let graph = item.evidence.graph.as_ref().unwrap();
    assert_eq!(graph.pinned_revision.as_deref(), Some(pinned.as_str()));
    let contract = item.evidence.contract.as_ref().unwrap();
    assert_eq!(
        contract.operator_revision,
        catalog.get("qc.check").unwrap().revision
    );
    assert_eq!(contract.field, "id");
}

#[test]
fn an_unbound_graph_file_comes_first_with_both_digests() {
    let catalog = common::catalog();
    let doc = common::small_graph(&catalog);
    let mut a = assess(&doc, &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::Ready);
    let recorded = format!("blake3:{}", "1".repeat(64));
    let found = format!("blake3:{}", "2".repeat(64));
    a.add_input_origin_item(
        "the graph on disk is not the one its sidecar recorded",
        FileEvidence {
            path: common::LOCATION.to_owned(),
            found: true,
            recorded_digest: Some(recorded.clone()),
            found_digest: Some(found.clone()),
            recorded_location: None,
        },
    );
    assert_eq!(a.state, AssessmentState::NeedsAction);
    assert_eq!(a.required_count, 1);
    let item = &a.items[0];
    assert_eq!(item.kind, ItemKind::InputOrigin);
    assert_eq!(a.next_requirement.as_ref(), Some(&item.id));
    assert_eq!(
        item.evidence.lines(),
        vec![format!(
            "file {} found; recorded {recorded}, found {found}",
            common::LOCATION
        )]
    );
    assert_eq!(
        a.gate("run").unwrap_err().details.unwrap()["next_requirement"],
        json!(item.id)
    );
}

#[test]
fn the_assessment_json_carries_each_requirements_evidence() {
    let (catalog, doc) = classify_alone();
    let mut a = serde_json::to_value(assess(&doc, &catalog, &all_exist)).unwrap();
    // Revisions change with any test contract; the snapshot pins the shape.
    for item in a["items"].as_array_mut().unwrap() {
        item["evidence"]["contract"]["operator_revision"] = json!("[revision]");
    }
    // Sorted: serde_json's key order depends on the build's features.
    insta::with_settings!({ sort_maps => true }, {
        insta::assert_json_snapshot!("assessment_with_evidence", a["items"]);
    });
}

/// A download node is an input that needs the network: an informative item
/// that names the node and does not block, so the graph is still ready.
#[test]
fn a_download_node_is_an_input_that_needs_the_network() {
    let catalog = somite_workflow::Catalog::builtin().unwrap();
    let doc = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![json!({"op": "add_operator", "node_id": "reference",
            "operator_id": "ensembl.fasta",
            "params": {"release": 114, "species": "homo_sapiens", "file_species": "Homo_sapiens",
                       "assembly": "GRCh38"},
            "x": 0, "y": 0})]),
    )
    .unwrap();
    let a = assess(&doc, &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::Ready, "{:#?}", a.items);
    let item = a
        .items
        .iter()
        .find(|i| i.id == "input:reference:network")
        .unwrap_or_else(|| panic!("{:#?}", a.items));
    assert_eq!(item.kind, ItemKind::Input);
    assert!(!item.required);
    let evidence = item.evidence.contract.as_ref().unwrap();
    assert_eq!(
        (evidence.operator_id.as_str(), evidence.field.as_str()),
        ("ensembl.fasta", "network")
    );
    a.gate("run").unwrap();

    // Without its required parameters it blocks like any other node.
    let bare = apply_operations(
        &WorkflowDocument::empty("t"),
        &catalog,
        &common::ops(vec![json!({"op": "add_operator", "node_id": "reference",
            "operator_id": "ensembl.fasta", "x": 0, "y": 0})]),
    )
    .unwrap();
    let a = assess(&bare, &catalog, &all_exist);
    assert_eq!(a.state, AssessmentState::NeedsAction);
    assert_eq!(a.required_count, 4, "{:#?}", a.items);
}
