//! The example workflow a new project starts from: paired reads through
//! fastp and FastQC into MultiQC. Built with the same transaction code as any
//! edit, so it is valid against the catalog by construction.

use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::{Operation, apply_operations};
use somite_workflow::{Catalog, SomiteError};

pub fn example_workflow(catalog: &Catalog) -> Result<WorkflowDocument, SomiteError> {
    let add = |node_id: &str, operator_id: &str, x: f64, y: f64| Operation::AddOperator {
        node_id: node_id.into(),
        operator_id: operator_id.into(),
        params: Default::default(),
        x,
        y,
    };
    let connect = |edge_id: &str, from: (&str, &str), to: (&str, &str)| Operation::Connect {
        edge_id: edge_id.into(),
        from_node: from.0.into(),
        from_port: from.1.into(),
        to_node: to.0.into(),
        to_port: to.1.into(),
    };
    let operations = vec![
        Operation::SetTitle {
            title: "Paired-end read QC".into(),
        },
        add("reads", "files.import_paired", 80.0, 160.0),
        add("trim", "qc.fastp", 380.0, 120.0),
        add("fastqc", "qc.fastqc", 380.0, 320.0),
        connect("reads-r1-trim", ("reads", "r1"), ("trim", "r1")),
        connect("reads-r2-trim", ("reads", "r2"), ("trim", "r2")),
        connect("reads-r1-fastqc", ("reads", "r1"), ("fastqc", "reads")),
        Operation::AddNote {
            note_id: "note-start".into(),
            text: "Choose your R1 and R2 FASTQ files in the inspector, then Validate.".into(),
            x: 80.0,
            y: 40.0,
        },
    ];
    apply_operations(
        &WorkflowDocument::empty("Untitled workflow"),
        catalog,
        &operations,
    )
}
