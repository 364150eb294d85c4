//! The sandbox an operator candidate's proof runs in.
//!
//! A candidate's command is written by whoever drafted it — often an agent —
//! so its proof must not run with the user's rights. It runs under Debian's
//! `bubblewrap` (the sandbox Flatpak is built on), built from the kernel's
//! own namespaces:
//!
//! - new user, PID, IPC, UTS, cgroup and network namespaces: no network but
//!   loopback inside, no view of the host's processes, no capabilities;
//! - a filesystem of the system's read-only `/usr` and `/etc`, an empty
//!   `/tmp`, the proof's folder read-only and only the task's own folder
//!   writable: the user's home, the project and `/work`-like trees do not
//!   exist inside;
//! - an environment of exactly the variables the caller lists (never the
//!   capability, never a credential);
//! - `setrlimit` limits on CPU time, address space, the size of any file it
//!   writes (so "print a gigabyte" stops at the cap) and processes (so a fork
//!   bomb stops), and a new session so it cannot reach the terminal; the
//!   caller's wall-clock timeout kills the whole group.
//!
//! Run as root (CI), the sandbox drops to `nobody` first: the kernel does not
//! apply a process limit to root, and root's files are not the proof's to
//! read. Where `bwrap` is missing or the kernel refuses namespaces,
//! [`Sandbox::probe`] says why and nothing runs unconfined.

use nix::sys::resource::{Resource, setrlimit};
use nix::unistd::Uid;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How much a confined command may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxLimits {
    pub cpu_seconds: u64,
    pub address_space_bytes: u64,
    /// The largest file it may write (its stdout and stderr are files).
    pub file_bytes: u64,
    /// Processes and threads of the sandbox's user at once, beyond those it
    /// already has.
    pub processes: u64,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits {
            cpu_seconds: 300,
            address_space_bytes: 16 << 30,
            file_bytes: 256 << 20,
            processes: 256,
        }
    }
}

/// A sandbox this host can build.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: PathBuf,
    /// Run as root, `setpriv` (util-linux) drops the command to `nobody`
    /// once `bwrap` has built its view.
    setpriv: Option<PathBuf>,
    pub limits: SandboxLimits,
}

/// `nobody`/`nogroup` on Debian.
const NOBODY: u32 = 65534;

/// Where the system's own folders are mounted (or linked) in the sandbox:
/// a bound folder's parents are created there only outside these.
const SYSTEM: [&str; 9] = [
    "/usr", "/etc", "/dev", "/proc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
];

/// What [`Sandbox::command`] confines.
#[derive(Debug, Clone)]
pub struct Confined<'a> {
    /// Its working directory, writable.
    pub work: &'a Path,
    /// Other folders it may write.
    pub writable: Vec<&'a Path>,
    /// Folders it may read (its inputs), besides the system's.
    pub read_only: Vec<&'a Path>,
    /// Its whole environment.
    pub env: Vec<(OsString, OsString)>,
    pub program: &'a str,
    pub args: Vec<OsString>,
}

impl Sandbox {
    /// The sandbox of this host, probed once per process: `bwrap` (and, as
    /// root, `setpriv`) on `PATH` and a trial run that builds every
    /// namespace.
    pub fn probe() -> Result<Sandbox, String> {
        static PROBED: OnceLock<Result<Sandbox, String>> = OnceLock::new();
        PROBED.get_or_init(probe_once).clone()
    }

    /// The user the command runs as when it is not Somite's own: its work
    /// folders must be handed to it first ([`hand_to`]).
    fn runs_as(&self) -> Option<Uid> {
        self.setpriv.as_ref().map(|_| Uid::from_raw(NOBODY))
    }

