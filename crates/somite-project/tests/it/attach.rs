//! Verified attachments into the shared Pixi/Nextflow root: the happy path,
//! stable output paths, independence from the canonical package, session
//! ceilings and generations, and every rejection the verifier promises.

use crate::compile_fixture::*;
use somite_project::attach::{
    AttachError, AttachmentRoot, CopyMethod, MAX_PACKAGES_PER_SESSION, SessionLimits,
};
use somite_project::compiled::{CompileOutcome, PackageFault};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const GENERATION: u64 = 7;

struct Session {
    /// Keeps the project folder alive for the session's lifetime.
    _project: Fixture,
    outcome: CompileOutcome,
    shared: tempfile::TempDir,
    root: AttachmentRoot,
}

fn session(limits: SessionLimits) -> Session {
    let fixture = ready_project();
    let outcome = fixture.compile();
    let shared = tempfile::tempdir().unwrap();
    let root = AttachmentRoot::new(
        &shared.path().join("tools"),
        fixture.project.layout(),
        GENERATION,
        limits,
    )
    .unwrap();
    Session {
        _project: fixture,
        outcome,
        shared,
        root,
    }
}

impl Session {
    fn canonical(&self, path: &str) -> PathBuf {
        self.outcome.path.join(path)
    }

    fn attach(&mut self) -> Result<somite_project::attach::Attachment, AttachError> {
        self.root.attach(GENERATION, &self.outcome.package)
    }

    /// Nothing but published packages is visible in the shared root.
    fn assert_nothing_published(&self) {
        assert!(entries(&self.root.root().join("packages")).is_empty());
        assert!(self.root.attachments().is_empty());
    }
}

fn fault(error: AttachError) -> PackageFault {
    match error {
        AttachError::Package(fault) => fault,
        other => panic!("expected a verification failure, got {other:?}"),
    }
}

#[test]
fn an_attachment_is_a_verified_independent_copy_at_a_stable_path() {
    let mut s = session(SessionLimits::default());
    let first = s.attach().unwrap();
    assert_eq!(first.generation, GENERATION);
    assert_eq!(
        first.output_path,
        format!("packages/{}-1", s.outcome.package.directory_name())
    );
    let copy = s.root.root().join(&first.output_path);
    for file in s.outcome.package.files() {
        assert_eq!(fs::read(copy.join(&file.path)).unwrap(), file.bytes);
    }

    let second = s.attach().unwrap();
    assert_ne!(second.output_path, first.output_path);
    assert!(copy.is_dir(), "an earlier path stays where it was");

    fs::write(s.canonical("README.md"), b"edited in the project").unwrap();
    assert_eq!(
        fs::read(copy.join("README.md")).unwrap(),
        s.outcome.package.file("README.md").unwrap().bytes,
        "the copy does not share the canonical file's data"
    );
    assert_eq!(s.root.attachments().len(), 2);
}

#[test]
fn an_attachment_says_whether_it_is_a_copy_on_write_clone() {
    let mut s = session(SessionLimits::default());
    // What this filesystem does with an explicit clone decides the answer.
    let probe = tempfile::tempdir_in(s.root.root().parent().unwrap()).unwrap();
    fs::write(probe.path().join("from"), b"bytes").unwrap();
    let from = fs::File::open(probe.path().join("from")).unwrap();
    let to = fs::File::create(probe.path().join("to")).unwrap();
    let clones = rustix::fs::ioctl_ficlone(&to, &from).is_ok();

    let attachment = s.attach().unwrap();
    let expected = if clones {
        CopyMethod::Reflink
    } else {
        CopyMethod::Copy
    };
    assert_eq!(attachment.copy_method, expected);
    let wire = serde_json::to_value(&attachment).unwrap();
    assert_eq!(wire["copy_method"], if clones { "reflink" } else { "copy" });
    eprintln!("this filesystem clones: {clones}; the attachment says {wire}");
}

