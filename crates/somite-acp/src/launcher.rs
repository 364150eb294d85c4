//! Launcher discovery: which agents can start here, and exactly how.
//!
//! Opening the Agent panel lists every registry agent with the exact argv it
//! would run. Nothing runs until the user chooses one, nothing passes through
//! a shell, and the command is held in memory only — never written into the
//! project.
//!
//! For each registry agent the launcher prefers, in order:
//! 1. an **installed** native ACP command: an executable the registry
//!    declares (`cmd` of this platform's binary, or of the npx/uvx package)
//!    found on `PATH`, run with the registry's arguments;
//! 2. a **pinned package** run through `npx -y <package>@<version>` or
//!    `uvx <package>@<version>` when `npx`/`uvx` is on `PATH`;
//! 3. otherwise it is listed as not installed, with what is missing.
//!
//! Installed agents come first, then the others in registry order.
//!
//! # The token allowlist
//!
//! Registry data is third-party input, so every token taken from it must
//! match one narrow shape, or the whole entry is rejected:
//! - an **argument** is a word `[A-Za-z0-9][A-Za-z0-9._-]*` or one of
//!   [`REGISTRY_FLAGS`], optionally `--flag=word`;
//! - a **package** is an npm (`@scope/name`) or PyPI name pinned at a version
//!   (`@1.2.3`, or `==1.2.3` for PyPI); an unpinned one is pinned at the
//!   agent's registry version;
//! - an **executable** is a bare file name, optionally `./`-prefixed;
//! - an **environment entry** has an upper-case name that is not allowlisted
//!   for the agent already, not Somite's, not secret-shaped, not a loader,
//!   interpreter, package-manager, git or proxy hook, and a short plain value
//!   (`1`, `true`).
//!
//! Everything else is refused with the token and the rule it broke: shell
//! metacharacters (`;`, `|`, `&`, `$`, backticks, redirections, quotes,
//! globs, whitespace), `..` path segments, `NAME=value` assignments, and any
//! flag outside the list (`--yes-always`, `--dangerously-skip-permissions`).
//!
//! A custom command ([`LaunchCommand::custom`]) is the user's own argv: it
//! must be non-empty, its program absolute or a bare name found on `PATH`,
//! and not a shell or `env` wrapper; its arguments are passed through as
//! given (never to a shell).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use somite_api::EnvVars;
use thiserror::Error;

use crate::env::{is_allowlisted, is_credential_shaped};
use crate::limits::{
    MAX_CUSTOM_ARGV_TOKEN_BYTES, MAX_CUSTOM_ARGV_TOKENS, MAX_REGISTRY_TOKEN_BYTES,
};
use crate::registry::{Registry, RegistryAgent};
use crate::secrets::is_secret_name;

/// The only flags a registry entry may pass to an agent.
pub const REGISTRY_FLAGS: &[&str] = &[
    "--acp",
    "--experimental-acp",
    "--experimental-skills",
    "--output-format",
    "--stdio",
];

/// Programs a custom command may not start: they would interpret their
/// arguments as a shell script or rewrite the environment.
const SHELL_PROGRAMS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "fish",
    "dash",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "nu",
    "env",
    "sudo",
    "doas",
    "cmd",
    "cmd.exe",
    "powershell",
    "powershell.exe",
    "pwsh",
    "pwsh.exe",
];

/// Environment-name prefixes a registry entry may not set: dynamic loaders,
/// interpreters, package managers, git, shells.
const FORBIDDEN_ENV_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "NODE_",
    "NPM_",
    "YARN_",
    "PNPM_",
    "PYTHON",
    "PIP_",
    "UV_",
    "GIT_",
    "BASH_",
    "JAVA_",
    EnvVars::PREFIX,
];

/// The executables on a `PATH`, searched the way a shell would but without one
/// ([`somite_process::find_program`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSearch {
    path_variable: OsString,
}

impl PathSearch {
    /// Searches the directories of a `PATH` value. Relative entries (`.`, an
    /// empty entry) are ignored, so nothing resolves against the current
    /// directory.
    #[must_use]
    pub fn new(path_variable: impl AsRef<OsStr>) -> Self {
        Self {
            path_variable: path_variable.as_ref().to_owned(),
        }
    }

    /// The first executable file called `program` on the path.
    #[must_use]
    pub fn find(&self, program: &str) -> Option<PathBuf> {
        somite_process::find_program(program, Some(&self.path_variable))
    }
}

