//! Includes, calls and the channels between them on small pipelines.

use crate::common::tree;
use somite_outline::{
    ChannelSource, DiagnosticCode, OutputSelector, TargetKind, Workflow, outline,
};

fn output(call: &str, output: OutputSelector) -> ChannelSource {
    ChannelSource::Output {
        call: call.into(),
        output,
    }
}

fn entry(workflows: &[Workflow]) -> &Workflow {
    workflows
        .iter()
        .find(|w| w.name.is_none())
        .expect("entry workflow")
}

const MODULE: &str = r#"
process ALIGN {
    label 'process_high'
    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' ? 'https://x/align:1' : 'quay.io/align:1' }"

    input:
    tuple val(meta), path(reads, stageAs: 'in/*')
    path index

    output:
    tuple val(meta), path("*.bam"), emit: bam
    path "versions.yml"           , emit: versions, optional: true

    script:
    """
    align ${reads} > ${meta.id}.bam   // not a comment: } {
    """
}
"#;

const ENVIRONMENT: &str = "name: align\nchannels:\n  - conda-forge\n  - bioconda\ndependencies:\n  - bioconda::bwa=0.7.18\n  - pip:\n      - multiqc==1.25\n";

#[test]
fn calls_resolve_through_aliases_and_channels_follow_variables() {
    let main = r#"
include { ALIGN; ALIGN as ALIGN_AGAIN } from './modules/align'
include { REPORT } from './report.nf'
include { paramsSummaryMap } from 'plugin/nf-schema'

workflow {
    ch_reads = Channel.fromPath(params.input)
    ALIGN(ch_reads, params.index)
    ALIGN.out.bam
        .map { meta, bam -> [meta, bam] }
        .set { ch_bam }
    if (params.again) {
        ALIGN_AGAIN(ch_bam, params.index)
        ch_bam = ch_bam.mix(ALIGN_AGAIN.out[0])
    } else {
        log.info "}"
    }
    REPORT(ch_bam, ALIGN.out)
}
"#;
    let report = r#"
workflow REPORT {
    take:
    bams
    all

    main:
    SUMMARY(bams.collect())

    emit:
    html = SUMMARY.out.html
}

process SUMMARY {
    input:
    path bams
    output:
    path "*.html", emit: html
    exec:
    println bams
}
"#;
    let dir = tree(&[
        ("main.nf", main.as_bytes()),
        ("modules/align/main.nf", MODULE.as_bytes()),
        ("modules/align/environment.yml", ENVIRONMENT.as_bytes()),
        ("report.nf", report.as_bytes()),
    ]);
    let outline = outline(dir.path()).unwrap();
    assert_eq!(outline.diagnostics, vec![]);
    assert_eq!(
        outline.files,
        vec!["main.nf", "modules/align/main.nf", "report.nf"]
    );
    let includes: Vec<(Option<&str>, Option<&str>)> = outline
        .includes
        .iter()
        .map(|i| (i.resolved.as_deref(), i.plugin.as_deref()))
        .collect();
    assert_eq!(
        includes,
        vec![
            (Some("modules/align/main.nf"), None),
            (Some("report.nf"), None),
            (None, Some("nf-schema")),
        ]
    );

    let main = entry(&outline.workflows);
    let calls: Vec<(&str, &str, u32)> = main
        .calls
        .iter()
        .map(|c| {
            let target = c.target.as_ref().unwrap();
            (c.name.as_str(), target.name.as_str(), c.location.line)
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            ("ALIGN", "ALIGN", 8),
            ("ALIGN_AGAIN", "ALIGN", 13),
            ("REPORT", "REPORT", 18),
        ]
    );
    assert_eq!(
        main.calls[0].arguments[0].sources,
        vec![ChannelSource::Param {
            name: "input".into()
        }]
    );
    assert_eq!(
        main.calls[1].arguments[0].sources,
        vec![output("ALIGN", OutputSelector::Emit("bam".into()))]
    );
    // After the `if`, ch_bam is what it was or what the branch made it.
    assert_eq!(
        main.calls[2].arguments[0].sources,
        vec![
            output("ALIGN", OutputSelector::Emit("bam".into())),
            output("ALIGN_AGAIN", OutputSelector::Index(0)),
        ]
    );
    assert_eq!(
        main.calls[2].arguments[1].sources,
        vec![output("ALIGN", OutputSelector::All)]
    );

    let report = outline
        .workflows
        .iter()
        .find(|w| w.name.as_deref() == Some("REPORT"))
        .unwrap();
    assert_eq!(report.takes, vec!["bams", "all"]);
    assert_eq!(
        report.calls[0].target.as_ref().unwrap().kind,
        TargetKind::Process
    );
    assert_eq!(
        report.calls[0].arguments[0].sources,
        vec![ChannelSource::Take {
            name: "bams".into()
        }]
    );
    assert_eq!(report.emits[0].name.as_deref(), Some("html"));
    assert_eq!(
        report.emits[0].sources,
        vec![output("SUMMARY", OutputSelector::Emit("html".into()))]
    );

    let align = &outline.processes[0];
    assert_eq!(align.name, "ALIGN");
    assert_eq!(align.labels, vec!["process_high"]);
    assert_eq!(
        align.container.as_ref().unwrap().images,
        vec!["https://x/align:1", "quay.io/align:1"]
    );
    let conda = align.conda.as_ref().unwrap();
    assert_eq!(
        conda.directive.as_deref(),
        Some("${moduleDir}/environment.yml")
    );
    let environment = conda.environment.as_ref().unwrap();
    assert_eq!(environment.file, "modules/align/environment.yml");
    assert_eq!(environment.channels, vec!["conda-forge", "bioconda"]);
    assert_eq!(environment.dependencies, vec!["bioconda::bwa=0.7.18"]);
    assert_eq!(environment.pip, vec!["multiqc==1.25"]);
    let inputs: Vec<Vec<(&str, &str)>> = align
        .inputs
        .iter()
        .map(|d| {
            d.components
                .iter()
                .map(|c| (c.qualifier.as_str(), c.value.as_str()))
                .collect()
        })
        .collect();
    assert_eq!(
        inputs,
        vec![
            vec![("val", "meta"), ("path", "reads")],
            vec![("path", "index")]
        ]
    );
    let outputs: Vec<(Option<&str>, bool)> = align
        .outputs
        .iter()
        .map(|d| (d.emit.as_deref(), d.optional))
        .collect();
    assert_eq!(
        outputs,
        vec![(Some("bam"), false), (Some("versions"), true)]
    );
    assert_eq!(align.outputs[0].components[1].value, "*.bam");
    assert_eq!(align.body.as_deref(), Some("script"));

    let summary = outline
        .processes
        .iter()
        .find(|p| p.name == "SUMMARY")
        .unwrap();
    assert_eq!(summary.body.as_deref(), Some("exec"));
    assert!(summary.conda.is_none());
}

