//! The reviewed catalog shipped in `operators/` loads, is complete, and each
//! contract is internally consistent.

use somite_workflow::Catalog;
use somite_workflow::operator::{
    OperatorContract, OperatorKind, ParamType, PortSpec, ResolutionKind,
};
use somite_workflow::types::PortType;

#[test]
fn the_builtin_catalog_loads_without_duplicates() {
    let catalog = Catalog::builtin().expect("every shipped contract is valid");
    assert!(!catalog.is_empty());
    assert!(somite_workflow::canonical::is_revision(catalog.revision()));
}

#[test]
fn external_operators_pin_exact_package_versions() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        if c.kind != OperatorKind::External {
            continue;
        }
        for (package, version) in &c.pixi {
            assert!(
                version.chars().next().is_some_and(|ch| ch.is_ascii_digit())
                    && !version.contains(['*', '>', '<', '=', ' ']),
                "{}: package {package} must be pinned to an exact version, not `{version}`",
                c.id
            );
        }
    }
}

/// Every reviewed id the palette promises, so a renamed or dropped contract
/// is caught here rather than by a user whose workflow stops loading.
const REQUIRED_IDS: &[&str] = &[
    "files.import",
    "files.import_paired",
    "files.import_fastq_gz",
    "files.import_fasta",
    "files.import_bam",
    "files.import_gtf",
    "files.import_kraken2_database",
    "qc.fastqc",
    "qc.fastp",
    "qc.multiqc",
    "qc.busco",
    "align.bwa_index",
    "align.bwa",
    "align.bowtie2_build",
    "align.bowtie2",
    "align.minimap2",
    "align.star_index",
    "align.star",
    "align.hisat2_index",
    "align.hisat2",
    "align.samtools_sort",
    "align.samtools_index",
    "align.samtools_view",
    "align.picard_mark_duplicates",
    "ref.samtools_faidx",
    "ref.gatk_sequence_dictionary",
    "var.bcftools_call",
    "var.haplotypecaller",
    "quant.salmon_index",
    "quant.salmon",
    "quant.kallisto_index",
    "quant.kallisto",
    "quant.featurecounts",
    "class.kraken2",
    "class.bracken",
    "asm.spades",
    "asm.megahit",
    "asm.quast",
    "annot.prokka",
    "seq.seqkit_stats",
    "files.import_fasta_gz",
    "files.import_gtf_gz",
    "files.import_gff3",
    "files.import_bed",
    "files.import_vcf",
    "files.import_vcf_gz",
    "files.import_directory",
    "files.import_multiqc_report",
    "files.unzip",
    "ref.gunzip_fasta",
    "ref.gunzip_gtf",
    "ref.samtools_dict",
    "qc.cutadapt",
    "align.samtools_merge",
    "align.samtools_fixmate",
    "align.samtools_markdup",
    "align.samtools_depth",
    "align.samtools_coverage",
    "align.samtools_fastq",
    "align.bedtools_bamtobed",
    "align.bedtools_genomecov",
    "align.bedtools_intersect",
    "align.mosdepth",
    "align.picard_insert_size",
    "var.freebayes",
    "var.vcftools_filter",
    "var.bgzip",
    "var.bcftools_index",
    "var.bcftools_stats",
    "quant.stringtie",
    "annot.gffread_transcripts",
    "annot.gffread_gtf",
    "seq.seqtk_sample",
    "seq.seqtk_trimfq",
    "seq.seqtk_fasta",
    "asm.flye",
    "class.krona",
    "sra.prefetch",
    "sra.fasterq_dump",
    "sra.fasterq_dump_single",
    "ncbi.datasets_genome",
    "ncbi.datasets_extract_assembly",
    "ensembl.fasta",
    "ensembl.gtf",
];

