//! The invocations of an outline: every process call reached from the
//! entry workflow, with the fully-qualified name Nextflow gives its tasks.
//!
//! A source workflow is edited per invocation (one call of a process in one
//! workflow), not per declaration: a module included twice under two
//! aliases is two invocations. Nextflow names a task by the call names of
//! the workflows down to it and its own call name, joined with `:`; the
//! unnamed entry workflow adds no segment. The same names are used here,
//! so an edit names exactly the tasks a run's trace shows.
//!
//! Each invocation lists its data ports with what is known of their content
//! (the `meta.yml` pattern, description and ontologies, and the
//! declaration's own file pattern), leaving the mapping to Somite types to
//! the workflow domain, and the outputs of earlier invocations in the same
//! workflow that statically flow into each input.
//!
//! Nextflow lets one workflow call a process under one name in several
//! branches (`if (a) { X(…) } else { X(…) }`): those are one task name, so
//! one invocation whose reach lists each way to it ([`SourceReach`]), with
//! the `if`/`else` guards of every workflow on the way and the process's
//! own `when:`.

use crate::condition::{self, Takes};
use crate::error::{OutlineError, Unreadable};
use crate::model::{
    ChannelSource, Declaration, Invocation, InvocationPort, MetaPort, ModuleMeta, Outline,
    OutputSelector, PortRef, Process, TargetKind, Workflow,
};
use somite_workflow::source_reach::{
    GuardKind, MAX_PATH_GUARDS, MAX_REACH_PATHS, SourceCondition, SourceGuard, SourceReach,
};
use std::collections::HashMap;

/// Invocations listed at most; a pipeline past it is cut there.
pub const MAX_INVOCATIONS: usize = 4096;
/// Workflow nesting followed at most (a workflow calling itself stops here).
const MAX_DEPTH: usize = 32;

/// Every process invocation reached from the entry workflow, in call order;
/// an outline with none is [`OutlineError::Unreadable`], saying why.
pub fn runnable_invocations(outline: &Outline) -> Result<Vec<Invocation>, OutlineError> {
    let found = invocations(outline);
    if !found.is_empty() {
        return Ok(found);
    }
    let entry = outline.entry.clone();
    let has_entry_workflow = outline
        .workflows
        .iter()
        .any(|w| w.name.is_none() && w.location.file == entry);
    let why = if has_entry_workflow {
        Unreadable::NoProcessReached
    } else if outline.processes.iter().any(|p| p.location.file == entry) {
        Unreadable::Dsl1
    } else {
        Unreadable::NoEntryWorkflow
    };
    Err(OutlineError::Unreadable { entry, why })
}

/// Every process invocation reached from the entry workflow, in call order.
pub fn invocations(outline: &Outline) -> Vec<Invocation> {
    let Some(entry) = outline
        .workflows
        .iter()
        .find(|w| w.name.is_none() && w.location.file == outline.entry)
    else {
        return Vec::new();
    };
    let workflows: HashMap<(&str, &str), &Workflow> = outline
        .workflows
        .iter()
        .filter_map(|w| {
            w.name
                .as_deref()
                .map(|n| ((w.location.file.as_str(), n), w))
        })
        .collect();
    let processes: HashMap<(&str, &str), &Process> = outline
        .processes
        .iter()
        .map(|p| ((p.location.file.as_str(), p.name.as_str()), p))
        .collect();
    let mut walk = Walk {
        workflows,
        processes,
        found: Vec::new(),
        by_id: HashMap::new(),
    };
    walk.workflow(entry, "", &[], &Takes::new(), 0);
    walk.found
}

struct Walk<'a> {
    workflows: HashMap<(&'a str, &'a str), &'a Workflow>,
    processes: HashMap<(&'a str, &'a str), &'a Process>,
    found: Vec<Invocation>,
    /// Where each task name sits in `found`.
    by_id: HashMap<String, usize>,
}

