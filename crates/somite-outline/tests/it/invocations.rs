//! Invocations: fully-qualified process calls from the entry workflow, with
//! aliases, nesting, `val(meta)` left out and the flow between calls.

use crate::common::{data, tree};
use somite_outline::{PortRef, invocations, outline};

#[test]
fn fetchngs_invocations_are_named_as_nextflow_names_its_tasks() {
    let outline = outline(&data("nf-core-fetchngs-1.12.0")).unwrap();
    let found = invocations(&outline);
    let ids: Vec<&str> = found.iter().map(|i| i.id.as_str()).collect();
    assert!(!ids.is_empty());
    // Every id starts at a call of the entry workflow and ends at a process.
    for inv in &found {
        assert!(
            inv.id.ends_with(&format!(":{}", inv.call)) || inv.id == inv.call,
            "{inv:?}"
        );
        assert!(outline.processes.iter().any(|p| p.name == inv.process));
    }
    assert!(
        ids.iter().any(|id| id.starts_with("NFCORE_FETCHNGS:SRA:")),
        "{ids:?}"
    );
}

#[test]
fn aliases_nesting_meta_and_flow() {
    let dir = tree(&[
        (
            "main.nf",
            b"include { INNER } from './inner'\nworkflow { INNER(params.input) }\n",
        ),
        (
            "inner.nf",
            b"include { TOOL as FIRST; TOOL as SECOND } from './tool'\n\
              workflow INNER {\n  take: reads\n  main:\n  FIRST(reads)\n  SECOND(FIRST.out.bam)\n}\n",
        ),
        (
            "tool.nf",
            b"process TOOL {\n  input:\n  tuple val(meta), path(reads)\n  output:\n  tuple val(meta), path(\"*.bam\"), emit: bam\n  script:\n  \"true\"\n}\n",
        ),
    ]);
    let outline = outline(dir.path()).unwrap();
    let found = invocations(&outline);
    let ids: Vec<&str> = found.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["INNER:FIRST", "INNER:SECOND"]);
    let second = &found[1];
    assert_eq!(second.process, "TOOL");
    assert_eq!(second.workflow.as_deref(), Some("INNER"));
    assert_eq!(second.inputs.len(), 1, "val(meta) is not a port");
    assert_eq!(second.inputs[0].name, "reads");
    assert_eq!(
        second.inputs[0].from,
        [PortRef {
            invocation: "INNER:FIRST".into(),
            port: "bam".into()
        }]
    );
    assert_eq!(second.outputs[0].name, "bam");
    assert_eq!(second.outputs[0].patterns, ["*.bam"]);
}
