//! From a compiled package to a launch directory Pixi can run.
//!
//! A run executes the package exactly as an exported package is run:
//! `pixi run --frozen --manifest-path <dir>/pixi.toml run <profile>` in a
//! directory holding the package's files. That directory is the run's own
//! (`.somite/runs/<run_id>/launch/`), never the published package: Pixi's
//! environments, Nextflow's `work/`, the trace and the results all land
//! there, so the content-addressed package stays byte-identical and two
//! runs of one package cannot overwrite each other's trace.
//!
//! The package's task reads `params.json`, so the launch directory's copy
//! is the run's configuration. For a run it is the packaged file with
//! relative input paths resolved against the project folder (the launch
//! directory is elsewhere); for a validation the root inputs point at the
//! fixtures, and a fixture-only parameter a tiny input needs is set. Every
//! value that differs from the package is a disclosed
//! [`ParameterOverride`]. Every other file is written from the compiler's
//! in-memory package and read back against its manifest before the launch,
//! so the closure that runs is the one that was frozen.

use crate::error::RunnerError;
use crate::fixtures::{Fixture, Mate, representative, representative_resource};
use serde_json::{Value, json};
use somite_project::evidence::{FixtureBinding, ParameterOverride};
use somite_workflow::Catalog;
use somite_workflow::Revision;
use somite_workflow::canonical::digest_bytes;
use somite_workflow::compile::CompiledPackage;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::source::SourceBinding;
use somite_workflow::types::PortType;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The package file the run's configuration replaces.
pub const PARAMS_FILE: &str = "params.json";

/// A root input of the graph: one path parameter of a source or reference
/// node.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RootInput {
    pub node_id: String,
    pub port: String,
    pub param: String,
    pub port_type: PortType,
    /// The managed-resource profile the port provides (a database), if any:
    /// such a root is bound to that profile's fixture, not its type's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_profile: Option<String>,
    /// The configured path, if any.
    pub path: Option<String>,
}

