//! The JSON Schemas of the results the MCP tools will return, and one
//! error as its envelope, snapshotted: another program parses both. Maps
//! are sorted: `serde_json`'s key order depends on whether another crate in
//! the build turned on its `preserve_order` feature.

use somite_source::{NfCoreSearchPage, PinnedSource, Provider, SourceError};

#[test]
fn result_schemas() {
    insta::with_settings!({ sort_maps => true }, {
        insta::assert_json_snapshot!("search_page", schemars::schema_for!(NfCoreSearchPage));
        insta::assert_json_snapshot!("pinned_source", schemars::schema_for!(PinnedSource));
    });
}

#[test]
fn a_rate_limit_envelope() {
    let e = SourceError::RateLimited {
        provider: Provider::GitHub,
        reset_at: Some("2026-12-03T22:00:00Z".into()),
    };
    insta::with_settings!({ sort_maps => true }, {
        insta::assert_json_snapshot!(serde_json::json!({
            "code": e.code(),
            "message": e.to_string(),
            "recovery": e.recovery(),
            "details": e.details(),
        }));
    });
}
