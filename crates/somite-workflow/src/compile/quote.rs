//! Quoting for the four languages a package is written in: bash (inside a
//! Nextflow script block), Groovy literals, TOML strings and identifiers.
//!
//! Every value that reaches a generated file passes through one of these
//! functions, so no user text or contract literal can end a string early,
//! start an interpolation or change the shape of a command. They are kept
//! small and total (no input is refused) so that refusing unsafe input stays
//! the planner's job, where the error can name the node.

use serde_json::Value;
use std::fmt::Write as _;

/// A bash word that expands to exactly `text`.
///
/// Printable runs are single-quoted (a `'` is closed, escaped and reopened);
/// control characters use ANSI-C quoting (`$'\x0a'`), so a generated script
/// line never holds a raw newline or tab: Nextflow strips the common
/// indentation of a script block, which would otherwise eat into a literal.
pub(crate) fn bash_literal(text: &str) -> String {
    let mut word = String::new();
    let mut quoted = String::new();
    let flush = |word: &mut String, quoted: &mut String| {
        if !quoted.is_empty() {
            word.push('\'');
            word.push_str(&quoted.replace('\'', r"'\''"));
            word.push('\'');
            quoted.clear();
        }
    };
    for c in text.chars() {
        if c.is_control() {
            flush(&mut word, &mut quoted);
            let mut buf = [0u8; 4];
            word.push_str("$'");
            for byte in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(word, "\\x{byte:02x}");
            }
            word.push('\'');
        } else {
            quoted.push(c);
        }
    }
    flush(&mut word, &mut quoted);
    if word.is_empty() {
        word.push_str("''");
    }
    word
}

/// Escapes one line of bash for the body of a Groovy `"""` (GString) script
/// block: `\` and `$` lose their Groovy meaning, and a `"` followed by
/// another is escaped so no run of quotes can close the block. (Every line
/// is followed by a newline, so a `"` ending a line never touches the
/// closing `"""`.) Interpolations the compiler wants, such as
/// `${task.cpus}`, are written by the caller, unescaped.
pub(crate) fn gstring_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_gstring_text(&mut out, text);
    out
}

/// [`gstring_text`] appended to `out`. Most lines of a task script hold
/// none of the three characters, and those are copied whole.
pub(crate) fn push_gstring_text(out: &mut String, text: &str) {
    if !text.bytes().any(|b| matches!(b, b'\\' | b'$' | b'"')) {
        out.push_str(text);
        return;
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str(r"\\"),
            '$' => out.push_str(r"\$"),
            '"' if chars.peek() == Some(&'"') => out.push_str("\\\""),
            _ => out.push(c),
        }
    }
}

/// A Groovy single-quoted string literal for any text (no interpolation).
pub(crate) fn groovy_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            '\n' => out.push_str(r"\n"),
            '\r' => out.push_str(r"\r"),
            '\t' => out.push_str(r"\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A Groovy literal for a JSON scalar or structure.
pub(crate) fn groovy_value(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => groovy_string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(groovy_value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) if map.is_empty() => "[:]".to_owned(),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let entries: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}: {}", groovy_string(k), groovy_value(v)))
                .collect();
            format!("[{}]", entries.join(", "))
        }
    }
}

/// A TOML basic string for any text.
pub(crate) fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Words Groovy or Nextflow reserve; a generated name never equals one.
const RESERVED: &[&str] = &[
    "abstract",
    "as",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "channel",
    "char",
    "class",
    "const",
    "continue",
    "def",
    "default",
    "do",
    "double",
    "else",
    "emit",
    "enum",
    "env",
    "extends",
    "false",
    "file",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "in",
    "include",
    "instanceof",
    "int",
    "interface",
    "launchDir",
    "log",
    "long",
    "main",
    "native",
    "new",
    "nextflow",
    "null",
    "output",
    "package",
    "params",
    "private",
    "process",
    "projectDir",
    "protected",
    "public",
    "publish",
    "record",
    "return",
    "short",
    "static",
    "super",
    "switch",
    "synchronized",
    "take",
    "task",
    "this",
    "throw",
    "throws",
    "trait",
    "transient",
    "true",
    "try",
    "var",
    "void",
    "volatile",
    "while",
    "workflow",
    "yield",
];

/// A Groovy identifier made from `text`: other characters become `_`, a
/// leading digit gets a `n` in front, and a reserved word gets a `_` behind.
pub(crate) fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'n');
    }
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bash_literals_survive_quotes_and_control_characters() {
        assert_eq!(bash_literal("plain"), "'plain'");
        assert_eq!(bash_literal("it's"), r"'it'\''s'");
        assert_eq!(bash_literal(""), "''");
        assert_eq!(bash_literal("a\nb"), r"'a'$'\x0a''b'");
        assert_eq!(bash_literal("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(bash_literal(r"@RG\tID"), r"'@RG\tID'");
    }

    #[test]
    fn gstring_text_neutralises_groovy_syntax() {
        assert_eq!(gstring_text(r#"echo "${X}" \t"#), r#"echo "\${X}" \\t"#);
        assert_eq!(gstring_text(r#"a""b"#), r#"a\""b"#);
        assert_eq!(gstring_text(r#"end""#), r#"end""#);
    }

    #[test]
    fn groovy_literals_escape_everything_that_could_end_them() {
        assert_eq!(groovy_string(r"it's a\path"), r"'it\'s a\\path'");
        assert_eq!(groovy_string("a\nb${x}"), r"'a\nb${x}'");
        assert_eq!(
            groovy_value(&json!({"b": [1, 2.5], "a": {}, "c": true})),
            "['a': [:], 'b': [1, 2.5], 'c': true]"
        );
    }

    #[test]
    fn toml_strings_escape_quotes_and_controls() {
        assert_eq!(toml_string(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(toml_string("x\u{1}"), r#""x\u0001""#);
    }

    #[test]
    fn identifiers_are_valid_and_never_reserved() {
        assert_eq!(identifier("fastqc-1.r1"), "fastqc_1_r1");
        assert_eq!(identifier("1abc"), "n1abc");
        assert_eq!(identifier("in"), "in_");
        assert_eq!(identifier(""), "n");
    }
}
