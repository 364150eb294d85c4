//! What a secret looks like: one definition shared by the child environment
//! (which drops secret-shaped values) and redaction (which masks
//! secret-shaped fields and values), so the two can never disagree.
//!
//! [`Redactor`] is the one redactor: the session's events, its transcripts
//! and the runtime's activity feed and session view all mask through the
//! session's own instance, which also knows the values that are secret by
//! where they came from (the MCP capability, credentials in the agent's
//! environment). A known value is masked in any letter case and wherever any
//! [`MIN_SECRET_FRAGMENT`] characters of it appear, so an upper-cased copy,
//! or a copy split across two fields or messages, does not slip through.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// The mask that replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Words that make a field or variable name secret-shaped on their own.
const SECRET_WORDS: &[&str] = &[
    "apikey",
    "authorization",
    "bearer",
    "capability",
    "cookie",
    "cookies",
    "credential",
    "credentials",
    "passphrase",
    "passwd",
    "password",
    "privatekey",
    "secret",
    "secrets",
    "token",
];

/// Adjacent word pairs that make a name secret-shaped (`api_key`, `X-Api-Key`,
/// `accessKey`, ...), where neither word is alarming alone.
const SECRET_WORD_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("secret", "key"),
    ("session", "key"),
    ("set", "cookie"),
];

/// Whether a field or variable name is secret-shaped: it names an
/// authorization value, an API key, a token, a password, a credential, a
/// secret, a cookie or a capability. Case and separators do not matter
/// (`Authorization`, `x-api-key`, `apiKey`, `ACCESS_TOKEN`), but a word must
/// match whole: `max_tokens` or `tokenizer` are not secrets.
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    let words = split_words(name);
    words
        .iter()
        .any(|word| SECRET_WORDS.contains(&word.as_str()))
        || words.windows(2).any(|pair| {
            SECRET_WORD_PAIRS
                .iter()
                .any(|(first, second)| pair[0] == *first && pair[1] == *second)
        })
}

/// Splits `x-api-key`, `apiKey`, `APIKey` and `ACCESS_TOKEN` into lower-case words.
fn split_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (index, &current) in chars.iter().enumerate() {
        if !current.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = index.checked_sub(1).map(|i| chars[i]);
        let next = chars.get(index + 1).copied();
        let starts_word = current.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if starts_word && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(current.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Values that are secrets whatever field holds them. Each pattern's first
/// capture group, when present, is kept as context (`Bearer `, a URL's scheme
/// and user); the rest of the match is masked.
static SECRET_VALUE_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // An HTTP authorization value.
        r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}",
        r"(?i)\b(basic\s+)[A-Za-z0-9+/=]{8,}",
        // OpenAI, Anthropic and similar `sk-...` keys.
        r"\bsk-[A-Za-z0-9_-]{16,}",
        // GitHub tokens.
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}",
        r"\bgithub_pat_[A-Za-z0-9_]{20,}",
        // Slack tokens.
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
        // AWS access key ids.
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        // Google API keys.
        r"\bAIza[0-9A-Za-z_-]{35}",
        // JSON Web Tokens.
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        // A password inside a URL: keep the scheme and user, mask the password.
        r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)[^/\s@]+@",
        // PEM private keys.
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    ]
    .iter()
    .map(|pattern| Regex::new(pattern).expect("secret patterns are valid"))
    .collect()
});

/// Whether a value contains a secret-shaped token.
#[must_use]
pub fn contains_secret_value(value: &str) -> bool {
    SECRET_VALUE_PATTERNS
        .iter()
        .any(|pattern| pattern.is_match(value))
}

/// Masks every secret-shaped token inside `value`, keeping the text around it.
#[must_use]
pub fn redact_secret_values(value: &str) -> Cow<'_, str> {
    let covered = pattern_cover(value);
    if !covered.contains(&true) {
        return Cow::Borrowed(value);
    }
    let mut masked = String::with_capacity(value.len());
    render(value.chars().zip(covered), false, &mut masked);
    Cow::Owned(masked)
}

