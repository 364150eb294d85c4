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
//! fixtures (so do the outputs of download nodes, which the validation's
//! own package plans as inputs: see [`Substitution`]), and a fixture-only
//! parameter a tiny input needs is set. Every
//! value that differs from the package is a disclosed
//! [`ParameterOverride`]. Every other file is written from the compiler's
//! in-memory package and read back against its manifest before the launch,
//! so the closure that runs is the one that was frozen.

use crate::error::RunnerError;
use crate::fixtures::{Fixture, Mate, representative, representative_resource};
use serde_json::{Value, json};
use somite_project::evidence::{FixtureBinding, ParameterOverride, UnexercisedNode};
use somite_workflow::Catalog;
use somite_workflow::Revision;
use somite_workflow::canonical::digest_bytes;
use somite_workflow::compile::CompiledPackage;
use somite_workflow::graph::{Node, WorkflowDocument};
use somite_workflow::operator::{OperatorKind, PUBLIC_DATA_PALETTE};
use somite_workflow::source::SourceBinding;
use somite_workflow::types::PortType;
use std::collections::BTreeSet;
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
    /// For the output of a node a validation stands in for (see
    /// [`Substitution`]): that node's operator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stands_in_for: Option<String>,
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
                    stands_in_for: None,
                })
            })
        })
        .collect();
    roots.sort_by(|a, b| (&a.node_id, &a.port).cmp(&(&b.node_id, &b.port)));
    roots
}

/// Why a validation does not run a download node.
pub const NETWORK_REASON: &str = "needs the network";

/// The tool nodes a validation cannot run offline, and the roots their
/// outputs become.
///
/// A validation must not download during what is meant to be an offline
/// check, so every node whose contract fetches over the network
/// (`network = true`) is stood in for, together with the public-data nodes
/// it alone feeds (`fasterq-dump` reads only a prefetched run; the package
/// extraction reads only a `datasets` package, types no fixture
/// represents). Each output port of those nodes that feeds a node that
/// runs becomes a root, bound like an import to the fixture of its type;
/// the rest of the graph runs as in any validation, and the nodes are
/// disclosed as unexercised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Substitution {
    /// In node order.
    pub nodes: Vec<UnexercisedNode>,
    /// In node and port order.
    pub roots: Vec<RootInput>,
}

impl Substitution {
    /// The ids of the nodes stood in for.
    pub fn node_ids(&self) -> BTreeSet<String> {
        self.nodes.iter().map(|n| n.node_id.clone()).collect()
    }
}

