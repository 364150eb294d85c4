//! A test whose tool is absent says so where CI counts it.
//!
//! Rust's test harness has no skip at run time: a test that returns early
//! passes. So each such test calls [`skipped`] before returning. It prints
//! the reason, and when `SOMITE_TEST_SKIP_LOG` names a file, as
//! `scripts/test` sets it, it appends one line `test<TAB>reason` there.
//! `scripts/test` then prints how many tests were skipped and why. Each line
//! is one `O_APPEND` write, so tests running in parallel processes do not
//! interleave their lines.

use somite_api::EnvVars;
use std::io::Write;
use std::path::Path;

/// Records that `test` did not run its check, and why (`pixi not installed`).
pub fn skipped(test: &str, reason: &str) {
    // A lost line in the test's own output is not worth failing it for.
    let _ignored = writeln!(std::io::stderr(), "skipped: {test}: {reason}");
    if let Some(log) = std::env::var_os(EnvVars::SOMITE_TEST_SKIP_LOG) {
        record(Path::new(&log), test, reason);
    }
}

fn record(log: &Path, test: &str, reason: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("the skip log opens");
    file.write_all(format!("{test}\t{reason}\n").as_bytes())
        .expect("the skip log takes the line");
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_skip_is_one_line_appended_to_the_log() {
        let dir = std::env::temp_dir().join(format!("somite-skip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skipped.log");
        super::record(&log, "a", "pixi not installed");
        super::record(&log, "b", "nextflow not installed");
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(text, "a\tpixi not installed\nb\tnextflow not installed\n");
    }
}