const PALETTE_GROUPS: &[&str] = &[
    "Inputs",
    "Quality control",
    "Alignment",
    "Reference",
    "Variant calling",
    "Quantification",
    "Classification",
    "Assembly",
    "Annotation",
    "Sequences",
    somite_workflow::operator::PUBLIC_DATA_PALETTE,
];

fn contract<'c>(catalog: &'c Catalog, id: &str) -> &'c OperatorContract {
    &catalog
        .get(id)
        .unwrap_or_else(|| panic!("{id} is in the catalog"))
        .contract
}

fn input<'c>(c: &'c OperatorContract, port: &str) -> &'c PortSpec {
    c.input(port)
        .unwrap_or_else(|| panic!("{} has input `{port}`", c.id))
}

fn output<'c>(c: &'c OperatorContract, port: &str) -> &'c PortSpec {
    c.output(port)
        .unwrap_or_else(|| panic!("{} has output `{port}`", c.id))
}

#[test]
fn every_required_operator_is_shipped() {
    let catalog = Catalog::builtin().unwrap();
    let missing: Vec<&str> = REQUIRED_IDS
        .iter()
        .copied()
        .filter(|id| catalog.get(id).is_none())
        .collect();
    assert!(missing.is_empty(), "missing operators: {missing:?}");
    assert!(
        catalog.len() >= 80,
        "the catalog has {} operators",
        catalog.len()
    );
}

#[test]
fn every_operator_is_described_and_grouped() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        assert!(
            c.description
                .as_deref()
                .is_some_and(|d| !d.trim().is_empty()),
            "{} has no description",
            c.id
        );
        assert!(
            PALETTE_GROUPS.contains(&c.palette.as_str()),
            "{} is in unknown palette group `{}`",
            c.id,
            c.palette
        );
    }
}

#[test]
fn every_external_operator_ties_its_threads_to_its_resources() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        if c.kind != OperatorKind::External {
            continue;
        }
        let resources = c
            .resources
            .as_ref()
            .unwrap_or_else(|| panic!("{} declares no resources", c.id));
        assert!(resources.cpus >= 1 && resources.memory_gb >= 1, "{}", c.id);
        assert_eq!(
            resources.threads_param.as_deref(),
            Some("threads"),
            "{}: resources.threads_param must name the `threads` parameter",
            c.id
        );
        let threads = c
            .param("threads")
            .unwrap_or_else(|| panic!("{} has no threads parameter", c.id));
        assert_eq!(threads.ty, ParamType::Int, "{}", c.id);
        assert_eq!(
            threads.default.as_ref().and_then(|d| d.as_u64()),
            Some(u64::from(resources.cpus)),
            "{}: the threads default must match resources.cpus",
            c.id
        );
        let max = threads.max.unwrap_or(f64::INFINITY);
        assert!(
            threads.min == Some(1.0) && max >= f64::from(resources.cpus),
            "{}: threads must range from 1 and admit resources.cpus",
            c.id
        );
        // A multi-threaded tool must be told its thread count; a param that
        // only reserves CPUs the tool never uses would be a lie.
        if max > 1.0 {
            assert!(
                c.argv.iter().any(|t| t.contains("{param.threads}")),
                "{}: threads may exceed 1 but the argv never passes it",
                c.id
            );
        }
    }
}

#[test]
fn external_operators_are_plain_argv_writing_under_out() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        if c.kind != OperatorKind::External {
            assert!(
                c.argv.is_empty() && c.bin.is_none() && c.pixi.is_empty(),
                "{}",
                c.id
            );
            continue;
        }
        let bin = c.bin.as_deref().unwrap();
        assert!(
            ![
                "sh",
                "bash",
                "conda",
                "mamba",
                "pixi",
                "docker",
                "nextflow",
                "snakemake"
            ]
            .contains(&bin),
            "{}: an operator runs its tool, never a shell or an environment manager",
            c.id
        );
        for token in &c.argv {
            for shell in ["|", "&&", ";", ">", "<", "$(", "`", "$"] {
                assert!(
                    !token.contains(shell),
                    "{}: argv token `{token}` looks like shell syntax",
                    c.id
                );
            }
            let mut rest = token.as_str();
            while let Some(at) = rest.find("{work}") {
                rest = &rest[at + "{work}".len()..];
                assert!(
                    rest.starts_with("/out") || rest.starts_with("/tmp"),
                    "{}: `{token}` writes outside {{work}}/out and {{work}}/tmp",
                    c.id
                );
            }
        }
        for (port, spec) in &c.outputs {
            assert!(
                spec.glob == "out" || spec.glob.starts_with("out/"),
                "{}: output `{port}` is not collected from out/",
                c.id
            );
        }
    }
}

