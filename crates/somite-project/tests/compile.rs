//! The project store's compile: gates, durable publication under
//! `.somite/compiled/<digest>/`, reuse, and Pixi present, absent or failing.

mod compile_fixture;

use compile_fixture::*;
use somite_project::compiled::{self, PixiOutcome, Toolchain};
use somite_project::{Project, Seed};
use somite_workflow::ErrorCode;
use somite_workflow::assessment::ItemKind;
use somite_workflow::canonical::digest_bytes;
use std::fs;
use std::os::unix::fs::PermissionsExt;

#[test]
fn without_pixi_the_package_is_published_unlocked_and_readiness_says_so() {
    let fixture = ready_project();
    let outcome = fixture.compile();
    assert_eq!(outcome.pixi, PixiOutcome::Unavailable);
    assert!(!outcome.reused);
    let item = outcome
        .assessment
        .items
        .iter()
        .find(|i| i.id == "toolchain:pixi")
        .expect("a toolchain item");
    assert_eq!(item.kind, ItemKind::Toolchain);
    assert!(!item.required);
    assert!(outcome.assessment.is_ready());

    let package = &outcome.package;
    assert_eq!(
        outcome.path,
        fixture
            .project
            .layout()
            .compiled()
            .join(package.directory_name())
    );
    assert!(package.file("pixi.lock").is_none());
    assert_eq!(package.run_closure().pixi.lock_digest, None);
    for file in package.files() {
        let path = outcome.path.join(&file.path);
        assert_eq!(fs::read(&path).unwrap(), file.bytes, "{}", file.path);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o644, "{}", file.path);
    }
    assert_eq!(
        entries(&fixture.project.layout().compiled()),
        [package.directory_name().to_owned()],
        "no partial or scratch directory is left behind"
    );
}

#[test]
fn compiling_again_reuses_a_verified_package_and_repairs_a_damaged_one() {
    let fixture = ready_project();
    let first = fixture.compile();
    let again = fixture.compile();
    assert!(again.reused);
    assert_eq!(again.package.digest(), first.package.digest());

    fs::write(first.path.join("main.nf"), b"tampered").unwrap();
    let repaired = fixture.compile();
    assert!(!repaired.reused);
    assert_eq!(
        fs::read(first.path.join("main.nf")).unwrap(),
        first.package.file("main.nf").unwrap().bytes
    );
    assert_eq!(entries(&fixture.project.layout().compiled()).len(), 1);
}

#[test]
fn with_pixi_the_package_carries_its_lock_and_conda_specs() {
    let fixture = ready_project();
    let bin = tempfile::tempdir().unwrap();
    let pixi = fake_pixi(bin.path(), false);
    let unlocked = fixture.compile();
    let outcome = compiled::compile(&fixture.project, &Toolchain::with_pixi(&pixi)).unwrap();
    assert_eq!(outcome.pixi, PixiOutcome::Locked);
    assert!(
        outcome
            .assessment
            .items
            .iter()
            .all(|i| i.kind != ItemKind::Toolchain)
    );
    let lock = fs::read(outcome.path.join("pixi.lock")).unwrap();
    assert_eq!(lock, b"version: 7\nenvironments: {}\n");
    assert_eq!(
        outcome.package.run_closure().pixi.lock_digest,
        Some(digest_bytes(&lock))
    );
    for environment in ["fastp", "fastqc"] {
        let spec = outcome
            .path
            .join(format!("conda/{environment}_linux-64_conda_spec.txt"));
        assert_eq!(fs::read(spec).unwrap(), b"@EXPLICIT\n");
    }
    assert_ne!(outcome.package.digest(), unlocked.package.digest());
    let compiled_dir = fixture.project.layout().compiled();
    assert!(
        entries(&compiled_dir)
            .iter()
            .all(|name| !name.starts_with(".pixi"))
    );
}

#[test]
fn a_failing_pixi_leaves_an_unlocked_package_and_its_message() {
    let fixture = ready_project();
    let bin = tempfile::tempdir().unwrap();
    let pixi = fake_pixi(bin.path(), true);
    let outcome = compiled::compile(&fixture.project, &Toolchain::with_pixi(&pixi)).unwrap();
    match &outcome.pixi {
        PixiOutcome::Failed { step, detail } => {
            assert_eq!(step, "lock");
            assert!(detail.contains("could not reach conda-forge"), "{detail}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    let item = outcome
        .assessment
        .items
        .iter()
        .find(|i| i.id == "toolchain:pixi")
        .unwrap();
    assert!(item.detail.contains("could not reach conda-forge"));
    assert!(outcome.package.file("pixi.lock").is_none());
}

#[test]
fn a_blocked_graph_is_refused_before_anything_is_written() {
    let fixture = ready_project();
    fs::remove_file(fixture.root().join("data/R2.fastq")).unwrap();
    let err = compiled::compile(&fixture.project, &Toolchain::without_pixi()).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);
    let requirements = err.details.unwrap()["requirements"].clone();
    assert_eq!(requirements[0]["id"], "input:reads:r2");
    assert!(entries(&fixture.project.layout().compiled()).is_empty());
}

#[test]
fn a_project_awaiting_recovery_is_refused() {
    let fixture = ready_project();
    fs::write(fixture.project.layout().input_origin(), b"{}").unwrap();
    let reopened = Project::read(fixture.root(), Seed::Empty).unwrap();
    let err = compiled::compile(&reopened, &Toolchain::without_pixi()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InputOriginRecoveryRequired);
}

/// `somite serve` in the project folder opens it as `.`; Pixi runs in a
/// scratch folder of its own, where a relative manifest path names nothing.
#[test]
fn a_project_opened_as_the_current_folder_still_locks_with_pixi() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    // The process's current folder: nextest runs every test in a process
    // of its own, and nothing else in this binary uses a relative path.
    std::env::set_current_dir(dir.path()).unwrap();
    let mut project = Project::open(".", Seed::Empty).unwrap();
    apply(&mut project, operations());
    let bin = tempfile::tempdir().unwrap();
    let pixi = fake_pixi(bin.path(), false);
    let outcome = compiled::compile(&project, &Toolchain::with_pixi(&pixi)).unwrap();
    assert_eq!(outcome.pixi, PixiOutcome::Locked, "{:?}", outcome.pixi);
    assert!(outcome.path.join("pixi.lock").is_file());
}