/// This machine's registry platform key (`linux-x86_64`, `darwin-aarch64`, ...).
#[must_use]
pub fn current_platform() -> Option<&'static str> {
    Some(match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x86_64",
        ("linux", "aarch64") => "linux-aarch64",
        ("macos", "x86_64") => "darwin-x86_64",
        ("macos", "aarch64") => "darwin-aarch64",
        ("windows", "x86_64") => "windows-x86_64",
        ("windows", "aarch64") => "windows-aarch64",
        _ => return None,
    })
}

/// Exactly what starting an agent runs: a program by absolute path, its
/// arguments, and the extra environment entries the registry declares.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct LaunchCommand {
    program: PathBuf,
    args: Vec<String>,
    env: BTreeMap<String, String>,
}

impl LaunchCommand {
    /// Validates a user's own argv (see the module docs).
    ///
    /// # Errors
    /// A [`CustomCommandError`] naming the rule the argv breaks.
    pub fn custom(argv: &[String], path: &PathSearch) -> Result<Self, CustomCommandError> {
        let (program, args) = argv.split_first().ok_or(CustomCommandError::Empty)?;
        if argv.len() > MAX_CUSTOM_ARGV_TOKENS {
            return Err(CustomCommandError::TooManyTokens { count: argv.len() });
        }
        if let Some(position) = argv
            .iter()
            .position(|token| token.len() > MAX_CUSTOM_ARGV_TOKEN_BYTES)
        {
            return Err(CustomCommandError::TokenTooLong { position });
        }
        if let Some(position) = argv.iter().position(|token| token.contains('\0')) {
            return Err(CustomCommandError::NulByte { position });
        }
        let program_path = Path::new(program);
        let name = program_path
            .file_name()
            .and_then(OsStr::to_str)
            .unwrap_or_default();
        if SHELL_PROGRAMS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(CustomCommandError::Shell {
                program: program.clone(),
            });
        }
        let resolved = if program_path.is_absolute() {
            if somite_process::find_program(program_path, None).is_none() {
                return Err(CustomCommandError::NotExecutable {
                    program: program.clone(),
                });
            }
            program_path.to_path_buf()
        } else if program_path.components().count() == 1 && !program.is_empty() {
            path.find(program)
                .ok_or_else(|| CustomCommandError::NotFound {
                    program: program.clone(),
                })?
        } else {
            return Err(CustomCommandError::RelativeProgram {
                program: program.clone(),
            });
        };
        Ok(Self {
            program: resolved,
            args: args.to_vec(),
            env: BTreeMap::new(),
        })
    }

    /// The program, by absolute path.
    #[must_use]
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The arguments after the program.
    #[must_use]
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// Extra environment entries from the registry, applied over the agent's
    /// allowlisted environment.
    #[must_use]
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }

    /// The whole argv, as the panel shows it before launch.
    #[must_use]
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect()
    }
}

impl fmt::Debug for LaunchCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchCommand")
            .field("argv", &self.argv())
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Why a custom command was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CustomCommandError {
    /// The argv is empty.
    #[error("the agent command is empty; give the program and its arguments as an array")]
    Empty,
    /// The argv has too many tokens.
    #[error("the agent command has {count} tokens; at most {MAX_CUSTOM_ARGV_TOKENS} are allowed")]
    TooManyTokens {
        /// How many tokens it has.
        count: usize,
    },
    /// One token is too long.
    #[error(
        "token {position} of the agent command is longer than {MAX_CUSTOM_ARGV_TOKEN_BYTES} bytes"
    )]
    TokenTooLong {
        /// The 0-based position of the token.
        position: usize,
    },
    /// One token contains a NUL byte.
    #[error("token {position} of the agent command contains a NUL byte")]
    NulByte {
        /// The 0-based position of the token.
        position: usize,
    },
    /// The program is a shell or an environment wrapper.
    #[error(
        "`{program}` is a shell or wrapper; Somite never runs agents through one. Give the agent's own executable"
    )]
    Shell {
        /// The program.
        program: String,
    },
    /// The program is a relative path.
    #[error("`{program}` is a relative path; give an absolute path or a program name on PATH")]
    RelativeProgram {
        /// The program.
        program: String,
    },
    /// The program is not on `PATH`.
    #[error("`{program}` is not an executable on PATH; install it or give its absolute path")]
    NotFound {
        /// The program.
        program: String,
    },
    /// The absolute program is not an executable file.
    #[error("`{program}` is not an executable file")]
    NotExecutable {
        /// The program.
        program: String,
    },
}

