//! What a secret looks like: one definition shared by the child environment
//! (which drops secret-shaped values) and transcript redaction (which masks
//! secret-shaped fields and values), so the two can never disagree.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

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
    let mut text = Cow::Borrowed(value);
    for pattern in SECRET_VALUE_PATTERNS.iter() {
        if pattern.is_match(&text) {
            let replaced = pattern
                .replace_all(&text, |captures: &regex::Captures<'_>| {
                    let context = captures.get(1).map_or("", |m| m.as_str());
                    let tail = if captures[0].ends_with('@') { "@" } else { "" };
                    format!("{context}{REDACTED}{tail}")
                })
                .into_owned();
            text = Cow::Owned(replaced);
        }
    }
    text
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
            "x-somite-capability",
            "SOMITE_MCP_CAPABILITY",
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
}
