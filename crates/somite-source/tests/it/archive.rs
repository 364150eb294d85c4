//! Hostile archives, generated here: each is refused with `unsafe_archive`
//! and leaves nothing behind, neither in the store nor outside it.

use crate::common::{Entry, StandIn, listing, tarball_of};
use somite_api::{ErrorCode, SourceCode};

const SHA: &str = "3333333333333333333333333333333333333333";
const TOP: &str = "evil-pipeline-3333333";

/// Serves `entries` (after a top folder and a `main.nf`) and resolves it;
/// returns the error code and what the temporary root holds afterwards.
async fn resolve_hostile(
    entries: &[Entry<'_>],
    root: &std::path::Path,
) -> (ErrorCode, Vec<String>) {
    let standin = StandIn::start().await;
    let main = format!("{TOP}/main.nf");
    let mut all = vec![
        Entry::Dir("evil-pipeline-3333333/"),
        Entry::File(&main, b"workflow {}\n"),
    ];
    all.extend_from_slice(entries);
    standin.serve_archive("evil/pipeline", SHA, tarball_of(&all));
    let err = standin
        .store(&root.join("cache"))
        .resolve_github("evil/pipeline", SHA)
        .await
        .unwrap_err();
    (err.code(), listing(root))
}

/// What the temporary root holds when nothing was kept: the empty store.
fn nothing_kept() -> Vec<String> {
    [
        "cache",
        "cache/somite",
        "cache/somite/sources",
        "cache/somite/sources/.partial",
    ]
    .map(String::from)
    .to_vec()
}

#[tokio::test]
async fn a_path_climbing_out_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let path = format!("{TOP}/../../../../../escaped.txt");
    let (code, left) = resolve_hostile(&[Entry::File(&path, b"x")], root.path()).await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn an_absolute_path_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let outside = root.path().join("escaped.txt");
    let (code, left) =
        resolve_hostile(&[Entry::File(outside.to_str().unwrap(), b"x")], root.path()).await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn a_symlink_out_of_the_tree_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let outside = root.path().to_str().unwrap().to_owned();
    for target in [outside.as_str(), "../../../../../..", "sub/../../.."] {
        let link = format!("{TOP}/data");
        let through = format!("{TOP}/data/escaped.txt");
        let (code, left) = resolve_hostile(
            &[Entry::Symlink(&link, target), Entry::File(&through, b"x")],
            root.path(),
        )
        .await;
        assert_eq!(code, SourceCode::UnsafeArchive, "{target}");
        assert_eq!(left, nothing_kept(), "{target}");
    }
}