/// A registry token that failed the allowlist.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("registry token `{token}` rejected: {rule}")]
pub struct TokenRejected {
    /// The token, as the registry gives it.
    pub token: String,
    /// The rule it broke.
    pub rule: TokenRule,
}

/// The rules of the registry token allowlist.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TokenRule {
    /// Empty, or longer than [`MAX_REGISTRY_TOKEN_BYTES`].
    #[error("a token must be 1 to {MAX_REGISTRY_TOKEN_BYTES} bytes")]
    Length,
    /// Contains a shell metacharacter, a quote, whitespace or a control character.
    #[error("it contains {0:?}, a shell, quoting, whitespace or control character")]
    ShellCharacter(char),
    /// Contains a `..` path segment.
    #[error("it climbs out of a directory with `..`")]
    ParentDirectory,
    /// Assigns an environment variable (`NAME=value`).
    #[error("it assigns an environment variable")]
    EnvironmentAssignment,
    /// A flag outside [`REGISTRY_FLAGS`].
    #[error("it is not a flag Somite accepts from the registry")]
    UnexpectedFlag,
    /// An argument that is not a plain word.
    #[error("an argument must be a plain word")]
    NotAWord,
    /// A package that is not a valid, pinned name.
    #[error("a package must be a plain npm or PyPI name at an exact version")]
    NotAPinnedPackage,
    /// A version that is not `MAJOR.MINOR.PATCH...`.
    #[error("a version must start MAJOR.MINOR.PATCH")]
    NotAVersion,
    /// An executable that is not a bare file name.
    #[error("an executable must be a bare file name")]
    NotAnExecutableName,
    /// An environment name the registry may not set.
    #[error(
        "a registry environment name must be upper-case and must not be allowlisted, Somite's, secret-shaped, or a loader, interpreter, package-manager, git or proxy setting"
    )]
    ForbiddenEnvironmentName,
    /// An environment value that is not short and plain.
    #[error("a registry environment value must be at most 64 plain characters")]
    EnvironmentValue,
}

fn reject(token: &str, rule: TokenRule) -> TokenRejected {
    TokenRejected {
        token: token.to_owned(),
        rule,
    }
}

/// Characters no registry token may hold.
fn shell_character(token: &str) -> Option<char> {
    token.chars().find(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                ';' | '|'
                    | '&'
                    | '$'
                    | '`'
                    | '<'
                    | '>'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | '*'
                    | '?'
                    | '!'
                    | '~'
                    | '#'
                    | '%'
                    | '^'
                    | '\''
                    | '"'
                    | '\\'
            )
    })
}

/// The checks every registry token passes before its own shape is checked.
fn check_characters(token: &str) -> Result<(), TokenRejected> {
    if token.is_empty() || token.len() > MAX_REGISTRY_TOKEN_BYTES {
        return Err(reject(token, TokenRule::Length));
    }
    if let Some(character) = shell_character(token) {
        return Err(reject(token, TokenRule::ShellCharacter(character)));
    }
    if token.split(['/', '\\']).any(|segment| segment == "..") {
        return Err(reject(token, TokenRule::ParentDirectory));
    }
    Ok(())
}

/// `NAME=value`, which `env` and shells read as an assignment.
fn is_environment_assignment(token: &str) -> bool {
    token.split_once('=').is_some_and(|(name, _)| {
        name.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

fn is_word(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// One registry argument: a word or an allowlisted flag.
fn check_argument(token: &str) -> Result<(), TokenRejected> {
    check_characters(token)?;
    if is_environment_assignment(token) {
        return Err(reject(token, TokenRule::EnvironmentAssignment));
    }
    if token.starts_with('-') {
        let (flag, value) = match token.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (token, None),
        };
        if !REGISTRY_FLAGS.contains(&flag) {
            return Err(reject(token, TokenRule::UnexpectedFlag));
        }
        if value.is_some_and(|value| !is_word(value)) {
            return Err(reject(token, TokenRule::NotAWord));
        }
        return Ok(());
    }
    if is_word(token) {
        Ok(())
    } else {
        Err(reject(token, TokenRule::NotAWord))
    }
}

fn check_version(version: &str) -> Result<(), TokenRejected> {
    check_characters(version)?;
    let mut parts = version.splitn(3, '.');
    let numeric = |part: Option<&str>| {
        part.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let (major, minor, rest) = (parts.next(), parts.next(), parts.next());
    let patch = rest.map(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        (&rest[..digits], &rest[digits..])
    });
    let valid = numeric(major)
        && numeric(minor)
        && patch.is_some_and(|(digits, suffix)| {
            !digits.is_empty()
                && suffix
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
        });
    if valid {
        Ok(())
    } else {
        Err(reject(version, TokenRule::NotAVersion))
    }
}

fn is_package_name(name: &str) -> bool {
    let bytes_ok = |text: &str| {
        let mut bytes = text.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
            && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, rest)| bytes_ok(scope) && bytes_ok(rest)),
        None => bytes_ok(name),
    }
}

/// Which package runner starts a pinned package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PackageRunner {
    /// `npx` (npm).
    Npx,
    /// `uvx` (PyPI, through uv).
    Uvx,
}

