use crate::support::{Behaviour, PROVIDER, World, archive, slow, tiny_database_archive};
use somite_api::{ErrorCode, ResourceCode, SourceCode};
use somite_resource::model::{Consent, JobState, Resolution};
use somite_resource::{ResourceConfig, ResourceError, ResourceManager};
use std::time::Duration;

fn code(error: ResourceError) -> ErrorCode {
    somite_api::Error::from(error).code
}

async fn until_bytes_move(manager: &ResourceManager) {
    for _ in 0..400 {
        let job = manager.inspect(PROVIDER).unwrap().job.unwrap();
        if job.state == JobState::Downloading && job.bytes_done > job.resumed_from + 2048 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the transfer never moved");
}

#[tokio::test]
async fn a_full_install_publishes_a_verified_tree_and_reports_progress() {
    let world = World::new(tiny_database_archive(), Behaviour::default(), None).await;
    let manager = world.manager();
    let mut events = manager.subscribe();
    let started = manager.install(PROVIDER, &world.consent).unwrap();
    assert_eq!(started.state, JobState::Queued);
    let done = manager.wait(PROVIDER).await.unwrap();
    assert_eq!(done.state, JobState::Installed, "{done:?}");
    assert_eq!(done.bytes_done, world.consent.download_bytes);

    let inspect = manager.inspect(PROVIDER).unwrap();
    let installed = inspect.installed.unwrap();
    assert!(installed.verified);
    assert_eq!(
        installed.reference,
        "somite-resource:test_kraken2_tiny@test-1"
    );
    assert_eq!(installed.stored_bytes, world.stored_bytes);
    assert_eq!(inspect.partial_bytes, 0);
    // The wrapper folder was stripped; nothing else is left in the store.
    assert_eq!(
        world.store_files(),
        [
            "test_kraken2_tiny/test-1/.somite-resource.json",
            "test_kraken2_tiny/test-1/hash.k2d",
            "test_kraken2_tiny/test-1/opts.k2d",
            "test_kraken2_tiny/test-1/taxo.k2d",
        ]
    );
    for (name, bytes) in somite_runner::fixtures::KRAKEN2_DATABASE_FILES {
        assert_eq!(
            std::fs::read(format!("{}/{name}", installed.path)).unwrap(),
            *bytes
        );
    }
    let resolved = manager.store().resolve(&installed.reference).unwrap();
    assert_eq!(resolved.checksum, installed.checksum);

    let mut states = Vec::new();
    while let Ok(status) = events.try_recv() {
        states.push(status.state);
    }
    assert_eq!(states.first(), Some(&JobState::Queued));
    assert_eq!(states.last(), Some(&JobState::Installed));
    for state in [
        JobState::Downloading,
        JobState::Verifying,
        JobState::Extracting,
        JobState::Publishing,
    ] {
        assert!(states.contains(&state), "{states:?}");
    }

    // Tampering is seen: the reference no longer resolves.
    std::fs::write(format!("{}/taxo.k2d", installed.path), b"x").unwrap();
    assert!(
        !manager
            .inspect(PROVIDER)
            .unwrap()
            .installed
            .unwrap()
            .verified
    );
    let err = manager.store().resolve(&installed.reference).unwrap_err();
    assert_eq!(code(err), ResourceCode::ResourceReferenceInvalid);
}

#[tokio::test]
async fn an_interrupted_transfer_resumes_with_a_range_request() {
    let bytes = tiny_database_archive();
    let cut = bytes.len() as u64 / 2;
    // Paced, so the bytes before the cut reach the client before the abort.
    let behaviour = Behaviour {
        cut_at: Some(cut),
        chunk: 1024,
        delay: Duration::from_millis(1),
    };
    let world = World::new(bytes, behaviour, None).await;
    let manager = world.manager();
    manager.install(PROVIDER, &world.consent).unwrap();
    let failed = manager.wait(PROVIDER).await.unwrap();
    assert_eq!(failed.state, JobState::Failed);
    assert_eq!(failed.error.unwrap().code, ResourceCode::DownloadFailed);
    // What arrived before the cut stays (the last in-flight bytes may not).
    let kept = manager.inspect(PROVIDER).unwrap().partial_bytes;
    assert!(kept > 0 && kept <= cut, "{kept} of {cut}");
    assert!(manager.inspect(PROVIDER).unwrap().installed.is_none());

    manager.install(PROVIDER, &world.consent).unwrap();
    let done = manager.wait(PROVIDER).await.unwrap();
    assert_eq!(done.state, JobState::Installed, "{done:?}");
    assert_eq!(done.resumed_from, kept);
    assert_eq!(world.ranges(), [None, Some(format!("bytes={kept}-"))]);
    assert!(
        manager
            .inspect(PROVIDER)
            .unwrap()
            .installed
            .unwrap()
            .verified
    );
}

#[tokio::test]
async fn a_wrong_checksum_publishes_nothing() {
    let world = World::new(
        tiny_database_archive(),
        Behaviour::default(),
        Some("0".repeat(64)),
    )
    .await;
    let manager = world.manager();
    manager.install(PROVIDER, &world.consent).unwrap();
    let failed = manager.wait(PROVIDER).await.unwrap();
    assert_eq!(failed.state, JobState::Failed);
    assert_eq!(failed.error.unwrap().code, ResourceCode::ChecksumMismatch);
    assert!(world.store_files().is_empty(), "{:?}", world.store_files());
}

#[tokio::test]
async fn a_consent_that_differs_starts_nothing() {
    let world = World::new(tiny_database_archive(), Behaviour::default(), None).await;
    let manager = world.manager();
    let wrong = [
        Consent {
            stored_bytes: 1,
            ..world.consent.clone()
        },
        Consent {
            download_bytes: 1,
            ..world.consent.clone()
        },
        Consent {
            effect_digest: somite_resource::provider::effect_digest("another effect"),
            ..world.consent.clone()
        },
    ];
    for consent in wrong {
        let err = manager.install(PROVIDER, &consent).unwrap_err();
        assert_eq!(code(err), ResourceCode::ConsentMismatch);
    }
    assert!(manager.inspect(PROVIDER).unwrap().job.is_none());
    assert!(world.ranges().is_empty());
    assert!(world.store_files().is_empty());
}

#[tokio::test]
async fn too_little_disk_starts_nothing() {
    let world = World::new(tiny_database_archive(), Behaviour::default(), None).await;
    let manager = ResourceManager::open(ResourceConfig {
        free_disk_limit: Some(world.stored_bytes * 2),
        ..world.config()
    })
    .unwrap();
    let err = manager.install(PROVIDER, &world.consent).unwrap_err();
    let envelope = somite_api::Error::from(err);
    assert_eq!(envelope.code, ResourceCode::InsufficientDisk);
    assert_eq!(
        envelope.details.unwrap()["free_bytes"],
        world.stored_bytes * 2
    );
    assert!(world.ranges().is_empty());
    assert!(world.store_files().is_empty());
}

#[tokio::test]
async fn an_archive_escaping_its_tree_is_refused() {
    let hostile = archive(&[("../escaped.k2d", b"x"), ("hash.k2d", b"h")]);
    let world = World::new(hostile, Behaviour::default(), None).await;
    let manager = world.manager();
    manager.install(PROVIDER, &world.consent).unwrap();
    let failed = manager.wait(PROVIDER).await.unwrap();
    assert_eq!(failed.error.unwrap().code, SourceCode::UnsafeArchive);
    assert!(world.store_files().is_empty(), "{:?}", world.store_files());
    let provider_dir = world.store.path().join("resources/test_kraken2_tiny");
    assert!(!provider_dir.join("escaped.k2d").exists());
    assert!(!world.store.path().join("resources/escaped.k2d").exists());
}

#[tokio::test]
async fn an_archive_without_the_database_files_is_refused() {
    let wrong = archive(&[("db/hash.k2d", b"h"), ("db/opts.k2d", b"o")]);
    let world = World::new(wrong, Behaviour::default(), None).await;
    let manager = world.manager();
    manager.install(PROVIDER, &world.consent).unwrap();
    let failed = manager.wait(PROVIDER).await.unwrap();
    let error = failed.error.unwrap();
    assert_eq!(error.code, ResourceCode::ResourceStructureInvalid);
    assert_eq!(
        error.details.unwrap()["missing"],
        serde_json::json!(["taxo.k2d"])
    );
    assert!(world.store_files().is_empty());
}

#[tokio::test]
async fn cancel_mid_transfer_keeps_or_removes_the_partial_as_asked() {
    let world = World::new(tiny_database_archive(), slow(), None).await;
    let manager = world.manager();
    manager.install(PROVIDER, &world.consent).unwrap();
    until_bytes_move(&manager).await;
    let second = manager.install(PROVIDER, &world.consent).unwrap_err();
    assert_eq!(code(second), ResourceCode::ResourceJobRunning);
    let cancelled = manager.cancel(PROVIDER, true).await.unwrap();
    assert_eq!(cancelled.state, JobState::Cancelled);
    assert_eq!(cancelled.partial_kept, Some(true));
    let kept = manager.inspect(PROVIDER).unwrap().partial_bytes;
    assert!(kept > 0 && kept < world.consent.download_bytes, "{kept}");
    assert!(manager.inspect(PROVIDER).unwrap().installed.is_none());

    manager.install(PROVIDER, &world.consent).unwrap();
    until_bytes_move(&manager).await;
    let cancelled = manager.cancel(PROVIDER, false).await.unwrap();
    assert_eq!(cancelled.resumed_from, kept);
    assert_eq!(cancelled.partial_kept, Some(false));
    assert_eq!(manager.inspect(PROVIDER).unwrap().partial_bytes, 0);
    assert!(world.store_files().is_empty(), "{:?}", world.store_files());
    let nothing = manager.cancel(PROVIDER, false).await.unwrap_err();
    assert_eq!(code(nothing), ResourceCode::ResourceNotFound);
}

#[tokio::test]
async fn a_restart_mid_transfer_resumes_the_accepted_install() {
    let world = World::new(tiny_database_archive(), slow(), None).await;
    let before = world.manager();
    before.install(PROVIDER, &world.consent).unwrap();
    until_bytes_move(&before).await;
    before.shutdown().await;
    let kept = before.inspect(PROVIDER).unwrap().partial_bytes;
    assert!(kept > 0, "the partial download stays for the next runtime");

    world.set_behaviour(Behaviour::default());
    let after = world.manager();
    let resumed = after.resume_interrupted();
    assert_eq!(resumed.len(), 1);
    let done = after.wait(PROVIDER).await.unwrap();
    assert_eq!(done.state, JobState::Installed, "{done:?}");
    assert!(done.resumed_from >= kept);
    assert_eq!(
        world.ranges().last().unwrap().as_deref(),
        Some(format!("bytes={}-", done.resumed_from).as_str())
    );
    // Nothing left to resume.
    assert!(world.manager().resume_interrupted().is_empty());
}

#[tokio::test]
async fn reviewed_providers_without_a_citable_checksum_refuse_to_install() {
    let world = World::new(tiny_database_archive(), Behaviour::default(), None).await;
    let manager = world.manager();
    let err = manager
        .install("k2_standard_08gb", &world.consent)
        .unwrap_err();
    assert_eq!(code(err), ResourceCode::ResourceUnverified);
    let err = manager.install("k2_nope", &world.consent).unwrap_err();
    assert_eq!(code(err), ResourceCode::ResourceNotFound);
}

#[tokio::test]
async fn resolutions_offer_installed_then_installs_then_a_folder_then_the_requirement() {
    let world = World::new(tiny_database_archive(), Behaviour::default(), None).await;
    let manager = world.manager();
    let kinds = |m: &ResourceManager| -> Vec<String> {
        m.resolutions("kraken2-database")
            .unwrap()
            .resolutions
            .iter()
            .map(|r| match r {
                Resolution::Installed { reference, .. } => reference.clone(),
                Resolution::Install { provider, .. } => format!("install {}", provider.id),
                Resolution::UseExisting { .. } => "use_existing".into(),
                Resolution::Requirement { .. } => "requirement".into(),
            })
            .collect()
    };
    // The publisher's recommendation first; the test provider is not recommended.
    assert_eq!(
        kinds(&manager),
        [
            "install k2_standard_08gb",
            "install test_kraken2_tiny",
            "install k2_standard",
            "use_existing",
            "requirement"
        ]
    );
    manager.install(PROVIDER, &world.consent).unwrap();
    manager.wait(PROVIDER).await.unwrap();
    assert_eq!(
        kinds(&manager),
        [
            "somite-resource:test_kraken2_tiny@test-1",
            "install k2_standard_08gb",
            "install k2_standard",
            "use_existing",
            "requirement"
        ]
    );

    let installed = manager.inspect(PROVIDER).unwrap().installed.unwrap();
    let check = |path: &str| {
        manager
            .check_directory(&somite_resource::model::DirectoryCheckRequest {
                profile: "kraken2-database".into(),
                path: path.into(),
            })
            .unwrap()
    };
    assert!(check(&installed.path).ok);
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        check(empty.path().to_str().unwrap()).missing,
        ["hash.k2d", "opts.k2d", "taxo.k2d"]
    );
}
