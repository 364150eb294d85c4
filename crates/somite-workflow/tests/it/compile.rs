//! The production compiler against the shipped catalog: snapshots of the
//! generated files for five real workflows, the rules Nextflow's strict
//! parser and Pixi's manifest impose, the run-closure schema, determinism,
//! the readiness gate, and what reaches a tool when Nextflow runs a task
//! locally (`nextflow_task`).

use crate::compile_graphs::*;
use crate::nextflow_task::{
    TARGET, compiled as compiled_doc, evaluated_script, expected_args, graph_around, make_input,
    run_task,
};
use serde_json::json;
use somite_workflow::ErrorCode;
use somite_workflow::assessment::assess;
use somite_workflow::canonical::digest_bytes;
use somite_workflow::compile::{
    CompiledPackage, PROFILES, PixiArtifacts, RunClosure, TARGET_NEXTFLOW, TARGET_OPENJDK, compile,
    task_script,
};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::operator::{OperatorKind, ParamType};
use somite_workflow::transaction::{Operation, apply_operations};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::ffi::OsStrExt as _;

type GraphFn = fn(&somite_workflow::Catalog) -> WorkflowDocument;

const GRAPHS: [(&str, GraphFn); 5] = [
    ("single_end_qc", single_end_qc),
    ("paired_end_qc", paired_end_qc),
    ("variant_calling", variant_calling),
    ("rna_seq_quantification", rna_seq_quantification),
    ("metagenomics", metagenomics),
];

fn compiled(graph: GraphFn) -> CompiledPackage {
    let catalog = catalog();
    let doc = graph(&catalog);
    compile(&doc, &catalog, &ready(&doc, &catalog)).expect("the graph compiles")
}

fn text<'a>(package: &'a CompiledPackage, path: &str) -> &'a str {
    let file = package
        .file(path)
        .unwrap_or_else(|| panic!("{path} is in the package"));
    std::str::from_utf8(&file.bytes).expect("generated files are UTF-8")
}

#[test]
fn generated_files_match_their_reviewed_snapshots() {
    for (name, graph) in GRAPHS {
        let package = compiled(graph);
        for (file, suffix) in [
            ("main.nf", "main_nf"),
            ("nextflow.config", "nextflow_config"),
            ("pixi.toml", "pixi_toml"),
            ("run-closure.json", "run_closure"),
        ] {
            insta::assert_snapshot!(format!("{name}-{suffix}"), text(&package, file));
        }
    }
}

#[test]
fn a_package_holds_exactly_the_documented_files() {
    let package = compiled(paired_end_qc);
    let paths: Vec<&str> = package.files().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "README.md",
            "assessment.json",
            "main.nf",
            "nextflow.config",
            "node-map.json",
            "operators/files.import_paired.json",
            "operators/qc.fastp.json",
            "operators/qc.fastqc.json",
            "operators/qc.multiqc.json",
            "params.json",
            "pixi.toml",
            "run-closure.json",
            "workflow.somite.json",
        ]
    );
    let params: serde_json::Value = serde_json::from_str(text(&package, "params.json")).unwrap();
    assert_eq!(
        params,
        json!({
            "inputs": {"reads": {"r1": "data/sample_R1.fastq", "r2": "data/sample_R2.fastq"}},
            "outdir": "results",
            "values": {
                "fastqc_r1": {"nogroup": false},
                "fastqc_r2": {"nogroup": true},
                "report": {"title": "Sample QC: it's \"paired\""},
                "trim": {"min_length": 36, "min_quality": 15},
            },
        })
    );
    let node_map: somite_workflow::compile::NodeMap =
        serde_json::from_str(text(&package, "node-map.json")).unwrap();
    assert_eq!(node_map.processes["TRIM"], "trim");
    assert_eq!(node_map.processes.len(), 4);
    let packaged =
        WorkflowDocument::from_json(&package.file("workflow.somite.json").unwrap().bytes)
            .expect("the packaged graph is a valid document");
    assert_eq!(
        packaged.graph_revision(),
        package.run_closure().graph_revision
    );
    assert!(!text(&package, "assessment.json").contains("catalog_revision"));
}