#[test]
fn source_operators_import_from_a_required_path_parameter() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        if !matches!(c.kind, OperatorKind::Source | OperatorKind::Reference) {
            continue;
        }
        assert!(c.ports.inputs.is_empty(), "{}", c.id);
        assert!(!c.ports.outputs.is_empty(), "{}", c.id);
        for port in &c.ports.outputs {
            let param = port
                .import_param
                .as_deref()
                .unwrap_or_else(|| panic!("{}.{} imports nothing", c.id, port.name));
            let spec = c.param(param).unwrap();
            assert!(
                spec.ty == ParamType::String && spec.required,
                "{}: `{param}` must be a required string path",
                c.id
            );
            assert!(port.union.is_empty(), "{}: outputs have one type", c.id);
        }
    }
    let paired = contract(&catalog, "files.import_paired");
    for mate in ["r1", "r2"] {
        assert_eq!(output(paired, mate).ty, PortType::Fastq);
        assert_eq!(output(paired, mate).import_param.as_deref(), Some(mate));
    }
    for (id, ty) in [
        ("files.import_fastq_gz", PortType::FastqGz),
        ("files.import_fasta", PortType::Fasta),
        ("files.import_bam", PortType::Bam),
        ("files.import_gtf", PortType::Gtf),
        ("files.import_fasta_gz", PortType::FastaGz),
        ("files.import_gtf_gz", PortType::GtfGz),
        ("files.import_gff3", PortType::Gff3),
        ("files.import_bed", PortType::Bed),
        ("files.import_vcf", PortType::Vcf),
        ("files.import_vcf_gz", PortType::VcfGz),
        ("files.import_directory", PortType::Directory),
        ("files.import_multiqc_report", PortType::Html),
    ] {
        let c = contract(&catalog, id);
        assert_eq!(c.kind, OperatorKind::Source, "{id}");
        assert_eq!(c.ports.outputs.len(), 1, "{id}");
        assert_eq!(c.ports.outputs[0].ty, ty, "{id}");
    }
    // An imported MultiQC report is the type of the one MultiQC writes, so
    // whatever takes the produced report takes an imported one too.
    let imported = output(contract(&catalog, "files.import_multiqc_report"), "report");
    let produced = output(contract(&catalog, "qc.multiqc"), "report_html");
    assert_eq!(imported.ty, produced.ty);
    // A user who asks for one finds where to bring an existing one in.
    let page = catalog
        .search(&somite_workflow::search::SearchRequest {
            query: "import multiqc report".into(),
            limit: Some(3),
            cursor: None,
        })
        .unwrap();
    assert_eq!(
        page.matches[0].id, "files.import_multiqc_report",
        "{page:?}"
    );
}

