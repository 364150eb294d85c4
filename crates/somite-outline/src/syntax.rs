//! Bracket matching and statement splitting over tokens, shared by the script
//! and config readers.
//!
//! Groovy ends a statement at a line break unless the line cannot end there
//! (it ends in an operator or a comma, or the next line starts with `.`,
//! `?:`, `else`, …) or a bracket is open. Splitting on that rule, rather
//! than on lines, is what keeps `X\n    .out\n    .tsv` one statement and a
//! multi-line call one call.

use crate::lexer::{Tok, Token};
use std::ops::Range;

/// The index of the bracket closing the one at `open`, if the brackets
/// between balance within `max_nesting` levels.
pub fn close_of(tokens: &[Token], open: usize, max_nesting: usize) -> Option<usize> {
    let mut stack: Vec<&'static str> = Vec::new();
    for (i, token) in tokens.iter().enumerate().skip(open) {
        let Tok::Punct(p) = token.tok else { continue };
        match p {
            "{" => stack.push("}"),
            "(" => stack.push(")"),
            "[" => stack.push("]"),
            "}" | ")" | "]" => {
                if stack.pop() != Some(p) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i);
                }
            }
            _ => {}
        }
        if stack.len() > max_nesting {
            return None;
        }
    }
    None
}

fn is_opener(token: &Token) -> bool {
    matches!(token.tok, Tok::Punct("{" | "(" | "["))
}

fn is_closer(token: &Token) -> bool {
    matches!(token.tok, Tok::Punct("}" | ")" | "]"))
}

/// Whether a line ending after `last` continues on the next line.
fn continues_after(last: &Token) -> bool {
    match &last.tok {
        Tok::Punct(p) => !matches!(*p, ")" | "]" | "}" | "++" | "--" | ";"),
        _ => false,
    }
}

/// Whether a line starting with `first` continues the one before.
fn continues_before(first: &Token) -> bool {
    match &first.tok {
        Tok::Punct(p) => matches!(
            *p,
            "." | "?." | "*." | ".&" | "?:" | "?" | ":" | "&&" | "||" | "|" | "=="
        ),
        Tok::Ident(word) => word == "else",
        _ => false,
    }
}

/// Splits `tokens[range]` into statements (ranges without their ending line
/// breaks or `;`). Unbalanced closers are statements of their own, so a stray
/// `}` cannot swallow what follows.
pub fn statements(tokens: &[Token], range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut i = range.start;
    while i < range.end {
        let token = &tokens[i];
        if depth == 0 && (token.is_newline() || token.is_punct(";")) {
            if let Some(s) = start {
                let continued = token.is_newline()
                    && (continues_after(&tokens[i - 1])
                        || next_significant(tokens, i, range.end)
                            .is_some_and(|n| continues_before(&tokens[n])));
                if !continued {
                    out.push(s..i);
                    start = None;
                }
            }
            i += 1;
            continue;
        }
        if is_opener(token) {
            depth += 1;
        } else if is_closer(token) {
            if depth == 0 {
                if let Some(s) = start.take() {
                    out.push(s..i);
                }
                out.push(i..i + 1);
                i += 1;
                continue;
            }
            depth -= 1;
        }
        if start.is_none() {
            start = Some(i);
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push(s..range.end);
    }
    out
}

/// The first token at or after `from` (and before `end`) that is not a line
/// break.
pub fn next_significant(tokens: &[Token], from: usize, end: usize) -> Option<usize> {
    (from..end).find(|&i| !tokens[i].is_newline())
}

/// Splits `range` at commas outside brackets; empty parts are dropped.
pub fn split_commas(tokens: &[Token], range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = range.start;
    for i in range.clone() {
        let token = &tokens[i];
        if is_opener(token) {
            depth += 1;
        } else if is_closer(token) {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && token.is_punct(",") {
            push_trimmed(tokens, start..i, &mut out);
            start = i + 1;
        }
    }
    push_trimmed(tokens, start..range.end, &mut out);
    out
}

fn push_trimmed(tokens: &[Token], range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let trimmed = trim(tokens, range);
    if !trimmed.is_empty() {
        out.push(trimmed);
    }
}

/// `range` without leading and trailing line breaks.
pub fn trim(tokens: &[Token], mut range: Range<usize>) -> Range<usize> {
    while range.start < range.end && tokens[range.start].is_newline() {
        range.start += 1;
    }
    while range.end > range.start && tokens[range.end - 1].is_newline() {
        range.end -= 1;
    }
    range
}

/// The source text of `tokens[range]`, whitespace collapsed.
pub fn text(src: &[u8], tokens: &[Token], range: Range<usize>) -> String {
    let range = trim(tokens, range);
    if range.is_empty() {
        return String::new();
    }
    crate::lexer::collapse(&src[tokens[range.start].start..tokens[range.end - 1].end])
}

/// The first line of `tokens[range]`'s text, at most `max` characters.
pub fn excerpt(src: &[u8], tokens: &[Token], range: Range<usize>, max: usize) -> String {
    let range = trim(tokens, range);
    if range.is_empty() {
        return String::new();
    }
    let bytes = &src[tokens[range.start].start..tokens[range.end - 1].end];
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = crate::lexer::collapse(line);
    if line.chars().count() > max {
        let mut short: String = line.chars().take(max).collect();
        short.push('…');
        short
    } else {
        line
    }
}

/// A labelled part of a block body.
pub struct Section<'a> {
    pub label: &'a str,
    /// The label's token.
    pub at: usize,
    /// The tokens after `label:` up to the next label.
    pub body: Range<usize>,
}

/// Splits a block body into labelled sections (`input:`, `main:`, …): a label
/// is one of `labels` starting a line at bracket depth 0 and followed by `:`.
/// Returns the tokens before the first label and each label with its range.
pub fn sections<'a>(
    tokens: &[Token],
    range: Range<usize>,
    labels: &[&'a str],
) -> (Range<usize>, Vec<Section<'a>>) {
    let mut found: Vec<(&'a str, usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut line_start = true;
    for i in range.clone() {
        let token = &tokens[i];
        if token.is_newline() {
            line_start = true;
            continue;
        }
        if depth == 0
            && line_start
            && i + 1 < range.end
            && tokens[i + 1].is_punct(":")
            && let Some(label) = token.ident().and_then(|n| labels.iter().find(|l| **l == n))
        {
            found.push((label, i, i + 2));
        }
        if is_opener(token) {
            depth += 1;
        } else if is_closer(token) {
            depth = depth.saturating_sub(1);
        }
        line_start = token.is_punct(";");
    }
    let preamble = range.start..found.first().map_or(range.end, |f| f.1);
    let mut out = Vec::new();
    for (n, (label, at, body_start)) in found.iter().enumerate() {
        let end = found.get(n + 1).map_or(range.end, |f| f.1);
        out.push(Section {
            label,
            at: *at,
            body: *body_start..end,
        });
    }
    (preamble, out)
}
