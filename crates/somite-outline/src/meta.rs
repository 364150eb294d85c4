//! An nf-core module's `meta.yml`: the documented components of its inputs
//! and outputs (name, kind, description, file pattern, EDAM ontologies).
//!
//! Two layouts occur in released pipelines. The flat one lists components
//! (`input: [{meta: {...}}, {reads: {...}}]`); the nested one, from 2024,
//! groups an input's tuple in a list and an output's under its `emit:` name
//! (`output: [{html: [{meta: {...}}, {"*.html": {...}}]}]`). Both are read;
//! anything else in the file is ignored. Parsed with `serde-saphyr`, whose
//! default budget bounds aliases and nesting.

use crate::model::{MetaPort, ModuleMeta};
use serde_json::Value;

pub fn read(file: &str, src: &[u8]) -> Result<ModuleMeta, serde_saphyr::Error> {
    let document: Value = serde_saphyr::from_slice(src)?;
    let mut inputs = Vec::new();
    for item in list(document.get("input")) {
        match item {
            // Nested: one input channel's tuple.
            Value::Array(tuple) => {
                for component in tuple {
                    components(component, None, &mut inputs);
                }
            }
            other => components(other, None, &mut inputs),
        }
    }
    let mut outputs = Vec::new();
    for item in list(document.get("output")) {
        let Value::Object(map) = item else {
            continue;
        };
        for (name, value) in map {
            match value {
                // Nested: the emit name, then its tuple's components.
                Value::Array(tuple) => {
                    for component in tuple {
                        components(component, Some(name), &mut outputs);
                    }
                }
                spec => outputs.push(port(None, name, spec)),
            }
        }
    }
    Ok(ModuleMeta {
        file: file.to_owned(),
        inputs,
        outputs,
    })
}

fn list(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn components(value: &Value, channel: Option<&str>, into: &mut Vec<MetaPort>) {
    if let Value::Object(map) = value {
        for (name, spec) in map {
            into.push(port(channel, name, spec));
        }
    }
}

fn port(channel: Option<&str>, name: &str, spec: &Value) -> MetaPort {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
    let ontologies = list(spec.get("ontologies"))
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|o| o.values().filter_map(Value::as_str).map(str::to_owned))
        .collect();
    MetaPort {
        channel: channel.map(str::to_owned),
        name: name.to_owned(),
        kind: text("type"),
        description: text("description").map(|d| d.trim().to_owned()),
        pattern: text("pattern"),
        ontologies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_nested_layout() {
        let src = br#"
input:
  - - meta:
        type: map
    - reads:
        type: file
        description: FastQ files
output:
  - html:
      - meta:
          type: map
      - "*.html":
          type: file
          pattern: "*_{fastqc.html}"
          ontologies:
            - edam: http://edamontology.org/format_2331
"#;
        let meta = read("m/meta.yml", src).unwrap();
        assert_eq!(meta.inputs.len(), 2);
        assert_eq!(meta.inputs[1].name, "reads");
        assert_eq!(meta.inputs[1].description.as_deref(), Some("FastQ files"));
        let html = &meta.outputs[1];
        assert_eq!(html.channel.as_deref(), Some("html"));
        assert_eq!(html.pattern.as_deref(), Some("*_{fastqc.html}"));
        assert_eq!(
            html.ontologies,
            vec!["http://edamontology.org/format_2331".to_owned()]
        );
    }

    #[test]
    fn reads_the_flat_layout() {
        let src = br#"
input:
  - meta:
      type: map
  - reads:
      type: file
      pattern: "*.{fastq.gz}"
output:
  - reads:
      type: file
      pattern: "*.{fastq.gz}"
"#;
        let meta = read("m/meta.yml", src).unwrap();
        assert_eq!(meta.inputs[1].pattern.as_deref(), Some("*.{fastq.gz}"));
        assert_eq!(meta.outputs[0].channel, None);
        assert_eq!(meta.outputs[0].name, "reads");
    }
}
