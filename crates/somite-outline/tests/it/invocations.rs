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

/// A process `NAME` with one path input and its own file.
fn tool(name: &str, when: &str) -> Vec<u8> {
    format!(
        "process {name} {{\n  input:\n  path(reads)\n  output:\n  path('*.bam'), emit: bam\n  when:\n  {when}\n  script:\n  \"true\"\n}}\n"
    )
    .into_bytes()
}

#[test]
fn a_task_called_in_two_branches_is_one_invocation_reached_two_ways() {
    let dir = tree(&[
        (
            "main.nf",
            b"include { ALIGN } from './align'\ninclude { CALL } from './call'\n\
              workflow {\n  if (params.aligner == 'bwa' && !params.skip_alignment) {\n    ALIGN(params.input)\n    CALL(ALIGN.out.bam)\n  } else if (params.aligner == 'star') {\n    ALIGN(params.input)\n  } else {\n    ALIGN(params.reads)\n  }\n}\n",
        ),
        ("align.nf", &tool("ALIGN", "task.ext.when == null || task.ext.when")),
        (
            "call.nf",
            &tool("CALL", "params.tools.split(',').contains('deepvariant')"),
        ),
    ]);
    let outline = outline(dir.path()).unwrap();
    let found = invocations(&outline);
    let ids: Vec<&str> = found.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["ALIGN", "CALL"], "one task name, one invocation");

    let align = serde_json::to_value(&found[0].reach).unwrap();
    let ways = align["paths"].as_array().unwrap();
    assert_eq!(ways.len(), 3, "{align:#}");
    // The first way: the `if` itself, both conditions read.
    assert_eq!(ways[0][0]["kind"], "if");
    assert_eq!(
        ways[0][0]["text"],
        "params.aligner == 'bwa' && !params.skip_alignment"
    );
    assert_eq!(
        ways[0][0]["condition"],
        serde_json::json!({"op": "all", "of": [
            {"op": "equals", "param": "aligner", "value": "bwa"},
            {"op": "not", "of": {"op": "param", "name": "skip_alignment"}},
        ]})
    );
    // The `else if`: the first condition failed, its own held.
    assert_eq!(ways[1][0]["kind"], "else");
    assert_eq!(ways[1][0]["holds"], false);
    assert_eq!(ways[1][1]["condition"]["value"], "star");
    // The final `else`: both failed; the standard nf-core `when:` adds none.
    assert_eq!(ways[2].as_array().unwrap().len(), 2);
    assert!(
        ways[2]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["holds"] == false)
    );

    let call = serde_json::to_value(&found[1].reach).unwrap();
    let only = call["paths"][0].as_array().unwrap();
    assert_eq!(only.len(), 2, "the `if` and the process's `when:`");
    assert_eq!(only[1]["kind"], "when");
    assert_eq!(
        only[1]["condition"],
        serde_json::json!({"op": "contains", "param": "tools", "item": "deepvariant", "separator": ","})
    );
}

#[test]
fn a_condition_the_outline_cannot_read_is_unknown_with_the_parameters_it_reads() {
    let dir = tree(&[
        (
            "main.nf",
            b"include { ALIGN } from './align'\n\
              workflow {\n  if (params.genome.toLowerCase() == 'grch38' || workflow.profile.contains('test')) {\n    ALIGN(params.input)\n  }\n}\n",
        ),
        ("align.nf", &tool("ALIGN", "task.ext.when == null || task.ext.when")),
    ]);
    let outline = outline(dir.path()).unwrap();
    let found = invocations(&outline);
    let reach = serde_json::to_value(&found[0].reach).unwrap();
    assert_eq!(
        reach["paths"][0][0]["condition"],
        serde_json::json!({"op": "any", "of": [
            {"op": "unknown", "params": ["genome"]},
            {"op": "unknown", "params": []},
        ]})
    );
}

