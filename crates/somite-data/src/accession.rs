//! Reading a query: an exact accession of a known class, or free text.
//!
//! Pure. Bare digits are ambiguous (an NCBI Gene id and a taxid look alike),
//! so they count as an accession only when the request's kind says which, or
//! when written the way NCBI writes them (`GeneID:672`, `txid9606`).

use crate::model::{AccessionKind, SearchKind};

/// A query that names one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accession {
    pub kind: AccessionKind,
    /// Normalised: upper case for INSDC/NCBI accessions, digits only for
    /// gene ids and taxids.
    pub value: String,
}

/// How a query reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    Exact(Accession),
    /// Digits with no kind to say whether they are a gene id or a taxid.
    AmbiguousNumber,
    FreeText,
}

/// Classifies `query` (already trimmed), with the request's kind as a hint
/// for bare digits.
pub fn classify(query: &str, kind: Option<SearchKind>) -> Reading {
    let upper = query.to_ascii_uppercase();
    if let Some(kind) = prefixed(&upper) {
        return Reading::Exact(Accession { kind, value: upper });
    }
    if let Some(digits) = strip_prefix_ci(query, "GeneID:").filter(|d| is_digits(d)) {
        return exact(AccessionKind::NcbiGene, digits);
    }
    for prefix in ["txid", "taxid:"] {
        if let Some(digits) = strip_prefix_ci(query, prefix).filter(|d| is_digits(d)) {
            return exact(AccessionKind::Taxid, digits);
        }
    }
    if is_digits(query) {
        return match kind {
            Some(SearchKind::Gene) => exact(AccessionKind::NcbiGene, query),
            Some(SearchKind::Organism) => exact(AccessionKind::Taxid, query),
            _ => Reading::AmbiguousNumber,
        };
    }
    Reading::FreeText
}

fn exact(kind: AccessionKind, digits: &str) -> Reading {
    Reading::Exact(Accession {
        kind,
        value: digits.trim_start_matches('0').to_owned(),
    })
}

/// The accession classes recognised by their own prefix (INSDC and NCBI
/// documented formats).
fn prefixed(upper: &str) -> Option<AccessionKind> {
    let sra = |infix: &str| {
        ["S", "E", "D"].iter().any(|archive| {
            upper
                .strip_prefix(archive)
                .and_then(|rest| rest.strip_prefix(infix))
                .is_some_and(|digits| digits.len() >= 6 && is_digits(digits))
        })
    };
    if sra("RR") {
        return Some(AccessionKind::SraRun);
    }
    if sra("RP") {
        return Some(AccessionKind::SraStudy);
    }
    if let Some(rest) = upper.strip_prefix("PRJ")
        && letters_then_digits(rest, 2, 3)
    {
        return Some(AccessionKind::Bioproject);
    }
    if let Some(rest) = upper.strip_prefix("SAM")
        && letters_then_digits(rest, 1, 2)
    {
        return Some(AccessionKind::Biosample);
    }
    for (prefix, kind) in [
        ("GCF_", AccessionKind::RefseqAssembly),
        ("GCA_", AccessionKind::GenbankAssembly),
    ] {
        if let Some(rest) = upper.strip_prefix(prefix) {
            let (digits, version) = rest.split_once('.').unwrap_or((rest, "1"));
            if digits.len() == 9 && is_digits(digits) && is_digits(version) {
                return Some(kind);
            }
        }
    }
    if is_ensembl_gene(upper) {
        return Some(AccessionKind::EnsemblGene);
    }
    None
}

/// `ENS` + optional species code + `G` + 11 digits (+ `.version`): Ensembl's
/// stable-id scheme for genes.
fn is_ensembl_gene(upper: &str) -> bool {
    let Some(rest) = upper.strip_prefix("ENS") else {
        return false;
    };
    let rest = rest.split_once('.').map_or(
        rest,
        |(id, version)| {
            if is_digits(version) { id } else { "" }
        },
    );
    let Some(g) = rest.find(|c: char| c.is_ascii_digit()) else {
        return false;
    };
    let (letters, digits) = rest.split_at(g);
    letters.ends_with('G')
        && letters.len() <= 7
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && digits.len() == 11
        && is_digits(digits)
}

fn letters_then_digits(rest: &str, min_letters: usize, max_letters: usize) -> bool {
    let split = rest
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (letters, digits) = rest.split_at(split);
    (min_letters..=max_letters).contains(&letters.len())
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && is_digits(digits)
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The result kind an accession class resolves to.
pub fn resolves_to(kind: AccessionKind) -> SearchKind {
    match kind {
        AccessionKind::SraRun
        | AccessionKind::SraStudy
        | AccessionKind::Bioproject
        | AccessionKind::Biosample => SearchKind::Reads,
        AccessionKind::RefseqAssembly | AccessionKind::GenbankAssembly => SearchKind::Assembly,
        AccessionKind::EnsemblGene | AccessionKind::NcbiGene => SearchKind::Gene,
        AccessionKind::Taxid => SearchKind::Organism,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(query: &str) -> Option<AccessionKind> {
        match classify(query, None) {
            Reading::Exact(a) => Some(a.kind),
            _ => None,
        }
    }

    #[test]
    fn each_documented_prefix_is_recognised() {
        use AccessionKind::*;
        for (query, kind) in [
            ("SRR1553607", SraRun),
            ("err3489012", SraRun),
            ("DRR000001", SraRun),
            ("SRP045416", SraStudy),
            ("ERP001234", SraStudy),
            ("PRJNA257197", Bioproject),
            ("PRJEB1234", Bioproject),
            ("SAMN02951757", Biosample),
            ("SAMEA104728", Biosample),
            ("GCF_000001405.40", RefseqAssembly),
            ("GCA_000001405.29", GenbankAssembly),
            ("GCF_000001405", RefseqAssembly),
            ("ENSG00000157764", EnsemblGene),
            ("ENSMUSG00000017167.16", EnsemblGene),
            ("GeneID:672", NcbiGene),
            ("txid9606", Taxid),
            ("taxid:10090", Taxid),
        ] {
            assert_eq!(kind_of(query), Some(kind), "{query}");
        }
    }

    #[test]
    fn near_misses_are_free_text() {
        for query in [
            "SRR12",
            "GCF_1234",
            "GCF_000001405.x",
            "ENSG0000015776",
            "ENST00000288602",
            "PRJ",
            "human",
            "BRCA1",
            "txid",
        ] {
            assert_eq!(classify(query, None), Reading::FreeText, "{query}");
        }
    }

    #[test]
    fn bare_digits_need_a_kind() {
        assert_eq!(classify("9606", None), Reading::AmbiguousNumber);
        assert_eq!(
            classify("9606", Some(SearchKind::Organism)),
            Reading::Exact(Accession {
                kind: AccessionKind::Taxid,
                value: "9606".into()
            })
        );
        assert_eq!(
            classify("00672", Some(SearchKind::Gene)),
            Reading::Exact(Accession {
                kind: AccessionKind::NcbiGene,
                value: "672".into()
            })
        );
    }

    #[test]
    fn accessions_are_normalised_to_upper_case() {
        assert_eq!(
            classify("gcf_000001405.40", None),
            Reading::Exact(Accession {
                kind: AccessionKind::RefseqAssembly,
                value: "GCF_000001405.40".into()
            })
        );
    }
}
