//! Every compiled `pixi.toml` is a manifest Pixi 0.77 accepts: validated
//! against the manifest's own JSON Schema (`schema/schema.json` of Pixi's
//! repository at `v0.77.0`, committed under `tests/data/`), read as TOML
//! into JSON the way Pixi's schema describes it.

use crate::compile_fixture::ready_project;
use crate::source::{demo, ready, ready_fetchngs};
use somite_project::compiled::{self, Toolchain};
use somite_workflow::compile::CompiledPackage;

pub(crate) use somite_test_support::pixi_manifest::assert_valid;
use somite_test_support::pixi_manifest::violation;

/// The package's `pixi.toml` as the JSON its schema describes.
pub(crate) fn manifest(package: &CompiledPackage) -> serde_json::Value {
    somite_test_support::pixi_manifest::manifest_json(
        std::str::from_utf8(&package.file("pixi.toml").unwrap().bytes).unwrap(),
    )
}

#[test]
fn a_native_package_manifest_is_valid_under_pixis_schema() {
    let fixture = ready_project();
    assert_valid("a native package", &manifest(&fixture.compile().package));
}

#[test]
fn the_nf_core_demo_and_fetchngs_manifests_are_valid_under_pixis_schema() {
    let mut f = demo();
    ready(&mut f);
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let demo = compiled::compile(&f.project, &toolchain).unwrap().package;
    assert_valid("nf-core/demo", &manifest(&demo));
    let f = ready_fetchngs();
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let fetchngs = compiled::compile(&f.project, &toolchain).unwrap().package;
    assert_valid("nf-core/fetchngs", &manifest(&fetchngs));
}

#[test]
fn the_schema_check_refuses_what_pixi_would() {
    // The check can fail: a task key Pixi does not know, a misspelt
    // workspace field.
    let mut f = demo();
    ready(&mut f);
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let mut value = manifest(&compiled::compile(&f.project, &toolchain).unwrap().package);
    value["tasks"]["run"]["needs"] = serde_json::json!(["install-tools"]);
    assert!(violation(&value).is_some());
    let mut value = manifest(&compiled::compile(&f.project, &toolchain).unwrap().package);
    value["workspace"]["platform"] = serde_json::json!(["linux-64"]);
    assert!(violation(&value).is_some());
}