#[test]
fn channels_piped_into_processes_are_calls() {
    let main = "include { A; B } from './m'\nworkflow {\n    ch = Channel.of(params.x) | A | B\n    B.out.view()\n    C(ch)\n}\nprocess C {\n  input:\n  val x\n  exec:\n  x\n}\n";
    let module = "process A {\n  input:\n  val x\n  output:\n  val x\n  exec:\n  x\n}\nprocess B {\n  input:\n  val x\n  output:\n  val x\n  exec:\n  x\n}\n";
    let dir = tree(&[("main.nf", main.as_bytes()), ("m.nf", module.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let main = entry(&outline.workflows);
    let calls: Vec<(&str, Vec<ChannelSource>)> = main
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments[0].sources.clone()))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("A", vec![ChannelSource::Param { name: "x".into() }]),
            ("B", vec![output("A", OutputSelector::All)]),
            ("C", vec![output("B", OutputSelector::All)]),
        ]
    );
    assert!(main.calls.iter().all(|c| c.target.is_some()));
}

#[test]
fn a_module_without_a_directive_gets_the_environment_beside_it() {
    let module = "process P {\n  output:\n  stdout\n  script:\n  'echo'\n}\n";
    let dir = tree(&[
        ("main.nf", b"include { P } from './m'\nworkflow { P() }\n"),
        ("m/main.nf", module.as_bytes()),
        ("m/environment.yml", ENVIRONMENT.as_bytes()),
    ]);
    let outline = outline(dir.path()).unwrap();
    let conda = outline.processes[0].conda.as_ref().unwrap();
    assert_eq!(conda.directive, None);
    assert_eq!(
        conda.environment.as_ref().unwrap().file,
        "m/environment.yml"
    );
}