impl<'a> Walk<'a> {
    /// The invocations under `workflow`, reached through the guards `path`,
    /// its `take:` names standing for what the call passed (`takes`).
    fn workflow(
        &mut self,
        workflow: &'a Workflow,
        prefix: &str,
        path: &[SourceGuard],
        takes: &Takes,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        // The invocations of this workflow's own calls, for the flow
        // between them: call name → (invocation id, output port names).
        let mut local: HashMap<&str, (String, Vec<String>)> = HashMap::new();
        for call in &workflow.calls {
            if self.found.len() >= MAX_INVOCATIONS {
                return;
            }
            let Some(target) = &call.target else {
                continue;
            };
            let id = format!("{prefix}{}", call.name);
            // A guard on a take (`if (!skip_qc)`) reads the parameter the
            // caller passed for it.
            let own = call
                .guards
                .iter()
                .map(|guard| match condition::reread(&guard.text, takes) {
                    Some(condition) => SourceGuard {
                        condition,
                        ..guard.clone()
                    },
                    None => guard.clone(),
                });
            let mut guarded: Vec<SourceGuard> = path.iter().cloned().chain(own).collect();
            match target.kind {
                TargetKind::Workflow => {
                    if let Some(inner) = self
                        .workflows
                        .get(&(target.file.as_str(), target.name.as_str()))
                        .copied()
                    {
                        let inner_takes: Takes = inner
                            .takes
                            .iter()
                            .zip(&call.arguments)
                            .filter_map(|(name, argument)| {
                                condition::take_value(&argument.text, takes)
                                    .map(|value| (name.clone(), value))
                            })
                            .collect();
                        self.workflow(inner, &format!("{id}:"), &guarded, &inner_takes, depth + 1);
                    }
                }
                TargetKind::Process => {
                    let Some(process) = self
                        .processes
                        .get(&(target.file.as_str(), target.name.as_str()))
                        .copied()
                    else {
                        continue;
                    };
                    let outputs = output_ports(process);
                    let mut inputs = Vec::new();
                    for (index, declaration) in process.inputs.iter().enumerate() {
                        let from: Vec<PortRef> = call
                            .arguments
                            .get(index)
                            .map(|a| a.sources.as_slice())
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|source| upstream(&local, source))
                            .collect();
                        inputs.extend(input_ports(declaration, process.meta.as_ref(), &from));
                    }
                    local.insert(
                        call.name.as_str(),
                        (id.clone(), outputs.iter().map(|p| p.name.clone()).collect()),
                    );
                    guarded.extend(process.when.clone());
                    self.add(Invocation {
                        id,
                        call: call.name.clone(),
                        workflow: workflow.name.clone(),
                        process: process.name.clone(),
                        location: process.location.clone(),
                        inputs,
                        outputs,
                        reach: SourceReach {
                            paths: vec![capped(guarded)],
                        },
                    });
                }
                TargetKind::Function => {}
            }
        }
    }
}

impl Walk<'_> {
    /// Lists `invocation`, or joins it to the one with its task name: one
    /// more way to reach it, and the upstream ports of both.
    fn add(&mut self, invocation: Invocation) {
        let Some(&at) = self.by_id.get(&invocation.id) else {
            self.by_id.insert(invocation.id.clone(), self.found.len());
            self.found.push(invocation);
            return;
        };
        let known = &mut self.found[at];
        for (port, more) in known.inputs.iter_mut().zip(invocation.inputs) {
            for from in more.from {
                if !port.from.contains(&from) {
                    port.from.push(from);
                }
            }
        }
        for way in invocation.reach.paths {
            if known.reach.paths.contains(&way) {
                continue;
            }
            if known.reach.paths.len() + 1 < MAX_REACH_PATHS {
                known.reach.paths.push(way);
            } else if known.reach.paths.len() + 1 == MAX_REACH_PATHS {
                // The rest read as one way whose conditions are unknown.
                known
                    .reach
                    .paths
                    .push(vec![cut("more ways to this task than Somite lists")]);
            }
        }
    }
}

