//! The agent child's environment: an explicit allowlist, never inheritance.
//!
//! The runner's environment holds proxies, application configuration, tokens
//! and Somite's own MCP capability. An agent inheriting all of it would carry
//! them into every tool it runs, so Somite builds the child environment from
//! nothing: executable discovery, home and XDG directories, temporary
//! directories, certificate bundles, locale, and the Windows/WSL process
//! basics. Everything else is dropped, and so is an allowlisted variable
//! whose value looks like a secret.
//!
//! An agent that needs an existing credential is opted in by name when Somite
//! starts: `SOMITE_AGENT_CREDENTIAL_ENV_NAMES=OPENAI_API_KEY,ANTHROPIC_API_KEY`.
//! The list is checked once, at start-up, by [`AgentEnvironment::from_runner_env`];
//! any violation is an error that names the variable and the rule, and the
//! server refuses to start with it.
//!
//! The rules for that list:
//! - at most [`MAX_CREDENTIAL_NAMES`] comma-separated names in
//!   [`MAX_CREDENTIAL_LIST_BYTES`] bytes (spaces around names are ignored, an
//!   empty item is an error);
//! - each name is credential-shaped: `^[A-Z][A-Z0-9_]*` followed by one of
//!   [`CREDENTIAL_SUFFIXES`] (`OPENAI_API_KEY`, `GITHUB_TOKEN`,
//!   `AWS_SECRET_ACCESS_KEY`, `AWS_ACCESS_KEY_ID`, `GOOGLE_APPLICATION_CREDENTIALS`);
//! - no `SOMITE_` name, and never [`MCP_CAPABILITY_VARIABLE`];
//! - no name twice;
//! - each name is set, non-empty, in the runner's environment.
//!
//! This boundary prevents accidental inheritance; the agent still runs as the
//! same operating-system user and is not sandboxed.

use std::collections::BTreeMap;
use std::fmt;

use somite_api::EnvVars;
use thiserror::Error;

use crate::limits::{MAX_CREDENTIAL_LIST_BYTES, MAX_CREDENTIAL_NAMES};
use crate::secrets::contains_secret_value;

/// The runner variable that opts named credentials into the agent's environment.
pub const CREDENTIAL_NAMES_VARIABLE: &str = EnvVars::SOMITE_AGENT_CREDENTIAL_ENV_NAMES;

/// The variable that carries the Somite MCP runtime capability to the Somite
/// MCP server. It is never forwarded to an agent.
pub const MCP_CAPABILITY_VARIABLE: &str = EnvVars::SOMITE_MCP_CAPABILITY;

/// How a credential name must end.
pub const CREDENTIAL_SUFFIXES: &[&str] = &[
    "_API_KEY",
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_CREDENTIALS",
    "_ACCESS_KEY_ID",
];

/// Portable variables the agent may inherit, matched exactly.
const PORTABLE_VARIABLES: &[&str] = &[
    // Executable discovery and the user's identity and home.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    // Agents that run commands look for the user's shell here; it is a path,
    // never a secret, and Somite itself never runs a shell.
    "SHELL",
    // Configuration, data, cache, state and runtime directories.
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    // Temporary directories.
    "TMPDIR",
    "TMP",
    "TEMP",
    // Certificate bundles (OpenSSL, Node, Python requests, curl).
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    // Locale and time zone (`LC_*` is matched as a family).
    "LANG",
    "LANGUAGE",
    "TZ",
];

/// Windows and WSL process basics, matched without regard to case because
/// Windows environment names are case-insensitive.
const WINDOWS_VARIABLES: &[&str] = &[
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "PROGRAMW6432",
    "COMMONPROGRAMFILES",
    "COMMONPROGRAMFILES(X86)",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
    "WSL_DISTRO_NAME",
    "WSL_INTEROP",
    "WSLENV",
];

/// Whether `name` belongs to the portable allowlist. A terminal is not among
/// them: the agent's standard streams are pipes, so `TERM` is left unset.
#[must_use]
pub fn is_allowlisted(name: &str) -> bool {
    PORTABLE_VARIABLES
        .iter()
        .any(|allowed| *allowed == name || (cfg!(windows) && allowed.eq_ignore_ascii_case(name)))
        || WINDOWS_VARIABLES
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(name))
        || is_locale_category(name)
}

/// `LC_ALL`, `LC_CTYPE`, `LC_MESSAGES`, ...
fn is_locale_category(name: &str) -> bool {
    name.strip_prefix("LC_")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_uppercase()))
}

