//! What the runtime's test binaries share.

use serde_json::Value;

/// `body` is the structured failure envelope with `code`, a message and a
/// recovery.
pub fn assert_envelope(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(
        body["recovery"].as_str().is_some_and(|r| !r.is_empty()),
        "{body}"
    );
}