/// Which characters of `text` lie in a secret-shaped token (a pattern's
/// match minus its kept context: the first capture group and a URL
/// password's closing `@`). Computed on the original text, together with
/// the known secrets' cover, so masking one can never break up the other:
/// a token that shares a few characters with a known secret is still
/// masked whole.
fn pattern_cover(text: &str) -> Vec<bool> {
    let char_at: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let index_of = |byte: usize| char_at.partition_point(|&at| at < byte);
    let mut covered = vec![false; char_at.len()];
    for pattern in SECRET_VALUE_PATTERNS.iter() {
        for captures in pattern.captures_iter(text) {
            let whole = captures.get(0).expect("a match has a whole");
            let start = captures
                .get(1)
                .map_or(whole.start(), |context| context.end());
            let end = whole.end() - usize::from(whole.as_str().ends_with('@'));
            covered[index_of(start)..index_of(end)].fill(true);
        }
    }
    covered
}

/// Shortest value treated as a known secret; shorter ones would mask
/// ordinary text.
pub const MIN_KNOWN_SECRET_LEN: usize = 8;

/// Any run of this many characters of a known secret is masked: short enough
/// that a secret cut in two leaves at least one such piece (of a 64-character
/// capability, at most 15 characters stay visible), long enough that
/// ordinary text never matches one by chance.
pub const MIN_SECRET_FRAGMENT: usize = 16;

/// Masks secret-shaped fields and values, and the values known to be secret
/// (see the module docs).
#[derive(Clone, Default)]
pub struct Redactor {
    /// Every [`MIN_SECRET_FRAGMENT`]-character window of each known secret
    /// (the whole secret when it is shorter), case-folded, by window length.
    windows: BTreeMap<usize, HashSet<Vec<char>>>,
    /// Every shorter piece of each known secret, case-folded: text ending in
    /// one may be the start of a window that the next streamed piece
    /// completes.
    pieces: HashSet<Vec<char>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The windows are pieces of the secrets themselves.
        f.debug_struct("Redactor").finish_non_exhaustive()
    }
}

/// What splits a secret into groups a person reads aloud (`abcd-efgh`,
/// `abcd efgh`).
fn is_group_separator(c: char) -> bool {
    matches!(c, ' ' | '-')
}

/// A secret as it may be re-encoded before it reaches a log, a transcript
/// or a tool result: itself, without group separators, hex, URL-encoded,
/// and base64 (standard and URL-safe, at each of the three alignments a
/// longer encoded text can put it at: the stable middle of each).
fn encodings(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    let mut out = vec![secret.to_owned()];
    let compact: String = secret.chars().filter(|c| !is_group_separator(*c)).collect();
    if compact != secret {
        out.push(compact);
    }
    out.push(secret.bytes().map(|b| format!("{b:02x}")).collect());
    let url_encoded: String = secret
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    if url_encoded != secret {
        out.push(url_encoded);
    }
    for engine in [&STANDARD, &URL_SAFE] {
        for offset in 0..3 {
            let mut bytes = vec![0u8; offset];
            bytes.extend_from_slice(secret.as_bytes());
            let encoded = engine.encode(&bytes);
            // The first group mixes in the unknown bytes before it, the last
            // the ones after it (or padding).
            let skip = if offset == 0 { 0 } else { 4 };
            let keep = encoded.len().saturating_sub(4);
            if keep > skip {
                out.push(encoded[skip..keep].to_owned());
            }
        }
    }
    out
}

/// Case folding for matching; one character in, one out, so positions in the
/// folded text are positions in the original.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

impl Redactor {
    /// Also masks each of `secrets` (at least [`MIN_KNOWN_SECRET_LEN`]
    /// characters long) wherever it, or any [`MIN_SECRET_FRAGMENT`]
    /// characters of it, appear, in any case — also re-encoded (hex,
    /// base64 either alphabet, URL-encoded) or split into groups by spaces
    /// or dashes.
    #[must_use]
    pub fn with_known_secrets(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut windows: BTreeMap<usize, HashSet<Vec<char>>> = BTreeMap::new();
        let mut pieces = HashSet::new();
        for secret in secrets {
            for (index, form) in encodings(&secret).into_iter().enumerate() {
                let folded: Vec<char> = form.chars().map(fold).collect();
                if folded.len() < MIN_KNOWN_SECRET_LEN {
                    continue;
                }
                let width = folded.len().min(MIN_SECRET_FRAGMENT);
                windows
                    .entry(width)
                    .or_default()
                    .extend(folded.windows(width).map(<[char]>::to_vec));
                // A stream holds back only what may begin the secret as
                // written; an encoded one is caught within one piece.
                if index == 0 {
                    for len in 1..width {
                        pieces.extend(folded.windows(len).map(<[char]>::to_vec));
                    }
                }
            }
        }
        Self { windows, pieces }
    }

