//! The logs of Somite's long-running processes — `somite serve` and the
//! stdio MCP servers (`somite mcp ...`) — set up once, here.
//!
//! Lines are human-readable and go to stderr: stdout carries the MCP
//! servers' protocol and `serve`'s ready line. The filter is `SOMITE_LOG`,
//! else `RUST_LOG` (both in `tracing`'s `EnvFilter` syntax: `debug`,
//! `somite_server=debug,warn`), else [`DEFAULT_FILTER`]: `info` for
//! Somite's own crates, `warn` for the libraries under them.
//!
//! No secret reaches a log line. Each formatted line goes through the one
//! redactor Somite has (`somite_acp::transcript::Redactor`, the same that
//! masks transcripts and the activity feed) before it is written, which
//! masks secret-shaped values anywhere (`ghp_…`, `sk-…`, bearer values,
//! passwords in URLs) and the values of this process's secret-shaped
//! environment variables — the MCP capability of `somite mcp somite`, the
//! credentials `somite serve` hands an agent — in any case and in pieces.
//! Fields whose name is secret-shaped (`capability`, `token`,
//! `authorization`, ...) are masked whole before that. Lines carry no ANSI
//! colour, so no escape sequence can split a secret the redactor would
//! otherwise see.

use somite_acp::transcript::{REDACTED, Redactor, is_secret_name};
use std::collections::BTreeMap;
use std::io::Write;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::{self, Writer};

/// The log filter Somite reads first.
const LOG_ENV: &str = somite_api::EnvVars::SOMITE_LOG;
/// The conventional filter variable, read when [`LOG_ENV`] is unset.
const RUST_LOG_ENV: &str = somite_api::EnvVars::RUST_LOG;
/// `info` for Somite's crates, `warn` for everything else. A target
/// directive matches every target it prefixes, so `somite` covers
/// `somite_server`, `somite_acp` and the rest.
pub const DEFAULT_FILTER: &str = "warn,somite=info";

/// Installs the subscriber for this process (once; later calls keep the
/// first).
pub fn init() {
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let (filter, rejected) = filter(&env);
    let subscriber = subscriber(filter, redactor(&env), std::io::stderr);
    if tracing::subscriber::set_global_default(subscriber).is_ok()
        && let Some((variable, error)) = rejected
    {
        tracing::warn!(%error, "{variable} is not a log filter; using {DEFAULT_FILTER}");
    }
}

/// The filter the environment asks for, with the variable and why when it
/// asked for one that does not parse.
fn filter(env: &BTreeMap<String, String>) -> (EnvFilter, Option<(&'static str, String)>) {
    let asked = [LOG_ENV, RUST_LOG_ENV].into_iter().find_map(|variable| {
        env.get(variable)
            .filter(|value| !value.trim().is_empty())
            .map(|value| (variable, value))
    });
    let default = || EnvFilter::new(DEFAULT_FILTER);
    match asked {
        None => (default(), None),
        Some((variable, value)) => match EnvFilter::try_new(value) {
            Ok(filter) => (filter, None),
            Err(error) => (default(), Some((variable, error.to_string()))),
        },
    }
}

/// The redactor for this process's logs: it also knows every value of a
/// secret-shaped variable in `env`.
fn redactor(env: &BTreeMap<String, String>) -> Redactor {
    Redactor::with_known_secrets(
        env.iter()
            .filter(|(name, _)| is_secret_name(name))
            .map(|(_, value)| value.clone()),
    )
}

/// The subscriber: `filter`ed events, fields with secret-shaped names
/// masked, each line redacted by `redactor` and written to `make_writer`.
fn subscriber<W>(
    filter: EnvFilter,
    redactor: Redactor,
    make_writer: W,
) -> impl tracing::Subscriber + Send + Sync
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let fields = format::debug_fn(|writer: &mut Writer<'_>, field, value| {
        let name = field.name();
        if name == "message" {
            write!(writer, "{value:?}")
        } else if is_secret_name(name) {
            write!(writer, "{name}={REDACTED}")
        } else {
            write!(writer, "{name}={value:?}")
        }
    })
    .delimited(" ");
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .fmt_fields(fields)
        .with_writer(Redacting {
            redactor,
            inner: make_writer,
        })
        .finish()
}

