//! The real Pixi 0.77 and Nextflow 26.04 manuals, read in place from the
//! copies committed under the repository's `tests/data/manuals/`: every page
//! is catalogued, and no site-generator markup survives normalisation outside
//! code blocks.

use somite_mcp::docs::{DocsCache, Manual, ManualSpec, NEXTFLOW_MANUAL, PIXI_MANUAL};
use std::path::{Path, PathBuf};

/// A manual committed under the repository's `tests/data/manuals/` (its
/// README says which upstream tag each one is).
fn upstream(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/manuals")
        .join(dir)
}

fn load(spec: &'static ManualSpec, dir: &str) -> Manual {
    let cache = tempfile::tempdir().expect("tempdir");
    Manual::load(spec, &DocsCache::at(cache.path()), Some(&upstream(dir))).expect("manual")
}

/// Lines outside fenced code blocks.
fn prose_lines(markdown: &str) -> Vec<&str> {
    let mut fence: Option<String> = None;
    let mut out = Vec::new();
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        match &fence {
            Some(open) if trimmed.trim_end() == open.as_str() => fence = None,
            Some(_) => {}
            None if marker.len() >= 3 => fence = Some(marker),
            None => out.push(line),
        }
    }
    out
}

fn assert_no_markup(manual: &Manual, forbidden: &[&str]) {
    for page in manual.catalog().pages() {
        for line in prose_lines(&page.markdown) {
            for pattern in forbidden {
                assert!(
                    !line.trim_start().starts_with(pattern),
                    "{}: `{pattern}` survived: {line}",
                    page.path
                );
            }
            assert!(!line.contains("{ref}`"), "{}: {line}", page.path);
        }
    }
}

#[test]
fn the_pixi_manual_is_normalised_to_markdown() {
    let manual = load(&PIXI_MANUAL, "pixi-v0.77.0");
    assert_eq!(manual.catalog().pages().len(), 203);
    assert_no_markup(&manual, &["!!!", "???", "=== \"", "--8<--", "<a id="]);
    let environment = manual
        .catalog()
        .page("workspace/environment.md")
        .expect("page");
    assert!(
        !environment
            .markdown
            .contains("docs/partials/conda-style-activation.md"),
        "a partial of the manual is inlined, not referenced"
    );
}

#[test]
fn the_nextflow_manual_is_normalised_to_markdown() {
    let manual = load(&NEXTFLOW_MANUAL, "nextflow-v26.04.6");
    assert_eq!(manual.catalog().pages().len(), 100);
    assert_no_markup(&manual, &[":::", "(process-page)=", "```{"]);
    let index = manual.catalog().page("index.md").expect("index");
    assert!(
        index.markdown.contains("[overview](overview.md)"),
        "{}",
        index.markdown
    );
}
