//! Where each field of an operator contract is declared: its file and line.
//!
//! A readiness requirement is derived from one contract field (a parameter's
//! `required`, an input port's `resource`), and the specification asks that
//! an escalated requirement carry its exact source location. The location is
//! recorded once, when the catalog parses the file, from the TOML parser's own
//! spans: searching the text for a field name at assessment time would find
//! the wrong `[[params]]` as soon as two tables share a key. The embedded
//! contracts keep the path they have in the Somite repository, a project's
//! contracts the path they were read from.
//!
//! Field paths are the contract's own keys joined with `.`, array elements by
//! index: `params[2].required`, `ports.in[0].resource`. An array-of-tables
//! element (`[[ports.in]]`) is located at its header, every key at the key.
//! JSON contracts name their file only: serde_json keeps no spans.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::de::{DeTable, DeValue};

/// A contract file and the line of every field path in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractSource {
    file: String,
    lines: BTreeMap<String, u32>,
}

/// A file and, when known, a 1-based line in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SourceLocation {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

impl ContractSource {
    /// Maps every field of the TOML contract `text`, read from `file`. The
    /// text has already parsed as a contract, so a parse failure here cannot
    /// happen; it would leave the file without lines rather than fail a load.
    pub fn from_toml(file: &str, text: &str) -> ContractSource {
        let mut lines = BTreeMap::new();
        if let Ok(root) = DeTable::parse(text) {
            let starts = LineStarts::new(text);
            map_table(root.get_ref(), "", &starts, &mut lines);
        }
        ContractSource {
            file: file.to_owned(),
            lines,
        }
    }

    /// A file whose format keeps no positions (a JSON contract).
    pub fn file_only(file: &str) -> ContractSource {
        ContractSource {
            file: file.to_owned(),
            lines: BTreeMap::new(),
        }
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    /// The 1-based line where `field` is declared.
    pub fn line(&self, field: &str) -> Option<u32> {
        self.lines.get(field).copied()
    }

    pub fn location(&self, field: &str) -> SourceLocation {
        SourceLocation {
            file: self.file.clone(),
            line: self.line(field),
        }
    }
}

/// Byte offsets of line starts, to turn a span into a line number.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    fn line(&self, offset: usize) -> u32 {
        let index = self.0.partition_point(|&start| start <= offset);
        u32::try_from(index).unwrap_or(u32::MAX)
    }
}

fn map_table(
    table: &DeTable<'_>,
    prefix: &str,
    starts: &LineStarts,
    lines: &mut BTreeMap<String, u32>,
) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.get_ref().to_string()
        } else {
            format!("{prefix}.{}", key.get_ref())
        };
        // A dotted or implicit parent (`[ports.in.resource]` declares
        // `ports` and `in` too) has no key of its own in the text: keep the
        // first place it was named.
        lines
            .entry(path.clone())
            .or_insert_with(|| starts.line(key.span().start));
        map_value(value.get_ref(), &path, starts, lines);
    }
}

fn map_value(
    value: &DeValue<'_>,
    path: &str,
    starts: &LineStarts,
    lines: &mut BTreeMap<String, u32>,
) {
    match value {
        DeValue::Table(table) => map_table(table, path, starts, lines),
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let element = format!("{path}[{i}]");
                lines.insert(element.clone(), starts.line(item.span().start));
                map_value(item.get_ref(), &element, starts, lines);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRACT: &str = r#"id = "class.kraken2"
pixi = { kraken2 = "2.1.3" }

[[params]]
name = "threads"
type = "int"

[[params]]
name = "sample"
required = true

[[ports.in]]
name = "db"

[ports.in.resource]
profile = "kraken2-database"

[[ports.in.resource.resolutions]]
id = "use_existing"

[[ports.in]]
name = "r1"
"#;

    #[test]
    fn every_field_is_located_at_its_own_line() {
        let source = ContractSource::from_toml("operators/class.kraken2.toml", CONTRACT);
        assert_eq!(source.line("id"), Some(1));
        assert_eq!(source.line("pixi.kraken2"), Some(2));
        assert_eq!(source.line("params[0]"), Some(4));
        assert_eq!(source.line("params[1]"), Some(8));
        assert_eq!(source.line("params[1].required"), Some(10));
        assert_eq!(source.line("ports.in[0]"), Some(12));
        assert_eq!(source.line("ports.in[0].resource"), Some(15));
        assert_eq!(source.line("ports.in[0].resource.profile"), Some(16));
        assert_eq!(
            source.line("ports.in[0].resource.resolutions[0].id"),
            Some(19)
        );
        assert_eq!(source.line("ports.in[1].name"), Some(22));
        assert_eq!(source.line("params[2]"), None);
        assert_eq!(
            source.location("params[1].required").to_string(),
            "operators/class.kraken2.toml:10"
        );
    }

    #[test]
    fn a_json_contract_names_its_file_only() {
        let source = ContractSource::file_only(".somite/operators/x.json");
        assert_eq!(
            source.location("id").to_string(),
            ".somite/operators/x.json"
        );
    }
}