#[test]
fn kraken2_needs_a_kraken2_database_with_reviewed_downloads() {
    let catalog = Catalog::builtin().unwrap();
    let kraken2 = contract(&catalog, "class.kraken2");
    let db = input(kraken2, "db");
    assert_eq!(db.ty, PortType::Directory);
    assert!(!db.optional);
    let need = db.resource.as_ref().expect("db is a managed resource");
    assert_eq!(need.profile, "kraken2-database");
    assert!(!need.title.is_empty() && !need.detail.is_empty());
    let recommended: Vec<_> = need.resolutions.iter().filter(|r| r.recommended).collect();
    assert_eq!(recommended.len(), 1, "exactly one recommended resolution");
    assert!(need.resolutions.iter().any(|r| {
        r.recommended
            && r.kind == ResolutionKind::Download
            && r.source_url
                .as_deref()
                .is_some_and(|u| u.starts_with("https://"))
            && r.version.is_some()
    }));
    for kind in [
        ResolutionKind::UseExisting,
        ResolutionKind::Download,
        ResolutionKind::Build,
    ] {
        assert!(
            need.resolutions.iter().any(|r| r.kind == kind),
            "class.kraken2 offers no {kind:?} resolution"
        );
    }
    for r in need
        .resolutions
        .iter()
        .filter(|r| r.kind != ResolutionKind::UseExisting)
    {
        assert!(
            r.scientific_effect
                .as_deref()
                .is_some_and(|e| !e.is_empty()),
            "`{}` must state its scientific effect",
            r.id
        );
    }
    let ids: std::collections::BTreeSet<&str> =
        need.resolutions.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids.len(),
        need.resolutions.len(),
        "resolution ids are unique"
    );

    // The local database import satisfies it; a plain directory does not.
    let local = contract(&catalog, "files.import_kraken2_database");
    assert_eq!(local.kind, OperatorKind::Reference);
    let local_db = output(local, "db");
    assert!(db.accepts(local_db));
    let star_index = output(contract(&catalog, "align.star_index"), "index");
    assert!(!db.accepts(star_index));

    // Bracken reads the same database.
    let bracken_db = input(contract(&catalog, "class.bracken"), "db");
    assert_eq!(
        bracken_db.resource.as_ref().map(|r| r.profile.as_str()),
        Some("kraken2-database")
    );
    assert!(bracken_db.accepts(local_db));
}

/// A size in a contract would be a second, uncited copy of what a reviewed
/// provider (`resources/`) owns: the publisher of the Kraken 2 collections
/// gives sizes only rounded to 0.1 GB, and a build's size depends on the
/// libraries chosen. So no shipped resolution states one.
#[test]
fn no_shipped_resolution_states_a_size() {
    let catalog = Catalog::builtin().unwrap();
    let mut checked = 0;
    for entry in catalog.entries() {
        for port in &entry.contract.ports.inputs {
            for r in port.resource.iter().flat_map(|need| &need.resolutions) {
                checked += 1;
                assert!(
                    r.download_bytes.is_none() && r.stored_bytes.is_none(),
                    "{}.{}: resolution `{}` states a size",
                    entry.contract.id,
                    port.name,
                    r.id
                );
            }
        }
    }
    assert!(checked >= 12, "only {checked} resolutions were found");
}

#[test]
fn every_fastq_input_also_accepts_gzipped_fastq() {
    let catalog = Catalog::builtin().unwrap();
    let mut checked = 0;
    for entry in catalog.entries() {
        let c = &entry.contract;
        for port in &c.ports.inputs {
            let accepted: Vec<PortType> = std::iter::once(port.ty)
                .chain(port.union.iter().copied())
                .collect();
            if accepted.contains(&PortType::Fastq) {
                checked += 1;
                assert!(
                    accepted.contains(&PortType::FastqGz),
                    "{}.{} takes Fastq but not FastqGz",
                    c.id,
                    port.name
                );
            }
        }
    }
    assert!(checked >= 20, "only {checked} FASTQ inputs were found");
}

#[test]
fn each_index_builder_feeds_only_its_own_aligner() {
    let catalog = Catalog::builtin().unwrap();
    let pairs = [
        ("align.bwa_index", "align.bwa"),
        ("align.bowtie2_build", "align.bowtie2"),
        ("align.star_index", "align.star"),
        ("align.hisat2_index", "align.hisat2"),
        ("quant.salmon_index", "quant.salmon"),
        ("quant.kallisto_index", "quant.kallisto"),
    ];
    for (builder, user) in pairs {
        let built = output(contract(&catalog, builder), "index");
        for (_, other) in pairs {
            let wanted = input(contract(&catalog, other), "index");
            assert!(
                wanted.stage_as.is_some(),
                "{other}.index needs a fixed staged name"
            );
            assert_eq!(
                wanted.accepts(built),
                other == user,
                "{builder}.index -> {other}.index"
            );
        }
    }
}