#[test]
fn includes_inside_a_top_level_if_are_followed() {
    // viralrecon includes each platform's workflow inside an `if`.
    let dir = tree(&[
        (
            "main.nf",
            b"if (params.platform == 'illumina') {\n    include { ILLUMINA } from './illumina'\n} else {\n    include { NANOPORE } from './nanopore'\n}\n\
              workflow {\n  if (params.platform == 'illumina') { ILLUMINA(params.input) } else { NANOPORE(params.input) }\n}\n",
        ),
        ("illumina.nf", &tool("ILLUMINA", "true")),
        ("nanopore.nf", &tool("NANOPORE", "true")),
    ]);
    let outline = outline(dir.path()).unwrap();
    let ids: Vec<String> = invocations(&outline).into_iter().map(|i| i.id).collect();
    assert_eq!(ids, ["ILLUMINA", "NANOPORE"]);
}

#[test]
fn an_outline_reaching_no_process_is_refused_saying_why() {
    let dsl1 = tree(&[(
        "main.nf",
        b"Channel.fromPath(params.reads).set { reads }\nprocess FASTQC {\n  input:\n  file r from reads\n  script:\n  \"fastqc $r\"\n}\n",
    )]);
    let library = tree(&[("main.nf", b"def helper() { 1 }\n")]);
    let empty = tree(&[("main.nf", b"workflow {\n  println 'hello'\n}\n")]);
    for (dir, why, phrase) in [
        (&dsl1, somite_outline::Unreadable::Dsl1, "DSL1"),
        (
            &library,
            somite_outline::Unreadable::NoEntryWorkflow,
            "no entry",
        ),
        (
            &empty,
            somite_outline::Unreadable::NoProcessReached,
            "reach no process",
        ),
    ] {
        let outline = outline(dir.path()).unwrap();
        let refused = somite_outline::runnable_invocations(&outline).unwrap_err();
        assert!(
            matches!(&refused, somite_outline::OutlineError::Unreadable { why: w, .. } if *w == why),
            "{refused:?}"
        );
        assert_eq!(refused.code().as_str(), "outline_unreadable");
        assert!(refused.to_string().contains(phrase), "{refused}");
    }
}

#[test]
fn a_subworkflows_guard_on_a_take_reads_the_parameter_its_caller_passed() {
    let dir = tree(&[
        (
            "main.nf",
            b"include { QC } from './qc'\n\
              workflow {\n  QC(params.input, params.skip_fastqc, params.aligner, true)\n}\n",
        ),
        (
            "qc.nf",
            b"include { FASTQC } from './fastqc'\ninclude { TRIM } from './trim'\ninclude { STAR } from './star'\n\
              workflow QC {\n  take:\n  reads\n  skip_fastqc\n  aligner\n  trim\n  main:\n\
              if (!skip_fastqc) { FASTQC(reads) }\n\
              if (aligner == 'star' && trim) {\n    STAR(reads)\n  }\n\
              if (unknown_local) { TRIM(reads) }\n}\n",
        ),
        ("fastqc.nf", &tool("FASTQC", "task.ext.when == null || task.ext.when")),
        ("trim.nf", &tool("TRIM", "task.ext.when == null || task.ext.when")),
        ("star.nf", &tool("STAR", "task.ext.when == null || task.ext.when")),
    ]);
    let outline = outline(dir.path()).unwrap();
    let found = invocations(&outline);
    let reach = |id: &str| {
        let inv = found.iter().find(|i| i.id == id).unwrap();
        serde_json::to_value(&inv.reach).unwrap()["paths"][0][0]["condition"].clone()
    };
    assert_eq!(
        reach("QC:FASTQC"),
        serde_json::json!({"op": "not", "of": {"op": "param", "name": "skip_fastqc"}})
    );
    assert_eq!(
        reach("QC:STAR"),
        serde_json::json!({"op": "all", "of": [
            {"op": "equals", "param": "aligner", "value": "star"},
            {"op": "literal", "value": true},
        ]})
    );
    assert_eq!(
        reach("QC:TRIM"),
        serde_json::json!({"op": "unknown", "params": []})
    );
}
