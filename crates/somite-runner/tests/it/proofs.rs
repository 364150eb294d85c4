//! Every tool operator of the shipped catalog either proves with its real
//! Debian tool (a task-level proof with the real binary, not a Nextflow
//! run) or declares why it cannot run here, and `docs/operator-proofs.md`
//! is the table those proofs produce. `scripts/setup` installs the tools;
//! a missing one fails its proof rather than skipping it.

use somite_runner::proof::coverage::{self, Coverage};
use somite_runner::proof::{PROOF_KIND, Proof, Prover, fixtures, recipes};
use somite_workflow::Catalog;
use somite_workflow::operator::OperatorKind;
use std::path::Path;

/// Set to rewrite the committed coverage table instead of comparing it.
const UPDATE: &str = somite_api::EnvVars::SOMITE_UPDATE_COVERAGE;

#[test]
fn every_tool_operator_proves_or_declares_why_it_cannot() {
    let catalog = Catalog::builtin().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut prover = Prover::new(&catalog, scratch.path());
    let mut failures = Vec::new();
    let mut proofs: Vec<(String, Result<Proof, &'static str>)> = Vec::new();
    for entry in catalog
        .entries()
        .filter(|e| e.contract.kind == OperatorKind::External)
    {
        let id = &entry.contract.id;
        match recipes::recipe(id) {
            None => failures.push(format!("{id}: no recipe and no declared reason")),
            Some(Err(reason)) => {
                assert!(!reason.is_empty(), "{id}");
                proofs.push((id.clone(), Err(reason)));
            }
            Some(Ok(_)) => match prover.prove(id) {
                Ok(proof) => {
                    println!("{}", proof.render());
                    assert_eq!(proof.kind, PROOF_KIND);
                    if !proof.passed {
                        failures.push(proof.render());
                    }
                    proofs.push((id.clone(), Ok(proof)));
                }
                Err(e) => failures.push(format!("{id}: {e}")),
            },
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // The metagenomics proof classifies the fixture reads as the species
    // the tiny database holds them under.
    let kraken = std::fs::read_to_string(
        scratch
            .path()
            .join("tasks/class.kraken2/out/kraken2.report.txt"),
    )
    .unwrap();
    assert!(
        kraken
            .lines()
            .any(|l| l.contains("\tS\t101\t") && l.trim_start().starts_with("100.00")),
        "{kraken}"
    );

    // The VCF index is tabix's TBI (BGZF-compressed, magic `TBI\1`), the
    // index `tabix -p vcf` writes.
    let index = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(
            scratch
                .path()
                .join("tasks/var.bcftools_index/out/variants.vcf.gz.tbi"),
        )
        .output()
        .unwrap();
    assert!(index.stdout.starts_with(b"TBI\x01"), "not a TBI index");

    // DESeq2 finds the genes the counts fixture made differential, with a
    // fold change near their four, and few of the others.
    let results = std::fs::read_to_string(
        scratch
            .path()
            .join("tasks/quant.deseq2/out/deseq2_results.tsv"),
    )
    .unwrap();
    let mut lines = results.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (fold, padj) = (column("log2FoldChange"), column("padj"));
    let mut found = 0;
    let mut false_positives = 0;
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let gene: usize = fields[0].strip_prefix("gene").unwrap().parse().unwrap();
        let significant = fields[padj].parse::<f64>().is_ok_and(|p| p < 0.05);
        if gene <= fixtures::DIFFERENTIAL_GENES {
            let change: f64 = fields[fold].parse().unwrap();
            assert!(significant && (1.0..3.0).contains(&change), "{line}");
            found += 1;
        } else if significant {
            false_positives += 1;
        }
    }
    assert_eq!(found, fixtures::DIFFERENTIAL_GENES, "{results}");
    assert!(
        false_positives * 20 < fixtures::EXPRESSION_GENES - fixtures::DIFFERENTIAL_GENES,
        "{false_positives} unchanged genes called at 5%\n{results}"
    );

    // The database the proof built is the kraken2-database validation
    // fixture, byte for byte.
    for (name, bytes) in somite_runner::fixtures::KRAKEN2_DATABASE_FILES {
        let built = std::fs::read(scratch.path().join("fixtures/kraken2_db").join(name)).unwrap();
        assert!(
            built == *bytes,
            "{name} differs from the validation fixture"
        );
    }

    let rows: Vec<Coverage<'_>> = proofs
        .iter()
        .map(|(id, outcome)| match outcome {
            Ok(proof) => Coverage::Proven(proof),
            Err(reason) => {
                let contract = &catalog.get(id).unwrap().contract;
                Coverage::Declared {
                    operator_id: id,
                    tool: contract.bin.as_deref().unwrap_or(id),
                    pinned: coverage::pins(contract.pixi.iter()),
                    reason,
                }
            }
        })
        .collect();
    let table = coverage::table(&rows);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/operator-proofs.md");
    if std::env::var_os(UPDATE).is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == table,
        "docs/operator-proofs.md is stale; rerun with {UPDATE}=1 and commit it.\n{table}"
    );
    let proven = rows
        .iter()
        .filter(|r| matches!(r, Coverage::Proven(_)))
        .count();
    assert!(proven >= 60, "only {proven} operators proven");
}

/// The download operators' proofs fetch from the loopback file server; a
/// download whose published checksum does not match fails its task, and
/// the reads fasterq-dump extracts from the served run are the fixture
/// reads it was loaded from.
#[test]
fn downloads_are_verified_and_sra_runs_round_trip() {
    let catalog = Catalog::builtin().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut prover = Prover::new(&catalog, scratch.path());

    let genuine = prover.prove("ensembl.fasta").unwrap();
    assert!(genuine.passed, "{}", genuine.render());
    let tampered = prover.prove("ensembl.fasta@tampered").unwrap();
    assert!(!tampered.passed, "{}", tampered.render());
    assert!(
        tampered
            .stderr_tail
            .contains("does not match its published checksum"),
        "{}",
        tampered.render()
    );

    let paired = prover.prove("sra.fasterq_dump").unwrap();
    assert!(paired.passed, "{}", paired.render());
    let single = prover.prove("sra.fasterq_dump_single").unwrap();
    assert!(single.passed, "{}", single.render());
    let sequences = |fastq: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(fastq)
            .lines()
            .skip(1)
            .step_by(4)
            .map(str::to_owned)
            .collect()
    };
    let gunzip = |path: &Path| {
        let out = std::process::Command::new("gzip")
            .arg("-dc")
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let fixture = |name: &str| {
        let root = scratch.path().join("fixtures");
        let kind = match name {
            "r1" => somite_runner::proof::fixtures::FixtureKind::ReadsR1,
            _ => somite_runner::proof::fixtures::FixtureKind::ReadsR2,
        };
        std::fs::read(somite_runner::proof::fixtures::materialize(kind, &root).unwrap()).unwrap()
    };
    let task = scratch.path().join("tasks/sra.fasterq_dump");
    for mate in ["r1", "r2"] {
        let dumped = gunzip(&task.join(format!("out/reads_{}.fastq.gz", &mate[1..])));
        assert_eq!(sequences(&dumped), sequences(&fixture(mate)), "{mate}");
    }
    let dumped = gunzip(
        &scratch
            .path()
            .join("tasks/sra.fasterq_dump_single/out/reads.fastq.gz"),
    );
    assert_eq!(sequences(&dumped), sequences(&fixture("r1")));
}
