//! `resolve_nfcore` and `resolve_github` against the stand-in: a release, a
//! tag, a branch, a commit as given, and every way a provider can say no.

use crate::common::{
    DEMO_1_0_0, DEMO_1_0_1, Entry, FETCHNGS_1_12_0, RNASEQ_3_24_0, StandIn, listing, tarball_of,
};
use somite_api::{DomainCode, ErrorCode, SourceCode};
use somite_source::{GithubToken, SourceOrigin};
use std::time::Duration;

#[tokio::test]
async fn an_nf_core_release_is_pinned_to_its_tag_commit() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());

    let pinned = store
        .resolve_nfcore("nf-core/fetchngs", "1.12.0")
        .await
        .unwrap();
    assert_eq!(pinned.repository.as_str(), "nf-core/fetchngs");
    assert_eq!(pinned.source.commit.as_str(), FETCHNGS_1_12_0);
    assert!(matches!(
        &pinned.origin,
        SourceOrigin::NfCore { pipeline, release, .. } if pipeline == "fetchngs" && release == "1.12.0"
    ));
    let tree = pinned.source.path();
    assert!(tree.join("main.nf").is_file());
    assert!(tree.join("nextflow_schema.json").is_file());
    assert!(pinned.source.files > 100, "{}", pinned.source.files);
    // The top folder `nf-core-fetchngs-8ec2d93/` is stripped.
    assert!(!tree.join("nf-core-fetchngs-8ec2d93").exists());
    // The catalog names the commit: no ref lookup.
    assert_eq!(standin.count("GET /repos/nf-core/fetchngs/commits/"), 0);

    let json = serde_json::to_value(&pinned).unwrap();
    assert_eq!(json["origin"]["provider"], "nf-core");
    assert_eq!(json["commit"], FETCHNGS_1_12_0);
    assert!(json["tree_digest"].as_str().unwrap().starts_with("blake3:"));
    assert!(
        json.get("path").is_none(),
        "a local path is never on the wire"
    );
}

#[tokio::test]
async fn a_github_tag_and_a_branch_resolve_to_commits() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());

    let tag = store.resolve_github("nf-core/demo", "1.0.0").await.unwrap();
    assert_eq!(tag.source.commit.as_str(), DEMO_1_0_0);

    let branch = store
        .resolve_github("https://github.com/nf-core/demo", "master")
        .await
        .unwrap();
    assert_eq!(branch.source.commit.as_str(), DEMO_1_0_1);
    match &branch.origin {
        SourceOrigin::GitHub {
            git_ref,
            committed_at,
        } => {
            assert_eq!(git_ref.as_str(), "master");
            assert_eq!(committed_at.as_deref(), Some("2024-10-18T11:11:31Z"));
        }
        other => panic!("{other:?}"),
    }
    assert_ne!(tag.source.tree_digest, branch.source.tree_digest);
    assert_eq!(standin.count("GET /repos/nf-core/demo/commits/"), 2);
}

#[tokio::test]
async fn a_full_commit_id_is_taken_as_it_is() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());
    let pinned = store
        .resolve_github("nf-core/demo", &DEMO_1_0_0.to_uppercase())
        .await
        .unwrap();
    assert_eq!(pinned.source.commit.as_str(), DEMO_1_0_0);
    assert_eq!(standin.count("GET /repos/nf-core/demo/commits/"), 0);
}

#[tokio::test]
async fn fetching_a_stored_commit_again_downloads_nothing() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());
    let first = store.resolve_nfcore("demo", "1.0.1").await.unwrap();
    let record = first.source.path().parent().unwrap().join("source.json");
    let written = std::fs::metadata(&record).unwrap().modified().unwrap();

    let again = store.resolve_nfcore("demo", "1.0.1").await.unwrap();
    let by_github = store
        .resolve_github("nf-core/demo", "master")
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(by_github.source, first.source);
    assert_eq!(standin.count("GET /repos/nf-core/demo/tarball/"), 1);
    assert_eq!(
        std::fs::metadata(&record).unwrap().modified().unwrap(),
        written
    );
}

#[tokio::test]
async fn an_unknown_release_lists_the_published_ones() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_nfcore("demo", "2.0.0")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ReleaseNotFound);
    assert_eq!(
        err.details().unwrap()["known_releases"],
        serde_json::json!(["1.0.1", "1.0.0"])
    );
    assert_eq!(standin.count("GET /repos/"), 0);
}

#[tokio::test]
async fn a_catalog_release_whose_archive_is_missing_stores_nothing() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_nfcore("rnaseq", "3.24.0")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::RefNotFound);
    assert!(err.to_string().contains(RNASEQ_3_24_0), "{err}");
    assert_eq!(listing(&cache.path().join("somite/sources")), [".partial"]);
}

#[tokio::test]
async fn unknown_repositories_and_refs_are_told_apart() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());
    let repo = store
        .resolve_github("someone/nothing", "main")
        .await
        .unwrap_err();
    assert_eq!(repo.code(), SourceCode::RepositoryNotFound);
    let git_ref = store
        .resolve_github("nf-core/demo", "no-such-branch")
        .await
        .unwrap_err();
    assert_eq!(git_ref.code(), SourceCode::RefNotFound);
    let invalid = store
        .resolve_github("nf-core/demo", "a..b")
        .await
        .unwrap_err();
    assert_eq!(invalid.code(), DomainCode::InvalidRequest);
}

