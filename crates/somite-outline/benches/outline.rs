//! Outlining nf-core/fetchngs 1.12.0 (the extracted test data: 16 scripts
//! reached from `main.nf`, the config, the schema and 5 `environment.yml`),
//! and each of the nine corpus pipelines (`tests/data/nf-core-corpus`,
//! extracted once into a temporary folder) with its invocations and their
//! reach. This is the outline step alone — reading the files from disk
//! included, fetching and verifying the tree not. Criterion measures
//! fetchngs; the medians of separate timed series are printed, per pipeline
//! with milliseconds per file of its tree, for the record.

use criterion::{Criterion, criterion_group, criterion_main};
use somite_outline::outline;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn outline_fetchngs(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/nf-core-fetchngs-1.12.0");
    c.bench_function("outline nf-core/fetchngs 1.12.0", |b| {
        b.iter(|| outline(black_box(&root)).unwrap())
    });

    let mut samples: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            black_box(outline(&root).unwrap());
            start.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "median outline of nf-core/fetchngs 1.12.0: {:.2} ms (31 runs)",
        samples[samples.len() / 2].as_secs_f64() * 1000.0
    );
}

/// The median of 15 runs of `work`.
fn median(mut work: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..15)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn files_under(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.path().is_dir() {
                        files_under(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

fn outline_corpus(_: &mut Criterion) {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/nf-core-corpus");
    let extracted = tempfile::tempdir().expect("a temporary folder");
    let mut archives: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .collect();
    archives.sort();
    for archive in archives {
        let status = std::process::Command::new("tar")
            .arg("xzf")
            .arg(&archive)
            .arg("-C")
            .arg(extracted.path())
            .status()
            .expect("tar");
        assert!(status.success(), "{}", archive.display());
    }
    let mut trees: Vec<PathBuf> = std::fs::read_dir(extracted.path())
        .expect("extracted")
        .flatten()
        .map(|e| e.path())
        .collect();
    trees.sort();
    for tree in trees {
        let files = files_under(&tree);
        let mut invocations = 0;
        let took = median(|| {
            let outline = outline(black_box(&tree)).unwrap();
            invocations = somite_outline::invocations(&outline).len();
        });
        let ms = took.as_secs_f64() * 1000.0;
        println!(
            "median outline with invocations of {}: {ms:.2} ms, {files} files ({:.3} ms per file), {invocations} invocations",
            tree.file_name().unwrap().to_string_lossy(),
            ms / files as f64
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = outline_fetchngs, outline_corpus
}
criterion_main!(benches);
