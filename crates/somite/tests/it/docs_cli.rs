//! `somite docs`: importing a manual once into the documentation cache, then
//! listing, reading and searching it from the cache alone. The manuals are
//! the copies committed under the repository's `tests/data/manuals/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A manual committed under the repository's `tests/data/manuals/` (its
/// README says which upstream tag each one is).
fn upstream(manual: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/manuals")
        .join(manual)
}

fn somite(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env(somite_api::EnvVars::SOMITE_MCP_DOCS_CACHE_DIR, cache)
        .output()
        .expect("run somite")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "status {:?}, stderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn an_imported_manual_is_served_from_the_cache() {
    let cache = tempfile::tempdir().expect("cache");
    let source = upstream("nextflow-v26.04.6");
    let imported = stdout(&somite(
        cache.path(),
        &[
            "docs",
            "import",
            "nextflow",
            source.to_str().expect("utf-8"),
        ],
    ));
    assert!(imported.starts_with("imported 100 pages"), "{imported}");
    assert!(
        cache
            .path()
            .join("github.com/nextflow-io/nextflow/v26.04.6/docs/catalog.json")
            .is_file(),
        "keyed by repository, tag and folder"
    );

    let listed = stdout(&somite(cache.path(), &["docs", "list", "nextflow"]));
    assert_eq!(listed.lines().count(), 100);
    assert!(
        listed
            .lines()
            .any(|line| line == "cache-and-resume.md\tCaching and resuming"),
        "{listed}"
    );

    let page = stdout(&somite(
        cache.path(),
        &["docs", "read", "nextflow", "cache-and-resume.md"],
    ));
    assert!(page.starts_with("# Caching and resuming\n"), "{page}");
    assert!(
        !page.contains("(cache-resume-page)="),
        "labels are normalised away"
    );

    let found = stdout(&somite(
        cache.path(),
        &["docs", "search", "nextflow", "executor", "slurm", "--json"],
    ));
    let found: serde_json::Value = serde_json::from_str(&found).expect("json");
    assert_eq!(found["hits"][0]["path"], "executor.md");
}

#[test]
fn a_manual_that_was_never_imported_says_how_to_import_it() {
    let cache = tempfile::tempdir().expect("cache");
    let output = somite(cache.path(), &["docs", "list", "pixi"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("somite docs import pixi"), "{stderr}");
    assert!(
        stderr.contains("prefix-dev/pixi") && stderr.contains("v0.77.0"),
        "{stderr}"
    );
}

#[test]
fn the_source_variable_imports_on_first_use() {
    let cache = tempfile::tempdir().expect("cache");
    let output = Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["docs", "search", "pixi", "lock", "file"])
        .env_clear()
        .env(somite_api::EnvVars::SOMITE_MCP_DOCS_CACHE_DIR, cache.path())
        .env(
            somite_api::EnvVars::SOMITE_MCP_DOCS_SOURCE_PIXI,
            upstream("pixi-v0.77.0"),
        )
        .output()
        .expect("run somite");
    let found = stdout(&output);
    assert!(
        found.starts_with("1. workspace/lock_file.md — Lock file"),
        "{found}"
    );
    // Later runs need no source: the cache holds the manual.
    let again = stdout(&somite(
        cache.path(),
        &[
            "docs",
            "read",
            "pixi",
            "workspace/lock_file.md",
            "--max-bytes",
            "200",
        ],
    ));
    assert!(again.len() <= 200, "{again}");
}