/// Every root input, in node and port order: the outputs whose pinned port
/// contract names an `import_param`.
pub fn root_inputs(document: &WorkflowDocument) -> Vec<RootInput> {
    let mut roots: Vec<RootInput> = document
        .nodes
        .iter()
        .flat_map(|node| {
            node.ports.outputs.iter().filter_map(move |port| {
                let param = port.import_param.as_ref()?;
                Some(RootInput {
                    node_id: node.id.clone(),
                    port: port.name.clone(),
                    param: param.clone(),
                    port_type: port.ty,
                    resource_profile: port.resource_profile.clone(),
                    path: node
                        .params
                        .get(param)
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            })
        })
        .collect();
    roots.sort_by(|a, b| (&a.node_id, &a.port).cmp(&(&b.node_id, &b.port)));
    roots
}

/// The nodes whose contract fetches over the network (`network = true`),
/// in node order: a validation, which runs offline, refuses them rather
/// than download during what is meant to be an offline check.
pub fn network_nodes(document: &WorkflowDocument, catalog: &Catalog) -> Vec<String> {
    let mut nodes: Vec<String> = document
        .nodes
        .iter()
        .filter(|n| {
            catalog
                .get(&n.operator_id)
                .is_some_and(|e| e.contract.network)
        })
        .map(|n| n.id.clone())
        .collect();
    nodes.sort();
    nodes
}

/// A root bound to its reviewed fixture.
#[derive(Debug, Clone)]
pub struct BoundFixture {
    pub root: RootInput,
    pub fixture: Fixture,
}

/// The reviewed fixture of every root, or every root that has none.
pub fn bind_fixtures(roots: &[RootInput]) -> Result<Vec<BoundFixture>, RunnerError> {
    let mut bound = Vec::new();
    let mut unsupported = Vec::new();
    for root in roots {
        let fixture = match &root.resource_profile {
            Some(profile) => representative_resource(profile),
            None => representative(root.port_type, Mate::of_param(&root.param)),
        };
        match fixture {
            Some(fixture) => bound.push(BoundFixture {
                root: root.clone(),
                fixture,
            }),
            None => unsupported.push(crate::error::UnsupportedRoot {
                node_id: root.node_id.clone(),
                port: root.port.clone(),
                port_type: root.port_type.name().to_owned(),
            }),
        }
    }
    if unsupported.is_empty() {
        Ok(bound)
    } else {
        Err(RunnerError::FixtureUnsupported { roots: unsupported })
    }
}

/// A tool parameter a fixture needs set differently from the package, with
/// why. Only parameters whose packaged value cannot work on the tiny
/// fixtures are here.
fn fixture_value_override(operator_id: &str, param: &str) -> Option<(Value, &'static str)> {
    match (operator_id, param) {
        ("align.star_index", "sa_index_nbases") => Some((
            json!(4),
            "STAR needs --genomeSAindexNbases at most log2(genome length)/2 - 1; the \
             600-bp fixture reference gets the contract's minimum, 4",
        )),
        _ => None,
    }
}

/// The run's `params.json` and how it differs from the package's.
#[derive(Debug, Clone)]
pub struct Configuration {
    pub bytes: Vec<u8>,
    pub digest: Revision,
    pub packaged_digest: Revision,
    pub overrides: Vec<ParameterOverride>,
    /// Where outputs are published, relative to the launch directory.
    pub outdir: String,
}

/// The packaged `params.json` of `package`.
fn packaged_params(package: &CompiledPackage) -> Result<(Value, Revision), RunnerError> {
    let file = package.file(PARAMS_FILE).ok_or_else(|| {
        RunnerError::Project(somite_workflow::SomiteError::new(
            somite_workflow::ErrorCode::InvalidDocument,
            "the compiled package has no params.json",
            "compile the workflow again",
        ))
    })?;
    let value = serde_json::from_slice(&file.bytes).map_err(|e| {
        RunnerError::Project(somite_workflow::SomiteError::new(
            somite_workflow::ErrorCode::InvalidDocument,
            format!("the compiled params.json does not parse: {e}"),
            "compile the workflow again",
        ))
    })?;
    Ok((value, digest_bytes(&file.bytes)))
}

/// A run's configuration: relative input paths made absolute against the
/// project folder.
pub fn run_configuration(
    package: &CompiledPackage,
    project_root: &Path,
) -> Result<Configuration, RunnerError> {
    let (mut params, packaged_digest) = packaged_params(package)?;
    let mut overrides = Vec::new();
    if let Some(inputs) = params.get_mut("inputs").and_then(Value::as_object_mut) {
        for (node_id, paths) in inputs.iter_mut() {
            let Some(paths) = paths.as_object_mut() else {
                continue;
            };
            for (param, path) in paths.iter_mut() {
                let Some(text) = path.as_str() else { continue };
                if Path::new(text).is_absolute() {
                    continue;
                }
                let resolved = Value::String(project_root.join(text).display().to_string());
                overrides.push(ParameterOverride {
                    scope: "inputs".into(),
                    node_id: node_id.clone(),
                    param: param.clone(),
                    packaged: path.clone(),
                    used: resolved.clone(),
                    reason: "a relative input path is resolved against the project folder, \
                             because the run launches from its own directory"
                        .into(),
                });
                *path = resolved;
            }
        }
    }
    Ok(configuration(params, packaged_digest, overrides))
}

/// The configuration of a source pipeline, for a run and a validation
/// alike (its own samplesheets are its inputs; no fixture stands for
/// them): every relative path the schema says must exist is resolved
/// against the project folder, as readiness checked it.
pub fn source_configuration(
    package: &CompiledPackage,
    node_id: &str,
    binding: &SourceBinding,
    project_root: &Path,
) -> Result<Configuration, RunnerError> {
    let (mut params, packaged_digest) = packaged_params(package)?;
    let mut overrides = Vec::new();
    if let Some(values) = params.as_object_mut() {
        for spec in binding.params.iter().filter(|p| p.must_exist()) {
            let Some(path) = values.get_mut(&spec.name) else {
                continue;
            };
            let Some(text) = path.as_str() else { continue };
            if Path::new(text).is_absolute() {
                continue;
            }
            let resolved = Value::String(project_root.join(text).display().to_string());
            overrides.push(ParameterOverride {
                scope: "params".into(),
                node_id: node_id.to_owned(),
                param: spec.name.clone(),
                packaged: path.clone(),
                used: resolved.clone(),
                reason: "a relative path the pipeline reads is resolved against the project \
                         folder, because the run launches from its own directory"
                    .into(),
            });
            *path = resolved;
        }
    }
    Ok(configuration(params, packaged_digest, overrides))
}

/// A validation's configuration: every root input bound to its fixture at
/// `fixtures_root` (the project's `.somite/fixtures/`), and the
/// fixture-only tool parameters set.
pub fn validation_configuration(
    package: &CompiledPackage,
    bound: &[BoundFixture],
    fixtures_root: &Path,
    operator_of: impl Fn(&str) -> Option<String>,
) -> Result<Configuration, RunnerError> {
    let (mut params, packaged_digest) = packaged_params(package)?;
    let mut overrides = Vec::new();
    for b in bound {
        let used = Value::String(
            fixtures_root
                .join(b.fixture.relative_path())
                .display()
                .to_string(),
        );
        let slot = &mut params["inputs"][&b.root.node_id][&b.root.param];
        overrides.push(ParameterOverride {
            scope: "inputs".into(),
            node_id: b.root.node_id.clone(),
            param: b.root.param.clone(),
            packaged: slot.clone(),
            used: used.clone(),
            reason: format!(
                "validation binds the reviewed fixture `{}` ({})",
                b.fixture.name, b.fixture.port_type
            ),
        });
        *slot = used;
    }
    if let Some(values) = params.get_mut("values").and_then(Value::as_object_mut) {
        for (node_id, node_values) in values.iter_mut() {
            let Some(operator_id) = operator_of(node_id) else {
                continue;
            };
            let Some(node_values) = node_values.as_object_mut() else {
                continue;
            };
            for (param, value) in node_values.iter_mut() {
                if let Some((used, reason)) = fixture_value_override(&operator_id, param)
                    && *value != used
                {
                    overrides.push(ParameterOverride {
                        scope: "values".into(),
                        node_id: node_id.clone(),
                        param: param.clone(),
                        packaged: value.clone(),
                        used: used.clone(),
                        reason: reason.into(),
                    });
                    *value = used;
                }
            }
        }
    }
    Ok(configuration(params, packaged_digest, overrides))
}

fn configuration(
    params: Value,
    packaged_digest: Revision,
    overrides: Vec<ParameterOverride>,
) -> Configuration {
    let outdir = params
        .get("outdir")
        .and_then(Value::as_str)
        .unwrap_or(somite_workflow::compile::DEFAULT_OUTDIR)
        .to_owned();
    let mut bytes = serde_json::to_vec_pretty(&params).expect("params serialize");
    bytes.push(b'\n');
    Configuration {
        digest: digest_bytes(&bytes),
        bytes,
        packaged_digest,
        overrides,
        outdir,
    }
}

/// What a fixture binding looks like in a status and a receipt.
pub fn fixture_bindings(bound: &[BoundFixture]) -> Vec<FixtureBinding> {
    bound
        .iter()
        .map(|b| FixtureBinding {
            node_id: b.root.node_id.clone(),
            param: b.root.param.clone(),
            port_type: b.fixture.port_type.name().to_owned(),
            fixture: b.fixture.name.to_owned(),
            path: format!(
                "{}/fixtures/{}",
                somite_project::layout::DATA_DIR,
                b.fixture.relative_path()
            ),
            digest: b.fixture.digest(),
            bytes: b.fixture.size(),
        })
        .collect()
}

/// Writes `package` into the empty directory `dir`, with `params` as its
/// `params.json`, then reads every other file back against the package
/// manifest. Returns the observed closure digest: the package digest, once
/// every file has been seen to match.
pub fn write_launch_dir(
    dir: &Path,
    package: &CompiledPackage,
    params: &[u8],
) -> Result<Revision, RunnerError> {
    for file in package.files() {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| RunnerError::io(parent, e))?;
        }
        let bytes = if file.path == PARAMS_FILE {
            params
        } else {
            &file.bytes
        };
        fs::write(&path, bytes)
            .and_then(|()| fs::set_permissions(&path, fs::Permissions::from_mode(file.mode)))
            .map_err(|e| RunnerError::io(&path, e))?;
    }
    for entry in &package.manifest().files {
        if entry.path == PARAMS_FILE {
            continue;
        }
        let path = dir.join(&entry.path);
        let bytes = fs::read(&path).map_err(|e| RunnerError::io(&path, e))?;
        if bytes.len() as u64 != entry.size || digest_bytes(&bytes) != entry.blake3 {
            return Err(RunnerError::io(
                &path,
                std::io::Error::other("the launch copy does not match the package manifest"),
            ));
        }
    }
    Ok(package.digest().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_index_gets_a_fixture_sized_sa_length_and_nothing_else_changes() {
        assert_eq!(
            fixture_value_override("align.star_index", "sa_index_nbases").map(|(v, _)| v),
            Some(json!(4))
        );
        assert!(fixture_value_override("align.star_index", "threads").is_none());
        assert!(fixture_value_override("qc.fastp", "min_length").is_none());
    }

    #[test]
    fn download_nodes_are_named_for_a_validation_to_refuse() {
        use somite_workflow::transaction::{Operation, apply_operations};
        let catalog = Catalog::builtin().unwrap();
        let operations: Vec<Operation> = serde_json::from_value(json!([
            {"op": "add_operator", "node_id": "reference", "operator_id": "ensembl.fasta",
             "params": {"release": 114, "species": "homo_sapiens",
                        "file_species": "Homo_sapiens", "assembly": "GRCh38"}, "x": 0, "y": 0},
            {"op": "add_operator", "node_id": "unpack", "operator_id": "ref.gunzip_fasta",
             "x": 240, "y": 0},
            {"op": "connect", "edge_id": "e1", "from_node": "reference", "from_port": "sequences",
             "to_node": "unpack", "to_port": "archive"}
        ]))
        .unwrap();
        let document =
            apply_operations(&WorkflowDocument::empty("t"), &catalog, &operations).unwrap();
        assert_eq!(network_nodes(&document, &catalog), ["reference"]);
        let error = RunnerError::NetworkUnsubstituted {
            nodes: network_nodes(&document, &catalog),
        };
        let envelope = somite_workflow::SomiteError::from(error);
        assert_eq!(
            envelope.code,
            somite_workflow::ErrorCode::RepresentativeFixtureUnsupported
        );
        assert!(
            envelope.message.contains("reference"),
            "{}",
            envelope.message
        );
        assert_eq!(
            envelope.details.unwrap()["network_nodes"],
            json!(["reference"])
        );
    }
}
