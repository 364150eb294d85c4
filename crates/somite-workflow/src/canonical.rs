//! Canonical JSON and the revisions built from it.
//!
//! Every identity in Somite (operator, catalog, graph and state revisions) is
//! `blake3:<hex>` over canonical JSON: object keys sorted by their UTF-8 bytes,
//! no insignificant whitespace, numbers as `serde_json` prints them. The
//! serializer here sorts keys itself instead of relying on `serde_json`'s map
//! type, because a `preserve_order` feature enabled anywhere in the dependency
//! graph would otherwise silently change every revision.

use serde::Serialize;

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

/// The canonical JSON of `value`, written straight into one buffer by
/// [`crate::canonical_writer`]: the revisions of large graphs are computed
/// on every published state, so no value tree is built first.
fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    write_canonical_into(value, &mut out);
    out
}

/// Appends the canonical JSON of `value` to `out`, for a caller that lays
/// out the surrounding object itself.
pub(crate) fn write_canonical_into<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    crate::canonical_writer::write(value, out).expect("domain values always serialize to JSON");
}

/// `blake3:<hex>` of raw bytes.
pub fn digest_bytes(bytes: &[u8]) -> Revision {
    digest_parts(&[bytes])
}

/// `blake3:<hex>` of the concatenation of `parts`, without making it.
pub fn digest_parts(parts: &[&[u8]]) -> Revision {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        hasher.update(part);
    }
    format!("blake3:{}", hasher.finalize().to_hex())
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The definition the writer must match: the value tree of `value`,
    /// written with every object's keys in byte order.
    fn oracle<T: Serialize>(value: &T) -> String {
        let value = serde_json::to_value(value).unwrap();
        let mut out = Vec::new();
        write_canonical(&value, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_direct_writer_matches_the_value_tree() {
        #[derive(Serialize)]
        enum Shape {
            Unit,
            New(u8),
            Pair(i32, f64),
            Named { z: bool, a: Option<String> },
        }
        #[derive(Serialize)]
        struct Unsorted<'a> {
            zeta: f64,
            alpha: Vec<Shape>,
            #[serde(flatten)]
            rest: std::collections::BTreeMap<&'a str, Value>,
            mid: (char, u64, i64),
            nan: f64,
        }
        let value = Unsorted {
            zeta: 0.1,
            alpha: vec![
                Shape::Unit,
                Shape::New(7),
                Shape::Pair(-3, 1e300),
                Shape::Named {
                    z: true,
                    a: Some("é\"\u{1}".into()),
                },
                Shape::Named { z: false, a: None },
            ],
            rest: [
                ("beta", json!({"y": [1, 2.5, null], "x": "s"})),
                ("omega", json!(u64::MAX)),
            ]
            .into_iter()
            .collect(),
            mid: ('\n', 18, -18),
            nan: f64::NAN,
        };
        assert_eq!(to_canonical_json(&value), oracle(&value));
        let document = json!({"b": 1, "a": {"z": [1, 2, {"y": null, "x": "s"}], "c": true}});
        assert_eq!(to_canonical_json(&document), oracle(&document));
    }

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

    fn write_canonical(value: &Value, out: &mut Vec<u8>) {
        match value {
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
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                out.push(b'{');
                for (i, (key, item)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(Value::String(key.clone()).to_string().as_bytes());
                    out.push(b':');
                    write_canonical(item, out);
                }
                out.push(b'}');
            }
            scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
        }
    }
}
