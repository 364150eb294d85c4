//! How a failed command is shown: once, the same way for every verb.
//!
//! Every refusal Somite makes is an envelope — `code`, `message`, `recovery`
//! and, where useful, `details` — whichever crate made it. [`Failure`] holds
//! the envelope as its serialized JSON and reads those fields by name, not
//! from one Rust type, so the runtime's, the MCP tools' and the project's
//! envelopes all render alike, and keep rendering wherever the types move.
//!
//! For a person (stderr) the envelope becomes a `miette` diagnostic: the code
//! as the diagnostic's code, the message, the details as lines under it, and
//! the recovery as the help line. With `--json` the envelope itself goes to
//! stdout instead, for programs. A failure without an envelope (the async
//! runtime would not start, a manual could not be fetched) renders the same
//! way, with no code or help.
//!
//! Colour only when stderr is a terminal and `NO_COLOR` is unset or empty;
//! piped output (tests, logs, `2>file`) is plain text.
//!
//! The exit code travels with the failure: 1 for rejected input or a failed
//! operation, 2 for a usage error, 3 when `somite eval` itself could not
//! evaluate.

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::process::ExitCode;

/// A failed command: what to show and how to exit.
#[derive(Debug)]
pub struct Failure {
    /// The envelope's fields (`code`, `message`, `recovery`, `details`), or
    /// only `message` for a failure without one.
    envelope: serde_json::Map<String, Value>,
    /// Print the envelope as JSON on stdout instead of rendering it.
    json: bool,
    exit: u8,
}

impl Failure {
    /// A structured refusal: any `{code, message, recovery, details}`
    /// envelope. Exits 1.
    pub fn envelope(envelope: &impl Serialize) -> Failure {
        let envelope = match serde_json::to_value(envelope) {
            Ok(Value::Object(fields)) => fields,
            // Envelopes are structs; anything else is shown as its JSON text.
            Ok(other) => message_only(other.to_string()),
            Err(error) => message_only(format!("the error could not be shown: {error}")),
        };
        Failure {
            envelope,
            json: false,
            exit: 1,
        }
    }

    /// A failure with only a message. Exits 1.
    pub fn message(message: impl Into<String>) -> Failure {
        Failure {
            envelope: message_only(message.into()),
            json: false,
            exit: 1,
        }
    }

    /// A usage error: the command line itself is wrong. Exits 2.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::message(message).exit_code(2)
    }

    /// Prints the envelope as JSON on stdout when `json` (the verb's
    /// `--json`).
    pub fn json(mut self, json: bool) -> Failure {
        self.json = json;
        self
    }

    /// Exits with `code` instead of 1.
    pub fn exit_code(mut self, code: u8) -> Failure {
        self.exit = code;
        self
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.envelope.get(name).and_then(Value::as_str)
    }

    /// The failure as a person reads it: no colour unless `colour`.
    pub fn render(&self, colour: bool) -> String {
        let theme = if colour {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let mut text = String::new();
        GraphicalReportHandler::new_themed(theme)
            .with_break_words(false)
            .render_report(&mut text, self)
            .expect("rendering into a String cannot fail");
        text
    }

    /// Shows the failure (JSON on stdout, or rendered on stderr) and
    /// returns the exit code.
    pub fn report(self) -> ExitCode {
        if self.json {
            let text =
                serde_json::to_string_pretty(&self.envelope).expect("a JSON object serializes");
            println!("{text}");
        } else {
            eprint!("{}", self.render(colour_on_stderr()));
        }
        ExitCode::from(self.exit)
    }
}

/// Whether stderr takes colour.
fn colour_on_stderr() -> bool {
    takes_colour(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        std::env::var_os(NO_COLOR).as_deref(),
    )
}

/// The variable that turns colour off (<https://no-color.org>).
const NO_COLOR: &str = "NO_COLOR";

/// Colour only on a terminal, and only while `NO_COLOR` is unset or empty.
fn takes_colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

fn message_only(message: String) -> serde_json::Map<String, Value> {
    serde_json::Map::from_iter([("message".to_owned(), Value::String(message))])
}

/// The message, then one line per detail (`name: value`; strings bare,
/// anything else as compact JSON).
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.field("message").unwrap_or("the command failed"))?;
        match self.envelope.get("details") {
            Some(Value::Object(details)) => {
                for (name, value) in details {
                    match value {
                        Value::String(text) => write!(f, "\n{name}: {text}")?,
                        other => write!(f, "\n{name}: {other}")?,
                    }
                }
            }
            None | Some(Value::Null) => {}
            Some(other) => write!(f, "\ndetails: {other}")?,
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

impl Diagnostic for Failure {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.field("code")
            .map(|code| Box::new(code) as Box<dyn fmt::Display>)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.field("recovery")
            .map(|recovery| Box::new(recovery) as Box<dyn fmt::Display>)
    }
}

/// Any other error a verb returns: its message with its causes, exit 1.
impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Failure {
        match error.downcast::<Failure>() {
            Ok(failure) => failure,
            Err(error) => Failure::message(format!("{error:#}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_envelope_shows_its_code_message_details_and_recovery() {
        let failure = Failure::envelope(&json!({
            "code": "stale_revision",
            "message": "the graph changed",
            "recovery": "reload and retry",
            "details": {"current": "r2", "operations": 3},
        }));
        let text = failure.render(false);
        for part in [
            "stale_revision",
            "the graph changed",
            "current: r2",
            "operations: 3",
            "help: reload and retry",
        ] {
            assert!(text.contains(part), "{part} missing from:\n{text}");
        }
        assert!(!text.contains('\u{1b}'), "no colour when asked for none");
        assert!(failure.render(true).contains('\u{1b}'));
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(takes_colour(true, None) && takes_colour(true, empty));
        assert!(!takes_colour(true, set));
        assert!(!takes_colour(false, None));
    }

    #[test]
    fn json_output_is_the_envelope_itself() {
        let envelope = json!({"code": "not_found", "message": "m", "recovery": "r"});
        let failure = Failure::envelope(&envelope).json(true);
        assert_eq!(Value::Object(failure.envelope.clone()), envelope);
    }

    #[test]
    fn a_failure_keeps_its_exit_code_through_anyhow() {
        let failure = Failure::from(anyhow::Error::new(Failure::usage("bad port")));
        assert_eq!(
            (failure.exit, failure.field("message")),
            (2, Some("bad port"))
        );
        let plain = Failure::from(anyhow::anyhow!("inner").context("outer"));
        assert_eq!(plain.field("message"), Some("outer: inner"));
        assert_eq!(plain.exit, 1);
    }
}