#[tokio::test]
async fn a_spent_rate_limit_says_when_it_resets() {
    let standin = StandIn::start().await;
    standin.with(|b| b.rate_limited = true);
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_github("nf-core/demo", "master")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::RateLimited);
    let details = err.details().unwrap();
    assert_eq!(details["reset_at"], "2026-12-03T22:00:00Z");
    assert_eq!(details["provider"], "github");
}

#[tokio::test]
async fn the_token_is_sent_only_when_set() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    standin
        .store(cache.path())
        .resolve_github("nf-core/demo", "master")
        .await
        .unwrap();
    let mut config = standin.config(cache.path());
    config.github_token = GithubToken::new("ghp_test_token");
    somite_source::SourceStore::new(config)
        .unwrap()
        .resolve_github("nf-core/demo", "master")
        .await
        .unwrap();
    let seen = standin.with(|b| b.authorization.clone());
    assert_eq!(seen, [None, Some("Bearer ghp_test_token".to_owned())]);
}

#[tokio::test]
async fn the_token_does_not_follow_the_redirect_to_the_archive_host() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let mut config = standin.config(cache.path());
    config.github_token = GithubToken::new("ghp_test_token");
    somite_source::SourceStore::new(config)
        .unwrap()
        .resolve_nfcore("demo", "1.0.0")
        .await
        .unwrap();
    assert_eq!(standin.count("GET /repos/nf-core/demo/tarball/"), 1);
    assert_eq!(standin.with(|b| b.archive_authorization.clone()), [None]);
}

#[tokio::test]
async fn a_redirect_to_a_host_github_does_not_document_is_not_followed() {
    let standin = StandIn::start().await;
    // The same archive server, under another host name.
    standin.with(|b| b.codeload_base = b.codeload_base.replace("127.0.0.1", "localhost"));
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_nfcore("demo", "1.0.0")
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.code(),
            ErrorCode::Source(
                SourceCode::ProviderResponseInvalid | SourceCode::ProviderUnavailable
            )
        ),
        "{err}"
    );
    assert!(
        standin.with(|b| b.archive_authorization.is_empty()),
        "nothing was fetched from the other host"
    );
}

#[tokio::test]
async fn a_slow_provider_times_out() {
    let standin = StandIn::start().await;
    standin.with(|b| b.slow = Some(Duration::from_secs(30)));
    let cache = tempfile::tempdir().unwrap();
    let mut config = standin.config(cache.path());
    config.timeouts.request = Duration::from_millis(200);
    let err = somite_source::SourceStore::new(config)
        .unwrap()
        .resolve_github("nf-core/demo", "master")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ProviderUnavailable);
    assert!(err.to_string().contains("did not answer within"), "{err}");
}

#[tokio::test]
async fn an_oversized_archive_is_refused_and_nothing_kept() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let mut config = standin.config(cache.path());
    config.limits.max_archive_bytes = 64 * 1024;
    let err = somite_source::SourceStore::new(config)
        .unwrap()
        .resolve_nfcore("demo", "1.0.0")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ArchiveTooLarge);
    assert_eq!(listing(&cache.path().join("somite/sources")), [".partial"]);

    let mut config = standin.config(cache.path());
    config.limits.max_archive_entries = 10;
    let err = somite_source::SourceStore::new(config)
        .unwrap()
        .resolve_nfcore("demo", "1.0.0")
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ArchiveTooLarge);
    assert!(err.to_string().contains("more than 10 entries"), "{err}");
    assert_eq!(listing(&cache.path().join("somite/sources")), [".partial"]);
}

#[tokio::test]
async fn a_repository_without_main_nf_is_not_a_pipeline() {
    let standin = StandIn::start().await;
    let sha = "1111111111111111111111111111111111111111";
    standin.serve_archive(
        "lab/scripts",
        sha,
        tarball_of(&[
            Entry::Dir("lab-scripts-1111111/"),
            Entry::File("lab-scripts-1111111/run.sh", b"echo\n"),
        ]),
    );
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_github("lab/scripts", sha)
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::NotANextflowRepository);
    assert_eq!(listing(&cache.path().join("somite/sources")), [".partial"]);
}

#[tokio::test]
async fn an_archive_of_another_commit_is_refused() {
    let standin = StandIn::start().await;
    let asked = "2222222222222222222222222222222222222222";
    // GitHub's tarballs name their commit in a pax global header.
    standin.serve_archive(
        "nf-core/demo",
        asked,
        crate::common::fixture(&format!("nf-core-demo-{DEMO_1_0_1}.tar.gz")),
    );
    let cache = tempfile::tempdir().unwrap();
    let err = standin
        .store(cache.path())
        .resolve_github("nf-core/demo", asked)
        .await
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::ProviderResponseInvalid);
    assert!(err.to_string().contains(DEMO_1_0_1), "{err}");
}