#[test]
fn the_manifest_lists_every_file_and_names_the_package() {
    for (_, graph) in GRAPHS {
        let package = compiled(graph);
        let manifest = package.manifest();
        assert_eq!(manifest.files.len(), package.files().count());
        for file in package.files() {
            let entry = manifest.entry(&file.path).expect("listed");
            assert_eq!(entry.size, file.bytes.len() as u64);
            assert_eq!(entry.mode, 0o644);
            assert_eq!(entry.blake3, digest_bytes(&file.bytes));
        }
        assert_eq!(package.digest(), &manifest.digest());
        assert_eq!(package.directory_name().len(), 64);
        assert_eq!(
            package.run_closure().pixi.manifest_digest,
            digest_bytes(&package.file("pixi.toml").unwrap().bytes)
        );
    }
}

#[test]
fn compiling_is_deterministic_and_blind_to_presentation() {
    let catalog = catalog();
    let doc = paired_end_qc(&catalog);
    let first = compile(&doc, &catalog, &ready(&doc, &catalog)).unwrap();
    let again = compile(&doc, &catalog, &ready(&doc, &catalog)).unwrap();
    assert_eq!(first, again);

    let presentation = [
        Operation::Move {
            node_id: "trim".into(),
            x: -40.0,
            y: 900.0,
        },
        Operation::AddNote {
            note_id: "note".into(),
            text: "Check the adapters".into(),
            x: 0.0,
            y: 0.0,
        },
        Operation::SetTitle {
            title: "Renamed".into(),
        },
    ];
    let moved = apply_operations(&doc, &catalog, &presentation).unwrap();
    assert_ne!(moved.state_revision("x"), doc.state_revision("x"));
    let moved = compile(&moved, &catalog, &ready(&moved, &catalog)).unwrap();
    assert_eq!(moved.digest(), first.digest());

    let tuned = apply_operations(
        &doc,
        &catalog,
        &[Operation::SetParam {
            node_id: "trim".into(),
            param: "min_quality".into(),
            value: json!(20),
        }],
    )
    .unwrap();
    let tuned = compile(&tuned, &catalog, &ready(&tuned, &catalog)).unwrap();
    assert_ne!(tuned.digest(), first.digest());
}

#[test]
fn a_blocked_graph_is_refused_with_its_requirements() {
    let catalog = catalog();
    let doc = Builder::new()
        .node("reads", "files.import", json!({}))
        .node("fastqc", "qc.fastqc", json!({}))
        .build(&catalog);
    let err = compile(&doc, &catalog, &ready(&doc, &catalog)).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);
    let requirements = &err.details.as_ref().unwrap()["requirements"];
    let ids: Vec<&str> = requirements
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["input:fastqc:reads", "input:reads:path"]);

    let empty = WorkflowDocument::empty("Nothing");
    let err = compile(&empty, &catalog, &ready(&empty, &catalog)).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);

    let inputs_only = Builder::new()
        .node("reads", "files.import", json!({"path": "r.fq"}))
        .build(&catalog);
    let err = compile(&inputs_only, &catalog, &ready(&inputs_only, &catalog)).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);
    assert!(
        err.message.contains("no node runs a tool"),
        "{}",
        err.message
    );

    let missing_file = single_end_qc(&catalog);
    let assessment = assess(&missing_file, &catalog, &|_: &str| false);
    let err = compile(&missing_file, &catalog, &assessment).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);

    let other = paired_end_qc(&catalog);
    let err = compile(&missing_file, &catalog, &ready(&other, &catalog)).unwrap_err();
    assert!(
        err.message.contains("another graph revision"),
        "{}",
        err.message
    );
}

