//! The store re-checks a tree before every use: any change on disk, or a
//! digest other than the pinned one, is `source_tampered`.

use crate::common::{DEMO_1_0_1, StandIn};
use somite_api::SourceCode;
use somite_source::{CommitSha, TreeDigest};
use std::fs;
use std::os::unix::fs::PermissionsExt as _;

async fn stored() -> (
    tempfile::TempDir,
    somite_source::SourceStore,
    somite_source::VerifiedSource,
) {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let store = standin.store(cache.path());
    let pinned = store.resolve_nfcore("demo", "1.0.1").await.unwrap();
    (cache, store, pinned.source)
}

#[tokio::test]
async fn an_untouched_tree_opens_with_its_pinned_digest() {
    let (_cache, store, source) = stored().await;
    let opened = store
        .open(&source.commit, Some(&source.tree_digest))
        .unwrap();
    assert_eq!(opened, source);
}

#[tokio::test]
async fn a_changed_file_is_refused() {
    let (_cache, store, source) = stored().await;
    fs::write(source.path().join("main.nf"), "workflow { evil() }\n").unwrap();
    let err = store
        .open(&source.commit, Some(&source.tree_digest))
        .unwrap_err();
    assert_eq!(err.code(), SourceCode::SourceTampered);
    assert_eq!(
        err.details().unwrap()["expected_tree_digest"],
        source.tree_digest.as_str()
    );
    assert!(
        err.recovery()
            .contains(source.path().parent().unwrap().to_str().unwrap())
    );
}

#[tokio::test]
async fn a_mode_change_an_added_file_or_a_fifo_is_refused() {
    let (_cache, store, source) = stored().await;
    let main = source.path().join("main.nf");
    fs::set_permissions(&main, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        store.open(&source.commit, None).unwrap_err().code(),
        SourceCode::SourceTampered
    );
    fs::set_permissions(&main, fs::Permissions::from_mode(0o644)).unwrap();
    store.open(&source.commit, None).unwrap();

    fs::write(
        source.path().join("extra.config"),
        "process.executor = 'evil'\n",
    )
    .unwrap();
    assert_eq!(
        store.open(&source.commit, None).unwrap_err().code(),
        SourceCode::SourceTampered
    );
    fs::remove_file(source.path().join("extra.config")).unwrap();

    std::os::unix::fs::symlink("/etc", source.path().join("escape")).unwrap();
    assert_eq!(
        store.open(&source.commit, None).unwrap_err().code(),
        SourceCode::SourceTampered
    );
}

#[tokio::test]
async fn a_digest_other_than_the_pinned_one_is_refused() {
    let (_cache, store, source) = stored().await;
    let other: TreeDigest = format!("blake3:{}", "0".repeat(64)).parse().unwrap();
    let err = store.open(&source.commit, Some(&other)).unwrap_err();
    assert_eq!(err.code(), SourceCode::SourceTampered);
}

#[tokio::test]
async fn a_commit_never_fetched_is_not_found() {
    let (_cache, store, _) = stored().await;
    let commit: CommitSha = "5555555555555555555555555555555555555555".parse().unwrap();
    assert_eq!(
        store.open(&commit, None).unwrap_err().code(),
        SourceCode::SourceNotFound
    );
    let demo: CommitSha = DEMO_1_0_1.parse().unwrap();
    store.open(&demo, None).unwrap();
}

#[tokio::test]
async fn a_local_archive_imports_to_the_same_tree_as_a_download() {
    let (_cache, _, downloaded) = stored().await;
    let offline = tempfile::tempdir().unwrap();
    let store =
        somite_source::SourceStore::new(somite_source::SourceConfig::new(offline.path())).unwrap();
    let archive = format!(
        "{}/tests/data/nf-core-demo-{DEMO_1_0_1}.tar.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let repository = "nf-core/demo".parse().unwrap();
    let imported = store
        .import_archive(&repository, &downloaded.commit, archive.as_ref())
        .unwrap();
    assert_eq!(imported.tree_digest, downloaded.tree_digest);
    assert_eq!(
        (imported.files, imported.bytes),
        (downloaded.files, downloaded.bytes)
    );
    // The archive given is the caller's: it stays.
    assert!(std::path::Path::new(&archive).is_file());
}

#[tokio::test]
async fn work_folders_a_crash_left_behind_are_swept() {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let partial = cache.path().join("somite/sources/.partial");
    let (abandoned, recent) = (partial.join("fetch-crashed"), partial.join("fetch-live"));
    for dir in [&abandoned, &recent] {
        fs::create_dir_all(dir.join("tree")).unwrap();
    }
    let yesterday = std::time::SystemTime::now() - std::time::Duration::from_secs(24 * 3600);
    fs::File::open(&abandoned)
        .unwrap()
        .set_modified(yesterday)
        .unwrap();

    standin
        .store(cache.path())
        .resolve_nfcore("demo", "1.0.0")
        .await
        .unwrap();
    assert!(!abandoned.exists());
    assert!(
        recent.is_dir(),
        "a folder another process may still be using stays"
    );
}
