//! Outlining nf-core/fetchngs 1.12.0 (the extracted test data: 16 scripts
//! reached from `main.nf`, the config, the schema and 5 `environment.yml`).
//! This is the outline step alone — reading the files from disk included,
//! fetching and verifying the tree not. Criterion measures it; the median of
//! a separate timed series is printed on its own line for the record.

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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = outline_fetchngs
}
criterion_main!(benches);
