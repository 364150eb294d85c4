//! NCBI's answers, read into facts. Pure: bodies in, facts or the reason
//! the body is not in its documented shape out.
//!
//! Datasets v2 shapes are the `ncbi/datasets` OpenAPI file's
//! (`v2reportsAssemblyDataReportPage`, `v2reportsTaxonomyDataReportPage`,
//! `v2reportsGeneDataReportPage`; 64-bit integers travel as strings, as
//! protobuf's JSON mapping writes them). E-utilities shapes are
//! `esearch`/`esummary` with `retmode=json`; SRA's `esummary` carries its
//! experiment and runs as XML fragments (`expxml`, `runs`) inside the JSON.

use crate::model::{AssemblyFacts, GeneFacts, Layout, Location, OrganismFacts, ReadsFacts};
use serde::Deserialize;
use serde_json::Value;

/// A 64-bit integer as protobuf JSON writes it (a string), or a number.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(untagged)]
enum U64 {
    Number(u64),
    Text(#[serde(deserialize_with = "digits")] u64),
}

fn digits<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

impl From<U64> for u64 {
    fn from(value: U64) -> u64 {
        match value {
            U64::Number(n) | U64::Text(n) => n,
        }
    }
}

fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| e.to_string())
}

/// A page of some report, and where the next one starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_page_token: Option<String>,
    pub total_count: Option<u64>,
}

#[derive(Deserialize)]
struct ReportPage<T> {
    #[serde(default = "Vec::new")]
    reports: Vec<T>,
    next_page_token: Option<String>,
    total_count: Option<u64>,
}

impl<T> ReportPage<T> {
    fn map<U>(self, f: impl FnMut(T) -> Result<U, String>) -> Result<Page<U>, String> {
        Ok(Page {
            items: self.reports.into_iter().map(f).collect::<Result<_, _>>()?,
            next_page_token: self.next_page_token.filter(|t| !t.is_empty()),
            total_count: self.total_count,
        })
    }
}

#[derive(Deserialize)]
struct AssemblyReport {
    accession: Option<String>,
    paired_accession: Option<String>,
    organism: Option<Organism>,
    assembly_info: Option<AssemblyInfo>,
    assembly_stats: Option<AssemblyStats>,
    annotation_info: Option<AnnotationInfo>,
}

#[derive(Deserialize)]
struct Organism {
    tax_id: Option<u64>,
    organism_name: Option<String>,
}

#[derive(Deserialize)]
struct AssemblyInfo {
    assembly_level: Option<String>,
    assembly_name: Option<String>,
    refseq_category: Option<String>,
    release_date: Option<String>,
}

#[derive(Deserialize)]
struct AssemblyStats {
    total_sequence_length: Option<U64>,
}

#[derive(Deserialize)]
struct AnnotationInfo {
    name: Option<String>,
}

/// `genome/accession/{…}/dataset_report` and `genome/taxon/{…}/dataset_report`.
pub fn assembly_page(body: &[u8]) -> Result<Page<AssemblyFacts>, String> {
    parse::<ReportPage<AssemblyReport>>(body)?.map(|report| {
        let accession = report
            .accession
            .ok_or("an assembly report without `accession`")?;
        let info = report.assembly_info;
        Ok(AssemblyFacts {
            accession,
            name: info.as_ref().and_then(|i| i.assembly_name.clone()),
            level: info.as_ref().and_then(|i| i.assembly_level.clone()),
            refseq_category: info.as_ref().and_then(|i| i.refseq_category.clone()),
            release_date: info.and_then(|i| i.release_date),
            organism: report
                .organism
                .as_ref()
                .and_then(|o| o.organism_name.clone()),
            taxid: report.organism.and_then(|o| o.tax_id),
            annotation: report.annotation_info.and_then(|a| a.name),
            total_length: report
                .assembly_stats
                .and_then(|s| s.total_sequence_length)
                .map(u64::from),
            paired_accession: report.paired_accession,
        })
    })
}

#[derive(Deserialize)]
struct TaxonomyMatch {
    taxonomy: Option<TaxonomyNode>,
}

#[derive(Deserialize)]
struct TaxonomyNode {
    tax_id: Option<u64>,
    rank: Option<String>,
    current_scientific_name: Option<NameAndAuthority>,
    curator_common_name: Option<String>,
}

#[derive(Deserialize)]
struct NameAndAuthority {
    name: Option<String>,
}