#[test]
fn conda_packages_of_a_conditional_directive_are_read() {
    let main = "process OLD {\n  conda (params.enable_conda ? 'bioconda::fastqc=0.11.9 conda-forge::pigz=2.6' : null)\n  script:\n  'x'\n}\nprocess PLAIN {\n  conda 'conda-forge::python=3.9.5'\n  script:\n  'x'\n}\n";
    let dir = tree(&[("main.nf", main.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let packages: Vec<Vec<String>> = outline
        .processes
        .iter()
        .map(|p| p.conda.as_ref().unwrap().packages.clone())
        .collect();
    assert_eq!(
        packages,
        vec![
            vec!["bioconda::fastqc=0.11.9", "conda-forge::pigz=2.6"],
            vec!["conda-forge::python=3.9.5"],
        ]
    );
}

#[test]
fn unresolved_includes_and_names_are_diagnostics() {
    let dir = tree(&[(
        "main.nf",
        b"include { A } from './missing'\ninclude { B } from '../../outside'\ninclude { C } from './here'\nworkflow { A(); C() }\n",
    ), ("here.nf", b"process D {\n script:\n 'x'\n}\n")]);
    let outline = outline(dir.path()).unwrap();
    let codes: Vec<(DiagnosticCode, Option<u32>)> = outline
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    assert_eq!(
        codes,
        vec![
            (DiagnosticCode::UnresolvedInclude, Some(1)),
            (DiagnosticCode::UnresolvedInclude, Some(2)),
            (DiagnosticCode::UnknownIncludeName, Some(3)),
        ]
    );
    let main = entry(&outline.workflows);
    assert!(main.calls.iter().all(|c| c.target.is_none()));
}

#[test]
fn config_params_and_manifest_are_read_statically() {
    let config = r#"
params {
    input  = null
    depth  = -3
    ratio  = 0.5
    tools  = ['a', "b"]
    out    = "${launchDir}/results"
    nested { x = 1 }
}
params.extra = true
manifest {
    name            = 'me/pipe'
    version         = '2.0.0'
    nextflowVersion = '!>=24.10.0'
    mainScript      = 'pipe.nf'
}
profiles { test { params.input = 'x.csv' } }
"#;
    let dir = tree(&[
        ("nextflow.config", config.as_bytes()),
        ("pipe.nf", b"workflow { }\n"),
    ]);
    let outline = outline(dir.path()).unwrap();
    assert_eq!(outline.entry, "pipe.nf");
    assert_eq!(outline.manifest.name.as_deref(), Some("me/pipe"));
    assert_eq!(
        outline.manifest.nextflow_version.as_deref(),
        Some("!>=24.10.0")
    );
    let defaults: Vec<(String, serde_json::Value)> = outline
        .params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                serde_json::to_value(&p.config_default.as_ref().unwrap().value).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        defaults,
        vec![
            ("input".into(), serde_json::json!({"literal": null})),
            ("depth".into(), serde_json::json!({"literal": -3})),
            ("ratio".into(), serde_json::json!({"literal": 0.5})),
            ("tools".into(), serde_json::json!({"literal": ["a", "b"]})),
            (
                "out".into(),
                serde_json::json!({"expression": "\"${launchDir}/results\""})
            ),
            ("extra".into(), serde_json::json!({"literal": true})),
        ]
    );
}
