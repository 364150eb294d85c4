//! A small, hand-written catalog for domain tests, independent of the shipped
//! `operators/` so these tests pin the rules, not the content.

#![allow(dead_code)]

use serde_json::{Value, json};
use somite_workflow::Catalog;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::operator::OperatorContract;
use somite_workflow::transaction::{GraphTransaction, Operation};

pub const CONTRACTS: &[&str] = &[
    r#"
id = "files.reads"
title = "Import reads"
palette = "Inputs"
kind = "source"
cost = "trivial"
[[params]]
name = "path"
type = "string"
label = "Reads file"
required = true
[[ports.out]]
name = "file"
type = "Fastq"
import_param = "path"
"#,
    r#"
id = "files.pair"
title = "Import paired reads"
palette = "Inputs"
kind = "source"
cost = "trivial"
[[params]]
name = "r1"
type = "string"
label = "R1 file"
required = true
[[params]]
name = "r2"
type = "string"
label = "R2 file"
required = true
[[ports.out]]
name = "r1"
type = "Fastq"
import_param = "r1"
[[ports.out]]
name = "r2"
type = "Fastq"
import_param = "r2"
"#,
    r#"
id = "files.db"
title = "Import a classification database"
palette = "Inputs"
kind = "reference"
cost = "trivial"
[[params]]
name = "path"
type = "string"
label = "Database folder"
required = true
[[ports.out]]
name = "db"
type = "Directory"
resource_profile = "kraken2-database"
import_param = "path"
"#,
    r#"
id = "files.folder"
title = "Import a folder"
palette = "Inputs"
kind = "source"
cost = "trivial"
[[params]]
name = "path"
type = "string"
label = "Folder"
required = true
[[ports.out]]
name = "dir"
type = "Directory"
import_param = "path"
"#,
    r#"
id = "qc.check"
title = "Check read quality"
palette = "Quality control"
kind = "external"
cost = "light"
bin = "checker"
pixi = { checker = "1.0.0" }
resources = { cpus = 2, memory_gb = 2, threads_param = "threads" }
argv = ["checker", "--threads", "{param.threads}", "{flag.strict}", "--mode", "{param.mode}", "{input.fastq}", "?mate:{input.mate}", "--out", "{work}/out/report.html"]
[[params]]
name = "threads"
type = "int"
label = "Threads"
default = 1
min = 1
max = 16
[[params]]
name = "strict"
type = "bool"
label = "Strict"
default = false
[[params]]
name = "mode"
type = "string"
label = "Mode"
default = "fast"
choices = ["fast", "thorough"]
[[params]]
name = "ratio"
type = "float"
label = "Ratio"
default = 0.5
min = 0.0
max = 1.0
[[ports.in]]
name = "fastq"
type = "Fastq"
union = ["FastqGz"]
[[ports.in]]
name = "mate"
type = "Fastq"
optional = true
[[ports.out]]
name = "report"
type = "Html"
[[ports.out]]
name = "trimmed"
type = "Fastq"
[outputs]
report = { glob = "out/report.html" }
trimmed = { glob = "out/trimmed.fastq" }
"#,
    r#"
id = "class.classify"
title = "Classify reads"
palette = "Classification"
kind = "external"
cost = "heavy"
bin = "classify"
pixi = { classify = "2.1.3" }
argv = ["classify", "--db", "{input.db}", "--sample", "{param.sample}", "{input.reads}"]
stdout = "report"
[[params]]
name = "sample"
type = "string"
label = "Sample name"
required = true
[[ports.in]]
name = "reads"
type = "Fastq"
[[ports.in]]
name = "db"
type = "Directory"
[ports.in.resource]
profile = "kraken2-database"
title = "Kraken2 database"
detail = "A prebuilt Kraken2 database folder."
[[ports.in.resource.resolutions]]
id = "existing"
label = "Use a database already on disk"
kind = "use_existing"
[[ports.in.resource.resolutions]]
id = "standard-8"
label = "Download Standard-8"
kind = "download"
recommended = true
download_bytes = 5500000000
stored_bytes = 8000000000
scientific_effect = "Capped at 8 GB: lower sensitivity for rare taxa."
source_url = "https://example.org/k2"
version = "2024-09-04"
[[ports.out]]
name = "report"
type = "Text"
"#,
];

/// The test contracts, parsed as the catalog parses a file: each named
/// `test/<id>.toml`, so requirements can cite their lines.
pub fn contracts() -> Vec<OperatorContract> {
    CONTRACTS
        .iter()
        .map(|t| {
            let id = OperatorContract::from_toml(t)
                .expect("test contract is valid")
                .id;
            Catalog::parse_contract(&format!("test/{id}.toml"), t).expect("test contract is valid")
        })
        .collect()
}

pub fn catalog() -> Catalog {
    Catalog::new(contracts()).unwrap()
}

pub const LOCATION: &str = ".somite/web.somite.json";

pub fn txn(base: &WorkflowDocument, key: &str, operations: Vec<Value>) -> GraphTransaction {
    GraphTransaction::from_json(
        &serde_json::to_vec(&json!({
            "base_state_revision": base.state_revision(LOCATION),
            "idempotency_key": key,
            "summary": "test edit",
            "operations": operations,
        }))
        .unwrap(),
    )
    .unwrap()
}

pub fn ops(values: Vec<Value>) -> Vec<Operation> {
    values
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect()
}

/// reads → check, plus a disconnected note.
pub fn small_graph(catalog: &Catalog) -> WorkflowDocument {
    somite_workflow::transaction::apply_operations(
        &WorkflowDocument::empty("t"),
        catalog,
        &ops(vec![
            json!({"op": "add_operator", "node_id": "reads", "operator_id": "files.reads", "params": {"path": "r.fastq"}, "x": 0, "y": 0}),
            json!({"op": "add_operator", "node_id": "qc", "operator_id": "qc.check", "x": 200, "y": 0}),
            json!({"op": "connect", "edge_id": "e1", "from_node": "reads", "from_port": "file", "to_node": "qc", "to_port": "fastq"}),
        ]),
    )
    .unwrap()
}
