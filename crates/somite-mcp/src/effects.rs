//! What each tool's work does, declared once, and what every server's tool
//! list is derived from it.
//!
//! A client decides from a tool's annotations whether to ask the user first
//! and whether the call may leave the machine, so the hints must follow from
//! what the tool runs, not be typed beside it as four independent booleans
//! that drift (`somite.workflow.compile` once claimed a closed world while
//! running `pixi lock`). Each server declares, per tool, the [`Effect`]s of
//! its work in one function next to its tools; [`finish`] turns those into
//! the annotations and refuses a tool without a declaration. Tests read the
//! same declarations, so an annotation and its expectation cannot disagree
//! with what the tool is declared to run.
//!
//! [`finish`] also makes every advertised schema standard JSON Schema
//! 2020-12 ([`standard_schema`]) and turns rmcp's bare-text argument errors
//! into the server's structured failure envelope, so every tool of every
//! server fails with `{code, message, recovery}`.

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::{CallToolResult, ErrorCode, JsonObject, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;

/// One kind of consequence a tool's work may have beyond its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes files or state on this machine (the project, a workspace, a run).
    Writes,
    /// May remove or overwrite what was there (an edit that removes nodes, a
    /// cancelled run, a removed dependency, a task or pipeline's own code).
    Destroys,
    /// Reaches hosts beyond this machine: Pixi solving or installing against
    /// package channels (`pixi lock`, `add`, `install`, `search`, `run`),
    /// Nextflow fetching plugins, containers or packages (`run`, `lint`,
    /// `config`, `inspect`).
    ReachesNetwork,
}

/// A tool's declared effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effects {
    pub effects: &'static [Effect],
    /// Repeating the same call has no further effect (by content, or by the
    /// idempotency key the tool requires).
    pub idempotent: bool,
}

impl Effects {
    /// Reads local state only.
    pub const READ_LOCAL: Effects = Effects {
        effects: &[],
        idempotent: true,
    };

    pub fn has(&self, effect: Effect) -> bool {
        self.effects.contains(&effect)
    }

    /// The MCP hints these effects imply.
    pub fn apply(&self, annotations: &mut ToolAnnotations) {
        annotations.read_only_hint = Some(!self.has(Effect::Writes) && !self.has(Effect::Destroys));
        annotations.destructive_hint = Some(self.has(Effect::Destroys));
        annotations.idempotent_hint = Some(self.idempotent);
        annotations.open_world_hint = Some(self.has(Effect::ReachesNetwork));
    }
}

/// Finishes a server's router: annotations from `effects_of` (panicking on a
/// tool without a declaration, a programming error every test that starts
/// the server catches), standard schemas, and argument errors as the
/// envelope `argument_error` builds from rmcp's message.
pub fn finish<S: Send + Sync + 'static>(
    mut router: ToolRouter<S>,
    effects_of: fn(&str) -> Option<Effects>,
    argument_error: fn(String) -> Value,
) -> ToolRouter<S> {
    for route in router.map.values_mut() {
        let mut tool = route.attr.clone();
        let effects = effects_of(&tool.name)
            .unwrap_or_else(|| panic!("{} has no declared effects", tool.name));
        effects.apply(
            tool.annotations
                .get_or_insert_with(ToolAnnotations::default),
        );
        tool.input_schema = Arc::new(standard_object(&tool.input_schema));
        tool.output_schema = tool
            .output_schema
            .as_ref()
            .map(|schema| Arc::new(standard_object(schema)));
        let call = Arc::clone(&route.call);
        // rmcp reports arguments that do not deserialize (an unknown field,
        // a missing one, a wrong type) as a JSON-RPC `invalid_params` error,
        // which its router then turns into a bare-text `isError` result. Our
        // tools never fail with `invalid_params` themselves (they return an
        // envelope), so here it can only be that extractor: answer with the
        // envelope instead, like every other expected failure.
        *route = ToolRoute::new_dyn(tool, move |context| {
            let call = Arc::clone(&call);
            Box::pin(async move {
                match call(context).await {
                    Err(error) if error.code == ErrorCode::INVALID_PARAMS => {
                        Ok(CallToolResult::structured_error(argument_error(
                            error.message.into_owned(),
                        ))
                        .into())
                    }
                    other => other,
                }
            })
        });
    }
    router
}

/// The formats JSON Schema 2020-12 defines (Validation, section 7.3);
/// validators warn about or reject any other.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

fn standard_object(schema: &JsonObject) -> JsonObject {
    let mut value = Value::Object(schema.clone());
    standard_schema(&mut value);
    match value {
        Value::Object(object) => object,
        _ => unreachable!("an object stays an object"),
    }
}

/// Rewrites a schema generated by `schemars` into standard JSON Schema:
/// `schemars` marks numbers with formats of its own (`uint64`, `uint`,
/// `uint32`, `int64`, `double`, `float`), which Ajv and other strict
/// validators report as unknown. The range they stand for is kept where it
/// matters: an unsigned integer keeps (or gains) `minimum: 0`.
pub fn standard_schema(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let custom = object
                .get("format")
                .and_then(Value::as_str)
                .filter(|format| !STANDARD_FORMATS.contains(format))
                .map(str::to_owned);
            if let Some(format) = custom {
                object.remove("format");
                if format.starts_with("uint") {
                    object.entry("minimum").or_insert(Value::from(0));
                }
            }
            object.values_mut().for_each(standard_schema);
        }
        Value::Array(items) => items.iter_mut().for_each(standard_schema),
        _ => {}
    }
}

