//! A Conda `environment.yml` of a Nextflow module: its name, channels and
//! dependencies (conda specs, and the packages of a `- pip:` entry).
//!
//! Parsed with `serde-saphyr`, whose default budget bounds aliases and
//! nesting, so a hostile file fails instead of expanding.

use crate::model::Environment;
use serde::Deserialize;

#[derive(Deserialize)]
struct Document {
    name: Option<String>,
    #[serde(default)]
    channels: Vec<String>,
    #[serde(default)]
    dependencies: Vec<Dependency>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Dependency {
    Spec(String),
    Pip { pip: Vec<String> },
}

pub fn read(file: &str, src: &[u8]) -> Result<Environment, serde_saphyr::Error> {
    let document: Document = serde_saphyr::from_slice(src)?;
    let mut environment = Environment {
        file: file.to_owned(),
        name: document.name,
        channels: document.channels,
        dependencies: Vec::new(),
        pip: Vec::new(),
    };
    for dependency in document.dependencies {
        match dependency {
            Dependency::Spec(spec) => environment.dependencies.push(spec),
            Dependency::Pip { pip } => environment.pip.extend(pip),
        }
    }
    Ok(environment)
}
