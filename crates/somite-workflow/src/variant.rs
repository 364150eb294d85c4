//! Typed edits of a source workflow and its promotion into a native variant.
//!
//! A source workflow runs a pinned pipeline as it is. Two steps take a user
//! from "nf-core/demo as is" to "nf-core/demo with my QC":
//!
//! 1. **Replace** one invocation of the pipeline with a catalog operator
//!    ([`replacement`]). The invocation's ports carry Somite types inferred
//!    from the pinned tree (see [`crate::source::infer_port_type`]), so the
//!    mapping is checked here, purely, like an edge: every required input of
//!    the operator is fed by an invocation input of a type it accepts, and
//!    every mapped output gives the type the invocation's consumers expect.
//!    The replacement pins the operator's revision and ports on the source
//!    node; it is drawn on the outline, but the pipeline still runs its own
//!    process until the replacement is promoted (readiness says so).
//! 2. **Promote** selected replacements ([`promote`]): the document becomes a
//!    native graph (a new revision of the same document, so undo and evidence
//!    work as for any edit) whose nodes are the selected replacements, plus a
//!    native node for every other invocation whose nf-core module the catalog
//!    declares an equivalent for (`[nf_core]` of a contract). What the
//!    catalog cannot represent is listed in [`VariantOrigin::unrepresented`]
//!    and becomes a blocking readiness item, never a silent drop. The source
//!    node is kept whole in [`VariantOrigin::source`], so [`revert`] restores
//!    it. A graph never holds a source node and native nodes together.

use crate::canonical::is_revision;
use crate::catalog::{Catalog, CatalogEntry};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::{Edge, Node, WorkflowDocument, is_valid_id};
use crate::operator::PortSpec;
use crate::source::{
    InvocationPort, PortPair, Replacement, SourceBinding, SourceInvocation, SourceProvider,
};
use crate::types::PortType;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where a native variant came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VariantOrigin {
    pub source_node_id: String,
    pub provider: SourceProvider,
    pub repository: String,
    pub release: Option<String>,
    pub commit: String,
    pub tree_digest: String,
    /// Invocations that became native nodes, in invocation order.
    pub promoted: Vec<PromotedInvocation>,
    /// Invocations the catalog cannot represent: each is a blocking
    /// readiness requirement until the user adds a native node for it.
    pub unrepresented: Vec<UnrepresentedInvocation>,
    /// The source node as it was (binding, parameters, replacements).
    pub source: Box<Node>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PromotedInvocation {
    pub invocation: String,
    pub node_id: String,
    pub how: PromotedHow,
}

/// Why an invocation became a native node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PromotedHow {
    /// The user replaced it and selected the replacement.
    Selected,
    /// The catalog declares an operator for its nf-core module.
    CatalogEquivalent,
    /// The promotion could not represent it; the user named the native node
    /// that does its work (`represent_invocation`).
    Added,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UnrepresentedInvocation {
    pub invocation: String,
    pub process: String,
    pub reason: String,
}

fn unknown_invocation(binding: &SourceBinding, invocation: &str) -> SomiteError {
    let known: Vec<&str> = binding.invocations.iter().map(|i| i.id.as_str()).collect();
    SomiteError::new(
        ErrorCode::UnknownInvocation,
        format!("{} has no invocation `{invocation}`", binding.repository),
        if known.is_empty() {
            "resolve the pipeline again: this node was pinned before invocations were recorded"
                .to_owned()
        } else {
            format!(
                "use a fully-qualified name from the outline: {}",
                known.join(", ")
            )
        },
    )
    .with_detail("invocation", invocation)
}

/// The invocation `id` of `binding`.
pub fn invocation<'b>(binding: &'b SourceBinding, id: &str) -> Result<&'b SourceInvocation> {
    binding
        .invocation(id)
        .ok_or_else(|| unknown_invocation(binding, id))
}

/// An input of `ty`, to ask an operator's port whether it would take it.
fn spec_of(name: &str, ty: PortType) -> PortSpec {
    PortSpec {
        name: name.to_owned(),
        ty,
        union: Vec::new(),
        optional: false,
        resource: None,
        resource_profile: None,
        stage_as: None,
        import_param: None,
    }
}

