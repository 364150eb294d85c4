//! The nine corpus pipelines as a new user meets them, through the real
//! binary: each real nf-core release (trimmed to the files Somite reads, in
//! `tests/data/nf-core-corpus/`, served by the loopback nf-co.re/GitHub
//! stand-in) resolves; its outline names each invocation once; every
//! property of its `nextflow_schema.json` is a typed parameter; readiness
//! lists every required parameter without a default; and once those are set
//! with tiny inputs the test writes, it compiles through `somite compile` and
//! through `somite.workflow.compile` with a `pixi.toml` valid under Pixi's
//! schema. Then one invocation the catalog stands for is replaced and
//! promoted, and every other one it stands for comes along. Tables of what
//! was found are printed (`--nocapture` shows them).

use crate::standin::{CatalogMode, StandIn};
use crate::support::mcp::{connect, ok};
use rmcp::ClientLifecycleMode;
use serde_json::{Value, json};
use somite_api::tools::somite::WORKFLOW_COMPILE;
use somite_workflow::Catalog;
use somite_workflow::source::{Replacement, SourceInvocation};
use somite_workflow::variant::{equivalent, nf_core_module};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/nf-core-corpus")
}

/// `somite ARGS` with the stand-in as nf-co.re and GitHub and `cache` as the
/// user cache.
async fn somite(standin: &StandIn, cache: &Path, args: Vec<String>) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_somite"));
    command
        .args(args)
        .env(
            somite_api::EnvVars::SOMITE_NFCORE_PIPELINES_URL,
            format!("{}/pipelines.json", standin.base),
        )
        .env(somite_api::EnvVars::SOMITE_GITHUB_API_URL, &standin.base)
        .env(somite_api::EnvVars::XDG_CACHE_HOME, cache)
        .env_remove(somite_api::EnvVars::GITHUB_TOKEN)
        .env_remove(somite_api::EnvVars::SOMITE_PIXI);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn json_of(output: &Output, what: &str) -> Value {
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Every property a `nextflow_schema.json` declares, in `definitions` (draft
/// 07), `$defs` (2020-12) or at the top level.
fn schema_properties(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for groups in [&schema["definitions"], &schema["$defs"]] {
        for group in groups.as_object().into_iter().flat_map(|g| g.values()) {
            names.extend(
                group["properties"]
                    .as_object()
                    .into_iter()
                    .flat_map(|p| p.keys().cloned()),
            );
        }
    }
    names.extend(
        schema["properties"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys().cloned()),
    );
    names
}

/// The schema's required properties that have no default in the schema nor
/// a literal one in `nextflow.config` (as the binding read it).
fn required_without_default(binding: &Value) -> Vec<String> {
    binding["params"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["required"] == true && p["default"].is_null())
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

struct Row {
    pipeline: String,
    files: usize,
    invocations: usize,
    parameters: usize,
    open: BTreeMap<String, usize>,
    environments: usize,
    /// Invocations of an nf-core module.
    modules: usize,
    /// Invocations a catalog operator stands for (promoted).
    standing: usize,
    /// Edges the promotion drew between them.
    edges: usize,
    seconds: f64,
}

#[tokio::test(flavor = "multi_thread")]
async fn every_corpus_pipeline_resolves_outlines_assesses_and_compiles() {
    let catalog_text = std::fs::read(corpus().join("pipelines.json")).unwrap();
    let catalog: Value = serde_json::from_slice(&catalog_text).unwrap();
    let operators = Catalog::builtin().unwrap();
    let declared: BTreeSet<&str> = operators
        .entries()
        .filter_map(|e| e.contract.nf_core.as_ref().map(|n| n.module.as_str()))
        .collect();
    let standin = StandIn::start().await;
    standin.with(|b| b.catalog = Some(CatalogMode::Serve(catalog_text.clone())));
    let cache = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    let mut unmet: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for workflow in catalog["remote_workflows"].as_array().unwrap() {
        let name = workflow["name"].as_str().unwrap();
        let release = &workflow["releases"][0];
        let (tag, sha) = (
            release["tag_name"].as_str().unwrap(),
            release["tag_sha"].as_str().unwrap(),
        );
        let repository = format!("nf-core/{name}");
        let archive = std::fs::read(corpus().join(format!("nf-core-{name}-{sha}.tar.gz"))).unwrap();
        standin.serve_archive(&repository, sha, archive);
        standin.with(|b| b.refs.insert((repository.clone(), tag.into()), sha.into()));

        let started = Instant::now();
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().to_str().unwrap().to_owned();
        let arg = |s: &str| s.to_owned();
        let resolved = somite(
            &standin,
            cache.path(),
            vec![
                arg("source"),
                arg("resolve"),
                format!("{repository}@{tag}"),
                arg("--project"),
                project.clone(),
                arg("--json"),
            ],
        )
        .await;
        json_of(&resolved, &format!("{repository} resolves"));
        let shown = json_of(
            &somite(
                &standin,
                cache.path(),
                vec![
                    arg("graph"),
                    arg("show"),
                    arg("--project"),
                    project.clone(),
                    arg("--json"),
                ],
            )
            .await,
            "graph show",
        );
        let binding = shown["document"]["nodes"][0]["source"].clone();

        // The outline: each invocation once, none missing.
        let ids: Vec<&str> = binding["invocations"]
            .as_array()
            .map(|list| list.iter().map(|i| i["id"].as_str().unwrap()).collect())
            .unwrap_or_default();
        assert!(!ids.is_empty(), "{repository} outlines no invocation");
        let distinct: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            ids.len(),
            "{repository} lists an invocation twice"
        );

        // Every schema property is a typed parameter.
        let tree = cache.path().join("somite/sources").join(sha).join("tree");
        let schema: Value =
            serde_json::from_slice(&std::fs::read(tree.join("nextflow_schema.json")).unwrap())
                .unwrap();
        let typed: BTreeSet<String> = binding["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            typed,
            schema_properties(&schema),
            "{repository}'s parameters"
        );

        // Readiness lists each required parameter that has no default.
        let assessment = json_of(
            &somite(
                &standin,
                cache.path(),
                vec![
                    arg("assess"),
                    arg("--project"),
                    project.clone(),
                    arg("--json"),
                ],
            )
            .await,
            "assess",
        );
        let items = assessment["items"].as_array().unwrap().clone();
        for param in required_without_default(&binding) {
            assert!(
                items
                    .iter()
                    .any(|i| i["field"] == param.as_str() && i["required"] == true),
                "{repository}: readiness lists the required `{param}`"
            );
        }

        // Set them with tiny inputs, as a user would.
        let mut edits = Vec::new();
        for item in items.iter().filter(|i| i["required"] == true) {
            let field = item["field"].as_str().unwrap_or_default();
            let Some(spec) = binding["params"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == field)
            else {
                continue;
            };
            let offered = item["resolutions"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|r| r.get("value").cloned());
            let value = match (offered, spec["format"].as_str(), spec["type"].as_str()) {
                (Some(value), _, _) => value,
                (None, Some("file-path" | "path"), _) => {
                    let file = tiny_input(dir.path(), field, spec["pattern"].as_str());
                    json!(file)
                }
                (None, Some("directory-path"), _) => {
                    std::fs::create_dir_all(dir.path().join(field)).unwrap();
                    json!(field)
                }
                (None, _, Some("boolean")) => json!(true),
                (None, _, Some("integer" | "number")) => {
                    spec["minimum"].as_f64().map_or(json!(1), |m| json!(m))
                }
                (None, _, _) => spec["enum"].get(0).cloned().unwrap_or(json!("x")),
            };
            edits.push(json!({"op": "set_param", "param": field, "value": value}));
        }
        // A step the parameters provably reach and that has no Pixi
        // environment: run it in the container it declares.
        for item in items
            .iter()
            .filter(|i| i["required"] == true && i["kind"] == "process_environment")
        {
            edits.push(json!({"op": "set_process_environment", "process": item["field"], "choice": {"use": "container"}}));
        }
        if !edits.is_empty() {
            let body = json!({
                "base_state_revision": shown["state_revision"],
                "idempotency_key": format!("corpus-{name}-ready"),
                "edits": edits,
            });
            let file = dir.path().join("edit.json");
            std::fs::write(&file, body.to_string()).unwrap();
            json_of(
                &somite(
                    &standin,
                    cache.path(),
                    vec![
                        arg("source"),
                        arg("edit"),
                        arg("--node"),
                        arg("source"),
                        file.to_string_lossy().into_owned(),
                        arg("--project"),
                        project.clone(),
                        arg("--json"),
                    ],
                )
                .await,
                &format!("{repository}: the required parameters are set"),
            );
        }
        let assessment = json_of(
            &somite(
                &standin,
                cache.path(),
                vec![
                    arg("assess"),
                    arg("--project"),
                    project.clone(),
                    arg("--json"),
                ],
            )
            .await,
            "assess",
        );
        let mut open = BTreeMap::new();
        for item in assessment["items"].as_array().unwrap() {
            if item["kind"] != "toolchain" {
                *open
                    .entry(item["kind"].as_str().unwrap().to_owned())
                    .or_default() += 1;
            }
        }
        assert_eq!(
            assessment["required_count"], 0,
            "{repository} is ready: {assessment:#}"
        );

        // Compile through the CLI.
        let compiled = json_of(
            &somite(
                &standin,
                cache.path(),
                vec![
                    arg("compile"),
                    arg("--project"),
                    project.clone(),
                    arg("--json"),
                ],
            )
            .await,
            &format!("{repository} compiles"),
        );
        let package = PathBuf::from(compiled["path"].as_str().unwrap());
        let package = if package.is_absolute() {
            package
        } else {
            dir.path().join(package)
        };
        let pixi = std::fs::read_to_string(package.join("pixi.toml")).unwrap();
        let manifest = somite_test_support::pixi_manifest::manifest_json(&pixi);
        somite_test_support::pixi_manifest::assert_valid(&repository, &manifest);
        let environments = manifest["environments"].as_object().map_or(0, |e| e.len());
        let declaring = binding["processes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| !p["environment"].is_null() && p["unfrozen"].is_null())
            .count();
        assert!(
            declaring == 0 || environments > 0,
            "{repository}: a Pixi environment per declared Conda environment"
        );

        // And through the agent's tool, on a runtime holding the project.
        let config = somite_server::config::ServerConfig {
            sources: Some(standin.config(cache.path())),
            ..somite_server::config::ServerConfig::loopback(
                dir.path(),
                env!("CARGO_BIN_EXE_somite"),
            )
            .unwrap()
        };
        let opened =
            somite_project::Project::open(dir.path(), somite_project::Seed::Empty).unwrap();
        let server = somite_server::start(&config, opened).await.unwrap();
        let (_, capability) = server.state.capabilities.issue();
        let client = connect(
            &server.url(),
            Some(capability.expose()),
            ClientLifecycleMode::Initialize,
        )
        .await;
        let attached = ok(&client, WORKFLOW_COMPILE, json!({})).await;
        assert_eq!(
            attached["digest"], compiled["digest"],
            "{repository}: the same package"
        );
        client.cancel().await.unwrap();
        server.shutdown().await.unwrap();

        // Promotion: the catalog's operators stand for the nf-core modules
        // they declare. Replace the first such invocation without a mapping
        // (the contract's own), promote it, and every other one the catalog
        // stands for comes along.
        let invocations: Vec<SourceInvocation> =
            serde_json::from_value(binding["invocations"].clone()).unwrap();
        // Each invocation's catalog equivalent, asked once.
        let met: Vec<(&SourceInvocation, Result<Replacement, String>)> = invocations
            .iter()
            .map(|inv| (inv, equivalent(&operators, inv)))
            .collect();
        let standing: Vec<(&SourceInvocation, &str)> = met
            .iter()
            .filter_map(|(inv, r)| r.as_ref().ok().map(|r| (*inv, r.operator_id.as_str())))
            .collect();
        let modules = invocations
            .iter()
            .filter(|inv| nf_core_module(inv).is_some())
            .count();
        // Invocations of a module an operator declares that still do not
        // meet it: the pipeline pins an older module whose channels differ.
        for (inv, result) in &met {
            if let (Some(module), Err(reason)) = (nf_core_module(inv), result)
                && declared.contains(module)
            {
                unmet
                    .entry(module.to_owned())
                    .or_insert((0, reason.clone()))
                    .0 += 1;
            }
        }
        let mut edges = 0;
        if let Some(&(first, operator)) = standing.first() {
            let edit = |args: &[&str]| {
                let mut all: Vec<String> = args.iter().map(|a| arg(a)).collect();
                all.extend([arg("--project"), project.clone(), arg("--json")]);
                all
            };
            let now = json_of(
                &somite(&standin, cache.path(), edit(&["graph", "show"])).await,
                "graph show",
            );
            let body = json!({
                "base_state_revision": now["state_revision"],
                "idempotency_key": format!("corpus-{name}-replace"),
                "edits": [{"op": "replace_invocation", "invocation": first.id, "operator_id": operator}],
            });
            let file = dir.path().join("replace.json");
            std::fs::write(&file, body.to_string()).unwrap();
            json_of(
                &somite(
                    &standin,
                    cache.path(),
                    edit(&[
                        "source",
                        "edit",
                        "--node",
                        "source",
                        &file.to_string_lossy(),
                    ]),
                )
                .await,
                &format!("{repository}: {} replaced by {operator}", first.id),
            );
            json_of(
                &somite(
                    &standin,
                    cache.path(),
                    edit(&[
                        "source",
                        "promote",
                        "--node",
                        "source",
                        "--invocation",
                        &first.id,
                    ]),
                )
                .await,
                &format!("{repository}: promoted"),
            );
            let variant = json_of(
                &somite(&standin, cache.path(), edit(&["graph", "show"])).await,
                "graph show",
            );
            let origin = &variant["document"]["variant_origin"];
            let promoted = origin["promoted"].as_array().unwrap();
            assert_eq!(
                promoted.len(),
                standing.len(),
                "{repository}: every invocation the catalog stands for is promoted"
            );
            assert_eq!(
                promoted.len() + origin["unrepresented"].as_array().unwrap().len(),
                invocations.len(),
                "{repository}: the rest is listed as unrepresented"
            );
            edges = variant["document"]["edges"].as_array().unwrap().len();
        }

        rows.push(Row {
            pipeline: format!("{repository} {tag}"),
            files: std::fs::read_dir(&tree)
                .map(|_| count_files(&tree))
                .unwrap_or(0),
            invocations: ids.len(),
            parameters: typed.len(),
            open,
            environments,
            modules,
            standing: standing.len(),
            edges,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    println!(
        "| pipeline | files | invocations | parameters | open requirements by kind | environments | seconds |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in &rows {
        let open: Vec<String> = row.open.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} |",
            row.pipeline,
            row.files,
            row.invocations,
            row.parameters,
            if open.is_empty() {
                "none".to_owned()
            } else {
                open.join(", ")
            },
            row.environments,
            row.seconds
        );
    }
    println!();
    println!(
        "| pipeline | invocations | of nf-core modules | with a typed operator | edges after promotion |"
    );
    println!("|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} | {} |",
            row.pipeline, row.invocations, row.modules, row.standing, row.edges
        );
    }
    println!();
    println!("| declared module not met | invocations | why (first) |");
    println!("|---|---|---|");
    for (module, (count, reason)) in &unmet {
        println!("| {module} | {count} | {reason} |");
    }
    assert_eq!(rows.len(), 9, "the corpus holds nine pipelines");
}

/// A one-line file for `param` whose name satisfies the schema's `pattern`
/// when one of the usual extensions does.
fn tiny_input(dir: &Path, param: &str, pattern: Option<&str>) -> String {
    const EXTENSIONS: [&str; 22] = [
        "csv", "tsv", "fa", "fasta", "fa.gz", "fasta.gz", "gtf", "gtf.gz", "gff", "bed", "txt",
        "json", "yml", "yaml", "qmd", "Rmd", "tsv.gz", "vcf.gz", "fastq.gz", "tar.gz", "gz", "zip",
    ];
    let regex = pattern.and_then(|p| regex::Regex::new(p).ok());
    let name = EXTENSIONS
        .iter()
        .map(|ext| format!("{param}.{ext}"))
        .find(|name| regex.as_ref().is_none_or(|re| re.is_match(name)))
        .unwrap_or_else(|| format!("{param}.csv"));
    std::fs::write(dir.join(&name), "sample\n").unwrap();
    name
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            if path.is_dir() { count_files(&path) } else { 1 }
        })
        .sum()
}