/// Whether `name` has the shape of a credential variable (see the module docs).
#[must_use]
pub fn is_credential_shaped(name: &str) -> bool {
    let mut bytes = name.bytes();
    let starts_with_letter = bytes.next().is_some_and(|b| b.is_ascii_uppercase());
    let rest_is_plain = bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    starts_with_letter
        && rest_is_plain
        && CREDENTIAL_SUFFIXES
            .iter()
            .any(|suffix| name.len() > suffix.len() && name.ends_with(suffix))
}

/// A violation of the credential opt-in rules. The server stops start-up with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CredentialOptInError {
    /// The list is longer than [`MAX_CREDENTIAL_LIST_BYTES`].
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} is {bytes} bytes long; it may hold at most {MAX_CREDENTIAL_LIST_BYTES} bytes. Name fewer credentials."
    )]
    ListTooLong {
        /// The list's length.
        bytes: usize,
    },
    /// The list names more than [`MAX_CREDENTIAL_NAMES`] variables.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} names {count} variables; it may name at most {MAX_CREDENTIAL_NAMES}. Name only the credentials your agent needs."
    )]
    TooManyNames {
        /// How many names the list holds.
        count: usize,
    },
    /// An item of the comma-separated list is empty.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} has an empty name at position {position}; separate names with single commas."
    )]
    EmptyName {
        /// The 1-based position of the empty item.
        position: usize,
    },
    /// The list names the Somite MCP capability.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} names {MCP_CAPABILITY_VARIABLE}, the Somite MCP capability, which is never forwarded to an agent. Remove it from the list."
    )]
    McpCapability,
    /// The list names another variable of Somite's own.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} names `{name}`; SOMITE_ variables belong to Somite and are never forwarded to an agent. Remove it from the list."
    )]
    ReservedName {
        /// The offending name.
        name: String,
    },
    /// A name does not look like a credential variable.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} names `{name}`, which is not credential-shaped: a name must be upper-case letters, digits and underscores ending in _API_KEY, _KEY, _TOKEN, _SECRET, _PASSWORD, _CREDENTIALS or _ACCESS_KEY_ID. Other settings are not forwarded."
    )]
    NotCredentialShaped {
        /// The offending name.
        name: String,
    },
    /// A name appears twice.
    #[error("{CREDENTIAL_NAMES_VARIABLE} names `{name}` twice; name each credential once.")]
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// A named variable is not set, or is empty, in the runner's environment.
    #[error(
        "{CREDENTIAL_NAMES_VARIABLE} names `{name}`, but `{name}` is not set in Somite's environment. Export it before starting Somite, or remove it from the list."
    )]
    MissingValue {
        /// The missing variable.
        name: String,
    },
}

/// The environment an agent child receives. Its `Debug` form shows names only.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct AgentEnvironment {
    variables: BTreeMap<String, String>,
}

impl AgentEnvironment {
    /// Builds the agent environment from the runner's environment: the
    /// allowlist (minus secret-shaped values) plus the credentials opted in by
    /// [`CREDENTIAL_NAMES_VARIABLE`].
    ///
    /// # Errors
    /// A [`CredentialOptInError`] when the opt-in list breaks a rule.
    pub fn from_runner_env<I, K, V>(runner_env: I) -> Result<Self, CredentialOptInError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let runner: BTreeMap<String, String> = runner_env
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .collect();
        let credentials = match runner.get(CREDENTIAL_NAMES_VARIABLE) {
            Some(list) => credential_names(list, &runner)?,
            None => Vec::new(),
        };
        let mut variables: BTreeMap<String, String> = runner
            .iter()
            .filter(|(name, value)| is_allowlisted(name) && !contains_secret_value(value))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        for name in credentials {
            let value = runner[&name].clone();
            variables.insert(name, value);
        }
        Ok(Self { variables })
    }

    /// Builds the agent environment from this process's environment.
    /// Variables whose name or value is not Unicode are skipped.
    ///
    /// # Errors
    /// A [`CredentialOptInError`] when the opt-in list breaks a rule.
    pub fn from_current_process() -> Result<Self, CredentialOptInError> {
        Self::from_runner_env(std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }))
    }

    /// The value of one variable.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// Every variable, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.variables
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }
}