/// Which side of a replacement does not fit.
#[derive(Clone, Copy)]
enum Direction {
    Input,
    Output,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Input => "input",
            Direction::Output => "output",
        }
    }
}

struct Misfit<'a> {
    invocation: &'a str,
    direction: Direction,
    /// The invocation's port, when one is involved.
    port: Option<&'a str>,
    operator_port: Option<&'a str>,
    expected: Option<String>,
    found: Option<PortType>,
    message: String,
}

impl Misfit<'_> {
    fn error(self) -> SomiteError {
        SomiteError::new(
            ErrorCode::InvocationPortIncompatible,
            self.message,
            "choose an operator whose ports take and give these types, or map the ports explicitly",
        )
        .with_detail("invocation", self.invocation)
        .with_detail("port", self.port.or(self.operator_port))
        .with_detail("operator_port", self.operator_port)
        .with_detail("direction", self.direction.name())
        .with_detail("expected_type", self.expected)
        .with_detail("found_type", self.found.map(PortType::name))
    }
}

fn accepted(spec: &PortSpec) -> String {
    let mut names = vec![spec.ty.name()];
    names.extend(spec.union.iter().map(|t| t.name()));
    names.join(" | ")
}

fn find<'p>(ports: &'p [InvocationPort], name: &str) -> Option<&'p InvocationPort> {
    ports.iter().find(|p| p.name == name)
}

/// Checks and builds the replacement of the invocation `invocation_id` of
/// `binding` by `entry` (see [`replacement_of`]).
pub fn replacement(
    binding: &SourceBinding,
    entry: &CatalogEntry,
    invocation_id: &str,
    inputs: &[PortPair],
    outputs: &[PortPair],
) -> Result<Replacement> {
    replacement_of(invocation(binding, invocation_id)?, entry, inputs, outputs)
}

/// Checks and builds the replacement of `inv` by `entry`. With no maps, an
/// operator standing for `inv`'s own nf-core module meets it as its
/// contract declares (`[nf_core]`); any other is matched by type: each
/// required operator input takes the first free invocation input of a type
/// it accepts, and each typed invocation output the first free operator
/// output of the same type.
pub fn replacement_of(
    inv: &SourceInvocation,
    entry: &CatalogEntry,
    inputs: &[PortPair],
    outputs: &[PortPair],
) -> Result<Replacement> {
    let invocation_id = inv.id.as_str();
    let contract = &entry.contract;
    let operator_id = contract.id.as_str();
    let declared = (inputs.is_empty() && outputs.is_empty())
        .then(|| declared_pairs(entry, inv))
        .flatten();
    let reviewed = declared.is_some();
    let (inputs, outputs) = match &declared {
        Some((i, o)) => (i.as_slice(), o.as_slice()),
        None => (inputs, outputs),
    };
    let (mut input_pairs, fed) = mapped_pairs(inv, entry, Direction::Input, inputs, reviewed)?;
    let mut used: BTreeSet<String> = input_pairs
        .iter()
        .map(|p| p.invocation_port.clone())
        .collect();
    for spec in &contract.ports.inputs {
        if spec.optional || fed.contains(spec.name.as_str()) {
            continue;
        }
        if reviewed || !inputs.is_empty() {
            return Err(Misfit {
                invocation: invocation_id,
                direction: Direction::Input,
                port: None,
                operator_port: Some(&spec.name),
                expected: Some(accepted(spec)),
                found: None,
                message: format!(
                    "{operator_id} needs its input `{}` ({}), and the mapping gives it none",
                    spec.name,
                    accepted(spec)
                ),
            }
            .error());
        }
        let Some(ip) = inv.inputs.iter().find(|ip| {
            !used.contains(ip.name.as_str())
                && ip
                    .ty
                    .is_some_and(|ty| spec.refusal(&spec_of(&ip.name, ty)).is_none())
        }) else {
            let found = inv
                .inputs
                .iter()
                .find(|ip| !used.contains(ip.name.as_str()));
            return Err(Misfit {
                invocation: invocation_id,
                direction: Direction::Input,
                port: None,
                operator_port: Some(&spec.name),
                expected: Some(accepted(spec)),
                found: found.and_then(|f| f.ty),
                message: format!(
                    "{operator_id} needs its input `{}` ({}), and no input of {invocation_id} gives that type",
                    spec.name,
                    accepted(spec)
                ),
            }
            .error());
        };
        used.insert(ip.name.clone());
        input_pairs.push(PortPair {
            invocation_port: ip.name.clone(),
            operator_port: spec.name.clone(),
        });
    }

    let (mut output_pairs, mut given) =
        mapped_pairs(inv, entry, Direction::Output, outputs, reviewed)?;
    if outputs.is_empty() && !reviewed {
        for ip in &inv.outputs {
            let Some(ty) = ip.ty else { continue };
            if let Some(spec) = contract
                .ports
                .outputs
                .iter()
                .find(|s| s.ty == ty && !given.contains(s.name.as_str()))
            {
                given.insert(spec.name.as_str());
                output_pairs.push(PortPair {
                    invocation_port: ip.name.clone(),
                    operator_port: spec.name.clone(),
                });
            }
        }
    }
    Ok(Replacement {
        invocation: invocation_id.to_owned(),
        operator_id: operator_id.to_owned(),
        operator_revision: entry.revision.clone(),
        ports: contract.ports.clone(),
        inputs: input_pairs,
        outputs: output_pairs,
    })
}

