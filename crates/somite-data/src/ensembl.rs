//! Ensembl's answers, read into facts. Pure.
//!
//! REST shapes are Ensembl REST's documented JSON (`/info/data`,
//! `/info/species`, `/info/assembly/:species`, `/lookup/id/:id`,
//! `/lookup/symbol/:species/:symbol`). Release files are listed, with their
//! checksums, by each directory's `CHECKSUMS` file: the output of the Unix
//! `sum` command (the BSD 16-bit checksum and the file's size in 1 KiB
//! blocks), one line `<sum> <blocks> <file>` per file. Ensembl's own release
//! pipeline says so: `Bio::EnsEMBL::Production::Pipeline::Common::ChksumGenerator`
//! (github.com/Ensembl/ensembl-production,
//! `modules/Bio/EnsEMBL/Production/Pipeline/Common/ChksumGenerator.pm`)
//! "creates a CHECKSUMS file ... produced from running the sum command over
//! every file in the directory", writing `` `sum $target` `` and the file
//! name per line. GNU `sum` with no option is the BSD algorithm and prints
//! the checksum zero-padded to five digits (coreutils `src/sum.c`,
//! `output_bsd`), so the numbers are compared as numbers.

use crate::model::{GeneFacts, Location, OrganismFacts};
use crate::recipe::EnsemblFile;
use serde::Deserialize;

fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
struct Releases {
    releases: Vec<u32>,
}

/// `/info/data`: the release the server serves.
pub fn release(body: &[u8]) -> Result<u32, String> {
    parse::<Releases>(body)?
        .releases
        .into_iter()
        .max()
        .ok_or_else(|| "`releases` is empty".to_owned())
}

/// One species of `/info/species`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Species {
    /// The production name (`homo_sapiens`), as REST paths take it.
    pub name: String,
    pub display_name: Option<String>,
    pub common_name: Option<String>,
    /// A string in Ensembl's answer.
    pub taxon_id: Option<String>,
    pub assembly: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
}

#[derive(Deserialize)]
struct SpeciesList {
    species: Vec<Species>,
}

/// `/info/species`.
pub fn species(body: &[u8]) -> Result<Vec<Species>, String> {
    Ok(parse::<SpeciesList>(body)?.species)
}

/// The species a name or taxid designates: the production name, a display
/// or common name, an alias, or the taxid, compared without case and with
/// spaces read as `_`.
pub fn find_species<'a>(all: &'a [Species], query: &str) -> Option<&'a Species> {
    let wanted = query.trim().to_lowercase().replace(' ', "_");
    let same = |text: &str| text.to_lowercase().replace(' ', "_") == wanted;
    all.iter().find(|s| {
        same(&s.name)
            || s.taxon_id.as_deref() == Some(query.trim())
            || s.display_name.as_deref().is_some_and(same)
            || s.common_name.as_deref().is_some_and(same)
            || s.aliases.iter().any(|a| same(a))
    })
}

impl Species {
    pub fn facts(&self) -> OrganismFacts {
        OrganismFacts {
            taxid: self.taxon_id.as_deref().and_then(|t| t.parse().ok()),
            scientific_name: Some(scientific_name(&self.name)),
            common_name: self.common_name.clone().or(self.display_name.clone()),
            rank: None,
            ensembl_species: Some(self.name.clone()),
            ensembl_assembly: self.assembly.clone(),
        }
    }
}

