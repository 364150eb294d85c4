//! Each operator's `[nf_core]` mapping against the real module it names.
//!
//! `tests/data/nf-core-modules` holds the `main.nf` and `meta.yml` of every
//! module an operator declares, as nf-core/modules has them (see its
//! README). Each module is outlined as a pipeline calling it would be, and
//! the operator must meet the module's real input components and output
//! emits as its contract declares: the same replacement a user's
//! `replace_invocation` and a promotion build, with the types the module's
//! own patterns give.

use somite_project::source::invocations_of;
use somite_workflow::Catalog;
use somite_workflow::catalog::CatalogEntry;
use somite_workflow::operator::NfCoreModule;
use somite_workflow::source::{PortPair, SourceInvocation};
use somite_workflow::variant::{equivalent, replacement_of};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The goal: at least 60 of the catalog's operators stand for an
/// nf-core module.
const MIN_STANDING: usize = 60;

fn modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/nf-core-modules")
}

/// The process a module's `main.nf` declares (`process BWA_MEM {`).
fn process_name(main_nf: &str) -> String {
    main_nf
        .lines()
        .find_map(|line| line.trim().strip_prefix("process "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(|name| name.trim_end_matches('{').to_owned())
        .expect("a module declares one process")
}

/// Outlines `module` as a one-call pipeline: `main.nf` includes it from
/// `modules/nf-core/<module>/` and calls it.
fn invocation_of(module: &str) -> SourceInvocation {
    let from = modules().join(module);
    let main_nf = std::fs::read_to_string(from.join("main.nf"))
        .unwrap_or_else(|e| panic!("{module}: main.nf is not in tests/data/nf-core-modules: {e}"));
    let process = process_name(&main_nf);
    let tree = tempfile::tempdir().unwrap();
    let to = tree.path().join("modules/nf-core").join(module);
    std::fs::create_dir_all(&to).unwrap();
    for file in ["main.nf", "meta.yml"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
    std::fs::write(
        tree.path().join("main.nf"),
        format!(
            "include {{ {process} }} from './modules/nf-core/{module}/main'\n\nworkflow {{\n    {process}()\n}}\n"
        ),
    )
    .unwrap();
    let outline = somite_outline::outline(tree.path()).unwrap();
    let mut invocations = invocations_of(&outline).unwrap();
    assert_eq!(invocations.len(), 1, "{module}: one call, one invocation");
    invocations.remove(0)
}

/// The pairs a contract declares, in the order a replacement records them.
fn declared(map: &BTreeMap<String, Vec<String>>) -> Vec<PortPair> {
    map.iter()
        .flat_map(|(channel, ports)| {
            ports.iter().map(|port| PortPair {
                invocation_port: channel.clone(),
                operator_port: port.clone(),
            })
        })
        .collect()
}

#[test]
fn every_declared_mapping_meets_its_real_module() {
    let catalog = Catalog::builtin().unwrap();
    let standing: Vec<(&CatalogEntry, &NfCoreModule)> = catalog
        .entries()
        .filter_map(|e| e.contract.nf_core.as_ref().map(|n| (e, n)))
        .collect();
    let mut by_module: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (entry, nf_core) in &standing {
        by_module
            .entry(nf_core.module.as_str())
            .or_default()
            .push(entry.contract.id.as_str());
    }

    let (mut typed, mut open) = (0, 0);
    let mut misfits = Vec::new();
    for (entry, nf_core) in &standing {
        let id = &entry.contract.id;
        let inv = invocation_of(&nf_core.module);
        let replacement = match replacement_of(&inv, entry, &[], &[]) {
            Ok(r) => r,
            Err(e) => {
                misfits.push(format!(
                    "{id} does not meet `{}`: {}",
                    nf_core.module, e.message
                ));
                continue;
            }
        };
        assert_eq!(
            replacement.inputs,
            declared(&nf_core.inputs),
            "{id}: the declared inputs"
        );
        assert_eq!(
            replacement.outputs,
            declared(&nf_core.outputs),
            "{id}: the declared outputs"
        );
        // The current module has each channel under its current name.
        for (pairs, ports, channels) in [
            (&replacement.inputs, &inv.inputs, &nf_core.inputs),
            (&replacement.outputs, &inv.outputs, &nf_core.outputs),
        ] {
            let renamed = nf_core
                .renamed
                .iter()
                .filter(|(_, c)| channels.contains_key(*c));
            for (old, _) in renamed {
                assert!(
                    ports.iter().all(|p| p.name != *old),
                    "{id}: `{old}` is an older name, not the current one"
                );
            }
            for pair in pairs {
                let port = ports
                    .iter()
                    .find(|p| p.name == pair.invocation_port)
                    .expect("a replacement names the module's own ports");
                if port.ty.is_some() {
                    typed += 1;
                } else {
                    open += 1;
                }
            }
        }

        // A promotion takes the one operator standing for the module, and
        // names the candidates when several do.
        let sharing = &by_module[nf_core.module.as_str()];
        match equivalent(&catalog, &inv) {
            Ok(r) => {
                assert_eq!(sharing.len(), 1, "{id}: several operators stand for it");
                assert_eq!(r.operator_id, *id);
            }
            Err(reason) => {
                assert!(sharing.len() > 1, "{id}: {reason}");
                for other in sharing {
                    assert!(reason.contains(other), "{reason} names {other}");
                }
            }
        }
    }

    assert!(misfits.is_empty(), "{}", misfits.join("\n"));

    // Every module kept in the test data is one an operator names.
    let mut kept = BTreeSet::new();
    for family in std::fs::read_dir(modules()).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        let name = family.file_name().unwrap().to_string_lossy().into_owned();
        if family.join("main.nf").is_file() {
            kept.insert(name);
            continue;
        }
        for tool in std::fs::read_dir(&family).unwrap() {
            let tool = tool.unwrap().file_name().to_string_lossy().into_owned();
            kept.insert(format!("{name}/{tool}"));
        }
    }
    let named: BTreeSet<String> = by_module.keys().map(|m| (*m).to_owned()).collect();
    assert_eq!(
        kept, named,
        "tests/data/nf-core-modules holds the named modules"
    );

    println!(
        "{} of {} operators stand for {} nf-core modules; {typed} mapped ports type-checked, {open} left open by the module's patterns",
        standing.len(),
        catalog.entries().count(),
        by_module.len()
    );
    assert!(
        standing.len() >= MIN_STANDING,
        "{} operators stand for an nf-core module",
        standing.len()
    );
}