/// The port pairs `entry` declares for `inv`, when it stands for the nf-core
/// module `inv` comes from.
fn declared_pairs(
    entry: &CatalogEntry,
    inv: &SourceInvocation,
) -> Option<(Vec<PortPair>, Vec<PortPair>)> {
    let nf_core = entry.contract.nf_core.as_ref()?;
    if nf_core_module(inv) != Some(nf_core.module.as_str()) {
        return None;
    }
    // The channel's name in the module version this pipeline pins.
    let named = |channel: &String, ports: &[InvocationPort]| -> String {
        if find(ports, channel).is_some() {
            return channel.clone();
        }
        nf_core
            .renamed
            .iter()
            .find(|(old, current)| *current == channel && find(ports, old).is_some())
            .map_or_else(|| channel.clone(), |(old, _)| old.clone())
    };
    let pairs = |map: &BTreeMap<String, Vec<String>>, ports: &[InvocationPort]| -> Vec<PortPair> {
        map.iter()
            .flat_map(|(channel, targets)| {
                let channel = named(channel, ports);
                targets.iter().map(move |port| PortPair {
                    invocation_port: channel.clone(),
                    operator_port: port.clone(),
                })
            })
            .collect()
    };
    Some((
        pairs(&nf_core.inputs, &inv.inputs),
        pairs(&nf_core.outputs, &inv.outputs),
    ))
}

