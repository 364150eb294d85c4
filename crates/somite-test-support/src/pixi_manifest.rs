//! Every compiled `pixi.toml` must be a manifest Pixi 0.77 accepts: checked
//! against the manifest's own JSON Schema (`schema/schema.json` of Pixi's
//! repository at `v0.77.0`, committed under `tests/data/pixi-manifest-schema/`),
//! with the TOML read into JSON the way Pixi's schema describes it.

use std::path::Path;
use std::sync::OnceLock;

/// The schema's own `$id`.
const SCHEMA_ID: &str = "https://pixi.sh/v0.77.0/schema/manifest/schema.json";

fn compiled() -> &'static (boon::Schemas, boon::SchemaIndex) {
    static SCHEMA: OnceLock<(boon::Schemas, boon::SchemaIndex)> = OnceLock::new();
    SCHEMA.get_or_init(|| {
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
    })
}

/// A `pixi.toml`'s text as the JSON its schema describes.
pub fn manifest_json(text: &str) -> serde_json::Value {
    let parsed: toml::Value =
        toml::from_str(text).unwrap_or_else(|e| panic!("pixi.toml is TOML: {e}"));
    serde_json::to_value(parsed).unwrap()
}

/// How `manifest` violates Pixi's manifest schema, if it does.
pub fn violation(manifest: &serde_json::Value) -> Option<String> {
    let (schemas, index) = compiled();
    schemas
        .validate(manifest, *index)
        .err()
        .map(|error| format!("{error:#}"))
}

/// Panics, naming `name` and the violation, unless `manifest` is valid
/// under Pixi's manifest schema.
pub fn assert_valid(name: &str, manifest: &serde_json::Value) {
    if let Some(error) = violation(manifest) {
        panic!("{name}'s pixi.toml violates Pixi's manifest schema: {error}\n{manifest:#}");
    }
}