/// The [`Substitution`] a validation of `document` needs.
pub fn substitution(document: &WorkflowDocument, catalog: &Catalog) -> Substitution {
    let contract = |node: &Node| {
        catalog
            .get(&node.operator_id)
            .map(|e| &e.contract)
            .filter(|c| c.kind == OperatorKind::External)
    };
    let mut stood_in: BTreeSet<&str> = document
        .nodes
        .iter()
        .filter(|n| contract(n).is_some_and(|c| c.network))
        .map(|n| n.id.as_str())
        .collect();
    // Followers, until none is added: a chain of them stays one recipe.
    loop {
        let follower = document.nodes.iter().find(|n| {
            !stood_in.contains(n.id.as_str())
                && contract(n).is_some_and(|c| c.palette == PUBLIC_DATA_PALETTE)
                && {
                    let mut incoming = document.edges.iter().filter(|e| e.to_node == n.id);
                    let mut any = false;
                    incoming.all(|e| {
                        any = true;
                        stood_in.contains(e.from_node.as_str())
                    }) && any
                }
        });
        match follower {
            Some(node) => stood_in.insert(node.id.as_str()),
            None => break,
        };
    }
    let mut nodes: Vec<UnexercisedNode> = document
        .nodes
        .iter()
        .filter(|n| stood_in.contains(n.id.as_str()))
        .map(|n| UnexercisedNode {
            node_id: n.id.clone(),
            operator_id: n.operator_id.clone(),
            reason: NETWORK_REASON.into(),
        })
        .collect();
    nodes.sort_by(|a, b| a.node_id.cmp(&b.node_id));
    let mut roots: Vec<RootInput> = document
        .nodes
        .iter()
        .filter(|n| stood_in.contains(n.id.as_str()))
        .flat_map(|node| {
            let stood_in = &stood_in;
            node.ports.outputs.iter().filter_map(move |port| {
                let feeds_a_tool = document.edges.iter().any(|e| {
                    e.from_node == node.id
                        && e.from_port == port.name
                        && !stood_in.contains(e.to_node.as_str())
                });
                feeds_a_tool.then(|| RootInput {
                    node_id: node.id.clone(),
                    port: port.name.clone(),
                    param: port.name.clone(),
                    port_type: port.ty,
                    resource_profile: None,
                    path: None,
                    stands_in_for: Some(node.operator_id.clone()),
                })
            })
        })
        .collect();
    roots.sort_by(|a, b| (&a.node_id, &a.port).cmp(&(&b.node_id, &b.port)));
    Substitution { nodes, roots }
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
            reason: match &b.root.stands_in_for {
                None => format!(
                    "validation binds the reviewed fixture `{}` ({})",
                    b.fixture.name, b.fixture.port_type
                ),
                Some(operator) => format!(
                    "validation stands in the reviewed fixture `{}` ({}) for this output of \
                     {operator}, which {NETWORK_REASON}",
                    b.fixture.name, b.fixture.port_type
                ),
            },
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

    fn document(operations: serde_json::Value) -> (WorkflowDocument, Catalog) {
        use somite_workflow::transaction::{Operation, apply_operations};
        let catalog = Catalog::builtin().unwrap();
        let operations: Vec<Operation> = serde_json::from_value(operations).unwrap();
        let document =
            apply_operations(&WorkflowDocument::empty("t"), &catalog, &operations).unwrap();
        (document, catalog)
    }

    #[test]
    fn a_download_and_the_recipe_nodes_it_alone_feeds_are_stood_in_for() {
        let (document, catalog) = document(json!([
            {"op": "add_operator", "node_id": "fetch", "operator_id": "sra.prefetch",
             "params": {"accession": "SRR000001"}, "x": 0, "y": 0},
            {"op": "add_operator", "node_id": "dump", "operator_id": "sra.fasterq_dump",
             "x": 240, "y": 0},
            {"op": "add_operator", "node_id": "trim", "operator_id": "qc.fastp",
             "x": 480, "y": 0},
            {"op": "connect", "edge_id": "e1", "from_node": "fetch", "from_port": "run",
             "to_node": "dump", "to_port": "run"},
            {"op": "connect", "edge_id": "e2", "from_node": "dump", "from_port": "r1",
             "to_node": "trim", "to_port": "r1"},
            {"op": "connect", "edge_id": "e3", "from_node": "dump", "from_port": "r2",
             "to_node": "trim", "to_port": "r2"}
        ]));
        let substitution = substitution(&document, &catalog);
        let nodes: Vec<(&str, &str, &str)> = substitution
            .nodes
            .iter()
            .map(|n| {
                (
                    n.node_id.as_str(),
                    n.operator_id.as_str(),
                    n.reason.as_str(),
                )
            })
            .collect();
        assert_eq!(
            nodes,
            [
                ("dump", "sra.fasterq_dump", "needs the network"),
                ("fetch", "sra.prefetch", "needs the network")
            ]
        );
        // Only the outputs a running node reads become roots; the run
        // between the two stood-in nodes is no root.
        let roots: Vec<(&str, &str, PortType)> = substitution
            .roots
            .iter()
            .map(|r| (r.node_id.as_str(), r.param.as_str(), r.port_type))
            .collect();
        assert_eq!(
            roots,
            [
                ("dump", "r1", PortType::FastqGz),
                ("dump", "r2", PortType::FastqGz)
            ]
        );
        let bound = bind_fixtures(&substitution.roots).unwrap();
        let names: Vec<&str> = bound.iter().map(|b| b.fixture.name).collect();
        assert_eq!(names, ["fastq-gz-r1", "fastq-gz-r2"]);
    }

    #[test]
    fn a_public_data_node_no_download_feeds_is_not_stood_in_for() {
        // Nothing downloads here: the extraction is an ordinary tool node
        // (whose unbound input readiness reports).
        let (document, catalog) = document(json!([
            {"op": "add_operator", "node_id": "assembly",
             "operator_id": "ncbi.datasets_extract_assembly", "x": 0, "y": 0}
        ]));
        assert_eq!(substitution(&document, &catalog), Substitution::default());
    }

    #[test]
    fn a_stood_in_output_without_a_fixture_is_refused_with_the_fixture_code() {
        let (document, catalog) = document(json!([
            {"op": "add_operator", "node_id": "package", "operator_id": "ncbi.datasets_genome",
             "params": {"accession": "GCF_000001405.40"}, "x": 0, "y": 0},
            {"op": "add_operator", "node_id": "assembly",
             "operator_id": "ncbi.datasets_extract_assembly", "x": 240, "y": 0},
            {"op": "add_operator", "node_id": "to_gtf", "operator_id": "annot.gffread_gtf",
             "x": 480, "y": 0},
            {"op": "connect", "edge_id": "e1", "from_node": "package", "from_port": "package",
             "to_node": "assembly", "to_port": "package"},
            {"op": "connect", "edge_id": "e2", "from_node": "assembly",
             "from_port": "annotation_gff3", "to_node": "to_gtf", "to_port": "annotation"}
        ]));
        let substitution = substitution(&document, &catalog);
        assert_eq!(
            substitution.node_ids(),
            ["assembly".to_owned(), "package".to_owned()].into()
        );
        let error =
            somite_workflow::SomiteError::from(bind_fixtures(&substitution.roots).unwrap_err());
        assert_eq!(
            error.code,
            somite_workflow::ErrorCode::RepresentativeFixtureUnsupported
        );
        assert_eq!(
            error.details.unwrap()["roots"],
            json!([{"node_id": "assembly", "port": "annotation_gff3", "port_type": "Gff3"}])
        );
    }
}