/// Hands the formatter one buffer per line and writes the line, redacted,
/// when the formatter is done with it: `tracing_subscriber` formats a whole
/// event and writes it at once, so one buffer is exactly one line.
struct Redacting<W> {
    redactor: Redactor,
    inner: W,
}

impl<'a, W: MakeWriter<'a>> MakeWriter<'a> for Redacting<W> {
    type Writer = RedactedLine<'a, W::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactedLine {
            redactor: &self.redactor,
            line: Vec::new(),
            inner: self.inner.make_writer(),
        }
    }
}

/// One log line, held until it is complete.
struct RedactedLine<'a, W: Write> {
    redactor: &'a Redactor,
    line: Vec<u8>,
    inner: W,
}

impl<W: Write> Write for RedactedLine<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.line.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    /// Nothing is written before the line is whole: a secret cut at a
    /// flush would otherwise escape the redactor in two halves.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for RedactedLine<'_, W> {
    fn drop(&mut self) {
        if self.line.is_empty() {
            return;
        }
        let text = self
            .redactor
            .redact_text(&String::from_utf8_lossy(&self.line));
        // A log line that cannot be written has nowhere else to go.
        let _ = self.inner.write_all(text.as_bytes());
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// What the subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    /// Logs with the setup `env` gives and returns what was written.
    fn logged(env: &BTreeMap<String, String>, emit: impl FnOnce()) -> String {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = subscriber(filter(env).0, redactor(env), move || sink.clone());
        tracing::subscriber::with_default(subscriber, emit);
        captured.text()
    }

    /// A capability-shaped value: 64 hex characters no pattern recognises.
    const CAPABILITY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdeffedcba9876543210";

    #[test]
    fn secrets_in_fields_messages_and_the_environment_are_masked() {
        let env = env(&[(somite_api::EnvVars::SOMITE_MCP_CAPABILITY, CAPABILITY)]);
        let text = logged(&env, || {
            tracing::warn!(
                capability = CAPABILITY,
                url = "https://somite:hunter2hunter2@mirror.example/registry.json",
                reason = %format!("echo {}", CAPABILITY.to_uppercase()),
                "the token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345 was refused for sk-proj-ZyXwVuTsRqPoNmLkJiHg"
            );
        });
        assert!(text.contains("WARN"), "{text}");
        assert!(text.contains("the token [redacted] was refused"), "{text}");
        assert!(text.contains("capability=[redacted]"), "{text}");
        assert!(
            text.contains("https://somite:[redacted]@mirror.example"),
            "{text}"
        );
        assert!(text.contains("reason=echo [redacted]"), "{text}");
        for secret in [
            CAPABILITY,
            &CAPABILITY.to_uppercase(),
            "hunter2hunter2",
            "ghp_AbCd",
            "sk-proj",
        ] {
            assert!(!text.contains(secret), "{secret} logged:\n{text}");
        }
    }

    #[test]
    fn the_filter_comes_from_somite_log_then_rust_log_then_the_default() {
        let emit = || {
            tracing::info!(target: "somite_server::agent", "ours at info");
            tracing::info!(target: "hyper::proto", "a library at info");
            tracing::warn!(target: "hyper::proto", "a library at warn");
            tracing::debug!(target: "somite_server::agent", "ours at debug");
        };
        let default = logged(&env(&[]), emit);
        assert!(default.contains("ours at info") && default.contains("a library at warn"));
        assert!(!default.contains("a library at info") && !default.contains("ours at debug"));

        let rust_log = logged(&env(&[(RUST_LOG_ENV, "debug")]), emit);
        assert!(rust_log.contains("ours at debug") && rust_log.contains("a library at info"));

        let both = logged(&env(&[(LOG_ENV, "warn"), (RUST_LOG_ENV, "debug")]), emit);
        assert!(both.contains("a library at warn") && !both.contains("ours at info"));

        let (_, rejected) = filter(&env(&[(LOG_ENV, "=!nonsense[")]));
        assert_eq!(rejected.map(|(variable, _)| variable), Some(LOG_ENV));
    }
}
