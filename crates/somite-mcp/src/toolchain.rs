//! Locating a tool's binary and checking it is the proven release.
//!
//! A server's typed tools encode one release's CLI (flags, JSON shapes), so
//! running them against another release could silently do something else.
//! Before any CLI tool runs, the server finds the binary on its PATH, asks
//! for its version, and refuses (`toolchain_version_mismatch`, naming the
//! version it found and the ones it accepts) unless it is exactly a release
//! the contract is proven for: the specification names Pixi 0.77.1 and
//! Nextflow 26.04.6. Not the series: a patch release may change a JSON shape
//! or a flag the typed tools rely on, and an `-edge` build is a preview of
//! the next release. Accepting another release means proving the contract
//! against it and adding it to the list. A missing binary is
//! `toolchain_missing` with an install hint. Which releases a server is
//! proven for is data ([`ToolContract`]), not code.

use crate::envelope::ToolError;
use crate::process::{self, ChildEnv};
use serde_json::json;
use somite_api::{DomainCode, ToolCode};
use somite_process::Command;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The release of a tool a server's CLI contract is proven against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolContract {
    pub binary: &'static str,
    pub display_name: &'static str,
    /// Arguments that print the version.
    pub version_args: &'static [&'static str],
    /// The exact releases the contract is proven against.
    pub proven: &'static [&'static str],
    pub install_hint: &'static str,
}

pub const PIXI_CONTRACT: ToolContract = ToolContract {
    binary: "pixi",
    display_name: "Pixi",
    version_args: &["--version"],
    proven: &["0.77.1"],
    install_hint: "Install Pixi 0.77.1 and put it on the PATH of the process that starts this server \
        (see https://pixi.sh/v0.77.0/installation/, e.g. with PIXI_VERSION=v0.77.1).",
};

pub const NEXTFLOW_CONTRACT: ToolContract = ToolContract {
    binary: "nextflow",
    display_name: "Nextflow",
    version_args: &["-version"],
    proven: &["26.04.6"],
    install_hint: "Install Nextflow 26.04.6 with Java 17 or later and put it on the PATH of the process \
        that starts this server (e.g. `pixi global install nextflow==26.04.6` or \
        `conda install -c bioconda nextflow=26.04.6`).",
};

/// How long asking for the version may take (Nextflow starts a JVM).
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// A binary that passed the version check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub executable: PathBuf,
    pub version: String,
}

impl ToolContract {
    /// The proven releases as people read them (`0.77.1`, or `a or b`).
    pub fn proven_label(&self) -> String {
        self.proven.join(" or ")
    }

    fn missing(&self) -> ToolError {
        ToolError::new(
            DomainCode::ToolchainMissing,
            format!(
                "{} ({}) is not on this server's PATH",
                self.display_name, self.binary
            ),
            self.install_hint,
        )
        .with_details(json!({ "binary": self.binary, "required": self.proven }))
    }

    /// Whether `version` is exactly a proven release.
    pub fn accepts(&self, version: &str) -> bool {
        self.proven.contains(&version)
    }

    /// Finds the binary on `path_var`, runs it for its version and checks it.
    pub async fn check(
        &self,
        env: &ChildEnv,
        cwd: &Path,
        cancel: &CancellationToken,
    ) -> Result<Toolchain, ToolError> {
        let executable = somite_process::find_program(self.binary, env.get("PATH"))
            .ok_or_else(|| self.missing())?;
        let command =
            Command::new(&executable, cwd, env.clone()).args(self.version_args.iter().copied());
        let report = process::run(&command, VERSION_TIMEOUT, cancel)
            .await
            .map_err(|error| {
                ToolError::new(
                    ToolCode::ProcessFailed,
                    error.to_string(),
                    "Check that the installed binary can be executed by this user.",
                )
            })?;
        let output = format!("{}\n{}", report.stdout, report.stderr);
        let version = parse_version(&output);
        match version {
            Some(version) if report.ok && self.accepts(&version) => Ok(Toolchain {
                executable,
                version,
            }),
            found => Err(ToolError::new(
                ToolCode::ToolchainVersionMismatch,
                format!(
                    "{} {} is installed at {}, but this server's contract is proven for {} {}",
                    self.display_name,
                    found.as_deref().unwrap_or("(unknown version)"),
                    executable.display(),
                    self.display_name,
                    self.proven_label(),
                ),
                format!(
                    "Install {} {} and put it first on PATH.",
                    self.display_name,
                    self.proven_label()
                ),
            )
            .with_details(json!({
                "installed": found,
                "required": self.proven,
                "executable": executable.display().to_string(),
            }))),
        }
    }
}

/// The first `N.N[.N][-suffix]` token in a version banner
/// (`pixi 0.77.1`, `      version 26.04.6 build 5954`).
pub fn parse_version(output: &str) -> Option<String> {
    output
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|token| token.trim_start_matches('v'))
        .find(|token| {
            let core = token.split('-').next().unwrap_or_default();
            let parts: Vec<&str> = core.split('.').collect();
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn versions_are_read_from_banners() {
        assert_eq!(parse_version("pixi 0.77.1\n").as_deref(), Some("0.77.1"));
        let banner = "\n      N E X T F L O W\n      version 26.04.6 build 5954\n      created 01-05-2026 10:00 UTC\n";
        assert_eq!(parse_version(banner).as_deref(), Some("26.04.6"));
        assert_eq!(parse_version("no version here"), None);
    }

    #[test]
    fn only_the_proven_releases_are_accepted() {
        assert!(PIXI_CONTRACT.accepts("0.77.1"));
        assert!(NEXTFLOW_CONTRACT.accepts("26.04.6"));
        // Same series, other patch releases and previews: not proven.
        for version in [
            "0.77",
            "0.77.0",
            "0.77.2",
            "0.77.1-dev",
            "0.770.1",
            "0.78.0",
        ] {
            assert!(!PIXI_CONTRACT.accepts(version), "{version}");
        }
        for version in [
            "26.04",
            "26.04.0-edge",
            "26.04.6-edge",
            "26.04.7",
            "25.10.2",
        ] {
            assert!(!NEXTFLOW_CONTRACT.accepts(version), "{version}");
        }
    }

    #[tokio::test]
    async fn a_binary_missing_from_path_is_toolchain_missing() {
        let env = ChildEnv::default().with("PATH", "/nonexistent-dir");
        let error = PIXI_CONTRACT
            .check(&env, &std::env::temp_dir(), &CancellationToken::new())
            .await
            .expect_err("missing");
        assert_eq!(error.code, DomainCode::ToolchainMissing);
        assert!(error.recovery.contains("0.77"));
    }

    #[tokio::test]
    async fn another_release_of_the_series_fails_closed_naming_what_was_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fake = dir.path().join("nextflow");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho '      version 26.04.0-edge build 5950'\n",
        )
        .expect("write");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let env = ChildEnv::default().with("PATH", dir.path());
        let error = NEXTFLOW_CONTRACT
            .check(&env, dir.path(), &CancellationToken::new())
            .await
            .expect_err("mismatch");
        assert_eq!(error.code, ToolCode::ToolchainVersionMismatch);
        assert!(
            error.message.contains("Nextflow 26.04.0-edge is installed")
                && error.message.contains("proven for Nextflow 26.04.6"),
            "{}",
            error.message
        );
        let details = error.details.expect("details");
        assert_eq!(details["installed"], "26.04.0-edge");
        assert_eq!(details["required"], json!(["26.04.6"]));
    }
}
