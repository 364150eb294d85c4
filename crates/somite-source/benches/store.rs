//! What a pinned source costs without a network: importing nf-core/fetchngs
//! 1.12.0 (206 entries; gunzip, confined extraction, tree digest, publish)
//! and re-opening it (the walk and digest every use repeats).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use somite_source::{CommitSha, Repository, SourceConfig, SourceStore};
use std::path::PathBuf;

const COMMIT: &str = "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5";

fn archive() -> PathBuf {
    PathBuf::from(format!(
        "{}/tests/data/nf-core-fetchngs-{COMMIT}.tar.gz",
        env!("CARGO_MANIFEST_DIR")
    ))
}

fn fetchngs(c: &mut Criterion) {
    let repository: Repository = "nf-core/fetchngs".parse().unwrap();
    let commit: CommitSha = COMMIT.parse().unwrap();
    let mut group = c.benchmark_group("fetchngs");
    group.sample_size(20);

    group.bench_function("import", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |cache| {
                let store = SourceStore::new(SourceConfig::new(cache.path())).unwrap();
                store
                    .import_archive(&repository, &commit, &archive())
                    .unwrap();
                cache
            },
            BatchSize::PerIteration,
        )
    });

    let cache = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache.path())).unwrap();
    let pinned = store
        .import_archive(&repository, &commit, &archive())
        .unwrap();
    group.bench_function("open", |b| {
        b.iter(|| store.open(&commit, Some(&pinned.tree_digest)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, fetchngs);
criterion_main!(benches);