/// Every `format` anywhere in `schema`, for tests that check them.
pub fn formats(schema: &Value) -> Vec<String> {
    match schema {
        Value::Object(object) => object
            .get("format")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .into_iter()
            .chain(object.values().flat_map(formats))
            .collect(),
        Value::Array(items) => items.iter().flat_map(formats).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn custom_number_formats_become_standard_ranges() {
        let mut schema = json!({
            "properties": {
                "count": {"type": "integer", "format": "uint64", "minimum": 0},
                "size": {"type": ["integer", "null"], "format": "uint"},
                "delta": {"type": "integer", "format": "int64"},
                "score": {"type": "number", "format": "float"},
                "when": {"type": "string", "format": "date-time"}
            }
        });
        standard_schema(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "count": {"type": "integer", "minimum": 0},
                    "size": {"type": ["integer", "null"], "minimum": 0},
                    "delta": {"type": "integer"},
                    "score": {"type": "number"},
                    "when": {"type": "string", "format": "date-time"}
                }
            })
        );
    }

    /// The tools of the three servers, in the order of `tools::*::ALL`.
    fn every_server_tools() -> [Vec<rmcp::model::Tool>; 3] {
        let root = tempfile::tempdir().expect("tempdir");
        let options = crate::toolserver::ServerOptions {
            workspace_root: root.path().to_path_buf(),
            docs_source: None,
        };
        [
            crate::somite_proxy::SomiteServer::new("http://127.0.0.1:9", None)
                .expect("somite")
                .tools(),
            crate::pixi::PixiServer::start(&options)
                .expect("pixi")
                .tools(),
            crate::nextflow::NextflowServer::start(&options)
                .expect("nextflow")
                .tools(),
        ]
    }

    /// `#[tool(name = …)]` takes only a literal; this keeps each literal
    /// equal to the wire contract's constant, in both directions (a tool
    /// without a declared name already fails `finish`, since its effects
    /// are looked up by the constants).
    #[test]
    fn every_server_registers_exactly_the_declared_tool_names() {
        let declared = [
            somite_api::tools::somite::ALL,
            somite_api::tools::pixi::ALL,
            somite_api::tools::nextflow::ALL,
        ];
        for (tools, declared) in every_server_tools().iter().zip(declared) {
            let mut registered: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
            let mut declared = declared.to_vec();
            registered.sort_unstable();
            declared.sort_unstable();
            assert_eq!(registered, declared);
        }
    }

    /// Every tool's input and output schema, as a client receives them from
    /// `tools/list`: a change to a wire type shows up here for review.
    /// Regenerate with `INSTA_UPDATE=always cargo nextest run -p somite-mcp`
    /// (or `cargo insta review`).
    #[test]
    fn every_tool_schema_is_snapshotted() {
        let servers = ["somite", "pixi", "nextflow"];
        for (server, mut tools) in servers.iter().zip(every_server_tools()) {
            // The router lists tools in hash order.
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            let schemas: Vec<Value> = tools
                .iter()
                .map(|tool| {
                    serde_json::json!({
                        "name": tool.name,
                        "inputSchema": Value::Object(JsonObject::clone(&tool.input_schema)),
                        "outputSchema": tool.output_schema.as_deref().cloned().map(Value::Object),
                    })
                })
                .collect();
            // Key order depends on whether the build unifies serde_json's
            // `preserve_order`; the snapshot must not.
            insta::with_settings!({ sort_maps => true }, {
                insta::assert_json_snapshot!(format!("{server}_tool_schemas"), schemas);
            });
        }
    }

    /// What a strict client (Ajv in the TypeScript SDK, `jsonschema` with
    /// its format checker) compiles: only formats JSON Schema defines.
    #[test]
    fn every_schema_of_every_server_uses_only_standard_formats() {
        let servers = every_server_tools();
        let mut checked = 0;
        for tool in servers.iter().flatten() {
            let output = tool.output_schema.as_ref().expect("an output schema");
            for schema in [&tool.input_schema, output] {
                let schema = Value::Object(JsonObject::clone(schema));
                let unknown: Vec<String> = formats(&schema)
                    .into_iter()
                    .filter(|format| !STANDARD_FORMATS.contains(&format.as_str()))
                    .collect();
                assert!(unknown.is_empty(), "{}: {unknown:?}", tool.name);
                checked += 1;
            }
        }
        assert_eq!(
            checked,
            2 * (11 + 7 + 13),
            "every tool of the three servers"
        );
    }

    #[test]
    fn hints_follow_from_effects() {
        let mut annotations = ToolAnnotations::default();
        Effects {
            effects: &[Effect::Writes, Effect::ReachesNetwork],
            idempotent: true,
        }
        .apply(&mut annotations);
        assert_eq!(annotations.read_only_hint, Some(false));
        assert_eq!(annotations.destructive_hint, Some(false));
        assert_eq!(annotations.open_world_hint, Some(true));
        Effects::READ_LOCAL.apply(&mut annotations);
        assert_eq!(annotations.read_only_hint, Some(true));
        assert_eq!(annotations.open_world_hint, Some(false));
    }
}