    /// A redactor for text that arrives in pieces, such as an agent's
    /// streamed message: see [`StreamRedactor`].
    #[must_use]
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            redactor: self.clone(),
            held: Vec::new(),
            ended_masked: false,
        }
    }

    /// Redacts a JSON value: fields with secret-shaped names whole, and
    /// every string (keys included) as text.
    #[must_use]
    pub fn redact_value(&self, value: Value) -> Value {
        match value {
            Value::Object(object) => Value::Object(
                object
                    .into_iter()
                    .map(|(key, value)| {
                        let value = if is_secret_name(&key) && !value.is_null() {
                            Value::String(REDACTED.to_owned())
                        } else {
                            self.redact_value(value)
                        };
                        (self.redact_text(&key), value)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| self.redact_value(item))
                    .collect(),
            ),
            Value::String(text) => Value::String(self.redact_text(&text)),
            other => other,
        }
    }

    /// Redacts free text.
    #[must_use]
    pub fn redact_text(&self, text: &str) -> String {
        let folded: Vec<char> = text.chars().map(fold).collect();
        let known = self.cover(&folded);
        let shaped = pattern_cover(text);
        let mut masked = String::with_capacity(text.len());
        let covered = known
            .iter()
            .zip(shaped)
            .map(|(known, shaped)| *known || shaped);
        render(text.chars().zip(covered), false, &mut masked);
        masked
    }

    /// Which characters of `folded` lie in a known secret's window — also
    /// when the text splits it into groups with spaces or dashes (the
    /// separators are skipped, and masked with it).
    fn cover(&self, folded: &[char]) -> Vec<bool> {
        let mut covered = vec![false; folded.len()];
        let compact: Vec<usize> = (0..folded.len())
            .filter(|&i| !is_group_separator(folded[i]))
            .collect();
        let letters: Vec<char> = compact.iter().map(|&i| folded[i]).collect();
        for (&width, windows) in &self.windows {
            for (start, window) in folded.windows(width).enumerate() {
                if windows.contains(window) {
                    covered[start..start + width].fill(true);
                }
            }
            for (start, window) in letters.windows(width).enumerate() {
                let span = compact[start]..=compact[start + width - 1];
                // Groups, not a stray letter of the word before: every run
                // of letters in the match is at least two long.
                let grouped = folded[span.clone()]
                    .split(|c| is_group_separator(*c))
                    .filter(|run| !run.is_empty())
                    .all(|run| run.len() >= 2);
                if grouped && windows.contains(window) {
                    covered[span].fill(true);
                }
            }
        }
        covered
    }

    /// How many trailing characters of `folded` a following piece could
    /// complete into a known secret's window.
    fn open_tail(&self, folded: &[char]) -> usize {
        let longest = folded.len().min(MIN_SECRET_FRAGMENT - 1);
        (1..=longest)
            .rev()
            .find(|&len| self.pieces.contains(&folded[folded.len() - len..]))
            .unwrap_or(0)
    }
}

/// Appends `chars`, each run of covered ones as one [`REDACTED`] (none for a
/// run continuing one that `after_masked` says was already masked).
fn render(chars: impl IntoIterator<Item = (char, bool)>, after_masked: bool, out: &mut String) {
    let mut previous_covered = after_masked;
    for (c, covered) in chars {
        if !covered {
            out.push(c);
        } else if !previous_covered {
            out.push_str(REDACTED);
        }
        previous_covered = covered;
    }
}

/// Redacts text that arrives in pieces, so that a known secret cut across
/// pieces is masked as if it had arrived whole: the end of a piece that the
/// next one could complete into a secret's window is held back until it
/// does, or until [`StreamRedactor::finish`]. Secret-shaped patterns
/// (`sk-...` keys and the like) are matched within each released part only;
/// whole-text records (transcripts) redact the joined text.
#[derive(Debug)]
pub struct StreamRedactor {
    redactor: Redactor,
    /// Characters not shown yet, each with whether it is already known to
    /// be part of a secret.
    held: Vec<(char, bool)>,
    /// Whether the last character shown was masked.
    ended_masked: bool,
}

impl StreamRedactor {
    /// Adds the next piece; returns the redacted text that can be shown now.
    #[must_use]
    pub fn push(&mut self, piece: &str) -> String {
        self.held.extend(piece.chars().map(|c| (c, false)));
        let folded: Vec<char> = self.held.iter().map(|(c, _)| fold(*c)).collect();
        for (held, covered) in self.held.iter_mut().zip(self.redactor.cover(&folded)) {
            held.1 |= covered;
        }
        let release = self.held.len() - self.redactor.open_tail(&folded);
        self.release(release)
    }

