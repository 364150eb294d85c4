//! `nextflow_schema.json`: parameter groups and typed parameters.
//!
//! nf-core schemas group parameters in `definitions` (draft-07) or `$defs`
//! (2020-12) and list the groups in `allOf` by `$ref`; both are read, groups
//! in `allOf` order and then any group `allOf` does not name. Top-level
//! `properties` are parameters without a group.
//!
//! JSON parsers do not report lines, so a parameter's line is found by
//! looking for its key (`"name": {`) after its group's key in the text — the
//! schema is the generated, one-key-per-line file nf-core tools write; for
//! other layouts the line may point at the first such key.

use crate::model::{Location, Param, ParamGroup};
use serde_json::{Map, Value};

/// The groups and parameters of a schema, parameters ordered by group and
/// then by their line.
pub fn read(file: &str, src: &[u8]) -> Result<(Vec<ParamGroup>, Vec<Param>), serde_json::Error> {
    let root: Value = serde_json::from_slice(src)?;
    let text = String::from_utf8_lossy(src);
    let lines = Lines::new(&text);
    let mut groups = Vec::new();
    let mut params = Vec::new();

    let mut defs: Vec<(&str, &Map<String, Value>)> = Vec::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(map)) = root.get(key) {
            defs.push((key, map));
        }
    }
    // `allOf` order first, then the rest by id.
    let mut order: Vec<(String, &Value)> = Vec::new();
    if let Some(Value::Array(all_of)) = root.get("allOf") {
        for entry in all_of {
            let Some(reference) = entry.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            for (key, map) in &defs {
                if let Some(id) = reference.strip_prefix(&format!("#/{key}/"))
                    && let Some(group) = map.get(id)
                    && !order.iter().any(|(known, _)| known == id)
                {
                    order.push((id.to_owned(), group));
                }
            }
        }
    }
    for (_, map) in &defs {
        for (id, group) in *map {
            if !order.iter().any(|(known, _)| known == id) {
                order.push((id.clone(), group));
            }
        }
    }

    for (id, group) in order {
        let at = lines.key(&id, 0);
        groups.push(ParamGroup {
            id: id.clone(),
            title: string(group, "title"),
            description: string(group, "description"),
            location: Location {
                file: file.to_owned(),
                line: lines.line(at.unwrap_or(0)),
            },
        });
        let mut grouped = properties(file, group, Some(&id), &lines, at.unwrap_or(0));
        grouped.sort_by_key(|p| p.location.line);
        params.extend(grouped);
    }
    let mut ungrouped = properties(file, &root, None, &lines, 0);
    ungrouped.sort_by_key(|p| p.location.line);
    params.extend(ungrouped);
    Ok((groups, params))
}

fn properties(
    file: &str,
    object: &Value,
    group: Option<&str>,
    lines: &Lines,
    from: usize,
) -> Vec<Param> {
    let Some(Value::Object(props)) = object.get("properties") else {
        return Vec::new();
    };
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, spec)| Param {
            name: name.clone(),
            group: group.map(str::to_owned),
            types: match spec.get("type") {
                Some(Value::String(t)) => vec![t.clone()],
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            },
            description: string(spec, "description"),
            help_text: string(spec, "help_text"),
            default: spec.get("default").cloned(),
            enum_values: spec
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            pattern: string(spec, "pattern"),
            required: required.contains(&name.as_str()),
            minimum: spec.get("minimum").cloned(),
            maximum: spec.get("maximum").cloned(),
            format: string(spec, "format"),
            exists: spec.get("exists").and_then(Value::as_bool),
            mimetype: string(spec, "mimetype"),
            schema: string(spec, "schema"),
            hidden: spec.get("hidden").and_then(Value::as_bool).unwrap_or(false),
            config_default: None,
            location: Location {
                file: file.to_owned(),
                line: lines.line(lines.key(name, from).unwrap_or(from)),
            },
        })
        .collect()
}

fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Byte offsets of a text's lines, and its object keys.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// 1-based line of a byte offset.
    fn line(&self, offset: usize) -> u32 {
        let index = self.starts.partition_point(|&s| s <= offset);
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// The offset of `"key"` followed by `:` and `{`, at or after `from`.
    fn key(&self, key: &str, from: usize) -> Option<usize> {
        let needle = format!("\"{key}\"");
        let mut at = from;
        while let Some(found) = self.text.get(at..)?.find(&needle) {
            let start = at + found;
            let rest = self.text[start + needle.len()..].trim_start();
            if let Some(after) = rest.strip_prefix(':')
                && after.trim_start().starts_with('{')
            {
                return Some(start);
            }
            at = start + needle.len();
        }
        None
    }
}
