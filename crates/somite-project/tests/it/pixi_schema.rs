//! Every compiled `pixi.toml` is a manifest Pixi 0.77 accepts: validated
//! against the manifest's own JSON Schema (`schema/schema.json` of Pixi's
//! repository at `v0.77.0`, committed under `tests/data/`), read as TOML
//! into JSON the way Pixi's schema describes it.

use crate::compile_fixture::ready_project;
use crate::source::{demo, ready, ready_fetchngs};
use somite_project::compiled::{self, Toolchain};
use somite_workflow::compile::CompiledPackage;
use std::path::Path;

/// The schema's own `$id`.
const SCHEMA_ID: &str = "https://pixi.sh/v0.77.0/schema/manifest/schema.json";

fn pixi_schema() -> (boon::Schemas, boon::SchemaIndex) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/pixi-manifest-schema/schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(schema["$id"], SCHEMA_ID);
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler.add_resource(SCHEMA_ID, schema).unwrap();
    let mut schemas = boon::Schemas::new();
    let index = compiler
        .compile(SCHEMA_ID, &mut schemas)
        .unwrap_or_else(|e| panic!("the Pixi manifest schema compiles: {e:#}"));
    (schemas, index)
}

/// The package's `pixi.toml` as the JSON its schema describes.
pub(crate) fn manifest(package: &CompiledPackage) -> serde_json::Value {
    let text = std::str::from_utf8(&package.file("pixi.toml").unwrap().bytes).unwrap();
    let parsed: toml::Value = toml::from_str(text).unwrap();
    serde_json::to_value(parsed).unwrap()
}

pub(crate) fn assert_valid(name: &str, manifest: &serde_json::Value) {
    let (schemas, index) = pixi_schema();
    if let Err(error) = schemas.validate(manifest, index) {
        panic!("{name}'s pixi.toml violates Pixi's manifest schema: {error:#}\n{manifest:#}");
    }
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
    let (schemas, index) = pixi_schema();
    assert!(schemas.validate(&value, index).is_err());
    let mut value = manifest(&compiled::compile(&f.project, &toolchain).unwrap().package);
    value["workspace"]["platform"] = serde_json::json!(["linux-64"]);
    assert!(schemas.validate(&value, index).is_err());
}