impl fmt::Debug for AgentEnvironment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentEnvironment")
            .field("names", &self.variables.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Checks the opt-in list against every rule, in the order the module docs give.
fn credential_names(
    list: &str,
    runner: &BTreeMap<String, String>,
) -> Result<Vec<String>, CredentialOptInError> {
    if list.len() > MAX_CREDENTIAL_LIST_BYTES {
        return Err(CredentialOptInError::ListTooLong { bytes: list.len() });
    }
    if list.trim().is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    if names.len() > MAX_CREDENTIAL_NAMES {
        return Err(CredentialOptInError::TooManyNames { count: names.len() });
    }
    let mut accepted: Vec<String> = Vec::with_capacity(names.len());
    for (index, name) in names.into_iter().enumerate() {
        if name.is_empty() {
            return Err(CredentialOptInError::EmptyName {
                position: index + 1,
            });
        }
        if name == MCP_CAPABILITY_VARIABLE {
            return Err(CredentialOptInError::McpCapability);
        }
        if name.starts_with(EnvVars::PREFIX) {
            return Err(CredentialOptInError::ReservedName { name: name.into() });
        }
        if !is_credential_shaped(name) {
            return Err(CredentialOptInError::NotCredentialShaped { name: name.into() });
        }
        if accepted.iter().any(|seen| seen == name) {
            return Err(CredentialOptInError::DuplicateName { name: name.into() });
        }
        if runner.get(name).is_none_or(String::is_empty) {
            return Err(CredentialOptInError::MissingValue { name: name.into() });
        }
        accepted.push(name.to_owned());
    }
    Ok(accepted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    fn names(environment: &AgentEnvironment) -> Vec<&str> {
        environment.iter().map(|(name, _)| name).collect()
    }

    #[test]
    fn only_allowlisted_variables_pass_and_secret_values_are_dropped() {
        let environment = AgentEnvironment::from_runner_env(runner(&[
            ("PATH", "/usr/bin:/bin"),
            ("HOME", "/home/ada"),
            ("SHELL", "/bin/bash"),
            ("LANG", "en_GB.UTF-8"),
            ("LC_ALL", "C"),
            ("XDG_CACHE_HOME", "/home/ada/.cache"),
            ("TMPDIR", "/tmp"),
            ("SSL_CERT_FILE", "/etc/ssl/cert.pem"),
            ("NODE_EXTRA_CA_CERTS", "/etc/ssl/extra.pem"),
            ("SystemRoot", "C:\\Windows"),
            ("WSL_DISTRO_NAME", "Debian"),
            ("HTTPS_PROXY", "http://proxy:3128"),
            ("http_proxy", "http://proxy:3128"),
            ("NODE_OPTIONS", "--require /tmp/hook.js"),
            ("NPM_CONFIG_REGISTRY", "https://registry.example"),
            ("GIT_DIR", "/repo/.git"),
            ("LD_PRELOAD", "/tmp/evil.so"),
            ("OPENAI_API_KEY", "sk-abcdefghijklmnopqrstuvwxyz"),
            (MCP_CAPABILITY_VARIABLE, "capability-value"),
            ("TERM", "xterm-256color"),
            ("LC_", "C"),
            ("TMP", "https://user:topsecret@example/tmp"),
        ]))
        .expect("no opt-in list");
        assert_eq!(
            names(&environment),
            [
                "HOME",
                "LANG",
                "LC_ALL",
                "NODE_EXTRA_CA_CERTS",
                "PATH",
                "SHELL",
                "SSL_CERT_FILE",
                "SystemRoot",
                "TMPDIR",
                "WSL_DISTRO_NAME",
                "XDG_CACHE_HOME",
            ]
        );
        assert!(!format!("{environment:?}").contains("/usr/bin"));
    }

    #[test]
    fn named_credentials_are_forwarded() {
        let environment = AgentEnvironment::from_runner_env(runner(&[
            ("PATH", "/usr/bin"),
            (
                CREDENTIAL_NAMES_VARIABLE,
                " OPENAI_API_KEY , ANTHROPIC_API_KEY",
            ),
            ("OPENAI_API_KEY", "sk-abcdefghijklmnopqrstuvwxyz"),
            ("ANTHROPIC_API_KEY", "sk-ant-abcdefghijklmnopqrstuvwxyz"),
            ("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz"),
        ]))
        .expect("valid opt-in");
        assert_eq!(
            environment.get("OPENAI_API_KEY"),
            Some("sk-abcdefghijklmnopqrstuvwxyz")
        );
        assert!(environment.get("ANTHROPIC_API_KEY").is_some());
        assert_eq!(environment.get("GITHUB_TOKEN"), None);
        assert_eq!(environment.get(CREDENTIAL_NAMES_VARIABLE), None);
    }

    #[test]
    fn an_empty_opt_in_list_forwards_nothing() {
        let environment = AgentEnvironment::from_runner_env(runner(&[
            (CREDENTIAL_NAMES_VARIABLE, "  "),
            ("PATH", "/usr/bin"),
        ]))
        .expect("empty list is fine");
        assert_eq!(names(&environment), ["PATH"]);
    }

    fn opt_in_error(list: &str, extra: &[(&str, &str)]) -> CredentialOptInError {
        let mut pairs = runner(extra);
        pairs.push((CREDENTIAL_NAMES_VARIABLE.into(), list.into()));
        AgentEnvironment::from_runner_env(pairs).expect_err("the list breaks a rule")
    }

    #[test]
    fn thirty_two_names_pass_and_thirty_three_fail() {
        let names: Vec<String> = (0..33).map(|i| format!("AGENT{i}_TOKEN")).collect();
        let pairs: Vec<(String, String)> =
            names.iter().map(|n| (n.clone(), "value".into())).collect();
        let pairs_ref: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();

        let mut allowed = runner(&pairs_ref);
        allowed.push((CREDENTIAL_NAMES_VARIABLE.into(), names[..32].join(",")));
        let environment = AgentEnvironment::from_runner_env(allowed).expect("32 names fit");
        assert_eq!(environment.iter().count(), 32);

        let error = opt_in_error(&names.join(","), &pairs_ref);
        assert_eq!(error, CredentialOptInError::TooManyNames { count: 33 });
        assert!(error.to_string().contains(CREDENTIAL_NAMES_VARIABLE));
        assert!(error.to_string().contains("at most 32"));
    }

    #[test]
    fn a_list_over_four_kib_fails_even_with_few_names() {
        let long_name = format!("A{}_TOKEN", "B".repeat(MAX_CREDENTIAL_LIST_BYTES));
        let error = opt_in_error(&long_name, &[]);
        assert_eq!(
            error,
            CredentialOptInError::ListTooLong {
                bytes: long_name.len()
            }
        );
        assert!(error.to_string().contains("4096 bytes"));

        let exactly = format!("A{}_TOKEN", "B".repeat(MAX_CREDENTIAL_LIST_BYTES - 7));
        assert_eq!(exactly.len(), MAX_CREDENTIAL_LIST_BYTES);
        let environment = AgentEnvironment::from_runner_env(runner(&[
            (CREDENTIAL_NAMES_VARIABLE, &exactly),
            (&exactly, "value"),
        ]))
        .expect("exactly 4 KiB fits");
        assert_eq!(environment.get(&exactly), Some("value"));
    }

    #[test]
    fn names_that_are_not_credential_shaped_fail() {
        for name in [
            "PATH",
            "HTTPS_PROXY",
            "NODE_OPTIONS",
            "openai_api_key",
            "KEY",
            "_TOKEN",
            "MY-API-KEY",
            "1PASSWORD_TOKEN",
        ] {
            let error = opt_in_error(name, &[(name, "value")]);
            assert_eq!(
                error,
                CredentialOptInError::NotCredentialShaped { name: name.into() },
                "{name}"
            );
            assert!(error.to_string().contains("not credential-shaped"));
        }
    }

    #[test]
    fn named_credentials_must_be_set_in_the_runner() {
        assert_eq!(
            opt_in_error("OPENAI_API_KEY", &[]),
            CredentialOptInError::MissingValue {
                name: "OPENAI_API_KEY".into()
            }
        );
        assert_eq!(
            opt_in_error("OPENAI_API_KEY", &[("OPENAI_API_KEY", "")]),
            CredentialOptInError::MissingValue {
                name: "OPENAI_API_KEY".into()
            }
        );
    }

    #[test]
    fn the_mcp_capability_and_somite_names_can_never_be_forwarded() {
        let error = opt_in_error(MCP_CAPABILITY_VARIABLE, &[(MCP_CAPABILITY_VARIABLE, "x")]);
        assert_eq!(error, CredentialOptInError::McpCapability);
        assert!(error.to_string().contains(MCP_CAPABILITY_VARIABLE));
        assert_eq!(
            opt_in_error("SOMITE_SERVER_TOKEN", &[("SOMITE_SERVER_TOKEN", "x")]),
            CredentialOptInError::ReservedName {
                name: "SOMITE_SERVER_TOKEN".into()
            }
        );
    }

    #[test]
    fn empty_items_and_duplicates_fail() {
        assert_eq!(
            opt_in_error("A_TOKEN,,B_TOKEN", &[("A_TOKEN", "a"), ("B_TOKEN", "b")]),
            CredentialOptInError::EmptyName { position: 2 }
        );
        assert_eq!(
            opt_in_error("A_TOKEN,A_TOKEN", &[("A_TOKEN", "a")]),
            CredentialOptInError::DuplicateName {
                name: "A_TOKEN".into()
            }
        );
    }
}
