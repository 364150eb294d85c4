//! The failure envelope every tool shares, and the output schema that
//! covers both a tool's success value and that envelope.
//!
//! Expected failures (a missing binary, a rejected path, a page that does not
//! exist) are results the agent can act on, so they travel as `isError: true`
//! tool results with structured content `{code, message, recovery}` plus
//! optional `details` (`somite_api::Error`) — never as JSON-RPC protocol errors, which clients treat
//! as transport trouble. A tool function returns [`ToolOutcome<T>`]; its
//! declared `outputSchema` is [`outcome_schema::<T>()`](outcome_schema), an
//! object schema that is `anyOf` the success type and [`ToolError`], so a
//! client can validate either kind of result.

use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, JsonObject};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;
use somite_api::ToolCode;
use std::sync::Arc;

/// The toolchain servers' failure is the wire envelope itself, with the
/// tool servers' codes ([`ToolCode`]) and the domain's `not_found` and
/// `toolchain_missing`.
pub use somite_api::Error as ToolError;

/// Arguments that do not match a tool's input schema, as the toolchain
/// servers' envelope (see [`crate::effects::finish`]).
pub fn argument_error(message: String) -> Value {
    serde_json::json!({
        "code": ToolCode::InvalidArgument,
        "message": message,
        "recovery": "Pass only the arguments the tool's inputSchema declares, with their declared types.",
    })
}

/// What a tool function returns: its success value or a failure envelope
/// (the toolchain servers' [`ToolError`] unless a server has its own).
pub struct ToolOutcome<T, E = ToolError>(pub Result<T, E>);

impl<T, E> From<Result<T, E>> for ToolOutcome<T, E> {
    fn from(result: Result<T, E>) -> Self {
        Self(result)
    }
}

impl<T: Serialize, E: Serialize> IntoCallToolResult for ToolOutcome<T, E> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        let result = match self.0 {
            Ok(value) => CallToolResult::structured(to_json(&value)?),
            Err(error) => CallToolResult::structured_error(to_json(&error)?),
        };
        Ok(result.into())
    }
}

fn to_json(value: &impl Serialize) -> Result<Value, rmcp::ErrorData> {
    serde_json::to_value(value).map_err(|error| {
        rmcp::ErrorData::internal_error(format!("cannot serialise a tool result: {error}"), None)
    })
}

/// The output schema of a tool returning [`ToolOutcome<T>`]: an object that is
/// either a `T` or a [`ToolError`].
pub fn outcome_schema<T: JsonSchema>() -> Arc<JsonObject> {
    outcome_schema_with::<T, ToolError>()
}

/// The output schema of a tool returning [`ToolOutcome<T, E>`]: an object that
/// is either a `T` or an `E`.
pub fn outcome_schema_with<T: JsonSchema, E: JsonSchema>() -> Arc<JsonObject> {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let success = generator.subschema_for::<T>();
    let failure = generator.subschema_for::<E>();
    let definitions = generator.take_definitions(true);
    let mut schema = JsonObject::new();
    schema.insert(
        "$schema".into(),
        "https://json-schema.org/draft/2020-12/schema".into(),
    );
    schema.insert("type".into(), "object".into());
    schema.insert(
        "anyOf".into(),
        Value::Array(vec![success.to_value(), failure.to_value()]),
    );
    schema.insert("$defs".into(), Value::Object(definitions));
    Arc::new(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, JsonSchema)]
    struct Sample {
        answer: u32,
    }

    #[test]
    fn the_outcome_schema_is_an_object_covering_success_and_failure() {
        let schema = outcome_schema::<Sample>();
        assert_eq!(schema["type"], "object");
        let defs = schema["$defs"].as_object().expect("definitions");
        assert!(defs.contains_key("Sample"), "{schema:?}");
        assert!(defs.contains_key("Error"), "{schema:?}");
        assert_eq!(schema["anyOf"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_failure_becomes_an_is_error_result_with_the_envelope() {
        let outcome: ToolOutcome<Sample> = ToolOutcome(Err(ToolError::new(
            somite_api::DomainCode::NotFound,
            "no such page",
            "list the pages",
        )));
        let response = outcome.into_call_tool_result().expect("serialisable");
        let CallToolResponse::Complete(result) = response else {
            panic!("a tool outcome is always a complete result");
        };
        let value = serde_json::to_value(&result).expect("json");
        assert_eq!(value["isError"], true);
        assert_eq!(value["structuredContent"]["code"], "not_found");
        assert_eq!(value["structuredContent"]["recovery"], "list the pages");
    }
}