impl PackageRunner {
    fn program(self) -> &'static str {
        match self {
            Self::Npx => "npx",
            Self::Uvx => "uvx",
        }
    }
}

/// A registry package pinned at an exact version: `name@version` (or PyPI's
/// `name==version`), pinned at `agent_version` when the registry gives none.
fn pinned_package(
    runner: PackageRunner,
    package: &str,
    agent_version: &str,
) -> Result<String, TokenRejected> {
    check_characters(package)?;
    let scope_offset = usize::from(package.starts_with('@'));
    let version_at = package[scope_offset..]
        .rfind('@')
        .map(|index| index + scope_offset);
    let (name, version) = match version_at {
        Some(index) => (&package[..index], Some(&package[index + 1..])),
        None => match (runner, package.split_once("==")) {
            (PackageRunner::Uvx, Some((name, version))) => (name, Some(version)),
            _ => (package, None),
        },
    };
    if !is_package_name(name) {
        return Err(reject(package, TokenRule::NotAPinnedPackage));
    }
    match version {
        Some(version) => {
            check_version(version).map_err(|_| reject(package, TokenRule::NotAPinnedPackage))?;
            Ok(package.to_owned())
        }
        None => {
            check_version(agent_version)?;
            Ok(format!("{name}@{agent_version}"))
        }
    }
}

/// A registry executable: a bare file name, optionally `./`-prefixed.
fn executable_name(cmd: &str) -> Result<&str, TokenRejected> {
    check_characters(cmd)?;
    let name = cmd.strip_prefix("./").unwrap_or(cmd);
    if is_word(name) {
        Ok(name)
    } else {
        Err(reject(cmd, TokenRule::NotAnExecutableName))
    }
}

fn check_env(env: &BTreeMap<String, String>) -> Result<(), TokenRejected> {
    for (name, value) in env {
        let plain_name = name.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        let forbidden = !plain_name
            || is_allowlisted(name)
            || is_secret_name(name)
            || is_credential_shaped(name)
            || name.ends_with("_PROXY")
            || name == "ENV"
            || FORBIDDEN_ENV_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix));
        if forbidden {
            return Err(reject(name, TokenRule::ForbiddenEnvironmentName));
        }
        let plain_value = value.len() <= 64
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !plain_value {
            return Err(reject(
                &format!("{name}={value}"),
                TokenRule::EnvironmentValue,
            ));
        }
    }
    Ok(())
}

fn check_arguments(args: &[String]) -> Result<Vec<String>, TokenRejected> {
    args.iter()
        .map(|arg| check_argument(arg).map(|()| arg.clone()))
        .collect()
}

/// One agent as the Agent panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Launcher {
    /// The registry id, by which the panel names the user's choice.
    pub id: String,
    /// The display name.
    pub name: String,
    /// The version the registry pins.
    pub registry_version: String,
    /// The registry's description.
    pub description: String,
    /// Whether and how it can start.
    pub status: LauncherStatus,
}

impl Launcher {
    /// The command to run, when the agent can start.
    #[must_use]
    pub fn command(&self) -> Option<&LaunchCommand> {
        match &self.status {
            LauncherStatus::Installed { command } | LauncherStatus::Package { command, .. } => {
                Some(command)
            }
            LauncherStatus::NotInstalled { .. } | LauncherStatus::Rejected { .. } => None,
        }
    }

    fn order(&self) -> u8 {
        match self.status {
            LauncherStatus::Installed { .. } => 0,
            LauncherStatus::Package { .. } => 1,
            LauncherStatus::NotInstalled { .. } => 2,
            LauncherStatus::Rejected { .. } => 3,
        }
    }
}