#[test]
fn the_gatk_chain_connects_by_type() {
    let catalog = Catalog::builtin().unwrap();
    let markdup = contract(&catalog, "align.picard_mark_duplicates");
    let hc = contract(&catalog, "var.haplotypecaller");
    assert_eq!(output(markdup, "marked").ty, PortType::GatkReadyBam);
    assert!(input(hc, "alignments").accepts(output(markdup, "marked")));
    assert!(input(hc, "index").accepts(output(markdup, "index")));
    let bam = output(contract(&catalog, "align.samtools_sort"), "sorted");
    assert!(input(hc, "alignments").accepts(bam));
    let fai = output(contract(&catalog, "ref.samtools_faidx"), "fai");
    let dict = output(contract(&catalog, "ref.gatk_sequence_dictionary"), "dict");
    assert!(input(hc, "fai").accepts(fai));
    assert!(input(hc, "dict").accepts(dict));
    for port in ["reference", "fai", "dict", "alignments", "index"] {
        assert!(!input(hc, port).optional, "haplotypecaller needs {port}");
    }
    // GATK finds the index and dictionary by name next to their files.
    let staged = |p: &str| input(hc, p).stage_as.as_deref().unwrap();
    assert_eq!(staged("index"), format!("{}.bai", staged("alignments")));
    assert_eq!(staged("fai"), format!("{}.fai", staged("reference")));
    assert_eq!(
        staged("dict"),
        format!("{}.dict", staged("reference").rsplit_once('.').unwrap().0)
    );
    // bcftools: mpileup feeds call, call feeds filter.
    let pileup = output(contract(&catalog, "var.bcftools_mpileup"), "pileup");
    let call = contract(&catalog, "var.bcftools_call");
    assert!(input(call, "pileup").accepts(pileup));
    let filter = contract(&catalog, "var.bcftools_filter");
    assert!(input(filter, "variants").accepts(output(call, "calls")));
}

/// The catalog records where each field of a reviewed contract is declared;
/// reading those lines back from the files finds exactly those fields. (The
/// files are parsed here as the catalog parses them, rather than taken from
/// the embedded catalog, so the lines are checked against these very files.)
#[test]
fn contract_fields_are_located_at_their_lines_in_the_reviewed_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../operators");
    let mut checked = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        let name = format!("operators/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&path).unwrap();
        let c = Catalog::parse_contract(&name, &text).unwrap();
        let source = c.source.as_ref().expect("a parsed contract has a source");
        assert_eq!(source.file(), name);
        let line = |field: &str| {
            let n = source
                .line(field)
                .unwrap_or_else(|| panic!("{name}: `{field}` has a line"));
            text.lines().nth(n as usize - 1).unwrap().trim()
        };
        assert!(line("id").starts_with("id = "), "{name}");
        for (i, p) in c.params.iter().enumerate() {
            assert_eq!(line(&format!("params[{i}]")), "[[params]]", "{name}");
            assert_eq!(
                line(&format!("params[{i}].name")),
                format!("name = \"{}\"", p.name),
                "{name}"
            );
        }
        for (i, p) in c.ports.inputs.iter().enumerate() {
            assert_eq!(
                line(&format!("ports.in[{i}].name")),
                format!("name = \"{}\"", p.name),
                "{name}"
            );
            if p.resource.is_some() {
                assert_eq!(
                    line(&format!("ports.in[{i}].resource")),
                    "[ports.in.resource]",
                    "{name}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 0);
}
