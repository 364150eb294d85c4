//! The JSON Schemas of the views the web workspace reads, exported from the
//! very types the runtime serializes into `web/src/api/generated/`, where a
//! vitest test (`web/src/api/wireDrift.test.ts`) checks the web's zod
//! schemas against them. The file is generated, never edited: this test
//! fails when it differs from the types, and `SOMITE_UPDATE_WIRE_SCHEMAS=1`
//! rewrites it.
//!
//! A new view is one more line in [`wire_schemas`] and one more pair in the
//! vitest test's table.

use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// Every view the web reads, by the name its schema has under `$defs`.
fn wire_schemas() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    fn add<T: JsonSchema>(generator: &mut SchemaGenerator) {
        generator.subschema_for::<T>();
    }
    add::<somite_api::Error>(&mut generator);
    add::<somite_project::views::WorkflowView>(&mut generator);
    add::<somite_project::views::GraphView>(&mut generator);
    add::<somite_project::views::TransactionReply>(&mut generator);
    add::<crate::routes::Rebound>(&mut generator);
    add::<crate::routes::ActivityPage>(&mut generator);
    add::<somite_workflow::search::SearchPage>(&mut generator);
    add::<somite_workflow::assessment::Assessment>(&mut generator);
    add::<somite_project::compiled::CompileSummary>(&mut generator);
    add::<somite_runner::RunStarted>(&mut generator);
    add::<somite_runner::RunStatus>(&mut generator);
    add::<somite_project::evidence::EvidenceLookup>(&mut generator);
    add::<somite_project::views::InvocationView>(&mut generator);
    let definitions: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": "Generated from the runtime's types by crates/somite-server/src/wire_schemas.rs; do not edit (SOMITE_UPDATE_WIRE_SCHEMAS=1 regenerates it).",
        "$defs": definitions,
    })
}

#[test]
fn the_committed_wire_schemas_match_the_runtime_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../web/src/api/generated/wire.schema.json");
    let mut generated = serde_json::to_string_pretty(&wire_schemas()).expect("schemas serialize");
    generated.push('\n');
    if std::env::var_os(somite_api::EnvVars::SOMITE_UPDATE_WIRE_SCHEMAS).is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
        std::fs::write(&path, &generated).expect("write the schemas");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the runtime's types; run `SOMITE_UPDATE_WIRE_SCHEMAS=1 cargo nextest run -p somite-server wire_schemas`, then make the web's zod schemas agree (`cd web && npx vitest run src/api/wireDrift.test.ts`)",
        path.display()
    );
}
