//! Documentation catalog benchmarks: building the full-text index of each
//! manual, and the latency of one search against it. The manuals are the
//! copies committed under the repository's `tests/data/manuals/`, read in
//! place.

use criterion::{Criterion, criterion_group, criterion_main};
use somite_mcp::docs::{
    Catalog, DocsCache, DocsIndex, Manual, ManualSpec, NEXTFLOW_MANUAL, PIXI_MANUAL,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MANUALS: [(&ManualSpec, &str, &str); 2] = [
    (&PIXI_MANUAL, "pixi-v0.77.0", "task dependencies"),
    (&NEXTFLOW_MANUAL, "nextflow-v26.04.6", "process directives"),
];

/// A manual committed under the repository's `tests/data/manuals/` (its
/// README says which upstream tag each one is).
fn upstream(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/manuals")
        .join(dir)
}

fn catalog(spec: &'static ManualSpec, dir: &str) -> Catalog {
    let source = upstream(dir);
    let cache = tempfile::tempdir().expect("cache");
    let manual = Manual::load(spec, &DocsCache::at(cache.path()), Some(&source)).expect("manual");
    manual.catalog().clone()
}

fn docs(c: &mut Criterion) {
    let mut group = c.benchmark_group("docs");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (spec, dir, query) in MANUALS {
        let catalog = catalog(spec, dir);
        group.bench_function(format!("index_build/{}", spec.tool), |b| {
            b.iter(|| DocsIndex::build(black_box(&catalog)).expect("index"));
        });
        let index = DocsIndex::build(&catalog).expect("index");
        group.bench_function(format!("search/{}", spec.tool), |b| {
            b.iter(|| index.search(black_box(query), 8).expect("search"));
        });
    }
    group.finish();
}

criterion_group!(benches, docs);
criterion_main!(benches);
