//! Every source recipe the search produces applies, as one ordinary graph
//! transaction, to an empty project with the built-in catalog, and promises
//! exactly the port types the catalog's contracts give.

use super::{harness, request};
use somite_data::SearchRequest;
use somite_data::model::{Recipe, SearchKind};
use somite_project::{Project, Seed};
use somite_workflow::assessment::ItemKind;
use somite_workflow::transaction::GraphTransaction;
use std::collections::BTreeSet;

/// The recipes of every answer the stand-ins let the search give: paired
/// and single-end reads, NCBI assemblies with and without annotation,
/// Ensembl's FASTA and GTF, and genes and organisms (which have none).
async fn every_recipe() -> Vec<(String, Recipe)> {
    let h = harness(|_| {}).await;
    let mut requests = vec![
        request("SRR1553607", None),
        request("GCF_000001405.40", Some(SearchKind::Accession)),
        request("ENSG00000157764", None),
        request("GeneID:672", None),
        request("txid9606", None),
    ];
    for query in ["PRJNA257197", "human"] {
        let kind = (query == "human").then_some(SearchKind::Assembly);
        let mut page = request(query, kind);
        page.limit = Some(1);
        requests.push(page);
    }
    let mut recipes = Vec::new();
    let mut pending = requests;
    while let Some(next) = pending.pop() {
        let answer = h.search.search(&next).await.unwrap();
        if let Some(cursor) = answer.next_cursor.clone() {
            pending.push(SearchRequest {
                cursor: Some(cursor),
                ..next.clone()
            });
        }
        for result in answer.results {
            if let Some(recipe) = result.recipe {
                recipes.push((result.id, recipe));
            }
        }
    }
    recipes
}

#[tokio::test]
async fn every_recipe_applies_to_the_builtin_catalog_with_the_port_types_it_promises() {
    let recipes = every_recipe().await;
    let used: BTreeSet<&str> = recipes.iter().flat_map(|(_, r)| r.operator_ids()).collect();
    assert_eq!(
        used,
        BTreeSet::from([
            "ensembl.fasta",
            "ensembl.gtf",
            "ncbi.datasets_extract_assembly",
            "ncbi.datasets_genome",
            "sra.fasterq_dump",
            "sra.fasterq_dump_single",
            "sra.prefetch",
        ]),
        "the answers exercise every source-recipe operator"
    );
    // An unannotated assembly's recipe promises the sequence alone.
    assert!(
        recipes
            .iter()
            .any(|(_, r)| r.operator_ids().contains(&"ncbi.datasets_genome")
                && r.produces.len() == 1),
        "{recipes:#?}"
    );

    for (id, recipe) in &recipes {
        let dir = tempfile::tempdir().unwrap();
        let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
        let txn = GraphTransaction {
            base_state_revision: project.state_revision().clone(),
            idempotency_key: "recipe-apply-0001".into(),
            summary: recipe.summary.clone(),
            operations: recipe.operations.clone(),
        };
        project
            .apply_transaction(&txn)
            .unwrap_or_else(|e| panic!("the recipe of {id} applies: {e:?}"));
        let document = project.document();
        document.validate().unwrap();
        assert_eq!(
            document.nodes.len(),
            recipe.operator_ids().len(),
            "{id}: one node per operator"
        );

        // Every parameter the recipe filled is one the contract accepts,
        // so readiness asks for nothing on its nodes.
        let assessment = project.assess_graph();
        let parameter_items: Vec<_> = assessment
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Parameter)
            .collect();
        assert!(parameter_items.is_empty(), "{id}: {parameter_items:#?}");

        assert!(!recipe.produces.is_empty(), "{id}");
        for produced in &recipe.produces {
            let node = document
                .node(&produced.node_id)
                .unwrap_or_else(|| panic!("{id}: node {}", produced.node_id));
            let contract = &project
                .catalog()
                .get(&node.operator_id)
                .expect("a built-in operator")
                .contract;
            let port = contract.output(&produced.port).unwrap_or_else(|| {
                panic!("{id}: {} has output {}", node.operator_id, produced.port)
            });
            assert_eq!(port.ty, produced.r#type, "{id}: {}.{}", node.id, port.name);
            let pinned = node
                .ports
                .outputs
                .iter()
                .find(|p| p.name == produced.port)
                .unwrap();
            assert_eq!(pinned.ty, produced.r#type, "{id}: pinned {}", port.name);
        }
    }
}
