//! Embeds the built web workspace (`web/dist`, made by `npm run build`) into
//! the runtime, so a `somite` binary copied to another machine serves its UI
//! with no Node and nothing beside it.
//!
//! A build script rather than a derive macro (`rust-embed`): a proc macro
//! cannot tell Cargo to watch a folder that does not exist yet, so a binary
//! built before the web would stay without it; and `rust-embed` reads files
//! from disk in debug builds, so the journeys would not test what ships. Here
//! every profile embeds the same bytes.
//!
//! Without `web/dist` (a clean clone) nothing is embedded and the runtime
//! serves a page saying how to build it. `web/dist` is watched only once it
//! exists: Cargo reruns a script that watches a missing path on every build,
//! and then rebuilds this crate and everything that depends on it. A build that must ship the UI sets
//! `SOMITE_REQUIRE_WEB_BUNDLE=1` (`scripts/start` does): then a missing bundle
//! fails the build, and setting the variable reruns this script, so a binary
//! built before the web existed is not reused.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Set (non-empty) when the build must embed the web bundle. Declared here,
/// not in `somite-api`: a build script runs before the crates it would need.
const REQUIRE: &str = "SOMITE_REQUIRE_WEB_BUNDLE";

fn main() {
    println!("cargo::rerun-if-env-changed={REQUIRE}");
    println!("cargo::rerun-if-changed=build.rs");
    // Read when the script runs, not when it was compiled: worktrees that
    // share one target directory share this script's binary, and each must
    // embed its own `web/dist`.
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dist = Path::new(&manifest_dir).join("../../web/dist");
    let required = std::env::var_os(REQUIRE).is_some_and(|v| !v.is_empty());
    if dist.is_dir() {
        println!("cargo::rerun-if-changed={}", dist.display());
    }
    let out = if dist.join("index.html").is_file() {
        embed(&dist.canonicalize().expect("web/dist is readable"))
    } else if required {
        eprintln!(
            "{REQUIRE} is set but {} has no index.html: build the web workspace first \
             (npm --prefix web ci && npm --prefix web run build)",
            dist.display()
        );
        std::process::exit(1);
    } else {
        "pub(crate) static EMBEDDED: Option<EmbeddedBundle> = None;\n".to_owned()
    };
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("web_bundle.rs");
    std::fs::write(dest, out).unwrap();
}

/// The generated `EMBEDDED`: every file of `dist` by its URL path, sorted
/// for binary search. Dot-files and dot-folders (Vite's `.vite/manifest.json`)
/// are build metadata no browser asks for, so they stay out.
fn embed(dist: &Path) -> String {
    let mut files = Vec::new();
    collect(dist, dist, &mut files);
    files.sort();
    let index = dist.join("index.html");
    let mut out = format!(
        "pub(crate) static EMBEDDED: Option<EmbeddedBundle> = Some(EmbeddedBundle {{\n  \
         index: include_bytes!({:?}),\n  files: &[\n",
        index.to_str().expect("web/dist's path is valid UTF-8")
    );
    for (url_path, file) in files {
        writeln!(
            out,
            "    EmbeddedFile {{ path: {url_path:?}, bytes: include_bytes!({file:?}) }},"
        )
        .unwrap();
    }
    out.push_str("] });\n");
    out
}

fn collect(dist: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("web/dist is readable") {
        let path: PathBuf = entry.expect("web/dist is readable").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(dist, &path, files);
            continue;
        }
        let relative = path.strip_prefix(dist).expect("inside web/dist");
        let (Some(url_path), Some(file)) = (relative.to_str(), path.to_str()) else {
            panic!("{} is not valid UTF-8", path.display());
        };
        files.push((
            url_path.replace(std::path::MAIN_SEPARATOR, "/"),
            file.to_owned(),
        ));
    }
}
