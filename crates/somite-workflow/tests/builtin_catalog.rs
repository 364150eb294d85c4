//! The reviewed catalog shipped in `operators/` loads, is complete, and each
//! contract is internally consistent.

use somite_workflow::Catalog;
use somite_workflow::operator::OperatorKind;

#[test]
fn the_builtin_catalog_loads_without_duplicates() {
    let catalog = Catalog::builtin().expect("every shipped contract is valid");
    assert!(!catalog.is_empty());
    assert!(somite_workflow::canonical::is_revision(catalog.revision()));
}

#[test]
fn external_operators_pin_exact_package_versions() {
    let catalog = Catalog::builtin().unwrap();
    for entry in catalog.entries() {
        let c = &entry.contract;
        if c.kind != OperatorKind::External {
            continue;
        }
        for (package, version) in &c.pixi {
            assert!(
                version.chars().next().is_some_and(|ch| ch.is_ascii_digit())
                    && !version.contains(['*', '>', '<', '=', ' ']),
                "{}: package {package} must be pinned to an exact version, not `{version}`",
                c.id
            );
        }
    }
}