/// The explicitly mapped pairs of one side of a replacement, each checked
/// like an edge: an invocation input must be accepted by the operator input
/// it feeds, and an operator output must give exactly the type of the
/// invocation output it stands for. Also returns the operator ports used.
///
/// A `reviewed` map is the one a contract declares for its nf-core module:
/// a port of it whose type the module leaves open (`*.{bam,cram,sam}`) is
/// met as declared, and the edges a promotion draws to it are checked
/// against the real operators on both ends; a channel the pinned version of
/// the module does not have is skipped. A user's map has no such review, so
/// an untyped or unknown port refuses it.
fn mapped_pairs<'m>(
    inv: &SourceInvocation,
    entry: &CatalogEntry,
    direction: Direction,
    map: &'m [PortPair],
    reviewed: bool,
) -> Result<(Vec<PortPair>, BTreeSet<&'m str>)> {
    let invocation_id = inv.id.as_str();
    let operator_id = entry.contract.id.as_str();
    let (inv_ports, op_ports) = match direction {
        Direction::Input => (&inv.inputs, &entry.contract.ports.inputs),
        Direction::Output => (&inv.outputs, &entry.contract.ports.outputs),
    };
    let side = direction.name();
    let unknown = |whose: &str, port: &str| {
        SomiteError::new(
            ErrorCode::UnknownPort,
            format!("{whose} has no {side} port `{port}`"),
            "read the invocation's ports in the outline and the operator's in the catalog",
        )
        .with_detail("invocation", invocation_id)
        .with_detail("port", port)
        .with_detail("direction", side)
    };
    let mut pairs = Vec::new();
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    for PortPair {
        invocation_port: inv_port,
        operator_port: op_port,
    } in map
    {
        let Some(ip) = find(inv_ports, inv_port) else {
            // A pipeline pins the module at some version: a channel a
            // reviewed map names that this version lacks is skipped; the
            // required inputs are still checked below.
            if reviewed {
                continue;
            }
            return Err(unknown(invocation_id, inv_port));
        };
        let spec = op_ports
            .iter()
            .find(|p| p.name == *op_port)
            .ok_or_else(|| unknown(operator_id, op_port))?;
        // An input's operator port says what it accepts; an output's
        // invocation port says what its consumers expect.
        let (expected, found) = match direction {
            Direction::Input => (Some(accepted(spec)), ip.ty),
            Direction::Output => (ip.ty.map(|t| t.name().to_owned()), Some(spec.ty)),
        };
        let misfit = |message: String| {
            Misfit {
                invocation: invocation_id,
                direction,
                port: Some(inv_port),
                operator_port: Some(op_port),
                expected: expected.clone(),
                found,
                message,
            }
            .error()
        };
        let refusal = match (ip.ty, direction) {
            (None, _) if reviewed => None,
            (None, _) => Some(match direction {
                Direction::Input => format!(
                    "the type of input `{inv_port}` of {invocation_id} is unknown, so it cannot feed {operator_id}.{op_port}"
                ),
                Direction::Output => format!(
                    "the type of output `{inv_port}` of {invocation_id} is unknown, so {operator_id}.{op_port} cannot stand for it"
                ),
            }),
            (Some(ty), Direction::Input) => spec.refusal(&spec_of(inv_port, ty)).map(|reason| {
                format!(
                    "input `{inv_port}` of {invocation_id} ({ty}) cannot feed {operator_id}: {reason}"
                )
            }),
            (Some(ty), Direction::Output) => (ty != spec.ty).then(|| {
                format!(
                    "output `{inv_port}` of {invocation_id} gives {ty}, and {operator_id}.{op_port} gives {}",
                    spec.ty
                )
            }),
        };
        if let Some(message) = refusal {
            return Err(misfit(message));
        }
        if !taken.insert(op_port.as_str()) {
            return Err(misfit(match direction {
                Direction::Input => {
                    format!("{operator_id}.{op_port} is mapped twice; an input takes one port")
                }
                Direction::Output => format!("{operator_id}.{op_port} is mapped twice"),
            }));
        }
        pairs.push(PortPair {
            invocation_port: inv_port.clone(),
            operator_port: op_port.clone(),
        });
    }
    Ok((pairs, taken))
}

/// Puts `replacement` on `node` in invocation order, replacing an earlier
/// replacement of the same invocation.
pub(crate) fn put_replacement(node: &mut Node, replacement: Replacement) {
    let order: BTreeMap<String, usize> = node
        .source()
        .map(|b| {
            b.invocations
                .iter()
                .enumerate()
                .map(|(i, inv)| (inv.id.clone(), i))
                .collect()
        })
        .unwrap_or_default();
    let mut list = std::mem::take(&mut node.replacements);
    list.retain(|r| r.invocation != replacement.invocation);
    list.push(replacement);
    list.sort_by_key(|r| order.get(&r.invocation).copied().unwrap_or(usize::MAX));
    node.replacements = list;
}

/// The nf-core module an invocation's process comes from
/// (`modules/nf-core/seqtk/trim/main.nf` → `seqtk/trim`).
pub fn nf_core_module(invocation: &SourceInvocation) -> Option<&str> {
    let rest = invocation.file.split_once("modules/nf-core/")?.1;
    rest.strip_suffix("/main.nf")
}

fn refused(invocation: &str, obstacle: &str, message: String, recovery: &str) -> SomiteError {
    SomiteError::new(ErrorCode::PromotionRefused, message, recovery)
        .with_detail("invocation", invocation)
        .with_detail("obstacle", obstacle)
}

/// A node id from a call name: `SEQTK_TRIM` → `seqtk_trim`, unique in `taken`.
fn node_id_for(call: &str, taken: &mut BTreeSet<String>) -> String {
    let mut base: String = call
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    if !is_valid_id(&base) {
        base = "step".to_owned();
    }
    let mut id = base.clone();
    let mut n = 2;
    while !taken.insert(id.clone()) {
        id = format!("{base}_{n}");
        n += 1;
    }
    id
}