#[tokio::test]
async fn nothing_is_written_through_an_in_tree_link() {
    let root = tempfile::tempdir().unwrap();
    let dir = format!("{TOP}/docs/");
    let link = format!("{TOP}/alias");
    let through = format!("{TOP}/alias/escaped.txt");
    let (code, left) = resolve_hostile(
        &[
            Entry::Dir(&dir),
            Entry::Symlink(&link, "docs"),
            Entry::File(&through, b"x"),
        ],
        root.path(),
    )
    .await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn hard_links_and_fifos_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let hard = format!("{TOP}/passwd");
    let (code, left) = resolve_hostile(&[Entry::Hardlink(&hard, "/etc/passwd")], root.path()).await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());

    let fifo = format!("{TOP}/pipe");
    let (code, left) = resolve_hostile(&[Entry::Fifo(&fifo)], root.path()).await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn a_second_top_folder_or_a_repeated_path_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let (code, left) =
        resolve_hostile(&[Entry::File("other-top/main.nf", b"x")], root.path()).await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());

    let again = format!("{TOP}/main.nf");
    let (code, left) = resolve_hostile(
        &[Entry::File(&again, b"workflow { evil() }\n")],
        root.path(),
    )
    .await;
    assert_eq!(code, SourceCode::UnsafeArchive);
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn in_tree_relative_links_and_exec_bits_are_kept() {
    let standin = StandIn::start().await;
    let sha = "4444444444444444444444444444444444444444";
    standin.serve_archive(
        "lab/pipeline",
        sha,
        tarball_of(&[
            Entry::Dir("lab-pipeline-4444444/"),
            Entry::File("lab-pipeline-4444444/main.nf", b"workflow {}\n"),
            Entry::Dir("lab-pipeline-4444444/docs/"),
            Entry::File("lab-pipeline-4444444/docs/README.md", b"# lab\n"),
            Entry::Symlink("lab-pipeline-4444444/README.md", "docs/README.md"),
            Entry::Exec("lab-pipeline-4444444/bin/tool.py", b"print(1)\n"),
        ]),
    );
    let cache = tempfile::tempdir().unwrap();
    let pinned = standin
        .store(cache.path())
        .resolve_github("lab/pipeline", sha)
        .await
        .unwrap();
    let tree = pinned.source.path();
    assert_eq!(
        std::fs::read_link(tree.join("README.md")).unwrap().to_str(),
        Some("docs/README.md")
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(tree.join("bin/tool.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    let mode = std::fs::metadata(tree.join("main.nf"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
    assert_eq!(pinned.source.files, 3);
}

#[tokio::test]
async fn an_archive_that_expands_past_the_cap_is_refused() {
    let zeros = vec![0u8; 2 * 1024 * 1024];
    let big_file = format!("{TOP}/big.bin");
    let cases = [vec![Entry::File(&big_file, &zeros)]];
    for (i, extra) in cases.iter().enumerate() {
        let standin = StandIn::start().await;
        let main = format!("{TOP}/main.nf");
        let mut all = vec![
            Entry::Dir("evil-pipeline-3333333/"),
            Entry::File(&main, b"workflow {}\n"),
        ];
        all.extend_from_slice(extra);
        let archive = tarball_of(&all);
        assert!(archive.len() < 64 * 1024, "a small archive");
        standin.serve_archive("evil/pipeline", SHA, archive);
        let root = tempfile::tempdir().unwrap();
        let mut config = standin.config(&root.path().join("cache"));
        config.limits.max_unpacked_bytes = 1024 * 1024;
        let err = somite_source::SourceStore::new(config)
            .unwrap()
            .resolve_github("evil/pipeline", SHA)
            .await
            .unwrap_err();
        assert_eq!(err.code(), SourceCode::ArchiveTooLarge, "case {i}: {err}");
        assert_eq!(listing(root.path()), nothing_kept(), "case {i}");
    }
}

#[tokio::test]
async fn a_name_record_larger_than_any_path_is_refused_before_it_is_read() {
    // `tar` would hold a pax record of any size in memory: 1 MiB of it,
    // well under the unpacked cap, is refused from its header.
    let record = pax_record("path", &format!("{TOP}/{}", "a".repeat(1 << 20)));
    let root = tempfile::tempdir().unwrap();
    let (code, left) = resolve_hostile(
        &[Entry::Pax(&record), Entry::File("placeholder", b"x")],
        root.path(),
    )
    .await;
    assert_eq!(code, ErrorCode::from(SourceCode::UnsafeArchive));
    assert_eq!(left, nothing_kept());
}

#[tokio::test]
async fn a_name_with_a_control_character_is_refused() {
    // The name that would write its own `[activation]` table into a
    // compiled pixi.toml, as a plain name and through a pax record.
    let injected = format!("{TOP}/modules/x\n[activation]\nscripts = [\"pwn.sh\"]\n#/main.nf");
    let record = pax_record("path", &injected);
    let root = tempfile::tempdir().unwrap();
    for entries in [
        vec![Entry::File(&injected, b"process X { }\n")],
        vec![Entry::Pax(&record), Entry::File("placeholder", b"x")],
    ] {
        let (code, left) = resolve_hostile(&entries, root.path()).await;
        assert_eq!(code, ErrorCode::from(SourceCode::UnsafeArchive));
        assert_eq!(left, nothing_kept());
    }
}

#[tokio::test]
async fn a_long_path_from_a_pax_record_is_kept_as_git_archive_writes_it() {
    let long = format!("{TOP}/modules/nf-core/{}/main.nf", "deep/".repeat(40));
    let record = pax_record("path", &long);
    let standin = StandIn::start().await;
    let main = format!("{TOP}/main.nf");
    let archive = tarball_of(&[
        Entry::Dir("evil-pipeline-3333333/"),
        Entry::File(&main, b"workflow {}\n"),
        Entry::Pax(&record),
        Entry::File("placeholder", b"process LONG { }\n"),
    ]);
    standin.serve_archive("evil/pipeline", SHA, archive);
    let root = tempfile::tempdir().unwrap();
    let pinned = standin
        .store(&root.path().join("cache"))
        .resolve_github("evil/pipeline", SHA)
        .await
        .unwrap();
    let kept = pinned
        .source
        .path()
        .join(long.strip_prefix(&format!("{TOP}/")).unwrap());
    assert_eq!(std::fs::read(kept).unwrap(), b"process LONG { }\n");
}

/// One pax extended-header record, `LEN key=value\n`, its length counting
/// itself.
fn pax_record(key: &str, value: &str) -> Vec<u8> {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}{body}").len() != len {
        len += 1;
    }
    format!("{len}{body}").into_bytes()
}

#[tokio::test]
async fn a_truncated_archive_is_the_providers_fault_and_names_no_local_path() {
    let content = vec![b'x'; 256 * 1024];
    let main = format!("{TOP}/main.nf");
    let big = format!("{TOP}/big.txt");
    let mut archive = tarball_of(&[
        Entry::Dir("evil-pipeline-3333333/"),
        Entry::File(&main, b"workflow {}\n"),
        Entry::File(&big, &content),
    ]);
    archive.truncate(archive.len() / 2);
    let standin = StandIn::start().await;
    standin.serve_archive("evil/pipeline", SHA, archive);
    let root = tempfile::tempdir().unwrap();
    let err = standin
        .store(&root.path().join("cache"))
        .resolve_github("evil/pipeline", SHA)
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        ErrorCode::from(SourceCode::ProviderResponseInvalid),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        !message.contains(root.path().to_str().unwrap()),
        "{message}"
    );
    assert_eq!(listing(root.path()), nothing_kept());
}