/// A way to a task with at most [`MAX_PATH_GUARDS`] guards: past them the
/// last one says the rest are unknown.
fn capped(mut guards: Vec<SourceGuard>) -> Vec<SourceGuard> {
    if guards.len() > MAX_PATH_GUARDS {
        guards.truncate(MAX_PATH_GUARDS - 1);
        guards.push(cut("more conditions on the way than Somite lists"));
    }
    guards
}

/// A guard standing for what the outline stopped listing.
fn cut(why: &str) -> SourceGuard {
    SourceGuard {
        kind: GuardKind::If,
        text: format!("… ({why})"),
        holds: true,
        condition: SourceCondition::Unknown { params: Vec::new() },
        file: String::new(),
        line: 0,
    }
}

/// The output of an earlier invocation a channel source names.
fn upstream(
    local: &HashMap<&str, (String, Vec<String>)>,
    source: &ChannelSource,
) -> Option<PortRef> {
    let ChannelSource::Output { call, output } = source else {
        return None;
    };
    let (invocation, ports) = local.get(call.as_str())?;
    let port = match output {
        OutputSelector::Emit(name) => ports.iter().find(|p| *p == name)?,
        OutputSelector::Index(n) => ports.get(usize::try_from(*n).ok()?)?,
        OutputSelector::All => match ports.as_slice() {
            [only] => only,
            _ => return None,
        },
    };
    Some(PortRef {
        invocation: invocation.clone(),
        port: port.clone(),
    })
}

/// `meta`, `meta2`, …: the sample map nf-core threads through tuples.
fn is_meta(name: &str) -> bool {
    name.strip_prefix("meta")
        .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
}

/// A component value that is a file pattern rather than a name.
fn is_pattern(value: &str) -> bool {
    value.contains(['*', '.', '?', '{'])
}

fn input_ports(
    declaration: &Declaration,
    meta: Option<&ModuleMeta>,
    from: &[PortRef],
) -> Vec<InvocationPort> {
    declaration
        .components
        .iter()
        .filter(|c| !(c.qualifier == "val" && is_meta(&c.value)))
        .map(|component| {
            let documented = meta.and_then(|m| m.inputs.iter().find(|p| p.name == component.value));
            let mut port = port(component.value.clone(), declaration, documented);
            if is_pattern(&component.value) {
                port.patterns.push(component.value.clone());
            }
            port.from = from.to_vec();
            port
        })
        .collect()
}

fn output_ports(process: &Process) -> Vec<InvocationPort> {
    process
        .outputs
        .iter()
        .enumerate()
        .map(|(index, declaration)| {
            let name = declaration
                .emit
                .clone()
                .unwrap_or_else(|| format!("out{index}"));
            let documented: Vec<&MetaPort> = process
                .meta
                .iter()
                .flat_map(|m| &m.outputs)
                .filter(|p| match &p.channel {
                    Some(channel) => *channel == name && !is_meta(&p.name),
                    None => p.name == name,
                })
                .collect();
            let mut port = port(name, declaration, documented.first().copied());
            for extra in documented.iter().skip(1) {
                port.patterns.extend(extra.pattern.clone());
            }
            for component in &declaration.components {
                if component.qualifier != "val" && is_pattern(&component.value) {
                    port.patterns.push(component.value.clone());
                }
            }
            port
        })
        .collect()
}

fn port(name: String, declaration: &Declaration, documented: Option<&MetaPort>) -> InvocationPort {
    let mut patterns = Vec::new();
    if let Some(meta) = documented {
        patterns.extend(meta.pattern.clone());
        // In the nested layout an output component's name is its pattern.
        if meta.channel.is_some() && is_pattern(&meta.name) {
            patterns.push(meta.name.clone());
        }
    }
    InvocationPort {
        name,
        text: declaration.text.clone(),
        patterns,
        description: documented.and_then(|m| m.description.clone()),
        ontologies: documented.map(|m| m.ontologies.clone()).unwrap_or_default(),
        from: Vec::new(),
    }
}