/// Where each node of the variant goes: left to right in invocation order.
const COLUMN: f64 = 280.0;
const ORIGIN: (f64, f64) = (80.0, 80.0);

/// Turns the source node `node_id` of `doc` into a native variant promoting
/// the replacements of `selected` (see the module docs).
pub(crate) fn promote(
    doc: &mut WorkflowDocument,
    catalog: &Catalog,
    node_id: &str,
    selected: &[String],
) -> Result<()> {
    let source = doc
        .node(node_id)
        .filter(|n| n.source.is_some())
        .cloned()
        .ok_or_else(|| not_a_source(doc, node_id))?;
    let binding = source.source().expect("filtered above");
    if selected.is_empty() {
        return Err(refused(
            "",
            "empty_selection",
            "no invocation is selected for promotion".into(),
            "select at least one replaced invocation",
        ));
    }
    let mut chosen: BTreeMap<&str, &Replacement> = BTreeMap::new();
    for id in selected {
        invocation(binding, id)?;
        let Some(replacement) = source.replacements.iter().find(|r| r.invocation == *id) else {
            return Err(refused(
                id,
                "not_replaced",
                format!("{id} has no replacement to promote"),
                "replace the invocation with a catalog operator first (replace_invocation)",
            ));
        };
        if catalog
            .get(&replacement.operator_id)
            .is_none_or(|e| e.revision != replacement.operator_revision)
        {
            return Err(refused(
                id,
                "operator_revision_unavailable",
                format!(
                    "{id} is replaced by {} at {}, which this catalog no longer holds",
                    replacement.operator_id, replacement.operator_revision
                ),
                "replace the invocation again with the catalog's current operator",
            ));
        }
        chosen.insert(id.as_str(), replacement);
    }

    let mut taken: BTreeSet<String> = doc
        .notes
        .iter()
        .map(|n| n.id.clone())
        .chain(doc.stages.iter().map(|s| s.id.clone()))
        .collect();
    let mut nodes = Vec::new();
    let mut promoted = Vec::new();
    let mut unrepresented = Vec::new();
    // invocation id → (node id, its replacement's port maps)
    let mut placed: BTreeMap<&str, (String, Replacement)> = BTreeMap::new();
    for inv in &binding.invocations {
        let (replacement, how) = match chosen.get(inv.id.as_str()) {
            Some(r) => ((*r).clone(), PromotedHow::Selected),
            None => match equivalent(catalog, inv) {
                Ok(r) => (r, PromotedHow::CatalogEquivalent),
                Err(reason) => {
                    unrepresented.push(UnrepresentedInvocation {
                        invocation: inv.id.clone(),
                        process: inv.process.clone(),
                        reason,
                    });
                    continue;
                }
            },
        };
        let id = node_id_for(&inv.call, &mut taken);
        nodes.push(Arc::new(Node {
            id: id.clone(),
            operator_id: replacement.operator_id.clone(),
            operator_revision: replacement.operator_revision.clone(),
            ports: replacement.ports.clone(),
            params: BTreeMap::new(),
            x: ORIGIN.0 + COLUMN * nodes.len() as f64,
            y: ORIGIN.1,
            color: None,
            source: None,
            replacements: Vec::new(),
            process_environments: Vec::new(),
            pinned_inputs: Vec::new(),
        }));
        promoted.push(PromotedInvocation {
            invocation: inv.id.clone(),
            node_id: id.clone(),
            how,
        });
        placed.insert(inv.id.as_str(), (id, replacement));
    }

    let mut edges: Vec<Arc<Edge>> = Vec::new();
    for inv in &binding.invocations {
        let Some((to_node, to)) = placed.get(inv.id.as_str()) else {
            continue;
        };
        for (at, pair) in to.inputs.iter().enumerate() {
            let Some(port) = find(&inv.inputs, &pair.invocation_port) else {
                continue;
            };
            // A channel met on several ports (a read pair as `r1`, `r2`)
            // takes its files in order: the k-th port here is fed by the
            // k-th port standing for the upstream channel.
            let nth = to.inputs[..at]
                .iter()
                .filter(|p| p.invocation_port == pair.invocation_port)
                .count();
            let Some(target) = to
                .ports
                .inputs
                .iter()
                .find(|p| p.name == pair.operator_port)
            else {
                continue;
            };
            for from in &port.from {
                let Some((from_node, up)) = placed.get(from.invocation.as_str()) else {
                    continue;
                };
                let Some(out) = up
                    .outputs
                    .iter()
                    .filter(|o| o.invocation_port == from.port)
                    .nth(nth)
                else {
                    continue;
                };
                let Some(spec) = up
                    .ports
                    .outputs
                    .iter()
                    .find(|p| p.name == out.operator_port)
                else {
                    continue;
                };
                let free = !edges
                    .iter()
                    .any(|e| e.to_node == *to_node && e.to_port == target.name);
                if free && target.refusal(spec).is_none() {
                    let id = node_id_for(
                        &format!("{from_node}_to_{to_node}_{}", target.name),
                        &mut taken,
                    );
                    edges.push(Arc::new(Edge {
                        id,
                        from_node: from_node.clone(),
                        from_port: spec.name.clone(),
                        to_node: to_node.clone(),
                        to_port: target.name.clone(),
                    }));
                }
            }
        }
    }

    doc.variant_origin = Some(Arc::new(VariantOrigin {
        source_node_id: source.id.clone(),
        provider: binding.provider,
        repository: binding.repository.clone(),
        release: binding.release.clone(),
        commit: binding.commit.clone(),
        tree_digest: binding.tree_digest.clone(),
        promoted,
        unrepresented,
        source: Box::new(source.clone()),
    }));
    doc.nodes = nodes;
    doc.edges = edges;
    Ok(())
}