#[test]
fn user_text_never_reaches_the_task_script() {
    let catalog = catalog();
    let hostile = "x'; rm -rf / #\"$(touch /tmp/pwned)\\";
    let doc = apply_operations(
        &paired_end_qc(&catalog),
        &catalog,
        &[Operation::SetParam {
            node_id: "report".into(),
            param: "title".into(),
            value: json!(hostile),
        }],
    )
    .unwrap();
    let package = compile(&doc, &catalog, &ready(&doc, &catalog)).unwrap();
    assert!(!text(&package, "main.nf").contains("pwned"));
    assert!(
        text(&package, "nextflow.config")
            .contains(r#"'title': 'x\'; rm -rf / #"$(touch /tmp/pwned)\\'"#)
    );
    let params: serde_json::Value = serde_json::from_str(text(&package, "params.json")).unwrap();
    assert_eq!(params["values"]["report"]["title"], hostile);
}

/// Values that would run a command, or arrive changed, if any shell read
/// them on their way to the tool.
const HOSTILE_VALUES: &[&str] = &[
    "$(touch pwned)",
    "`touch pwned`",
    "\"; touch pwned; \"",
    "'; touch pwned; '",
    "'",
    "\\",
    "${HOME}",
    "$HOME",
    "$((1+1))",
    "sample \n",
    "sample\n\n",
    "  spaced  ",
    "µ-测序-🧬",
    "-x",
    "%s%n",
    "",
    "a\tb\u{1b}[31m\r",
];

/// File names Nextflow's staging must keep literal; import paths holding
/// `$`, glob characters or control characters are refused on edit.
const HOSTILE_FILE_NAMES: &[&str] = &[
    "`touch pwned`",
    "\"; touch pwned; \"",
    "'; touch pwned; '",
    "'",
    "\\",
    "it's (1) & <2> | !x: ok; #3 ~y",
    "  spaced  ",
    "µ-测序-🧬",
    "-rf",
];

/// What the Pixi stub must receive: the manifest beside main.nf, unchanged.
fn expected_pixi_args(project: &std::path::Path, package: &CompiledPackage) -> Vec<Vec<u8>> {
    let environment = &package
        .run_closure()
        .nodes
        .iter()
        .find(|n| n.node_id == TARGET)
        .and_then(|n| n.environment.clone())
        .expect("the target has an environment");
    [
        "shell-hook".as_bytes(),
        b"--frozen",
        b"--shell",
        b"bash",
        b"--manifest-path",
        project.join("pixi.toml").as_os_str().as_bytes(),
        b"--environment",
        environment.as_bytes(),
    ]
    .iter()
    .map(|a| a.to_vec())
    .collect()
}

/// The operator proofs run [`task_script`]'s bytes; this keeps them the
/// bytes Nextflow runs: main.nf's script block, evaluated as Groovy
/// evaluates it, for every shipped tool, with and without its optional
/// inputs and with the thread count left to `task.cpus` or set.
#[test]
fn main_nf_embeds_exactly_the_task_script_of_every_node() {
    let catalog = catalog();
    let mut checked = 0;
    for entry in catalog
        .entries()
        .filter(|e| e.contract.kind == OperatorKind::External)
    {
        let id = &entry.contract.id;
        let threads = entry
            .contract
            .resources
            .as_ref()
            .and_then(|r| r.threads_param.clone());
        let mut variants = vec![BTreeMap::new()];
        if let Some(threads) = threads {
            let min = entry
                .contract
                .param(&threads)
                .and_then(|p| p.min)
                .unwrap_or(1.0);
            variants.push(BTreeMap::from([(threads, json!(min as u64))]));
        }
        for params in variants {
            let sandbox = tempfile::tempdir().unwrap();
            let root = sandbox.path();
            let doc = graph_around(&catalog, id, params, &[], &mut |node, param, port| {
                make_input(&root.join(format!("{node}-{param}")), port)
            });
            let package = compiled_doc(&doc, &catalog);
            let (nextflow_runs, cpus) = evaluated_script(&package, TARGET);
            let task = task_script(&doc, &catalog, TARGET).expect("a tool node");
            assert_eq!(task.cpus.unwrap_or(1), cpus, "{id}");
            assert_eq!(task.bash(cpus), nextflow_runs, "{id}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} scripts compared");
}

#[test]
fn no_string_parameter_of_any_operator_is_shell_on_its_way_to_the_tool() {
    let catalog = catalog();
    let mut tested = Vec::new();
    for entry in catalog
        .entries()
        .filter(|e| e.contract.kind == OperatorKind::External)
    {
        let free: Vec<&str> = entry
            .contract
            .params
            .iter()
            .filter(|p| p.ty == ParamType::String && p.choices.is_none())
            .map(|p| p.name.as_str())
            .collect();
        if free.is_empty() {
            continue;
        }
        let id = &entry.contract.id;
        tested.push(id.clone());
        for hostile in HOSTILE_VALUES {
            let sandbox = tempfile::tempdir().unwrap();
            let root = sandbox.path();
            let params = free
                .iter()
                .map(|n| ((*n).to_owned(), json!(hostile)))
                .collect();
            let doc = graph_around(&catalog, id, params, &[], &mut |node, param, port| {
                make_input(&root.join("data").join(format!("{node}-{param}")), port)
            });
            let package = compiled_doc(&doc, &catalog);
            // The project folder is hostile too: its path reaches the task
            // through nextflow.config's `env` scope.
            let project = root.join(format!("project {hostile}"));
            let run = run_task(&package, TARGET, &project, root);
            let context = format!("{id} with {hostile:?}\n{}", run.stderr);
            assert!(!run.canary, "a command ran: {context}");
            assert_eq!(
                run.tool_args,
                expected_args(&catalog, &doc, TARGET, &run),
                "{context}"
            );
            assert_eq!(
                run.pixi_args,
                Some(expected_pixi_args(&project, &package)),
                "{context}"
            );
        }
    }
    // Every shipped tool with a free-text parameter, so a new one is covered
    // without being named here.
    assert!(tested.len() >= 9, "only {tested:?}");
}

/// Imports whose type no tool of the catalog takes, so no path of theirs
/// reaches a tool: a finished MultiQC report is a result kept beside the
/// workflow's own (MultiQC reads logs, not reports).
const READ_BY_NO_TOOL: &[&str] = &["files.import_multiqc_report"];

#[test]
fn no_import_path_is_shell_on_its_way_to_the_tool() {
    let catalog = catalog();
    let mut tested = Vec::new();
    for source in catalog.entries().filter(|e| {
        matches!(
            e.contract.kind,
            OperatorKind::Source | OperatorKind::Reference
        )
    }) {
        let outputs = &source.contract.ports.outputs;
        let consumer = catalog
            .entries()
            .filter(|e| e.contract.kind == OperatorKind::External)
            .find(|e| {
                e.contract
                    .ports
                    .inputs
                    .iter()
                    .any(|input| outputs.iter().any(|o| input.accepts(o)))
            });
        let read_by_no_tool = READ_BY_NO_TOOL.contains(&source.contract.id.as_str());
        // A listed import must really have no reader, so the day a tool reads
        // it, its path is checked here like every other import's.
        assert_eq!(
            consumer.is_none(),
            read_by_no_tool,
            "{}: a tool reads what it imports exactly when it is not in READ_BY_NO_TOOL",
            source.contract.id
        );
        let Some(consumer) = consumer else {
            continue;
        };
        let (source_id, consumer_id) = (&source.contract.id, &consumer.contract.id);
        tested.push(source_id.clone());
        for name in HOSTILE_FILE_NAMES {
            let sandbox = tempfile::tempdir().unwrap();
            let root = sandbox.path();
            let mut imported = Vec::new();
            let doc = graph_around(
                &catalog,
                consumer_id,
                BTreeMap::new(),
                &[source_id.as_str()],
                &mut |node, param, port| {
                    let path = root.join("data").join(format!("{node}-{param}")).join(name);
                    imported.push(path.clone());
                    make_input(&path, port)
                },
            );
            let package = compiled_doc(&doc, &catalog);
            let project = root.join("project");
            let run = run_task(&package, TARGET, &project, root);
            let context = format!("{source_id} -> {consumer_id} with {name:?}\n{}", run.stderr);
            assert!(!run.canary, "a command ran: {context}");
            let mut reached = 0;
            for (stage, target) in &run.staged {
                if imported.contains(target) {
                    reached += 1;
                    if stage.starts_with("in/") {
                        assert!(stage.ends_with(&format!("/{name}")), "{stage}: {context}");
                    }
                } else {
                    assert!(
                        target.starts_with(root.join("upstream")),
                        "{stage}: {context}"
                    );
                }
            }
            assert!(reached > 0, "no hostile path was staged: {context}");
            assert_eq!(
                run.tool_args,
                expected_args(&catalog, &doc, TARGET, &run),
                "{context}"
            );
        }
    }
    assert!(tested.len() >= 7, "only {tested:?}");
}

#[test]
fn mates_travel_as_tuples_and_reports_fan_in() {
    let package = compiled(paired_end_qc);
    let main = text(&package, "main.nf");
    assert!(main.contains("    tuple path('in/r1/*'), path('in/r2/*')\n"));
    assert!(main.contains("        reads_r1.combine(reads_r2),\n"));
    assert!(main.contains("    FASTQC_R1(\n        reads_r1,\n"));
    assert!(main.contains("    FASTQC_R2(\n        reads_r2,\n"));
    assert!(main.contains(
        "    REPORT(\n        TRIM.out.report_json,\n        FASTQC_R1.out.report_zip,\n        FASTQC_R2.out.report_zip,\n"
    ));
}

#[test]
fn every_main_nf_follows_the_strict_syntax() {
    for (name, graph) in GRAPHS {
        let package = compiled(graph);
        if let Err(problem) = check_strict_main_nf(text(&package, "main.nf")) {
            panic!("{name}/main.nf: {problem}");
        }
        if let Err(problem) = check_strict_config(text(&package, "nextflow.config")) {
            panic!("{name}/nextflow.config: {problem}");
        }
    }
}

#[test]
fn every_pixi_toml_satisfies_the_manifest_rules() {
    for (name, graph) in GRAPHS {
        let package = compiled(graph);
        if let Err(problem) = check_pixi_manifest(&package) {
            panic!("{name}/pixi.toml: {problem}");
        }
    }
}

#[test]
fn the_run_closure_is_complete_and_strict() {
    let package = compiled(variant_calling);
    let bytes = &package.file("run-closure.json").unwrap().bytes;
    let closure = RunClosure::from_json(bytes).expect("valid");
    assert_eq!(&closure, package.run_closure());
    assert_eq!(closure.pixi.lock_digest, None);
    assert_eq!(closure.operators.len(), 9);

    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    value["surprise"] = json!(1);
    let err = RunClosure::from_json(value.to_string().as_bytes()).unwrap_err();
    assert!(err.message.contains("surprise"), "{}", err.message);

    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    value["pixi"].as_object_mut().unwrap().remove("lock_digest");
    assert!(RunClosure::from_json(value.to_string().as_bytes()).is_err());

    let broken = |edit: &dyn Fn(&mut RunClosure)| {
        let mut c = closure.clone();
        edit(&mut c);
        c.validate().unwrap_err().code
    };
    assert_eq!(
        broken(&|c| c.operators.reverse()),
        ErrorCode::InvalidDocument
    );
    assert_eq!(
        broken(&|c| c.nodes[0].operator_revision = "blake3:00".into()),
        ErrorCode::InvalidDocument
    );
    assert_eq!(
        broken(&|c| c.targets.nextflow.version = "25.10.0".into()),
        ErrorCode::InvalidDocument
    );
    assert_eq!(
        broken(&|c| c.nodes[0].process = None),
        ErrorCode::InvalidDocument
    );
    assert_eq!(
        broken(&|c| c.pixi.lock_digest = Some("sha256:x".into())),
        ErrorCode::InvalidDocument
    );
    assert_eq!(
        broken(&|c| c.operators.truncate(8)),
        ErrorCode::InvalidDocument
    );
}

#[test]
fn pixi_artifacts_make_a_new_package_that_records_the_lock() {
    let package = compiled(rna_seq_quantification);
    let lock = b"version: 7\nenvironments: {}\n".to_vec();
    let locked = package
        .clone()
        .with_pixi_artifacts(PixiArtifacts {
            lock: lock.clone(),
            conda_specs: BTreeMap::from([("salmon".to_owned(), b"@EXPLICIT\n".to_vec())]),
        })
        .unwrap();
    assert_ne!(locked.digest(), package.digest());
    assert_eq!(
        locked.run_closure().pixi.lock_digest.as_deref(),
        Some(digest_bytes(&lock).as_str())
    );
    assert!(locked.file("pixi.lock").is_some());
    assert!(
        locked
            .file("conda/salmon_linux-64_conda_spec.txt")
            .is_some()
    );
    RunClosure::from_json(&locked.file("run-closure.json").unwrap().bytes).unwrap();

    let err = package
        .with_pixi_artifacts(PixiArtifacts {
            lock,
            conda_specs: BTreeMap::from([("nope".to_owned(), Vec::new())]),
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidDocument);
}

/// Checks the strict-syntax rules of `strict-syntax.md` and `syntax.md`
/// that a generated script could break.
fn check_strict_main_nf(main: &str) -> Result<(), String> {
    for (forbidden, why) in [
        (
            "Channel.",
            "channel factories are `channel.*`, not the deprecated `Channel.*`",
        ),
        ("import ", "import declarations are removed"),
        ("addParams", "include params clauses are removed"),
        ("shell:", "the shell section is deprecated"),
        ("when:", "the when section is discouraged"),
        ("$/", "dollar-slashy strings are not supported"),
    ] {
        if main.contains(forbidden) {
            return Err(format!("contains `{forbidden}`: {why}"));
        }
    }
    let mut depth = 0usize;
    let mut in_script = false;
    let mut section_order: Vec<&str> = Vec::new();
    for (number, line) in main.lines().enumerate() {
        let number = number + 1;
        let trimmed = line.trim();
        if trimmed == "\"\"\"" {
            in_script = !in_script;
            continue;
        }
        if in_script {
            let bytes = line.as_bytes();
            for (i, _) in line.match_indices('$') {
                let escaped = i > 0 && bytes[i - 1] == b'\\';
                if !escaped && !line[i..].starts_with("${task.") {
                    return Err(format!(
                        "line {number}: an unescaped `$` in a script is a Nextflow variable: {line}"
                    ));
                }
            }
            continue;
        }
        if trimmed.is_empty()
            || trimmed.starts_with("//")
            || trimmed.starts_with('*')
            || trimmed.starts_with("/*")
            || trimmed.starts_with("#!")
        {
            continue;
        }
        if trimmed.contains("{ it") || trimmed.contains(" it.") || trimmed.contains("(it") {
            return Err(format!(
                "line {number}: closure parameters must be declared, not implicit `it`: {line}"
            ));
        }
        if depth == 0 {
            // `syntax.md` "Function": `def name(parameters) {`, untyped here.
            let function = trimmed
                .strip_prefix("def ")
                .and_then(|rest| rest.strip_suffix(") {"))
                .and_then(|rest| rest.split_once('('))
                .is_some_and(|(name, parameters)| {
                    !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric())
                        && parameters
                            .split(", ")
                            .all(|p| p.chars().all(|c| c.is_ascii_alphanumeric()))
                });
            let declaration = trimmed == "params {"
                || trimmed == "workflow {"
                || function
                || (trimmed.starts_with("process ") && trimmed.ends_with(" {"));
            if !declaration {
                return Err(format!(
                    "line {number}: statements cannot be mixed with declarations: {line}"
                ));
            }
            section_order.clear();
        }
        if depth == 1 {
            if trimmed.starts_with("params.") && trimmed.contains(" = ") {
                return Err(format!("line {number}: legacy params assignment: {line}"));
            }
            for word in ["for ", "for(", "while ", "while(", "switch "] {
                if trimmed.starts_with(word) {
                    return Err(format!(
                        "line {number}: loops and switch are removed: {line}"
                    ));
                }
            }
            if let Some(section) = trimmed.strip_suffix(':')
                && ["input", "output", "script", "main"].contains(&section)
            {
                section_order.push(section);
                let expected: &[&str] = &["input", "output", "script"];
                let positions: Vec<usize> = section_order
                    .iter()
                    .filter_map(|s| expected.iter().position(|e| e == s))
                    .collect();
                if positions.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(format!(
                        "line {number}: sections out of order: {section_order:?}"
                    ));
                }
            }
            if trimmed.starts_with("env ") && !trimmed.starts_with("env '") {
                return Err(format!(
                    "line {number}: env inputs need a quoted name: {line}"
                ));
            }
            if trimmed.starts_with("def ") && trimmed.contains(':') {
                return Err(format!("line {number}: typed declaration: {line}"));
            }
        }
        depth += trimmed.matches('{').count();
        depth = depth
            .checked_sub(trimmed.matches('}').count())
            .ok_or_else(|| format!("line {number}: unbalanced braces"))?;
        if depth == 0
            && trimmed == "}"
            && section_order.contains(&"output")
            && !section_order.contains(&"script")
        {
            return Err(format!(
                "line {number}: a process needs its `script:` label"
            ));
        }
    }
    if depth != 0 || in_script {
        return Err("unbalanced braces or an unclosed script".into());
    }
    let processes = main.matches("\nprocess ").count();
    let scripts = main.matches("\n    script:\n").count();
    if processes == 0 || processes != scripts {
        return Err(format!(
            "{processes} processes but {scripts} `script:` labels"
        ));
    }
    if main.matches("cache 'deep'").count() != processes
        || main.matches("set -euo pipefail").count() != processes
        || main.matches("    publishDir ").count() != processes
        || main.matches("    tag '").count() != processes
    {
        return Err(
            "every process needs tag, publishDir, cache 'deep' and set -euo pipefail".into(),
        );
    }
    Ok(())
}

/// The strict config syntax allows assignments, blocks and includes only.
fn check_strict_config(config: &str) -> Result<(), String> {
    for forbidden in ["def ", "if (", "if(", "for (", "import ", "Channel."] {
        if config.contains(forbidden) {
            return Err(format!("config scripting is not allowed: `{forbidden}`"));
        }
    }
    for needed in [
        "errorStrategy = 'terminate'",
        "enabled = true",
        "wave.strategy = ['conda']",
        "wave.build.template = 'conda/pixi:v1'",
        "nextflowVersion = '!>=26.04.6'",
    ] {
        if !config.contains(needed) {
            return Err(format!("missing `{needed}`"));
        }
    }
    let fields = config
        .lines()
        .find_map(|l| l.trim().strip_prefix("fields = '"))
        .ok_or("no trace fields")?;
    for field in ["name", "status", "exit", "hash"] {
        if !fields.split([',', '\'']).any(|f| f == field) {
            return Err(format!("the trace lacks `{field}`"));
        }
    }
    for profile in PROFILES {
        let opening = if profile.contains('-') {
            format!("    '{profile}' {{")
        } else {
            format!("    {profile} {{")
        };
        if !config.lines().any(|l| l == opening) {
            return Err(format!("no `{profile}` profile"));
        }
        if !config.contains(&format!("process.executor = '{profile}'")) {
            return Err(format!(
                "the `{profile}` profile does not select its executor"
            ));
        }
    }
    if config.matches("env.SOMITE_B64_PIXI_MANIFEST = ").count() != 2 {
        return Err("local and slurm, and only they, activate the Pixi environment".into());
    }
    let mut depth = 0i64;
    for (number, line) in config.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty()
            || trimmed.starts_with("//")
            || trimmed.starts_with("/*")
            || trimmed.starts_with('*')
        {
            continue;
        }
        let assignment = trimmed.contains(" = ");
        let block = trimmed.ends_with('{')
            || trimmed == "}"
            || trimmed.starts_with('}')
            || trimmed.ends_with('[')
            || trimmed.starts_with(']')
            || trimmed.starts_with('\'');
        if !(assignment || block) {
            return Err(format!(
                "line {}: not an assignment or a block: {line}",
                number + 1
            ));
        }
        depth += trimmed.matches(['{', '[']).count() as i64;
        depth -= trimmed.matches(['}', ']']).count() as i64;
        if depth < 0 {
            return Err(format!("line {}: unbalanced", number + 1));
        }
    }
    if depth != 0 {
        return Err("unbalanced blocks".into());
    }
    Ok(())
}

/// Pixi's manifest rules, as `reference/pixi_manifest.md` states them.
fn check_pixi_manifest(package: &CompiledPackage) -> Result<(), String> {
    let manifest: toml::Table = text(package, "pixi.toml")
        .parse()
        .map_err(|e| format!("does not parse: {e}"))?;
    let allowed: BTreeSet<&str> = [
        "workspace",
        "dependencies",
        "tasks",
        "feature",
        "environments",
    ]
    .into_iter()
    .collect();
    for key in manifest.keys() {
        if !allowed.contains(key.as_str()) {
            return Err(format!(
                "unexpected table `{key}` (`[project]` is deprecated)"
            ));
        }
    }
    let table = |value: &toml::Value, what: &str| -> Result<toml::Table, String> {
        value
            .as_table()
            .cloned()
            .ok_or(format!("{what} is not a table"))
    };
    let strings = |value: Option<&toml::Value>, what: &str| -> Result<Vec<String>, String> {
        value
            .and_then(toml::Value::as_array)
            .ok_or(format!("{what} is not an array"))?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or(format!("{what} holds a non-string"))
            })
            .collect()
    };

    let workspace = table(&manifest["workspace"], "workspace")?;
    let name = workspace
        .get("name")
        .and_then(toml::Value::as_str)
        .unwrap_or("");
    if name.is_empty() {
        return Err("workspace.name is empty".into());
    }
    if strings(workspace.get("channels"), "channels")? != ["conda-forge", "bioconda"] {
        return Err("channels must be conda-forge then bioconda".into());
    }
    let platforms = strings(workspace.get("platforms"), "platforms")?;
    let known = ["linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64"];
    if platforms.is_empty() || platforms.iter().any(|p| !known.contains(&p.as_str())) {
        return Err(format!("platforms {platforms:?}"));
    }
    if workspace.get("requires-pixi").and_then(toml::Value::as_str) != Some(">=0.77,<0.78") {
        return Err("requires-pixi must pin 0.77.x".into());
    }

    let dependencies = table(&manifest["dependencies"], "dependencies")?;
    let pin = |key: &str| dependencies.get(key).and_then(toml::Value::as_str);
    if pin("nextflow") != Some(format!("=={TARGET_NEXTFLOW}").as_str())
        || pin("openjdk") != Some(format!("=={TARGET_OPENJDK}").as_str())
        || dependencies.len() != 2
    {
        return Err("the default environment is exactly nextflow and openjdk, pinned".into());
    }

    let features = table(&manifest["feature"], "feature")?;
    let closure = package.run_closure();
    for (feature, body) in &features {
        let body = table(body, feature)?;
        if feature == "default" || body.keys().any(|k| k != "dependencies") {
            return Err(format!(
                "feature `{feature}` is reserved or has unexpected keys"
            ));
        }
        let deps = table(&body["dependencies"], "feature dependencies")?;
        let environment = closure
            .pixi
            .environments
            .iter()
            .find(|e| e.name == *feature)
            .ok_or(format!(
                "feature `{feature}` matches no closure environment"
            ))?;
        for (package_name, version) in &deps {
            let expected = format!("=={}", environment.packages[package_name]);
            if version.as_str() != Some(expected.as_str()) {
                return Err(format!("{package_name} is not pinned exactly: {version}"));
            }
        }
    }
    let environments = table(&manifest["environments"], "environments")?;
    for (environment, body) in &environments {
        if environment == "default"
            || !environment
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(format!("environment name `{environment}`"));
        }
        let body = table(body, environment)?;
        for feature in strings(body.get("features"), "features")? {
            if !features.contains_key(&feature) {
                return Err(format!(
                    "environment `{environment}` uses unknown feature `{feature}`"
                ));
            }
        }
        if body
            .get("no-default-feature")
            .and_then(toml::Value::as_bool)
            != Some(true)
        {
            return Err(format!(
                "tool environment `{environment}` must leave Nextflow out"
            ));
        }
    }
    for node in &closure.nodes {
        if let Some(environment) = &node.environment
            && !environments.contains_key(environment)
        {
            return Err(format!(
                "{} runs in undeclared environment {environment}",
                node.node_id
            ));
        }
    }

    let tasks = table(&manifest["tasks"], "tasks")?;
    for (task, body) in &tasks {
        if task.contains(' ') {
            return Err(format!("task name `{task}` has a space"));
        }
        let body = table(body, task)?;
        if body.get("cmd").and_then(toml::Value::as_str).is_none() {
            return Err(format!("task `{task}` has no cmd"));
        }
        for dependency in strings(body.get("depends-on"), "depends-on").unwrap_or_default() {
            if !tasks.contains_key(&dependency) {
                return Err(format!("task `{task}` depends on unknown `{dependency}`"));
            }
        }
        if let Some(args) = body.get("args").and_then(toml::Value::as_array) {
            for arg in args {
                let arg = table(arg, "arg")?;
                let name = arg["arg"].as_str().unwrap_or("-");
                if name.contains('-') {
                    return Err(format!("argument `{name}` has a dash"));
                }
                let default = arg.get("default").and_then(toml::Value::as_str);
                let choices = strings(arg.get("choices"), "choices")?;
                if default.is_some_and(|d| !choices.iter().any(|c| c == d)) {
                    return Err("an argument default must be one of its choices".into());
                }
            }
        }
    }
    let run = tasks["run"]["cmd"].as_str().unwrap();
    if !run.starts_with("nextflow run main.nf -params-file params.json") {
        return Err(format!("the run task does not run the pipeline: {run}"));
    }
    Ok(())
}

#[test]
fn the_syntax_checks_catch_what_they_promise() {
    let package = compiled(single_end_qc);
    let main = text(&package, "main.nf");
    assert!(check_strict_main_nf(main).is_ok());
    for (from, to) in [
        ("channel.value(", "Channel.value("),
        ("    main:\n", "    main:\n    params.outdir = 'x'\n"),
        ("    script:\n", ""),
        ("env 'SOMITE", "env SOMITE"),
        ("\\${PWD}", "${PWD}"),
        ("workflow {\n", "println 'hi'\nworkflow {\n"),
    ] {
        let broken = main.replacen(from, to, 1);
        assert_ne!(broken, main, "{from}");
        assert!(
            check_strict_main_nf(&broken).is_err(),
            "`{from}` -> `{to}` passed"
        );
    }
    let config = text(&package, "nextflow.config");
    assert!(check_strict_config(&config.replace("'google-batch' {", "gcp {")).is_err());
    assert!(check_strict_config(&format!("def x = 1\n{config}")).is_err());
}
