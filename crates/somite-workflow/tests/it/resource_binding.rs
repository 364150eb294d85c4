//! A Kraken2 database bound to an installed managed resource
//! (`somite-resource:<provider>@<release>`): readiness from the facts the
//! caller found (verified, missing, changed), and the compile that puts the
//! verified folder in `params.json` and the identity in `run-closure.json`.

use serde_json::{Value, json};
use somite_workflow::Catalog;
use somite_workflow::assessment::{AssessmentState, InputProbe, ItemKind, assess};
use somite_workflow::compile::{compile, compile_bound};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::resource::{BoundResources, ResolvedResource, ResourceFinding};
use somite_workflow::transaction::{Operation, apply_operations};

const REFERENCE: &str = "somite-resource:test_kraken2_tiny@test-1";

fn resolved() -> ResolvedResource {
    ResolvedResource {
        reference: REFERENCE.into(),
        provider_id: "test_kraken2_tiny".into(),
        release: "test-1".into(),
        profile: "kraken2-database".into(),
        path: "/store/test_kraken2_tiny/test-1".into(),
        checksum: format!("sha256:{}", "ab".repeat(32)),
        tree_digest: format!("blake3:{}", "cd".repeat(32)),
    }
}

/// Every file exists; the reference resolves to `finding`.
struct Probe(Option<ResourceFinding>);

impl InputProbe for Probe {
    fn exists(&self, _path: &str) -> bool {
        true
    }
    fn resource(&self, reference: &str) -> Option<ResourceFinding> {
        assert_eq!(reference, REFERENCE);
        self.0.clone()
    }
}

fn graph(catalog: &Catalog) -> WorkflowDocument {
    let ops: Vec<Operation> = [
        json!({"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "params": {"path": "reads.fastq"}, "x": 0, "y": 0}),
        json!({"op": "add_operator", "node_id": "db", "operator_id": "files.import_kraken2_database", "params": {"path": REFERENCE}, "x": 0, "y": 200}),
        json!({"op": "add_operator", "node_id": "classify", "operator_id": "class.kraken2", "x": 300, "y": 0}),
        json!({"op": "connect", "edge_id": "e1", "from_node": "reads", "from_port": "file", "to_node": "classify", "to_port": "r1"}),
        json!({"op": "connect", "edge_id": "e2", "from_node": "db", "from_port": "db", "to_node": "classify", "to_port": "db"}),
    ]
    .into_iter()
    .map(|v| serde_json::from_value(v).unwrap())
    .collect();
    apply_operations(&WorkflowDocument::empty("t"), catalog, &ops).unwrap()
}

#[test]
fn a_verified_resource_meets_the_input_and_a_missing_or_changed_one_is_a_requirement() {
    let catalog = Catalog::builtin().unwrap();
    let doc = graph(&catalog);
    let ready = assess(
        &doc,
        &catalog,
        &Probe(Some(ResourceFinding::Verified(resolved()))),
    );
    assert_eq!(ready.state, AssessmentState::Ready, "{:#?}", ready.items);

    let code = "resource_reference_invalid".to_owned();
    for (finding, title) in [
        (
            Some(ResourceFinding::Missing {
                code: code.clone(),
                detail: "it is not in the store".into(),
            }),
            "is not installed",
        ),
        (
            Some(ResourceFinding::Tampered {
                code: code.clone(),
                detail: "its files no longer match".into(),
            }),
            "changed since it was installed",
        ),
        (None, "cannot be resolved here"),
    ] {
        let a = assess(&doc, &catalog, &Probe(finding));
        assert_eq!(a.state, AssessmentState::NeedsAction);
        let item = a.items.iter().find(|i| i.required).unwrap();
        assert_eq!(item.kind, ItemKind::ManagedResource);
        assert_eq!(item.id, "managed_resource:db:path");
        assert!(item.title.contains(title), "{}", item.title);
        assert_eq!(item.evidence.file.as_ref().unwrap().path, REFERENCE);
        assert!(!item.resolutions.is_empty());
        if title != "cannot be resolved here" {
            assert!(item.detail.contains(&code), "{}", item.detail);
        }
    }

    let mut wrong = resolved();
    wrong.profile = "other-database".into();
    let a = assess(
        &doc,
        &catalog,
        &Probe(Some(ResourceFinding::Verified(wrong))),
    );
    assert!(a.items[0].title.contains("wrong kind"), "{:#?}", a.items);
}

#[test]
fn the_compile_uses_the_verified_folder_and_records_the_resource() {
    let catalog = Catalog::builtin().unwrap();
    let doc = graph(&catalog);
    let assessment = assess(
        &doc,
        &catalog,
        &Probe(Some(ResourceFinding::Verified(resolved()))),
    );
    // Without the resolved resource, the reference is never staged as a path.
    let refused = compile(&doc, &catalog, &assessment).unwrap_err();
    assert_eq!(refused.details.unwrap()["reference"], json!(REFERENCE));

    let bound: BoundResources = [(REFERENCE.to_owned(), resolved())].into();
    let package = compile_bound(&doc, &catalog, &assessment, &bound).unwrap();
    let params: Value =
        serde_json::from_slice(&package.file("params.json").unwrap().bytes).unwrap();
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("bound_resource_params", params);
    });
    let closure = serde_json::to_value(package.run_closure()).unwrap();
    assert_eq!(
        closure["resources"],
        json!([{
            "node_id": "db",
            "param": "path",
            "reference": REFERENCE,
            "provider_id": "test_kraken2_tiny",
            "release": "test-1",
            "profile": "kraken2-database",
            "checksum": format!("sha256:{}", "ab".repeat(32)),
            "tree_digest": format!("blake3:{}", "cd".repeat(32)),
        }])
    );
    // The semantic document keeps the reference, not the machine's folder.
    let document =
        String::from_utf8(package.file("workflow.somite.json").unwrap().bytes.clone()).unwrap();
    assert!(document.contains(REFERENCE) && !document.contains("/store/"));
    package.run_closure().validate().unwrap();
}
