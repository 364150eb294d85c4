//! Which of the tools a run needs are on this machine.
//!
//! Readiness is a pure function of the graph; whether `pixi` and `nextflow`
//! can be found is a fact about the machine, looked up here at the edge and
//! added to the assessment as informational `toolchain` items. They do not
//! block compile or export, which need no tool; the runner refuses to start
//! without them (`toolchain_missing`).

use somite_workflow::assessment::Assessment;
use std::path::{Path, PathBuf};

/// The tools a run needs, with what to do when one is missing.
pub const RUN_TOOLS: &[(&str, &str)] = &[
    (
        "pixi",
        "install Pixi 0.77 (https://pixi.sh) and put it on PATH",
    ),
    (
        "nextflow",
        "install Nextflow 26.04.6, or let a compiled package's `pixi run --frozen run` provide it",
    ),
];

/// The first executable named `tool` on `PATH`.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Adds a `toolchain` item for each run tool that is not on PATH.
pub fn note_missing_tools(assessment: &mut Assessment) {
    for (tool, hint) in RUN_TOOLS {
        if find_on_path(tool).is_none() {
            assessment.add_toolchain_item(
                tool,
                &format!(
                    "`{tool}` is not on PATH: compile and export work; Run and Validate need it"
                ),
                hint,
            );
        }
    }
}
