//! What several of `somite`'s integration tests share: the binaries built
//! beside `somite`, the Pixi stand-in behind a wrapper and calls to an MCP
//! server's tools (the ready paired-reads project is
//! `somite_test_support`'s).

pub mod mcp;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A binary the workspace build puts beside `somite`.
pub fn sibling(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_somite")).with_file_name(name);
    assert!(
        path.is_file(),
        "{} is missing: build the workspace (`cargo build --workspace`; the workspace test run builds it)",
        path.display()
    );
    path
}

/// A `pixi` in `dir` that runs `somite-pixi-standin`, a STAND-IN for Pixi
/// and Nextflow (neither can be installed here), with `settings` (e.g.
/// `SOMITE_STANDIN_HANG=1`): the runner gives Pixi a cleared environment,
/// so the stand-in's settings cannot come from ours.
pub fn standin_pixi(dir: &Path, settings: &str) -> PathBuf {
    let wrapper = dir.join("pixi");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{settings} exec '{}' \"$@\"\n",
            sibling("somite-pixi-standin").display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    wrapper
}

/// A `somite serve` child on a project, stopped when dropped the way a user
/// stops it (SIGINT), then waited for.
pub struct ServeChild {
    /// Taken by [`ServeChild::into_child`].
    child: Option<Child>,
    /// The base URL it printed, e.g. `http://127.0.0.1:43817`.
    pub url: String,
}

impl ServeChild {
    /// Starts `somite serve --port 0` on `project` (with `configure` adding
    /// to its environment) and returns once it has printed its URL. It never
    /// fetches manuals or the ACP registry.
    pub fn start(project: &Path, configure: impl FnOnce(&mut Command)) -> ServeChild {
        let mut command = Command::new(env!("CARGO_BIN_EXE_somite"));
        command
            .args(["serve", "--port", "0", "--project"])
            .arg(project)
            .env(somite_api::EnvVars::SOMITE_MCP_DOCS_FETCH, "off")
            .env(somite_api::EnvVars::SOMITE_ACP_REGISTRY_URL, "off")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        configure(&mut command);
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .nth(3)
            .unwrap_or_else(|| panic!("serve did not print its URL: {line:?}"))
            .trim_end_matches('/')
            .to_owned();
        ServeChild {
            child: Some(child),
            url,
        }
    }

    /// The child, no longer stopped on drop.
    pub fn into_child(mut self) -> Child {
        self.child.take().expect("the child is still ours")
    }
}

impl Drop for ServeChild {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }
}