#[test]
fn a_symbolic_link_is_rejected() {
    let mut s = session(SessionLimits::default());
    let elsewhere = s.shared.path().join("main.nf");
    fs::copy(s.canonical("main.nf"), &elsewhere).unwrap();
    fs::remove_file(s.canonical("main.nf")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.canonical("main.nf")).unwrap();
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::SymbolicLink { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn a_hard_link_is_rejected() {
    let mut s = session(SessionLimits::default());
    fs::hard_link(s.canonical("main.nf"), s.shared.path().join("alias.nf")).unwrap();
    match fault(s.attach().unwrap_err()) {
        PackageFault::HardLink { links, .. } => assert_eq!(links, 2),
        other => panic!("{other:?}"),
    }
    s.assert_nothing_published();
}

#[test]
fn a_fifo_is_rejected() {
    let mut s = session(SessionLimits::default());
    let status = Command::new("mkfifo")
        .arg(s.canonical("operators/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::SpecialFile { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn an_unlisted_file_is_rejected() {
    let mut s = session(SessionLimits::default());
    fs::write(s.canonical("extra.sh"), b"echo surprise").unwrap();
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::Unlisted { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn a_missing_file_is_rejected() {
    let mut s = session(SessionLimits::default());
    fs::remove_file(s.canonical("params.json")).unwrap();
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::Missing { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn a_changed_byte_is_rejected() {
    let mut s = session(SessionLimits::default());
    let mut bytes = fs::read(s.canonical("main.nf")).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 0x20;
    fs::write(s.canonical("main.nf"), bytes).unwrap();
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::DigestMismatch { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn a_changed_mode_is_rejected() {
    let mut s = session(SessionLimits::default());
    fs::set_permissions(s.canonical("main.nf"), fs::Permissions::from_mode(0o755)).unwrap();
    match fault(s.attach().unwrap_err()) {
        PackageFault::ModeMismatch {
            expected, actual, ..
        } => assert_eq!((expected, actual), (0o644, 0o755)),
        other => panic!("{other:?}"),
    }
    s.assert_nothing_published();
}

#[test]
fn a_source_outside_the_canonical_location_is_rejected() {
    let mut s = session(SessionLimits::default());
    let moved = s.shared.path().join("moved");
    fs::rename(&s.outcome.path, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &s.outcome.path).unwrap();
    assert!(matches!(
        fault(s.attach().unwrap_err()),
        PackageFault::NotCanonical { .. }
    ));
    s.assert_nothing_published();
}

#[test]
fn a_session_holds_at_most_its_package_ceiling() {
    let mut s = session(SessionLimits::default());
    for _ in 0..MAX_PACKAGES_PER_SESSION {
        s.attach().unwrap();
    }
    assert!(matches!(
        s.attach().unwrap_err(),
        AttachError::TooManyPackages {
            limit: MAX_PACKAGES_PER_SESSION
        }
    ));
    assert_eq!(
        entries(&s.root.root().join("packages")).len(),
        MAX_PACKAGES_PER_SESSION
    );
}

#[test]
fn a_session_holds_at_most_its_byte_ceiling() {
    let fixture = ready_project();
    let size = fixture.compile().package.total_size();
    drop(fixture);
    let mut s = session(SessionLimits {
        max_packages: MAX_PACKAGES_PER_SESSION,
        max_bytes: size * 2 - 1,
    });
    s.attach().unwrap();
    assert!(matches!(
        s.attach().unwrap_err(),
        AttachError::TooManyBytes { .. }
    ));
    assert_eq!(s.root.attachments().len(), 1);
}

#[test]
fn a_foreign_generation_is_refused_and_close_ends_the_session() {
    let mut s = session(SessionLimits::default());
    let err = s
        .root
        .attach(GENERATION + 1, &s.outcome.package)
        .unwrap_err();
    assert!(matches!(
        err,
        AttachError::ForeignGeneration {
            requested: 8,
            current: GENERATION
        }
    ));
    let attachment = s.attach().unwrap();
    assert!(s.root.close(GENERATION - 1).is_err());
    assert!(s.root.root().join(&attachment.output_path).is_dir());
    s.root.close(GENERATION).unwrap();
    assert!(
        entries(s.root.root()).is_empty(),
        "the shared root is empty again"
    );
    assert!(matches!(
        s.attach().unwrap_err(),
        AttachError::Closed { .. }
    ));
    let error: somite_workflow::SomiteError = AttachError::Closed { generation: 1 }.into();
    assert_eq!(error.code, somite_workflow::ErrorCode::StaleRevision);
}

#[test]
fn a_shared_root_must_begin_empty() {
    let fixture = ready_project();
    let shared = tempfile::tempdir().unwrap();
    fs::write(shared.path().join("leftover"), b"x").unwrap();
    let err = AttachmentRoot::new(
        shared.path(),
        fixture.project.layout(),
        1,
        SessionLimits::default(),
    )
    .unwrap_err();
    assert!(matches!(err, AttachError::RootNotEmpty { .. }));
    assert!(Path::new(&shared.path().join("leftover")).exists());
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            files.push(path.clone());
            files.extend(files_below(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_link_planted_at_packages_is_refused_not_written_through() {
    let mut s = session(SessionLimits::default());
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), s.root.root().join("packages")).unwrap();
    let error = s.attach().unwrap_err();
    assert!(
        matches!(error, AttachError::NotADirectory { .. }),
        "{error:?}"
    );
    let envelope: somite_workflow::SomiteError = error.into();
    assert_eq!(envelope.code, somite_workflow::ErrorCode::InvalidDocument);
    assert!(files_below(outside.path()).is_empty());
    assert!(s.root.attachments().is_empty());
}

#[test]
fn swapping_packages_for_a_link_during_attachments_never_writes_outside_the_root() {
    let mut s = session(SessionLimits {
        max_packages: 1000,
        max_bytes: u64::MAX,
    });
    let outside = tempfile::tempdir().unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let done = std::sync::Arc::clone(&done);
        let packages = s.root.root().join("packages");
        let target = outside.path().to_path_buf();
        std::thread::spawn(move || {
            // Losing a race to the attachment (a folder not empty, an entry
            // already gone) is part of the test, so failures are ignored.
            let mut swaps = 0_u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) && swaps < 10_000_000 {
                let _ = fs::remove_dir_all(&packages);
                let _ = fs::remove_file(&packages);
                let _ = std::os::unix::fs::symlink(&target, &packages);
                std::thread::yield_now();
                let _ = fs::remove_file(&packages);
                let _ = fs::create_dir(&packages);
                std::thread::yield_now();
                swaps += 1;
            }
            swaps
        })
    };
    let mut escapes = Vec::new();
    let mut attached = 0;
    for call in 0..200 {
        attached += usize::from(s.attach().is_ok());
        // Cleared after each call, so every attachment that wrote outside counts.
        for escaped in files_below(outside.path()) {
            escapes.push(format!("call {call}: {}", escaped.display()));
        }
        for entry in fs::read_dir(outside.path()).unwrap() {
            let _ = fs::remove_dir_all(entry.unwrap().path());
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 0);
    assert!(
        escapes.is_empty(),
        "{} entries written outside the root ({attached} of 200 attachments succeeded): {escapes:#?}",
        escapes.len()
    );
}
