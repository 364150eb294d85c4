//! Source recipes: the native operators that fetch a search result, with
//! their parameters filled, as the operations of one `GraphTransaction`.
//!
//! Pure. The operator ids, parameter names and ports are the catalog's
//! (`operators/sra.*.toml`, `operators/ncbi.*.toml`,
//! `operators/ensembl.*.toml`); the recipes are returned, never applied, so
//! adding one to a canvas stays an ordinary, undoable transaction.

use crate::model::{Layout, ProducedPort, Recipe};
use serde_json::{Value, json};
use somite_workflow::transaction::Operation;
use somite_workflow::types::PortType;
use std::collections::BTreeMap;

/// Horizontal distance between a recipe's nodes on the canvas.
const STEP_X: f64 = 240.0;

pub const SRA_PREFETCH: &str = "sra.prefetch";
pub const SRA_FASTERQ_DUMP: &str = "sra.fasterq_dump";
pub const SRA_FASTERQ_DUMP_SINGLE: &str = "sra.fasterq_dump_single";
pub const NCBI_DATASETS_GENOME: &str = "ncbi.datasets_genome";
pub const NCBI_DATASETS_EXTRACT_ASSEMBLY: &str = "ncbi.datasets_extract_assembly";
pub const ENSEMBL_FASTA: &str = "ensembl.fasta";
pub const ENSEMBL_GTF: &str = "ensembl.gtf";

/// A file of an Ensembl release, as its directory's `CHECKSUMS` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnsemblFile {
    /// The file name inside its release directory.
    pub file: String,
    /// The `sum` (BSD) checksum and 1 KiB block count, as `CHECKSUMS` states
    /// them (`"12345 67890"`).
    pub checksum: String,
}

/// Fetching one SRA run: `prefetch`, then `fasterq-dump` split by layout.
/// `None` layout cannot pick the dump operator: no recipe.
pub fn sra_run(run: &str, layout: Option<Layout>) -> Option<Recipe> {
    let layout = layout?;
    let base = node_base(run);
    let prefetch = format!("{base}_prefetch");
    let dump = format!("{base}_fastq");
    let (dump_operator, produces): (&str, &[&str]) = match layout {
        Layout::Paired => (SRA_FASTERQ_DUMP, &["r1", "r2"]),
        Layout::Single => (SRA_FASTERQ_DUMP_SINGLE, &["reads"]),
    };
    Some(Recipe {
        summary: format!(
            "Fetch {run} ({}) from SRA",
            match layout {
                Layout::Paired => "paired",
                Layout::Single => "single",
            }
        ),
        operations: vec![
            add(&prefetch, SRA_PREFETCH, [("accession", json!(run))], 0),
            add(&dump, dump_operator, [], 1),
            connect(&prefetch, "run", &dump, "run"),
        ],
        produces: produces
            .iter()
            .map(|port| produced(&dump, port, PortType::FastqGz))
            .collect(),
    })
}

/// Fetching an NCBI assembly package and extracting its sequence (and its
/// annotation when the assembly is annotated).
pub fn ncbi_assembly(accession: &str, annotated: bool) -> Recipe {
    let base = node_base(accession);
    let download = format!("{base}_datasets");
    let extract = format!("{base}_assembly");
    let include = if annotated { "genome,gtf" } else { "genome" };
    let mut produces = vec![produced(&extract, "genome", PortType::Fasta)];
    if annotated {
        produces.push(produced(&extract, "annotation_gtf", PortType::Gtf));
    }
    Recipe {
        summary: format!("Fetch assembly {accession} from NCBI Datasets"),
        operations: vec![
            add(
                &download,
                NCBI_DATASETS_GENOME,
                [("accession", json!(accession)), ("include", json!(include))],
                0,
            ),
            add(&extract, NCBI_DATASETS_EXTRACT_ASSEMBLY, [], 1),
            connect(&download, "package", &extract, "package"),
        ],
        produces,
    }
}

/// Where an Ensembl release lives and which of its files a recipe fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnsemblRelease<'a> {
    /// The release file server the search read (`SOMITE_ENSEMBL_FTP_URL`).
    pub base_url: &'a str,
    pub release: u32,
    /// The production name, the folder (`homo_sapiens`).
    pub species: &'a str,
    /// The coordinate system version file names use (`GRCh38`).
    pub assembly: &'a str,
    /// `primary_assembly` or `toplevel`: the genome FASTA `CHECKSUMS` lists.
    pub region: &'a str,
    /// Whether `CHECKSUMS` lists the release's GTF.
    pub with_gtf: bool,
}

