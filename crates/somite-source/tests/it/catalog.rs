//! `search_nfcore` against the stand-in: ranking, paging, the hour-long
//! cache, and the last good copy served offline with its age.

use crate::common::{CatalogMode, StandIn, store_at};
use somite_api::{DomainCode, SourceCode};
use somite_source::CatalogOrigin;
use std::time::{Duration, SystemTime};

#[tokio::test]
async fn search_returns_exact_repository_release_pairs() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());

    let page = store
        .search_nfcore("fastq download", None, None)
        .await
        .unwrap();
    assert_eq!(page.catalog.origin, CatalogOrigin::Fetched);
    assert_eq!(page.total_matches, 1);
    let m = &page.matches[0];
    assert_eq!(m.repository.as_str(), "nf-core/fetchngs");
    assert_eq!(m.matched_terms, ["fastq", "download"]);
    let latest = m.latest_release.as_ref().unwrap();
    assert_eq!(
        (latest.tag.as_str(), latest.commit.as_str()),
        ("1.12.0", crate::common::FETCHNGS_1_12_0)
    );
    assert_eq!(m.releases.len(), 4);
}

#[tokio::test]
async fn pages_follow_the_cursor() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());

    let first = store.search_nfcore("", None, Some(2)).await.unwrap();
    let names: Vec<_> = first.matches.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["demo", "fetchngs"]);
    let second = store
        .search_nfcore("", first.next_cursor.as_deref(), Some(2))
        .await
        .unwrap();
    assert_eq!(second.matches[0].name, "rnaseq");
    assert_eq!(second.next_cursor, None);
    assert_eq!(second.catalog.revision, first.catalog.revision);

    let other = store
        .search_nfcore("rna", first.next_cursor.as_deref(), Some(2))
        .await
        .unwrap_err();
    assert_eq!(other.code(), DomainCode::InvalidCursor);
}

#[tokio::test]
async fn the_catalog_is_reused_for_an_hour() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let t0 = SystemTime::now();
    let config = standin.config(cache.path());
    store_at(config.clone(), t0)
        .search_nfcore("demo", None, None)
        .await
        .unwrap();

    let later = store_at(config, t0 + Duration::from_secs(59 * 60));
    let page = later.search_nfcore("demo", None, None).await.unwrap();
    assert_eq!(page.catalog.origin, CatalogOrigin::Cached);
    assert_eq!(page.catalog.age_seconds, 59 * 60);
    assert_eq!(standin.count("GET /pipelines.json"), 1);
}

#[tokio::test]
async fn offline_the_last_good_catalog_is_served_with_its_age() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let t0 = SystemTime::now();
    let config = standin.config(cache.path());
    let fresh = store_at(config.clone(), t0)
        .search_nfcore("rnaseq", None, None)
        .await
        .unwrap();

    standin.with(|b| b.catalog = Some(CatalogMode::Fail));
    let offline = store_at(config.clone(), t0 + Duration::from_secs(2 * 3600));
    let page = offline.search_nfcore("rnaseq", None, None).await.unwrap();
    assert_eq!(page.catalog.origin, CatalogOrigin::Offline);
    assert_eq!(page.catalog.age_seconds, 7200);
    assert_eq!(page.catalog.fetched_at, fresh.catalog.fetched_at);
    let reason = page.catalog.offline_reason.unwrap();
    assert!(
        reason.contains("nf-core") && reason.contains("503"),
        "{reason}"
    );
    assert_eq!(page.matches[0].name, "rnaseq");
    // The stale copy was asked to be refreshed, not trusted blindly.
    assert_eq!(standin.count("GET /pipelines.json"), 2);

    // Without a cached copy there is nothing to serve.
    let empty = tempfile::tempdir().unwrap();
    let err = store_at(standin.config(empty.path()), t0)
        .search_nfcore("rnaseq", None, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ProviderUnavailable);

    // A bad query is the caller's error whatever the provider does, and
    // asks it nothing.
    let asked = standin.count("GET /pipelines.json");
    for (query, limit) in [("rna\u{7}seq", None), ("rnaseq", Some(0))] {
        let err = store_at(standin.config(empty.path()), t0)
            .search_nfcore(query, None, limit)
            .await
            .unwrap_err();
        assert_eq!(err.code(), DomainCode::InvalidQuery, "{query} {limit:?}");
    }
    assert_eq!(standin.count("GET /pipelines.json"), asked);
}

#[tokio::test]
async fn a_catalog_of_another_shape_names_nf_core() {
    let standin = StandIn::start().await;
    standin.with(|b| b.catalog = Some(CatalogMode::Serve(br#"{"pipelines": []}"#.to_vec())));
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .search_nfcore("x", None, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ProviderResponseInvalid);
    assert_eq!(err.details().unwrap()["provider"], "nf-core");
}
