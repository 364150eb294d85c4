//! Which of the tools a run needs are on this machine.
//!
//! Readiness is a pure function of the graph; whether Pixi can be found is a
//! fact about the machine, looked up here at the edge and added to the
//! assessment as an informational `toolchain` item. They do not
//! block compile or export, which need no tool; the runner refuses to start
//! without them (`toolchain_missing`).
//!
//! It also owns what a `pixi` child may see of Somite's environment
//! ([`pixi_environment`]), shared by the compiler's `pixi lock` and the run
//! supervisor's `pixi run`.

use somite_api::EnvVars;
use somite_process::{Environment, env, find_program};
use somite_workflow::assessment::Assessment;
use somite_workflow::{ErrorCode, SomiteError};
use std::path::{Path, PathBuf};

/// The variable naming the Pixi Somite uses instead of the one on `PATH`
/// (named here for the error message's format string).
const PIXI_VAR: &str = EnvVars::SOMITE_PIXI;

/// Pixi's own variables a `pixi` child inherits: its home (global
/// configuration, mirrors) and its package caches.
pub const PIXI_ENV: &[&str] = &["PIXI_HOME", "PIXI_CACHE_DIR", "RATTLER_CACHE_DIR"];

/// The whole environment of a `pixi` child: the common allowlist, the
/// proxies a conda download may need, and [`PIXI_ENV`]. Nothing else of
/// Somite's environment (the MCP capability, credentials, overrides such as
/// `PIXI_TLS_NO_VERIFY`) reaches it.
pub fn pixi_environment() -> Environment {
    Environment::inherit(env::BASE)
        .and_inherit(env::PROXY)
        .and_inherit(PIXI_ENV)
}

/// What to do when no Pixi is found.
pub const PIXI_INSTALL_HINT: &str = "install Pixi 0.77 (https://pixi.sh) and put it on PATH, or set SOMITE_PIXI to its absolute path";

/// A `SOMITE_PIXI` that names no executable file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{PIXI_VAR}={0:?} is invalid: the absolute path of an existing pixi executable")]
pub struct InvalidPixiSetting(pub String);

impl From<InvalidPixiSetting> for SomiteError {
    fn from(error: InvalidPixiSetting) -> Self {
        SomiteError::new(
            ErrorCode::InvalidRequest,
            error.to_string(),
            "unset SOMITE_PIXI to use the pixi on PATH, or set it to the absolute path of a pixi executable",
        )
    }
}

/// The Pixi to use: `setting` (the value of [`PIXI_VAR`]) when given, else
/// `pixi` on `PATH`, else none.
pub fn resolve_pixi(setting: Option<&str>) -> Result<Option<PathBuf>, InvalidPixiSetting> {
    match setting {
        None => Ok(find_on_path("pixi")),
        // An absolute executable file, or refused: `find_program` searches
        // no `PATH` for an absolute program and refuses a relative one.
        Some(value) => find_program(value, None)
            .map(Some)
            .ok_or_else(|| InvalidPixiSetting(value.to_owned())),
    }
}

/// The first executable named `tool` on this process's `PATH`.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    find_program(tool, std::env::var_os("PATH").as_deref())
}

/// Adds a `toolchain` item when there is no Pixi to run with. Nextflow
/// needs no item: a compiled package's frozen Pixi environment provides the
/// exact Nextflow it was proven against, so a run never uses one on `PATH`.
pub fn note_missing_tools(assessment: &mut Assessment, pixi: Option<&Path>) {
    if pixi.is_none() {
        assessment.add_toolchain_item(
            "pixi",
            "Pixi was not found (SOMITE_PIXI unset, no `pixi` on PATH): compile and export work; Run and Validate need it",
            PIXI_INSTALL_HINT,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn a_pixi_setting_must_name_an_absolute_executable_file() {
        let dir = tempfile::tempdir().unwrap();
        let pixi = dir.path().join("pixi");
        std::fs::write(&pixi, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&pixi, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();

        let absolute = pixi.to_str().unwrap();
        assert_eq!(resolve_pixi(Some(absolute)).unwrap(), Some(pixi.clone()));
        for refused in [
            plain.to_str().unwrap(),
            "pixi",
            "bin/pixi",
            dir.path().to_str().unwrap(),
        ] {
            assert_eq!(
                resolve_pixi(Some(refused)),
                Err(InvalidPixiSetting(refused.to_owned())),
                "{refused}"
            );
        }
    }
}
