//! Canonical JSON and the revisions built from it.
//!
//! Every identity in Somite (operator, catalog, graph and state revisions) is
//! `blake3:<hex>` over canonical JSON: object keys sorted by their UTF-8 bytes,
//! no insignificant whitespace, numbers as `serde_json` prints them. The
//! serializer here sorts keys itself instead of relying on `serde_json`'s map
//! type, because a `preserve_order` feature enabled anywhere in the dependency
//! graph would otherwise silently change every revision.

use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// A `blake3:<64 hex>` content identity.
pub type Revision = String;

/// Serializes `value` to canonical JSON.
pub fn to_canonical_json<T: Serialize + ?Sized>(value: &T) -> String {
    let value = serde_json::to_value(value).expect("domain values always serialize to JSON");
    let mut out = String::new();
    write_canonical(&value, &mut out);
    out
}

/// `blake3:<hex>` of the canonical JSON of `value`.
pub fn revision_of<T: Serialize + ?Sized>(value: &T) -> Revision {
    digest_bytes(to_canonical_json(value).as_bytes())
}

/// `blake3:<hex>` of raw bytes.
pub fn digest_bytes(bytes: &[u8]) -> Revision {
    format!("blake3:{}", blake3::hash(bytes).to_hex())
}

/// Whether `text` has the shape of a revision.
pub fn is_revision(text: &str) -> bool {
    text.strip_prefix("blake3:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", Value::String(key.clone()));
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_and_whitespace_is_dropped() {
        let value = json!({"b": 1, "a": {"z": [1, 2, {"y": null, "x": "s"}], "c": true}});
        assert_eq!(
            to_canonical_json(&value),
            r#"{"a":{"c":true,"z":[1,2,{"x":"s","y":null}]},"b":1}"#
        );
    }

    #[test]
    fn strings_are_escaped_as_json() {
        assert_eq!(
            to_canonical_json(&json!({"k\"": "a\nb"})),
            r#"{"k\"":"a\nb"}"#
        );
    }

    #[test]
    fn revisions_have_the_documented_shape() {
        let rev = revision_of(&json!({"a": 1}));
        assert!(is_revision(&rev), "{rev}");
        assert_eq!(rev, revision_of(&json!({"a": 1})));
        assert_ne!(rev, revision_of(&json!({"a": 2})));
        assert!(!is_revision("blake3:XYZ"));
        assert!(!is_revision("sha256:00"));
    }
}