/// `homo_sapiens` → `Homo sapiens`.
fn scientific_name(production: &str) -> String {
    let spaced = production.replace('_', " ");
    let mut chars = spaced.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `/info/assembly/:species`, the part a recipe needs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AssemblyInfo {
    /// `GRCh38.p14`.
    pub assembly_name: String,
    /// `GCA_000001405.29`.
    pub assembly_accession: Option<String>,
    /// `GRCh38`: the name release file names use.
    pub default_coord_system_version: String,
    pub assembly_date: Option<String>,
}

pub fn assembly_info(body: &[u8]) -> Result<AssemblyInfo, String> {
    parse(body)
}

#[derive(Deserialize)]
struct Lookup {
    id: String,
    display_name: Option<String>,
    species: Option<String>,
    description: Option<String>,
    assembly_name: Option<String>,
    seq_region_name: Option<String>,
    start: Option<u64>,
    end: Option<u64>,
    strand: Option<i8>,
    object_type: Option<String>,
}

/// `/lookup/id/:id` or `/lookup/symbol/:species/:symbol` for a gene.
pub fn gene(body: &[u8]) -> Result<GeneFacts, String> {
    let lookup: Lookup = parse(body)?;
    if lookup.object_type.as_deref().is_some_and(|t| t != "Gene") {
        return Err(format!(
            "{} is a {}, not a gene",
            lookup.id,
            lookup.object_type.unwrap_or_default()
        ));
    }
    let location = match (lookup.seq_region_name, lookup.start, lookup.end) {
        (Some(chromosome), Some(start), Some(end)) => Some(Location {
            chromosome,
            start,
            end,
            strand: match lookup.strand {
                Some(1) => Some("+".into()),
                Some(-1) => Some("-".into()),
                _ => None,
            },
        }),
        _ => None,
    };
    Ok(GeneFacts {
        symbol: lookup.display_name,
        ncbi_gene_id: None,
        ensembl_id: Some(lookup.id),
        description: lookup.description,
        organism: lookup.species.as_deref().map(scientific_name),
        taxid: None,
        location,
        assembly: lookup.assembly_name,
    })
}

/// A `CHECKSUMS` file: `(file, "<sum> <blocks>")` per line.
pub fn checksums(text: &str) -> Result<Vec<EnsemblFile>, String> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace();
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(sum), Some(blocks), Some(file), None)
                    if sum.bytes().all(|b| b.is_ascii_digit())
                        && blocks.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    Ok(EnsemblFile {
                        file: file.to_owned(),
                        checksum: format!("{sum} {blocks}"),
                    })
                }
                _ => Err(format!(
                    "a CHECKSUMS line is not `<sum> <blocks> <file>`: {line:?}"
                )),
            }
        })
        .collect()
}

/// The species' file-name stem: `homo_sapiens` → `Homo_sapiens`.
pub fn file_stem(species: &str) -> String {
    let mut chars = species.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The genome FASTA of a release directory: the primary assembly when the
/// species has one (it leaves out haplotypes and patches), else top level.
/// Returns the file and its region (`primary_assembly` or `toplevel`).
pub fn pick_fasta<'a>(
    files: &'a [EnsemblFile],
    species: &str,
    assembly: &str,
) -> Option<(&'a EnsemblFile, &'static str)> {
    let stem = format!("{}.{assembly}.dna.", file_stem(species));
    ["primary_assembly", "toplevel"]
        .into_iter()
        .find_map(|region| {
            files
                .iter()
                .find(|f| f.file == format!("{stem}{region}.fa.gz"))
                .map(|f| (f, region))
        })
}

/// The release's full gene annotation (not `chr`/`abinitio` variants).
pub fn pick_gtf<'a>(
    files: &'a [EnsemblFile],
    species: &str,
    assembly: &str,
    release: u32,
) -> Option<&'a EnsemblFile> {
    let name = format!("{}.{assembly}.{release}.gtf.gz", file_stem(species));
    files.iter().find(|f| f.file == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKSUMS: &str = "\
40185 9 CHECKSUMS
48939 860568 Homo_sapiens.GRCh38.dna.primary_assembly.fa.gz
11265 895206 Homo_sapiens.GRCh38.dna.toplevel.fa.gz
";

    #[test]
    fn checksums_name_the_primary_assembly_first() {
        let files = checksums(CHECKSUMS).unwrap();
        let (fasta, region) = pick_fasta(&files, "homo_sapiens", "GRCh38").unwrap();
        assert_eq!(region, "primary_assembly");
        assert_eq!(fasta.file, "Homo_sapiens.GRCh38.dna.primary_assembly.fa.gz");
        assert_eq!(fasta.checksum, "48939 860568");
        assert!(pick_gtf(&files, "homo_sapiens", "GRCh38", 115).is_none());
    }

    #[test]
    fn a_checksum_line_of_another_shape_is_refused() {
        assert!(checksums("d41d8cd98f00b204e9800998ecf8427e  file.gz\n").is_err());
    }

    #[test]
    fn species_are_found_by_any_of_their_names() {
        let all = vec![Species {
            name: "homo_sapiens".into(),
            display_name: Some("Human".into()),
            common_name: Some("human".into()),
            taxon_id: Some("9606".into()),
            assembly: Some("GRCh38".into()),
            aliases: vec!["hsap".into()],
        }];
        for query in ["Homo sapiens", "human", "9606", "HSAP", "homo_sapiens"] {
            assert!(find_species(&all, query).is_some(), "{query}");
        }
        assert!(find_species(&all, "mouse").is_none());
        assert_eq!(
            all[0].facts().scientific_name.as_deref(),
            Some("Homo sapiens")
        );
    }
}