/// Whether and how a registry agent can start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LauncherStatus {
    /// Its native ACP executable is on `PATH`.
    Installed {
        /// What runs.
        command: LaunchCommand,
    },
    /// Its pinned package runs through `npx` or `uvx` (fetched on first start).
    Package {
        /// `npx` or `uvx`.
        runner: PackageRunner,
        /// What runs.
        command: LaunchCommand,
    },
    /// Nothing on `PATH` can start it.
    NotInstalled {
        /// What to install.
        missing: String,
        /// This platform's release archive, when the registry has one.
        archive: Option<String>,
    },
    /// A registry token failed the allowlist.
    Rejected {
        /// The token and the rule.
        reason: String,
    },
}

/// Lists every registry agent, installed ones first (see the module docs).
#[must_use]
pub fn discover_launchers(
    registry: &Registry,
    path: &PathSearch,
    platform: Option<&str>,
) -> Vec<Launcher> {
    let mut launchers: Vec<Launcher> = registry
        .agents
        .iter()
        .map(|agent| Launcher {
            id: agent.id.clone(),
            name: agent.name.clone(),
            registry_version: agent.version.clone(),
            description: agent.description.clone(),
            status: launcher_status(agent, path, platform).unwrap_or_else(|rejected| {
                LauncherStatus::Rejected {
                    reason: rejected.to_string(),
                }
            }),
        })
        .collect();
    launchers.sort_by_key(Launcher::order);
    launchers
}

