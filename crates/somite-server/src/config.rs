//! Start-up configuration, parsed once and validated before anything binds.
//!
//! Every setting has a command-line form and, where useful, an environment
//! variable. An invalid value stops start-up with a message that names the
//! variable and the range it accepts, rather than surfacing later as a
//! confusing runtime failure.

use crate::agent::AgentSetup;
use somite_api::EnvVars;
use somite_project::toolchain::{InvalidPixiSetting, find_on_path, resolve_pixi};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// The port `somite serve` uses when none is given.
pub const DEFAULT_PORT: u16 = 7310;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub project: PathBuf,
    pub address: SocketAddr,
    /// A folder with a built web bundle to serve instead of the one the
    /// binary carries (development: `npm run build` without relinking).
    pub web_bundle: Option<PathBuf>,
    /// How often an idle activity stream sends a keep-alive comment.
    pub sse_keepalive: Duration,
    /// What agents and their MCP servers start with.
    pub agents: AgentSetup,
    /// The Pixi that compiles lock packages with and runs execute them
    /// with: `SOMITE_PIXI`, else `pixi` on `PATH`, else none.
    pub pixi: Option<PathBuf>,
    /// How many connections are held and how long a request head may take.
    pub connections: ConnectionLimits,
    /// Where pipeline sources come from and are kept; `None` reads
    /// [`somite_source::SourceConfig::from_env`] (tests point it at a
    /// loopback stand-in).
    pub sources: Option<somite_source::SourceConfig>,
}

/// Bounds on the connections the runtime holds (see [`crate::serve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections held at once (at least one); when all are taken, the
    /// oldest one still sending its request head is closed to make room for
    /// a newcomer.
    pub max_connections: usize,
    /// How long a connection may take to send its whole request head before
    /// it is closed unanswered.
    pub header_read_timeout: Duration,
    /// How long a kept-alive connection may take, after a response, to send
    /// its next whole request head (at most the header-read timeout).
    pub idle_timeout: Duration,
    /// How long a request body may take to arrive once its head has; then
    /// the request is answered `request_timeout` and its connection closed.
    pub body_read_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: crate::serve::MAX_CONNECTIONS,
            header_read_timeout: crate::serve::HEADER_READ_TIMEOUT,
            idle_timeout: somite_api::limits::RUNTIME_KEEP_ALIVE,
            body_read_timeout: crate::body::BODY_READ_TIMEOUT,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{variable}={value:?} is invalid: {accepted}")]
    Invalid {
        variable: &'static str,
        value: String,
        accepted: &'static str,
    },
    /// `SOMITE_AGENT_CREDENTIAL_ENV_NAMES` breaks a rule.
    #[error("{0}")]
    AgentCredentials(String),
    #[error(
        "refusing to bind {0}: Somite serves loopback only (127.0.0.1, ::1); \
         it has no authentication for other machines"
    )]
    NotLoopback(IpAddr),
}

/// What the command line said; `None` falls back to the environment, then
/// the default.
#[derive(Debug, Clone, Default)]
pub struct CliOverrides {
    pub project: Option<PathBuf>,
    pub port: Option<u16>,
    pub host: Option<IpAddr>,
}