/// `taxonomy/taxon/{…}/dataset_report`. A match without a node (a name
/// NCBI did not recognise, reported in `errors`) is left out.
pub fn taxonomy_page(body: &[u8]) -> Result<Page<OrganismFacts>, String> {
    let page = parse::<ReportPage<TaxonomyMatch>>(body)?;
    let mut mapped = page.map(|m| Ok(m.taxonomy))?;
    let items = std::mem::take(&mut mapped.items)
        .into_iter()
        .flatten()
        .map(|node| {
            let taxid = node.tax_id.ok_or("a taxonomy node without `tax_id`")?;
            Ok(OrganismFacts {
                taxid: Some(taxid),
                scientific_name: node.current_scientific_name.and_then(|n| n.name),
                common_name: node.curator_common_name,
                rank: node.rank.map(|r| r.to_ascii_lowercase()),
                ensembl_species: None,
                ensembl_assembly: None,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(Page {
        items,
        next_page_token: mapped.next_page_token,
        total_count: mapped.total_count,
    })
}

#[derive(Deserialize)]
struct GeneMatch {
    gene: Option<GeneDescriptor>,
}

#[derive(Deserialize)]
struct GeneDescriptor {
    gene_id: Option<U64>,
    symbol: Option<String>,
    description: Option<String>,
    tax_id: Option<U64>,
    taxname: Option<String>,
    #[serde(default)]
    ensembl_gene_ids: Vec<String>,
    #[serde(default)]
    annotations: Vec<Annotation>,
}

#[derive(Deserialize)]
struct Annotation {
    assembly_accession: Option<String>,
    assembly_name: Option<String>,
    #[serde(default)]
    genomic_locations: Vec<GenomicLocation>,
}

#[derive(Deserialize)]
struct GenomicLocation {
    sequence_name: Option<String>,
    genomic_accession_version: Option<String>,
    genomic_range: Option<Range>,
}

#[derive(Deserialize)]
struct Range {
    begin: U64,
    end: U64,
    orientation: Option<String>,
}

/// `gene/id/{…}/dataset_report` and `gene/symbol/{…}/taxon/{…}/dataset_report`.
pub fn gene_page(body: &[u8]) -> Result<Page<GeneFacts>, String> {
    let page = parse::<ReportPage<GeneMatch>>(body)?;
    let mut mapped = page.map(|m| Ok(m.gene))?;
    let items = std::mem::take(&mut mapped.items)
        .into_iter()
        .flatten()
        .map(|gene| {
            let id = gene.gene_id.ok_or("a gene report without `gene_id`")?;
            // The first annotation is the reference assembly's (the
            // report lists the current annotation first).
            let annotation = gene.annotations.into_iter().next();
            let (assembly, location) = match annotation {
                Some(a) => {
                    let location = a.genomic_locations.into_iter().next().and_then(|l| {
                        let range = l.genomic_range?;
                        Some(Location {
                            chromosome: l.sequence_name.or(l.genomic_accession_version)?,
                            start: range.begin.into(),
                            end: range.end.into(),
                            strand: strand(range.orientation.as_deref()),
                        })
                    });
                    (a.assembly_name.or(a.assembly_accession), location)
                }
                None => (None, None),
            };
            Ok(GeneFacts {
                symbol: gene.symbol,
                ncbi_gene_id: Some(u64::from(id).to_string()),
                ensembl_id: gene.ensembl_gene_ids.into_iter().next(),
                description: gene.description,
                organism: gene.taxname,
                taxid: gene.tax_id.map(u64::from),
                location,
                assembly,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(Page {
        items,
        next_page_token: mapped.next_page_token,
        total_count: mapped.total_count,
    })
}

fn strand(orientation: Option<&str>) -> Option<String> {
    match orientation? {
        "plus" => Some("+".into()),
        "minus" => Some("-".into()),
        _ => None,
    }
}

/// One `esearch` answer: the ids of this page and the total.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchIds {
    pub ids: Vec<String>,
    pub count: u64,
}

#[derive(Deserialize)]
struct ESearch {
    esearchresult: ESearchResult,
}

#[derive(Deserialize)]
struct ESearchResult {
    #[serde(deserialize_with = "digits")]
    count: u64,
    idlist: Vec<String>,
}

/// `esearch.fcgi?…&retmode=json`.
pub fn esearch(body: &[u8]) -> Result<SearchIds, String> {
    let answer: ESearch = parse(body)?;
    Ok(SearchIds {
        ids: answer.esearchresult.idlist,
        count: answer.esearchresult.count,
    })
}

/// `esummary.fcgi?db=sra&…&retmode=json`: one fact sheet per run, in the
/// order of `uids`.
pub fn sra_summaries(body: &[u8]) -> Result<Vec<ReadsFacts>, String> {
    let answer: Value = parse(body)?;
    let result = answer
        .get("result")
        .and_then(Value::as_object)
        .ok_or("no `result` object")?;
    let uids = result
        .get("uids")
        .and_then(Value::as_array)
        .ok_or("no `result.uids` list")?;
    let mut runs = Vec::new();
    for uid in uids {
        let uid = uid.as_str().ok_or("a uid that is not a string")?;
        let doc = result
            .get(uid)
            .and_then(Value::as_object)
            .ok_or_else(|| format!("no summary for uid {uid}"))?;
        let field = |name: &str| {
            doc.get(name)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("summary {uid} has no `{name}` string"))
        };
        runs.extend(experiment_runs(field("expxml")?, field("runs")?)?);
    }
    Ok(runs)
}

/// The runs of one SRA experiment, from `expxml` and `runs`.
pub fn experiment_runs(expxml: &str, runs: &str) -> Result<Vec<ReadsFacts>, String> {
    let wrapped = format!("<x>{expxml}</x>");
    let exp = roxmltree::Document::parse(&wrapped).map_err(|e| format!("expxml: {e}"))?;
    let find = |name: &str| exp.descendants().find(|n| n.has_tag_name(name));
    let attr = |name: &str, attribute: &str| {
        find(name)
            .and_then(|n| n.attribute(attribute))
            .map(str::to_owned)
    };
    let text = |name: &str| {
        find(name)
            .and_then(|n| n.text())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let layout = find("LIBRARY_LAYOUT").and_then(|n| {
        n.children().find_map(|c| match c.tag_name().name() {
            "PAIRED" => Some(Layout::Paired),
            "SINGLE" => Some(Layout::Single),
            _ => None,
        })
    });
    let template = ReadsFacts {
        run: String::new(),
        experiment: attr("Experiment", "acc"),
        study: attr("Study", "acc"),
        bioproject: text("Bioproject"),
        biosample: text("Biosample"),
        organism: attr("Organism", "ScientificName"),
        taxid: attr("Organism", "taxid").and_then(|t| t.parse().ok()),
        platform: text("Platform"),
        instrument: attr("Platform", "instrument_model"),
        layout,
        spots: None,
        bases: None,
    };
    let wrapped = format!("<x>{runs}</x>");
    let runs = roxmltree::Document::parse(&wrapped).map_err(|e| format!("runs: {e}"))?;
    runs.descendants()
        .filter(|n| n.has_tag_name("Run"))
        .map(|run| {
            let number = |name: &str| run.attribute(name).and_then(|v| v.parse().ok());
            Ok(ReadsFacts {
                run: run
                    .attribute("acc")
                    .ok_or("a <Run> without `acc`")?
                    .to_owned(),
                spots: number("total_spots"),
                bases: number("total_bases"),
                ..template.clone()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_take_the_experiments_facts_and_their_own_counts() {
        let expxml = r#"<Summary><Title>t</Title><Platform instrument_model="Illumina HiSeq 2500">ILLUMINA</Platform><Statistics total_runs="2"/></Summary><Experiment acc="SRX1" ver="1"/><Study acc="SRP1" name="s"/><Organism taxid="9606" ScientificName="Homo sapiens"/><Library_descriptor><LIBRARY_STRATEGY>RNA-Seq</LIBRARY_STRATEGY><LIBRARY_LAYOUT> <PAIRED/> </LIBRARY_LAYOUT></Library_descriptor><Bioproject>PRJNA1</Bioproject><Biosample>SAMN1</Biosample>"#;
        let runs = r#"<Run acc="SRR1" total_spots="10" total_bases="2000" load_done="true"/><Run acc="SRR2" total_spots="5" total_bases="1000"/>"#;
        let facts = experiment_runs(expxml, runs).unwrap();
        assert_eq!(facts.len(), 2);
        assert_eq!(facts[0].run, "SRR1");
        assert_eq!(facts[0].layout, Some(Layout::Paired));
        assert_eq!(facts[0].platform.as_deref(), Some("ILLUMINA"));
        assert_eq!(facts[0].instrument.as_deref(), Some("Illumina HiSeq 2500"));
        assert_eq!(facts[1].spots, Some(5));
        assert_eq!(facts[1].biosample.as_deref(), Some("SAMN1"));
        assert_eq!(facts[1].taxid, Some(9606));
    }

    #[test]
    fn broken_fragments_are_refused() {
        assert!(experiment_runs("<Summary>", "").is_err());
        assert!(experiment_runs("", "<Run total_spots=\"1\"/>").is_err());
    }

    #[test]
    fn lengths_may_be_strings_or_numbers_but_not_words() {
        let ok = br#"{"reports":[{"accession":"GCF_1","assembly_stats":{"total_sequence_length":"3099441038"}}]}"#;
        assert_eq!(
            assembly_page(ok).unwrap().items[0].total_length,
            Some(3_099_441_038)
        );
        let bad = br#"{"reports":[{"accession":"GCF_1","assembly_stats":{"total_sequence_length":"big"}}]}"#;
        assert!(assembly_page(bad).is_err());
        assert!(assembly_page(br#"{"reports":{}}"#).is_err());
        assert!(
            assembly_page(br#"{"total_count":0}"#)
                .unwrap()
                .items
                .is_empty()
        );
    }
}