fn launcher_status(
    agent: &RegistryAgent,
    path: &PathSearch,
    platform: Option<&str>,
) -> Result<LauncherStatus, TokenRejected> {
    let distribution = &agent.distribution;
    let binary = platform.and_then(|platform| distribution.binary.get(platform));

    let native_candidates = binary
        .map(|target| (Some(target.cmd.as_str()), &target.args, &target.env))
        .into_iter()
        .chain(
            [&distribution.npx, &distribution.uvx]
                .into_iter()
                .flatten()
                .map(|package| (package.cmd.as_deref(), &package.args, &package.env)),
        );
    for (cmd, args, env) in native_candidates {
        let Some(cmd) = cmd else { continue };
        let name = executable_name(cmd)?;
        if let Some(program) = path.find(name) {
            check_env(env)?;
            return Ok(LauncherStatus::Installed {
                command: LaunchCommand {
                    program,
                    args: check_arguments(args)?,
                    env: env.clone(),
                },
            });
        }
    }

    let packages = [
        (PackageRunner::Npx, &distribution.npx),
        (PackageRunner::Uvx, &distribution.uvx),
    ];
    for (runner, package) in packages {
        let Some(package) = package else { continue };
        let Some(program) = path.find(runner.program()) else {
            continue;
        };
        let pinned = pinned_package(runner, &package.package, &agent.version)?;
        let mut args = match (runner, package.cmd.as_deref()) {
            (PackageRunner::Npx, None) => vec!["-y".to_owned(), pinned],
            (PackageRunner::Npx, Some(cmd)) => vec![
                "-y".to_owned(),
                "--package".to_owned(),
                pinned,
                executable_name(cmd)?.to_owned(),
            ],
            (PackageRunner::Uvx, None) => vec![pinned],
            (PackageRunner::Uvx, Some(cmd)) => {
                vec![
                    "--from".to_owned(),
                    pinned,
                    executable_name(cmd)?.to_owned(),
                ]
            }
        };
        args.extend(check_arguments(&package.args)?);
        check_env(&package.env)?;
        return Ok(LauncherStatus::Package {
            runner,
            command: LaunchCommand {
                program,
                args,
                env: package.env.clone(),
            },
        });
    }

    let missing = match (binary, &distribution.npx, &distribution.uvx) {
        (Some(target), _, _) => format!(
            "`{}` on PATH (from the release archive)",
            executable_name(&target.cmd)?
        ),
        (None, Some(_), _) => "`npx` (Node.js) on PATH".to_owned(),
        (None, None, Some(_)) => "`uvx` (uv) on PATH".to_owned(),
        (None, None, None) => "a distribution for this platform".to_owned(),
    };
    Ok(LauncherStatus::NotInstalled {
        missing,
        archive: binary.map(|target| target.archive.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_and_listed_flags_pass() {
        for token in [
            "acp",
            "exec",
            "--acp",
            "--experimental-acp",
            "--output-format",
            "--output-format=acp",
            "serve",
        ] {
            assert_eq!(check_argument(token), Ok(()), "{token}");
        }
    }

    #[test]
    fn shell_syntax_and_unexpected_flags_are_rejected_with_their_rule() {
        let cases: &[(&str, TokenRule)] = &[
            ("acp;rm", TokenRule::ShellCharacter(';')),
            ("a|b", TokenRule::ShellCharacter('|')),
            ("a&&b", TokenRule::ShellCharacter('&')),
            ("$(id)", TokenRule::ShellCharacter('$')),
            ("`id`", TokenRule::ShellCharacter('`')),
            (">out", TokenRule::ShellCharacter('>')),
            ("<in", TokenRule::ShellCharacter('<')),
            ("two words", TokenRule::ShellCharacter(' ')),
            ("new\nline", TokenRule::ShellCharacter('\n')),
            ("'quoted'", TokenRule::ShellCharacter('\'')),
            ("*.js", TokenRule::ShellCharacter('*')),
            ("~/x", TokenRule::ShellCharacter('~')),
            ("../bin/agent", TokenRule::ParentDirectory),
            ("a/../../b", TokenRule::ParentDirectory),
            ("..", TokenRule::ParentDirectory),
            ("NODE_OPTIONS=--inspect", TokenRule::EnvironmentAssignment),
            ("FOO=bar", TokenRule::EnvironmentAssignment),
            ("--yes-always", TokenRule::UnexpectedFlag),
            ("--dangerously-skip-permissions", TokenRule::UnexpectedFlag),
            ("-y", TokenRule::UnexpectedFlag),
            ("--acp=a/b", TokenRule::NotAWord),
            ("/abs/path", TokenRule::NotAWord),
            ("", TokenRule::Length),
        ];
        for (token, rule) in cases {
            assert_eq!(
                check_argument(token),
                Err(reject(token, rule.clone())),
                "{token:?}"
            );
        }
        assert_eq!(
            check_argument(&"a".repeat(MAX_REGISTRY_TOKEN_BYTES + 1)).map_err(|e| e.rule),
            Err(TokenRule::Length)
        );
    }

    #[test]
    fn packages_are_pinned() {
        let npx = PackageRunner::Npx;
        assert_eq!(
            pinned_package(npx, "@zed-industries/codex-acp@0.9.2", "0.9.2"),
            Ok("@zed-industries/codex-acp@0.9.2".to_owned())
        );
        assert_eq!(
            pinned_package(npx, "@zed-industries/codex-acp", "0.9.2"),
            Ok("@zed-industries/codex-acp@0.9.2".to_owned())
        );
        assert_eq!(
            pinned_package(PackageRunner::Uvx, "fast-agent-acp==0.4.1", "0.4.1"),
            Ok("fast-agent-acp==0.4.1".to_owned())
        );
        assert_eq!(
            pinned_package(PackageRunner::Uvx, "ruff==0.4.1", "0.4.1"),
            Ok("ruff==0.4.1".to_owned())
        );
        for bad in ["@scope/x@latest", "x@^1.2.0", "https://evil/x.tgz", "x@1.2"] {
            assert!(pinned_package(npx, bad, "1.0.0").is_err(), "{bad}");
        }
        assert_eq!(
            pinned_package(npx, "x", "latest").map_err(|e| e.rule),
            Err(TokenRule::NotAVersion)
        );
    }

    #[test]
    fn registry_environment_must_be_plain_and_harmless() {
        let env = |name: &str, value: &str| BTreeMap::from([(name.to_owned(), value.to_owned())]);
        assert_eq!(check_env(&env("AUGMENT_DISABLE_AUTO_UPDATE", "1")), Ok(()));
        for name in [
            "PATH",
            "HOME",
            "LD_PRELOAD",
            "NODE_OPTIONS",
            "NODE_TLS_REJECT_UNAUTHORIZED",
            "HTTPS_PROXY",
            "GIT_SSH_COMMAND",
            "OPENAI_API_KEY",
            EnvVars::SOMITE_MCP_CAPABILITY,
            "lower_case",
        ] {
            assert_eq!(
                check_env(&env(name, "1")).map_err(|e| e.rule),
                Err(TokenRule::ForbiddenEnvironmentName),
                "{name}"
            );
        }
        assert_eq!(
            check_env(&env("AGENT_MODE", "a b")).map_err(|e| e.rule),
            Err(TokenRule::EnvironmentValue)
        );
    }
}