impl ServerConfig {
    /// Builds the configuration from the command line and an environment map.
    pub fn from_sources(
        cli: CliOverrides,
        env: &BTreeMap<String, String>,
    ) -> Result<ServerConfig, ConfigError> {
        let port = match (cli.port, env.get(EnvVars::SOMITE_PORT)) {
            (Some(port), _) => port,
            (None, Some(value)) => {
                value
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or_else(|| ConfigError::Invalid {
                        variable: EnvVars::SOMITE_PORT,
                        value: value.clone(),
                        accepted: "a TCP port number within 1..=65535",
                    })?
            }
            (None, None) => DEFAULT_PORT,
        };
        let host = match (cli.host, env.get(EnvVars::SOMITE_HOST)) {
            (Some(host), _) => host,
            (None, Some(value)) => value.parse().map_err(|_| ConfigError::Invalid {
                variable: EnvVars::SOMITE_HOST,
                value: value.clone(),
                accepted: "a loopback IP address: 127.0.0.1 or ::1",
            })?,
            (None, None) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        // The two addresses the docs name: any other loopback address
        // (127.0.0.2) is one the browser page and the CLI do not look for.
        if host != IpAddr::V4(Ipv4Addr::LOCALHOST) && host != IpAddr::V6(Ipv6Addr::LOCALHOST) {
            return Err(ConfigError::NotLoopback(host));
        }
        let somite_binary =
            std::env::current_exe().unwrap_or_else(|_| PathBuf::from(env!("CARGO_PKG_NAME")));
        let agents = AgentSetup::from_env(env, somite_binary)
            .map_err(|e| ConfigError::AgentCredentials(e.to_string()))?;
        let sse_keepalive = match env.get(EnvVars::SOMITE_SSE_KEEPALIVE_SECS) {
            None => Duration::from_secs(15),
            Some(value) => value
                .parse::<u64>()
                .ok()
                .filter(|s| (1..=300).contains(s))
                .map(Duration::from_secs)
                .ok_or_else(|| ConfigError::Invalid {
                    variable: EnvVars::SOMITE_SSE_KEEPALIVE_SECS,
                    value: value.clone(),
                    accepted: "whole seconds within 1..=300",
                })?,
        };
        Ok(ServerConfig {
            project: cli.project.unwrap_or_else(|| PathBuf::from(".")),
            address: SocketAddr::new(host, port),
            web_bundle: env.get(EnvVars::SOMITE_WEB_BUNDLE).map(PathBuf::from),
            sse_keepalive,
            agents,
            pixi: resolve_pixi(env.get(EnvVars::SOMITE_PIXI).map(String::as_str)).map_err(
                |InvalidPixiSetting(value)| ConfigError::Invalid {
                    variable: EnvVars::SOMITE_PIXI,
                    value,
                    accepted: "the absolute path of an existing pixi executable",
                },
            )?,
            connections: ConnectionLimits::default(),
            sources: None,
        })
    }

    /// A runtime on an ephemeral loopback port with the defaults, whose MCP
    /// servers run as `somite_binary`; agents get this process's allowlisted
    /// environment, and the ACP Registry is the bundled snapshot (set
    /// `agents.registry_url` to fetch one). For embedding and tests.
    ///
    /// # Errors
    /// The environment's credential opt-in breaks a rule.
    pub fn loopback(
        project: impl Into<PathBuf>,
        somite_binary: impl Into<PathBuf>,
    ) -> Result<ServerConfig, ConfigError> {
        let env: BTreeMap<String, String> = std::env::vars().collect();
        Ok(ServerConfig {
            project: project.into(),
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            web_bundle: None,
            sse_keepalive: Duration::from_secs(15),
            agents: AgentSetup {
                // A test runtime never reaches the network on its own.
                registry_url: None,
                ..AgentSetup::from_env(&env, somite_binary.into())
                    .map_err(|e| ConfigError::AgentCredentials(e.to_string()))?
            },
            pixi: find_on_path("pixi"),
            connections: ConnectionLimits::default(),
            sources: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_bind_loopback_on_the_documented_port() {
        let config = ServerConfig::from_sources(CliOverrides::default(), &env(&[])).unwrap();
        assert_eq!(config.address.to_string(), "127.0.0.1:7310");
    }

    #[test]
    fn invalid_values_name_the_variable_and_its_range() {
        for (var, value) in [
            (EnvVars::SOMITE_PORT, "0"),
            (EnvVars::SOMITE_PORT, "70000"),
            (EnvVars::SOMITE_PORT, "http"),
            (EnvVars::SOMITE_SSE_KEEPALIVE_SECS, "0"),
            (EnvVars::SOMITE_SSE_KEEPALIVE_SECS, "301"),
            (EnvVars::SOMITE_HOST, "localhost:1"),
            (EnvVars::SOMITE_PIXI, "pixi"),
            (EnvVars::SOMITE_PIXI, "/no/such/pixi"),
        ] {
            let err = ServerConfig::from_sources(CliOverrides::default(), &env(&[(var, value)]))
                .unwrap_err();
            let text = err.to_string();
            assert!(text.contains(var), "{text}");
            assert!(
                ["within", "loopback", "absolute path"]
                    .iter()
                    .any(|accepted| text.contains(accepted)),
                "the accepted range is named: {text}"
            );
        }
    }

    #[test]
    fn a_non_loopback_address_is_refused() {
        // 127.0.0.2 is loopback, but not an address the docs, the page or
        // the CLI name.
        for host in ["0.0.0.0", "192.0.2.1", "::", "127.0.0.2", "127.1.2.3"] {
            let err = ServerConfig::from_sources(
                CliOverrides::default(),
                &env(&[(EnvVars::SOMITE_HOST, host)]),
            )
            .unwrap_err();
            assert!(matches!(err, ConfigError::NotLoopback(_)), "{host}");
        }
        let cli = CliOverrides {
            host: Some("10.1.2.3".parse().unwrap()),
            ..Default::default()
        };
        assert!(ServerConfig::from_sources(cli, &env(&[])).is_err());
    }

    #[test]
    fn the_command_line_wins_over_the_environment() {
        let cli = CliOverrides {
            port: Some(9000),
            ..Default::default()
        };
        let config =
            ServerConfig::from_sources(cli, &env(&[(EnvVars::SOMITE_PORT, "9100")])).unwrap();
        assert_eq!(config.address.port(), 9000);
    }
}
