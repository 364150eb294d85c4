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

/// A `blake3:<64 hex>` content identity.
pub type Revision = String;

/// Serializes `value` to canonical JSON.
pub fn to_canonical_json<T: Serialize + ?Sized>(value: &T) -> String {
    String::from_utf8(canonical_bytes(value)).expect("JSON text is UTF-8")
}

/// `blake3:<hex>` of the canonical JSON of `value`.
pub fn revision_of<T: Serialize + ?Sized>(value: &T) -> Revision {
    digest_bytes(&canonical_bytes(value))
}

/// The canonical JSON of `value`, written straight into one buffer: the
/// revisions of large graphs are computed on every published state, so no
/// intermediate string per key or scalar is made.
fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let value = serde_json::to_value(value).expect("domain values always serialize to JSON");
    let mut out = Vec::with_capacity(1024);
    write_canonical(&value, &mut out);
    out
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

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        // serde_json writes scalars and strings exactly as `Value`'s
        // `Display` does; writing into `out` avoids a string per scalar.
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            serde_json::to_writer(&mut *out, value).expect("writing to a Vec cannot fail");
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            // serde_json's default map is already in byte order; only a map
            // type that keeps insertion order needs the sort.
            let sorted = map
                .keys()
                .zip(map.keys().skip(1))
                .all(|(a, b)| a.as_bytes() < b.as_bytes());
            let write_entry = |i: usize, key: &String, item: &Value, out: &mut Vec<u8>| {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("writing to a Vec cannot fail");
                out.push(b':');
                write_canonical(item, out);
            };
            if sorted {
                for (i, (key, item)) in map.iter().enumerate() {
                    write_entry(i, key, item, out);
                }
            } else {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (i, (key, item)) in entries.into_iter().enumerate() {
                    write_entry(i, key, item, out);
                }
            }
            out.push(b'}');
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
