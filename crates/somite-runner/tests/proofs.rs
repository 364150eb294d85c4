//! Every tool operator of the shipped catalog either proves with its real
//! Debian tool (a task-level proof with the real binary, not a Nextflow
//! run) or declares why it cannot run here. `scripts/setup` installs the
//! tools; a missing one fails its proof rather than skipping it.

use somite_runner::proof::{PROOF_KIND, Prover, recipes};
use somite_workflow::Catalog;
use somite_workflow::operator::OperatorKind;

#[test]
fn every_tool_operator_proves_or_declares_why_it_cannot() {
    let catalog = Catalog::builtin().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut prover = Prover::new(&catalog, scratch.path());
    let mut failures = Vec::new();
    let mut proven = 0;
    for entry in catalog
        .entries()
        .filter(|e| e.contract.kind == OperatorKind::External)
    {
        let id = &entry.contract.id;
        match recipes::recipe(id) {
            None => failures.push(format!("{id}: no recipe and no declared reason")),
            Some(Err(reason)) => assert!(!reason.is_empty(), "{id}"),
            Some(Ok(_)) => match prover.prove(id) {
                Ok(proof) => {
                    println!("{}", proof.render());
                    assert_eq!(proof.kind, PROOF_KIND);
                    if proof.passed {
                        proven += 1;
                    } else {
                        failures.push(proof.render());
                    }
                }
                Err(e) => failures.push(format!("{id}: {e}")),
            },
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(proven >= 30, "only {proven} operators proven");
}