    /// The command that runs `confined` in the sandbox, its stdin closed,
    /// in a process group of its own.
    pub fn command(&self, confined: &Confined<'_>) -> Command {
        let mut command = Command::new(&self.bwrap);
        if self.setpriv.is_some() {
            // As root, `bwrap` mounts without a user namespace and
            // `setpriv` then gives up root and every capability.
            command.args([
                "--unshare-ipc",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-uts",
                "--unshare-cgroup-try",
            ]);
        } else {
            command.args(["--unshare-all", "--cap-drop", "ALL"]);
        }
        command.args([
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--ro-bind",
            "/usr",
            "/usr",
            "--ro-bind",
            "/etc",
            "/etc",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
        ]);
        // Merged-/usr systems link these into /usr; others have them.
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64"] {
            match std::fs::read_link(top) {
                Ok(target) => {
                    command.arg("--symlink").arg(target).arg(top);
                }
                Err(_) if Path::new(top).is_dir() => {
                    command.args(["--ro-bind", top, top]);
                }
                Err(_) => {}
            }
        }
        let binds: Vec<(&str, &Path)> = confined
            .read_only
            .iter()
            .map(|dir| ("--ro-bind", *dir))
            .chain(
                confined
                    .writable
                    .iter()
                    .chain([&confined.work])
                    .map(|dir| ("--bind", *dir)),
            )
            .collect();
        // The folders above a bound one exist in the sandbox only as its
        // way there, open to its user (the host's may be private).
        let mut parents = BTreeSet::new();
        for (_, dir) in &binds {
            parents.extend(dir.ancestors().skip(1).filter(|p| {
                !matches!(p.to_str(), Some("/" | "/tmp"))
                    && !SYSTEM.iter().any(|system| p.starts_with(system))
            }));
        }
        for parent in parents {
            command.args(["--perms", "0755", "--dir"]).arg(parent);
        }
        for (flag, dir) in binds {
            command.arg(flag).arg(dir).arg(dir);
        }
        command.arg("--chdir").arg(confined.work);
        for (name, value) in &confined.env {
            command.arg("--setenv").arg(name).arg(value);
        }
        command.arg("--");
        if let Some(setpriv) = &self.setpriv {
            command
                .arg(setpriv)
                .arg(format!("--reuid={NOBODY}"))
                .arg(format!("--regid={NOBODY}"))
                .args([
                    "--clear-groups",
                    "--inh-caps=-all",
                    "--bounding-set=-all",
                    "--",
                ]);
        }
        command
            .arg(confined.program)
            .args(&confined.args)
            .env_clear()
            .stdin(Stdio::null())
            .process_group(0);
        let limits = self.limits;
        let processes = limits.processes + tasks_of(self.runs_as().unwrap_or_else(Uid::current));
        // The limits must be set in the child before `bwrap` starts, which
        // std offers only through `pre_exec`; they hold for every process
        // the command starts.
        // SAFETY: between fork and exec only setrlimit is called, which is
        // async-signal-safe, and nothing is allocated.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(move || {
                let set = |resource, limit| {
                    setrlimit(resource, limit, limit).map_err(std::io::Error::from)
                };
                set(Resource::RLIMIT_CPU, limits.cpu_seconds)?;
                set(Resource::RLIMIT_AS, limits.address_space_bytes)?;
                set(Resource::RLIMIT_FSIZE, limits.file_bytes)?;
                set(Resource::RLIMIT_NPROC, processes)?;
                set(Resource::RLIMIT_CORE, 0)
            });
        }
        command
    }
}

fn probe_once() -> Result<Sandbox, String> {
    let bwrap =
        which::which("bwrap").map_err(|_| "bubblewrap (`bwrap`) is not installed".to_owned())?;
    let setpriv = if Uid::effective().is_root() {
        Some(which::which("setpriv").map_err(|_| {
            "running as root needs util-linux's `setpriv` to leave root in the sandbox".to_owned()
        })?)
    } else {
        None
    };
    let sandbox = Sandbox {
        bwrap,
        setpriv,
        limits: SandboxLimits::default(),
    };
    let trial = std::env::temp_dir().join(format!("somite-sandbox-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&trial);
    std::fs::create_dir(&trial).map_err(|e| format!("{}: {e}", trial.display()))?;
    hand_to(&sandbox, &trial).map_err(|e| format!("{}: {e}", trial.display()))?;
    let output = sandbox
        .command(&Confined {
            work: &trial,
            writable: Vec::new(),
            read_only: Vec::new(),
            env: Vec::new(),
            program: "/bin/sh",
            args: vec!["-c".into(), ": > probe".into()],
        })
        .stderr(Stdio::piped())
        .output();
    let wrote = trial.join("probe").is_file();
    let _ = std::fs::remove_dir_all(&trial);
    match output {
        Ok(out) if out.status.success() && wrote => Ok(sandbox),
        Ok(out) => Err(format!(
            "bubblewrap cannot build the sandbox here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("bubblewrap did not start: {e}")),
    }
}

/// Gives `dir` (and what is in it) to the sandbox's user, when it runs as
/// another one.
pub fn hand_to(sandbox: &Sandbox, dir: &Path) -> std::io::Result<()> {
    let Some(uid) = sandbox.runs_as() else {
        return Ok(());
    };
    std::os::unix::fs::lchown(dir, Some(uid.as_raw()), Some(NOBODY))?;
    if dir.is_dir() && !dir.is_symlink() {
        for entry in std::fs::read_dir(dir)? {
            hand_to(sandbox, &entry?.path())?;
        }
    }
    Ok(())
}

/// The tasks (processes and threads) `uid` runs now, which count against
/// its process limit.
fn tasks_of(uid: Uid) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid.as_raw()))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |t| t.count() as u64))
        .sum()
}

/// Runs `command` (in a process group of its own) and stops the whole group
/// after `timeout`; the exit code, or `None` when it was stopped by the
/// timeout or a signal (the CPU or file-size limit's).
pub fn run_bounded(command: &mut Command, timeout: Duration) -> std::io::Result<Option<i32>> {
    let mut child = command.spawn()?;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status.code());
        }
        if Instant::now() > deadline {
            let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
            let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
