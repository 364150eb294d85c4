//! What the workflow benches share.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The median of 31 timed runs of `work`, in milliseconds: the figure a
/// bench prints beside its goal, apart from criterion's own estimate.
pub fn median_ms<T>(mut work: impl FnMut() -> T) -> f64 {
    let mut samples: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            black_box(work());
            start.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}
