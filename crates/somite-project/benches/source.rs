//! Load + verify + outline + place for nf-core/fetchngs 1.12.0: open the
//! stored tree (walking and hashing every file again), outline it, build the
//! node binding and place it on an empty canvas (the pure transaction).
//! The archive is imported once, outside the measurement.
//!
//! Run with `cargo bench -p somite-project --bench source`; criterion prints
//! the median.

use criterion::{Criterion, criterion_group, criterion_main};
use somite_project::source::{binding_of, place_transaction, verified_outline};
use somite_source::{PinnedSource, Repository, SourceConfig, SourceOrigin, SourceStore};
use somite_workflow::Catalog;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::apply_operations;
use std::hint::black_box;
use std::path::Path;

const FETCHNGS_1_12_0: &str = "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5";

fn load_verify_outline_place(c: &mut Criterion) {
    let cache = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache.path())).unwrap();
    let repository: Repository = "nf-core/fetchngs".parse().unwrap();
    let commit = FETCHNGS_1_12_0.parse().unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../somite-source/tests/data")
        .join(format!("nf-core-fetchngs-{FETCHNGS_1_12_0}.tar.gz"));
    let source = store
        .import_archive(&repository, &commit, &archive)
        .unwrap();
    let pinned = PinnedSource {
        repository,
        origin: SourceOrigin::NfCore {
            pipeline: "fetchngs".into(),
            release: "1.12.0".into(),
            published_at: "2024-02-29T00:00:00Z".into(),
        },
        source,
    };
    let first = binding_of(
        &pinned,
        &somite_outline::outline(pinned.source.path()).unwrap(),
    )
    .unwrap();
    let catalog = Catalog::builtin().unwrap();
    let empty = WorkflowDocument::empty("bench");
    println!(
        "fetchngs 1.12.0: {} files, {} bytes, {} processes, {} params",
        pinned.source.files,
        pinned.source.bytes,
        first.processes.len(),
        first.params.len()
    );
    c.bench_function("source_load_verify_outline_place_fetchngs", |b| {
        b.iter(|| {
            let (verified, outline) = verified_outline(&store, &first).unwrap();
            let pinned = PinnedSource {
                source: verified,
                ..pinned.clone()
            };
            let binding = binding_of(&pinned, &outline).unwrap();
            let txn = place_transaction(
                binding,
                "blake3:0".into(),
                "bench-0001".into(),
                "source".into(),
                (0.0, 0.0),
            );
            black_box(apply_operations(&empty, &catalog, &txn.operations).unwrap())
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = load_verify_outline_place
}
criterion_main!(benches);