/// Downloading an Ensembl release's genome FASTA and (when listed) its GTF;
/// each task fetches its folder's `CHECKSUMS` and verifies the file.
pub fn ensembl_assembly(files: &EnsemblRelease<'_>) -> Recipe {
    let base = node_base(&format!("ensembl_{}_{}", files.species, files.release));
    let common = |extra: Option<(&'static str, &str)>| {
        let mut params = vec![
            ("base_url", json!(files.base_url)),
            ("release", json!(files.release)),
            ("species", json!(files.species)),
            (
                "file_species",
                json!(crate::ensembl::file_stem(files.species)),
            ),
            ("assembly", json!(files.assembly)),
        ];
        if let Some((name, value)) = extra {
            params.push(("sequence", json!("dna")));
            params.push((name, json!(value)));
        }
        params
    };
    let fasta_node = format!("{base}_fasta");
    let mut operations = vec![add_params(
        &fasta_node,
        ENSEMBL_FASTA,
        common(Some(("region", files.region))),
        0,
        0,
    )];
    let mut produces = vec![produced(&fasta_node, "sequences", PortType::FastaGz)];
    if files.with_gtf {
        let gtf_node = format!("{base}_gtf");
        operations.push(add_params(&gtf_node, ENSEMBL_GTF, common(None), 0, 1));
        produces.push(produced(&gtf_node, "annotation", PortType::GtfGz));
    }
    Recipe {
        summary: format!(
            "Fetch {} {} from Ensembl release {}",
            files.species, files.assembly, files.release
        ),
        operations,
        produces,
    }
}

/// A node id stem from an accession: lower case, letters, digits and `_`.
pub fn node_base(accession: &str) -> String {
    accession
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn add<const N: usize>(
    node_id: &str,
    operator_id: &str,
    params: [(&str, Value); N],
    column: u32,
) -> Operation {
    add_at(node_id, operator_id, params, column, 0)
}

fn add_at<const N: usize>(
    node_id: &str,
    operator_id: &str,
    params: [(&str, Value); N],
    column: u32,
    row: u32,
) -> Operation {
    add_params(node_id, operator_id, params.into(), column, row)
}

fn add_params(
    node_id: &str,
    operator_id: &str,
    params: Vec<(&str, Value)>,
    column: u32,
    row: u32,
) -> Operation {
    Operation::AddOperator {
        node_id: node_id.to_owned(),
        operator_id: operator_id.to_owned(),
        params: params
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<BTreeMap<_, _>>(),
        x: f64::from(column) * STEP_X,
        y: f64::from(row) * STEP_X / 2.0,
    }
}

fn connect(from_node: &str, from_port: &str, to_node: &str, to_port: &str) -> Operation {
    Operation::Connect {
        edge_id: format!("{from_node}_{from_port}__{to_node}_{to_port}"),
        from_node: from_node.to_owned(),
        from_port: from_port.to_owned(),
        to_node: to_node.to_owned(),
        to_port: to_port.to_owned(),
    }
}

fn produced(node_id: &str, port: &str, r#type: PortType) -> ProducedPort {
    ProducedPort {
        node_id: node_id.to_owned(),
        port: port.to_owned(),
        r#type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_runs_dump_two_fastq_files() {
        let recipe = sra_run("SRR1553607", Some(Layout::Paired)).unwrap();
        assert_eq!(recipe.operator_ids(), [SRA_PREFETCH, SRA_FASTERQ_DUMP]);
        let ports: Vec<_> = recipe.produces.iter().map(|p| p.port.as_str()).collect();
        assert_eq!(ports, ["r1", "r2"]);
        assert!(
            recipe
                .produces
                .iter()
                .all(|p| p.r#type == PortType::FastqGz && p.node_id == "srr1553607_fastq")
        );
        match &recipe.operations[0] {
            Operation::AddOperator { params, .. } => {
                assert_eq!(params["accession"], json!("SRR1553607"))
            }
            other => panic!("{other:?}"),
        }
        match &recipe.operations[2] {
            Operation::Connect {
                from_node, to_node, ..
            } => {
                assert_eq!(from_node, "srr1553607_prefetch");
                assert_eq!(to_node, "srr1553607_fastq");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn single_runs_dump_one_and_unknown_layouts_have_no_recipe() {
        let recipe = sra_run("ERR000001", Some(Layout::Single)).unwrap();
        assert_eq!(
            recipe.operator_ids(),
            [SRA_PREFETCH, SRA_FASTERQ_DUMP_SINGLE]
        );
        assert_eq!(recipe.produces.len(), 1);
        assert!(sra_run("ERR000001", None).is_none());
    }

    #[test]
    fn unannotated_assemblies_extract_only_the_sequence() {
        let annotated = ncbi_assembly("GCF_000001405.40", true);
        assert_eq!(annotated.produces.len(), 2);
        let bare = ncbi_assembly("GCA_000001405.29", false);
        assert_eq!(bare.produces.len(), 1);
        assert_eq!(bare.produces[0].r#type, PortType::Fasta);
        assert_eq!(bare.produces[0].port, "genome");
        match &bare.operations[0] {
            Operation::AddOperator {
                node_id, params, ..
            } => {
                assert_eq!(node_id, "gca_000001405_29_datasets");
                assert_eq!(params["include"], json!("genome"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ensembl_recipes_name_the_files_checksums_list() {
        let recipe = ensembl_assembly(&EnsemblRelease {
            base_url: "https://ftp.ensembl.org/pub",
            release: 115,
            species: "homo_sapiens",
            assembly: "GRCh38",
            region: "toplevel",
            with_gtf: false,
        });
        assert_eq!(recipe.operator_ids(), [ENSEMBL_FASTA]);
        match &recipe.operations[0] {
            Operation::AddOperator { params, .. } => {
                assert_eq!(params["file_species"], json!("Homo_sapiens"));
                assert_eq!(params["region"], json!("toplevel"));
                assert_eq!(params["release"], json!(115));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(recipe.produces[0].port, "sequences");
    }
}