/// The one catalog operator standing for `inv`'s nf-core module, its ports
/// met as its contract declares; else why there is none.
pub fn equivalent(
    catalog: &Catalog,
    inv: &SourceInvocation,
) -> std::result::Result<Replacement, String> {
    let Some(module) = nf_core_module(inv) else {
        return Err(format!(
            "{} is the pipeline's own process ({}), not an nf-core module the catalog can stand for",
            inv.process, inv.file
        ));
    };
    let standing: Vec<&CatalogEntry> = catalog
        .entries()
        .filter(|e| {
            e.contract
                .nf_core
                .as_ref()
                .is_some_and(|n| n.module == module)
        })
        .collect();
    let mut fitting = Vec::new();
    let mut misfits = Vec::new();
    for entry in &standing {
        match replacement_of(inv, entry, &[], &[]) {
            Ok(r) => fitting.push(r),
            Err(e) => misfits.push(format!(
                "{} stands for `{module}`, but its ports do not fit: {}",
                entry.contract.id, e.message
            )),
        }
    }
    match fitting.len() {
        0 if misfits.is_empty() => Err(format!(
            "the catalog has no operator for the nf-core module `{module}`"
        )),
        0 => Err(misfits.join("; ")),
        1 => Ok(fitting.remove(0)),
        // One module, several uses (`gffread` writes GTF or transcripts as
        // its `ext.args` say): which one a pipeline means is not in its
        // ports, and a promotion does not guess.
        _ => Err(format!(
            "the catalog has {} operators for the nf-core module `{module}` ({}); which one this call runs as depends on its arguments, so replace it with that one",
            fitting.len(),
            fitting
                .iter()
                .map(|r| r.operator_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Restores the source node a variant was promoted from.
pub(crate) fn revert(doc: &mut WorkflowDocument) -> Result<()> {
    let Some(origin) = doc.variant_origin.take() else {
        return Err(SomiteError::new(
            ErrorCode::NotAVariant,
            "this workflow was not promoted from a source workflow",
            "read the workflow: only a document with variant_origin can be reverted",
        ));
    };
    doc.nodes = vec![Arc::new(*Arc::unwrap_or_clone(origin).source)];
    doc.edges.clear();
    Ok(())
}

/// Moves `invocation` from the variant's unrepresented steps to its
/// promoted ones, done by the native node `node_id`.
pub(crate) fn represent(doc: &mut WorkflowDocument, invocation: &str, node_id: &str) -> Result<()> {
    let native = doc.node(node_id).is_some_and(|n| n.source.is_none());
    let Some(origin) = doc.variant_origin.as_mut().map(Arc::make_mut) else {
        return Err(SomiteError::new(
            ErrorCode::NotAVariant,
            "this workflow was not promoted from a source workflow",
            "only a promoted variant has unrepresented steps",
        ));
    };
    if !native {
        return Err(SomiteError::new(
            ErrorCode::UnknownNode,
            format!("there is no native node `{node_id}`"),
            "add the native node doing the step's work first, in the same transaction or before",
        ));
    }
    let Some(at) = origin
        .unrepresented
        .iter()
        .position(|u| u.invocation == invocation)
    else {
        return Err(SomiteError::new(
            ErrorCode::UnknownInvocation,
            format!("`{invocation}` is not an unrepresented step of this variant"),
            "read variant_origin.unrepresented and name one of its invocations",
        )
        .with_detail("invocation", invocation));
    };
    origin.unrepresented.remove(at);
    origin.promoted.push(PromotedInvocation {
        invocation: invocation.to_owned(),
        node_id: node_id.to_owned(),
        how: PromotedHow::Added,
    });
    Ok(())
}

pub(crate) fn not_a_source(doc: &WorkflowDocument, node_id: &str) -> SomiteError {
    let (code, message) = match doc.node(node_id) {
        Some(node) => (
            ErrorCode::NotASourceNode,
            format!(
                "node `{node_id}` is a {} node, not a workflow.source node",
                node.operator_id
            ),
        ),
        None => (
            ErrorCode::UnknownNode,
            format!("there is no node `{node_id}`"),
        ),
    };
    SomiteError::new(
        code,
        message,
        "read the workflow and use the id of its workflow.source node",
    )
    .with_detail("node_id", node_id)
}

/// The invariants of replacements and of a variant's origin.
pub(crate) fn validate(doc: &WorkflowDocument) -> Result<()> {
    let invalid = |message: String| {
        Err(SomiteError::new(
            ErrorCode::InvalidDocument,
            message,
            "repair the document or restore the last autosave",
        ))
    };
    for node in &doc.nodes {
        if node.replacements.is_empty() {
            continue;
        }
        let Some(binding) = node.source() else {
            return invalid(format!(
                "node `{}` has replacements but is not a source node",
                node.id
            ));
        };
        let mut seen = BTreeSet::new();
        for r in &node.replacements {
            if binding.invocation(&r.invocation).is_none() || !seen.insert(&r.invocation) {
                return invalid(format!(
                    "node `{}` replaces `{}`, which is not one of its invocations (or twice)",
                    node.id, r.invocation
                ));
            }
            if !is_revision(&r.operator_revision) {
                return invalid(format!(
                    "the replacement of `{}` pins no valid revision",
                    r.invocation
                ));
            }
        }
    }
    if let Some(origin) = &doc.variant_origin {
        if doc.nodes.iter().any(|n| n.source.is_some()) {
            return invalid(
                "a native variant holds no source node; revert it to run the source".into(),
            );
        }
        let Some(binding) = origin.source.source() else {
            return invalid("the variant's origin keeps no source node".into());
        };
        binding.validate()?;
        if origin.source.operator_revision != binding.revision() {
            return invalid("the variant's source node does not pin its binding's digest".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{InvocationPortRef, SOURCE_OPERATOR_ID, SourceProvider};

    fn port(name: &str, ty: Option<PortType>, from: Option<(&str, &str)>) -> InvocationPort {
        InvocationPort {
            name: name.into(),
            ty,
            text: String::new(),
            from: from
                .map(|(invocation, port)| InvocationPortRef {
                    invocation: invocation.into(),
                    port: port.into(),
                })
                .into_iter()
                .collect(),
        }
    }

    fn call(
        id: &str,
        module: &str,
        inputs: Vec<InvocationPort>,
        outputs: Vec<InvocationPort>,
    ) -> SourceInvocation {
        SourceInvocation {
            id: id.into(),
            call: id.rsplit(':').next().unwrap().into(),
            workflow: Some("MAIN".into()),
            process: id.rsplit(':').next().unwrap().into(),
            file: format!("modules/nf-core/{module}/main.nf"),
            line: 1,
            inputs,
            outputs,
            reach: Default::default(),
        }
    }

    /// fastp's trimmed pair into bwa mem, and picard MarkDuplicates at a
    /// version that still names its input `bam`.
    fn binding() -> SourceBinding {
        let fastq = Some(PortType::FastqGz);
        SourceBinding {
            provider: SourceProvider::NfCore,
            repository: "nf-core/example".into(),
            release: Some("1.0.0".into()),
            git_ref: None,
            commit: "0".repeat(40),
            tree_digest: format!("blake3:{}", "0".repeat(64)),
            entry: "main.nf".into(),
            name: "example".into(),
            description: None,
            nextflow_version: None,
            params: Vec::new(),
            processes: Vec::new(),
            invocations: vec![
                call(
                    "MAIN:FASTP",
                    "fastp",
                    vec![port("reads", fastq, None)],
                    vec![
                        port("reads", fastq, None),
                        port("json", Some(PortType::Json), None),
                        port("html", Some(PortType::Html), None),
                    ],
                ),
                call(
                    "MAIN:BWA_MEM",
                    "bwa/mem",
                    vec![
                        port("reads", fastq, Some(("MAIN:FASTP", "reads"))),
                        port("index", None, None),
                    ],
                    vec![port("bam", Some(PortType::Bam), None)],
                ),
                call(
                    "MAIN:PICARD_MARKDUPLICATES",
                    "picard/markduplicates",
                    vec![port("bam", Some(PortType::Bam), None)],
                    vec![port("metrics", Some(PortType::Text), None)],
                ),
            ],
            bundled_files: Vec::new(),
        }
    }

    fn pairs(list: &[PortPair]) -> Vec<String> {
        list.iter()
            .map(|p| format!("{}>{}", p.invocation_port, p.operator_port))
            .collect()
    }

    #[test]
    fn a_read_pair_meets_r1_then_r2_and_an_older_channel_name_is_followed() {
        let catalog = Catalog::builtin().unwrap();
        let binding = binding();
        let bwa = equivalent(&catalog, &binding.invocations[1]).unwrap();
        assert_eq!(bwa.operator_id, "align.bwa");
        // The untyped index is met as declared; bwa/mem at this version has
        // no `sam` output, so none is met.
        assert_eq!(pairs(&bwa.inputs), ["index>index", "reads>r1", "reads>r2"]);
        assert!(bwa.outputs.is_empty());
        let picard = equivalent(&catalog, &binding.invocations[2]).unwrap();
        assert_eq!(pairs(&picard.inputs), ["bam>alignments"]);
        assert_eq!(pairs(&picard.outputs), ["metrics>metrics"]);
        // A user's own map has no review: the untyped index refuses it.
        let entry = catalog.get("align.bwa").unwrap();
        let mine = PortPair::from_map(&BTreeMap::from([("index".into(), "index".into())]));
        assert_eq!(
            replacement_of(&binding.invocations[1], entry, &mine, &[])
                .unwrap_err()
                .code,
            ErrorCode::InvocationPortIncompatible
        );
    }

    #[test]
    fn promotion_wires_a_pair_port_by_port_in_order() {
        let catalog = Catalog::builtin().unwrap();
        let binding = binding();
        let mut doc = WorkflowDocument::empty("example");
        let mut source = Node {
            id: "source".into(),
            operator_id: SOURCE_OPERATOR_ID.into(),
            operator_revision: binding.revision(),
            ports: Default::default(),
            params: BTreeMap::new(),
            x: 0.0,
            y: 0.0,
            color: None,
            source: Some(Box::new(binding.clone())),
            replacements: Vec::new(),
            process_environments: Vec::new(),
            pinned_inputs: Vec::new(),
        };
        let fastp = catalog.get("qc.fastp").unwrap();
        source.replacements = vec![replacement(&binding, fastp, "MAIN:FASTP", &[], &[]).unwrap()];
        doc.nodes.push(Arc::new(source));
        promote(&mut doc, &catalog, "source", &["MAIN:FASTP".into()]).unwrap();
        let edges: Vec<String> = doc
            .edges
            .iter()
            .map(|e| {
                format!(
                    "{}.{}>{}.{}",
                    e.from_node, e.from_port, e.to_node, e.to_port
                )
            })
            .collect();
        assert_eq!(
            edges,
            ["fastp.trimmed_r1>bwa_mem.r1", "fastp.trimmed_r2>bwa_mem.r2"]
        );
        let origin = doc.variant_origin.as_deref().unwrap();
        assert_eq!(origin.promoted.len(), 3);
        assert!(origin.unrepresented.is_empty());
    }
}