    /// Everything still held back, redacted; the stream is over.
    #[must_use]
    pub fn finish(mut self) -> String {
        self.release(self.held.len())
    }

    fn release(&mut self, count: usize) -> String {
        let mut released: Vec<(char, bool)> = self.held.drain(..count).collect();
        let text: String = released.iter().map(|(c, _)| c).collect();
        for (held, shaped) in released.iter_mut().zip(pattern_cover(&text)) {
            held.1 |= shaped;
        }
        let mut shown = String::new();
        render(released.iter().copied(), self.ended_masked, &mut shown);
        if let Some(&(_, covered)) = released.last() {
            self.ended_masked = covered;
        }
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_match_whole_words_in_any_case_and_separator_style() {
        for name in [
            "Authorization",
            "authorization",
            "x-api-key",
            "apiKey",
            "APIKey",
            "api_key",
            "OPENAI_API_KEY",
            "access_token",
            "refreshToken",
            "password",
            "DB_PASSWORD",
            "client_secret",
            "credentials",
            "Set-Cookie",
            "cookie",
            somite_api::headers::CAPABILITY,
            somite_api::EnvVars::SOMITE_MCP_CAPABILITY,
            "AWS_SECRET_ACCESS_KEY",
            "accessKey",
        ] {
            assert!(is_secret_name(name), "{name} should be secret-shaped");
        }
        for name in [
            "max_tokens",
            "inputTokens",
            "tokenizer",
            "key",
            "sample_key_id",
            "path",
            "clientCapabilities",
            "author",
            "PATH",
            "HOME",
        ] {
            assert!(!is_secret_name(name), "{name} should not be secret-shaped");
        }
    }

    #[test]
    fn secret_values_are_masked_inside_surrounding_text() {
        let text = "use Bearer abcdefgh12345678 and sk-proj-ABCDEFGHIJKLMNOPQRST now";
        let redacted = redact_secret_values(text);
        assert_eq!(redacted, "use Bearer [redacted] and [redacted] now");
        assert!(contains_secret_value(text));
        assert!(!contains_secret_value(&redacted));
    }

    #[test]
    fn url_passwords_keep_scheme_and_user() {
        let redacted = redact_secret_values("https://alice:hunter2secret@proxy.example:8080/x");
        assert_eq!(redacted, "https://alice:[redacted]@proxy.example:8080/x");
    }

    #[test]
    fn ordinary_values_are_untouched() {
        for value in [
            "/usr/local/bin:/usr/bin",
            "en_US.UTF-8",
            "blake3:0123456789abcdef",
            "task-1",
            "skeleton",
        ] {
            assert!(!contains_secret_value(value), "{value}");
            assert!(matches!(redact_secret_values(value), Cow::Borrowed(_)));
        }
    }

    /// A capability-like secret: 64 lower-case hex characters.
    const CAPABILITY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdeffedcba9876543210";

    fn capability_redactor() -> Redactor {
        Redactor::with_known_secrets([CAPABILITY.to_owned()])
    }

    #[test]
    fn a_known_secret_re_encoded_or_split_into_groups_is_masked() {
        use base64::Engine as _;
        use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
        let redactor = capability_redactor();
        let grouped = |sep: &str| {
            CAPABILITY
                .chars()
                .collect::<Vec<_>>()
                .chunks(4)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join(sep)
        };
        let hex: String = CAPABILITY.bytes().map(|b| format!("{b:02X}")).collect();
        for encoded in [
            grouped(" "),
            grouped("-"),
            hex,
            STANDARD.encode(CAPABILITY),
            STANDARD.encode(format!("token={CAPABILITY}&x=1")),
            URL_SAFE_NO_PAD.encode(format!("ab{CAPABILITY}")),
            CAPABILITY.replace('_', "%5F").replace('-', "%2D"),
        ] {
            let masked = redactor.redact_text(&format!("sent {encoded} here"));
            assert!(masked.contains(REDACTED), "{encoded}: {masked}");
            // Nothing long enough to rebuild the secret stays visible.
            let visible: String = masked.replace(REDACTED, " ");
            assert!(
                !visible
                    .split_whitespace()
                    .any(|word| word.len() >= MIN_SECRET_FRAGMENT && encoded.contains(word)),
                "{encoded}: {masked}"
            );
        }
        // Ordinary text with dashes and spaces is left alone.
        let prose = "run fastp - then multiqc on all samples";
        assert_eq!(redactor.redact_text(prose), prose);
    }

    #[test]
    fn a_known_secret_is_masked_in_any_case() {
        let redactor = capability_redactor();
        let upper = CAPABILITY.to_uppercase();
        assert_eq!(
            redactor.redact_text(&format!("echo {upper}!")),
            format!("echo {REDACTED}!")
        );
        let mixed: String = CAPABILITY
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        assert_eq!(redactor.redact_text(&mixed), REDACTED);
    }

    #[test]
    fn a_known_secret_split_across_fields_or_strings_is_masked() {
        let redactor = capability_redactor();
        let (head, tail) = CAPABILITY.split_at(27);
        let redacted = redactor.redact_value(serde_json::json!({
            "first": head,
            "second": [format!("then {tail}")],
            head: "as a key",
        }));
        assert_eq!(
            redacted,
            serde_json::json!({
                "first": REDACTED,
                "second": [format!("then {REDACTED}")],
                REDACTED: "as a key",
            })
        );
        assert_eq!(
            redactor.redact_text(&format!("{head} and {tail}")),
            format!("{REDACTED} and {REDACTED}")
        );
    }

    #[test]
    fn any_fragment_of_the_minimum_length_is_masked_and_shorter_ones_are_not() {
        let redactor = capability_redactor();
        let middle = &CAPABILITY[24..24 + MIN_SECRET_FRAGMENT];
        assert_eq!(
            redactor.redact_text(&format!("x{middle}y")),
            format!("x{REDACTED}y")
        );
        let short = &CAPABILITY[24..24 + MIN_SECRET_FRAGMENT - 1];
        assert_eq!(redactor.redact_text(short), short);
        assert_eq!(
            redactor.redact_text("ordinary text stays"),
            "ordinary text stays"
        );
    }

    #[test]
    fn a_token_sharing_characters_with_a_known_secret_is_still_masked_whole() {
        // The token's first 16 characters after `ghp_` are also a known
        // secret's window: masking that window first used to break the token
        // up so that its pattern no longer matched and its tail showed.
        let known = "AbCdEfGhIjKlMnOp-known";
        let token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
        let redactor = Redactor::with_known_secrets([known.to_owned()]);
        let shown = redactor.redact_text(&format!("token {token} end"));
        assert_eq!(shown, format!("token {REDACTED} end"));
    }

    #[test]
    fn a_short_known_secret_is_masked_whole_and_the_shortest_are_ignored() {
        let redactor = Redactor::with_known_secrets(["Hunter2Pass".to_owned(), "abc".to_owned()]);
        assert_eq!(
            redactor.redact_text("pw HUNTER2PASS, abc, hunter2"),
            format!("pw {REDACTED}, abc, hunter2")
        );
    }

    #[test]
    fn the_redactor_never_shows_what_it_knows() {
        let redactor = capability_redactor();
        assert_eq!(format!("{redactor:?}"), "Redactor { .. }");
    }

    /// Streams `pieces` and returns what was shown, piece by piece.
    fn stream(redactor: &Redactor, pieces: &[&str]) -> Vec<String> {
        let mut stream = redactor.stream();
        let mut shown: Vec<String> = pieces.iter().map(|piece| stream.push(piece)).collect();
        shown.push(stream.finish());
        shown
    }

    #[test]
    fn a_known_secret_streamed_in_small_pieces_is_masked_once() {
        let redactor = capability_redactor();
        for secret in [CAPABILITY.to_owned(), CAPABILITY.to_uppercase()] {
            let mut pieces = vec!["key: "];
            pieces.extend(
                secret
                    .as_bytes()
                    .chunks(3)
                    .map(|c| std::str::from_utf8(c).unwrap()),
            );
            pieces.push(" done");
            let shown = stream(&redactor, &pieces);
            assert_eq!(shown.concat(), format!("key: {REDACTED} done"), "{shown:?}");
        }
    }

    #[test]
    fn streamed_text_is_shown_at_once_unless_it_may_begin_a_secret() {
        let redactor = capability_redactor();
        let shown = stream(
            &redactor,
            &["hello, ", "the code is 0f1", "e2 again", " and no"],
        );
        assert_eq!(
            shown,
            ["hello, ", "the code is ", "0f1e2 again", " and no", ""]
        );
        let piece = &CAPABILITY[..MIN_SECRET_FRAGMENT - 1];
        let shown = stream(&redactor, &[piece, " is not a secret"]);
        assert_eq!(shown.concat(), format!("{piece} is not a secret"));
    }
}
