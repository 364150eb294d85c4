//! Catalog search: ranking rules, bounds, and cursor validity.

use crate::common;
use somite_workflow::search::SearchRequest;
use somite_workflow::{Catalog, ErrorCode};

fn search(
    catalog: &Catalog,
    query: &str,
    limit: Option<usize>,
    cursor: Option<String>,
) -> Result<somite_workflow::search::SearchPage, somite_workflow::SomiteError> {
    catalog.search(&SearchRequest {
        query: query.into(),
        limit,
        cursor,
    })
}

#[test]
fn an_exact_id_term_ranks_its_operator_first_with_matched_terms() {
    let catalog = common::catalog();
    let page = search(&catalog, "classify", None, None).unwrap();
    assert_eq!(page.matches[0].id, "class.classify");
    assert_eq!(page.matches[0].matched_terms, vec!["classify"]);
    assert_eq!(page.catalog_revision, *catalog.revision());
    assert_eq!(
        page.matches[0].revision,
        catalog.get("class.classify").unwrap().revision
    );
}

#[test]
fn domain_synonyms_answer_for_port_types() {
    let catalog = common::catalog();
    let page = search(&catalog, "reads", Some(50), None).unwrap();
    let ids: Vec<_> = page.matches.iter().map(|m| m.id.as_str()).collect();
    assert!(ids.contains(&"qc.check"), "{ids:?}");
    assert!(ids.contains(&"files.pair"), "{ids:?}");
    let paired = search(&catalog, "paired", None, None).unwrap();
    assert_eq!(paired.matches[0].id, "files.pair");
}

#[test]
fn prefixes_match_from_three_characters() {
    let catalog = common::catalog();
    assert!(search(&catalog, "clas", None, None).unwrap().total_matches > 0);
    assert_eq!(search(&catalog, "cl", None, None).unwrap().total_matches, 0);
}

#[test]
fn full_matches_drop_partial_ones_and_multi_term_queries_need_two_terms() {
    let catalog = common::catalog();
    let page = search(&catalog, "classify kraken2", Some(50), None).unwrap();
    assert_eq!(page.matches.len(), 1);
    assert_eq!(page.matches[0].matched_terms, vec!["classify", "kraken2"]);
    // `quality` alone matches qc.check; with an unmatched word nothing has two terms.
    assert!(
        search(&catalog, "quality", None, None)
            .unwrap()
            .total_matches
            > 0
    );
    assert_eq!(
        search(&catalog, "quality zebrafish", None, None)
            .unwrap()
            .total_matches,
        0
    );
}

#[test]
fn ranking_is_deterministic_score_then_id() {
    let catalog = common::catalog();
    let page = search(&catalog, "import", Some(50), None).unwrap();
    for pair in page.matches.windows(2) {
        assert!(
            pair[0].score > pair[1].score
                || (pair[0].score == pair[1].score && pair[0].id < pair[1].id)
        );
    }
    assert_eq!(
        page,
        search(&catalog, "IMPORT", Some(50), None)
            .unwrap()
            .with_query("import")
    );
}

trait WithQuery {
    fn with_query(self, q: &str) -> Self;
}
impl WithQuery for somite_workflow::search::SearchPage {
    fn with_query(mut self, q: &str) -> Self {
        self.query = q.into();
        self
    }
}

#[test]
fn cursors_page_through_every_match_exactly_once() {
    let catalog = common::catalog();
    let all = search(&catalog, "import", Some(50), None).unwrap();
    assert!(all.total_matches >= 3);
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = search(&catalog, "import", Some(1), cursor).unwrap();
        seen.extend(page.matches.iter().map(|m| m.id.clone()));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    let expected: Vec<_> = all.matches.iter().map(|m| m.id.clone()).collect();
    assert_eq!(seen, expected);
}

#[test]
fn a_cursor_is_valid_only_for_its_query_and_catalog_revision() {
    let catalog = common::catalog();
    let cursor = search(&catalog, "import", Some(1), None)
        .unwrap()
        .next_cursor
        .unwrap();
    let err = search(&catalog, "reads", Some(1), Some(cursor.clone())).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidCursor);
    // Same query, normalised identically, keeps working.
    search(&catalog, "Import", Some(1), Some(cursor.clone())).unwrap();
    let smaller = Catalog::new(common::contracts().into_iter().skip(1)).unwrap();
    let err = search(&smaller, "import", Some(1), Some(cursor)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidCursor);
    for garbage in ["", "not-a-cursor", "eyJ2IjoxfQ"] {
        let err = search(&catalog, "import", None, Some(garbage.into())).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidCursor, "{garbage}");
    }
}

#[test]
fn queries_and_limits_are_bounded() {
    let catalog = common::catalog();
    for bad in ["", "---", "a\u{7}b"] {
        assert_eq!(
            search(&catalog, bad, None, None).unwrap_err().code,
            ErrorCode::InvalidQuery,
            "{bad:?}"
        );
    }
    assert!(search(&catalog, &"a".repeat(120), None, None).is_ok());
    assert_eq!(
        search(&catalog, &"a".repeat(121), None, None)
            .unwrap_err()
            .code,
        ErrorCode::InvalidQuery
    );
    for bad in [0, 51] {
        assert_eq!(
            search(&catalog, "import", Some(bad), None)
                .unwrap_err()
                .code,
            ErrorCode::InvalidQuery
        );
    }
    assert!(search(&catalog, "import", Some(50), None).is_ok());
    assert_eq!(
        search(&catalog, "import", None, None)
            .unwrap()
            .matches
            .len()
            .min(12),
        search(&catalog, "import", None, None)
            .unwrap()
            .matches
            .len()
    );
}

#[test]
fn a_duplicate_operator_id_is_rejected() {
    let mut contracts = common::contracts();
    contracts.push(contracts[0].clone());
    assert_eq!(
        Catalog::new(contracts).unwrap_err().code,
        ErrorCode::InvalidContract
    );
}
