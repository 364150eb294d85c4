//! The conditions that guard a call, read into the structured forms the
//! workflow domain evaluates ([`SourceCondition`]).
//!
//! nf-core writes its guards in a handful of shapes: `params.x`, `!params.x`,
//! `params.x == 'y'` (and `!=`), joined with `&&`, `||` and parentheses, and
//! `params.x.split(',').contains('y')`. Those are read exactly; any other
//! operand (a method call, a local variable, `workflow.profile`, a ternary)
//! becomes [`SourceCondition::Unknown`] with the parameters it reads, so
//! readiness says "unknown" rather than guessing. Nothing is evaluated here.

use crate::lexer::{Tok, Token};
use serde_json::{Number, Value};
use somite_workflow::source_reach::SourceCondition;
use std::collections::HashMap;

/// What a subworkflow's `take:` name stands for, from the call that passes
/// it: `params.NAME` or a literal (`true`).
#[derive(Debug, Clone, PartialEq)]
pub enum TakeValue {
    Param(String),
    Literal(Value),
}

/// The takes of one workflow call, by name.
pub type Takes = HashMap<String, TakeValue>;

/// The most characters of a guard's text kept whole: past it the text is cut
/// (ending in `…`) and never read again.
pub const MAX_GUARD_CHARS: usize = 240;

/// What a call's argument `text` passes to a take, given the caller's own
/// takes.
pub fn take_value(text: &str, outer: &Takes) -> Option<TakeValue> {
    let text = text.trim();
    if let Some(name) = text.strip_prefix("params.")
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Some(TakeValue::Param(name.to_owned()));
    }
    match text {
        "true" => Some(TakeValue::Literal(Value::Bool(true))),
        "false" => Some(TakeValue::Literal(Value::Bool(false))),
        name => outer.get(name).cloned(),
    }
}

/// A guard's condition read again from its `text` with `takes` standing for
/// the workflow's `take:` names; none when the text was cut or holds a
/// comment.
pub fn reread(text: &str, takes: &Takes) -> Option<SourceCondition> {
    if takes.is_empty() || text.ends_with('…') || text.contains("//") || text.contains("/*") {
        return None;
    }
    let lexed = crate::lexer::lex(text.as_bytes(), MAX_TERMS);
    if !lexed.problems.is_empty() {
        return None;
    }
    let tokens: Vec<&Token> = lexed.tokens.iter().filter(|t| !t.is_newline()).collect();
    if !tokens
        .iter()
        .any(|t| t.ident().is_some_and(|name| takes.contains_key(name)))
    {
        return None;
    }
    Some(read_with(&tokens, takes))
}

/// Operators and operands read at most in one condition; past it the whole
/// condition is unknown (a generated file could otherwise nest without end).
const MAX_TERMS: usize = 64;

/// The condition `tokens` (newlines already dropped) write.
pub fn read(tokens: &[&Token]) -> SourceCondition {
    read_with(tokens, &Takes::new())
}

fn read_with(tokens: &[&Token], takes: &Takes) -> SourceCondition {
    let mut parser = Parser {
        tokens,
        at: 0,
        terms: 0,
        takes,
    };
    match parser.or() {
        Some(condition) if parser.at == tokens.len() => condition,
        _ => unknown(tokens, takes),
    }
}

/// The forms not read: unknown, with every `params.NAME` the tokens read
/// (directly or through a take).
fn unknown(tokens: &[&Token], takes: &Takes) -> SourceCondition {
    let mut params: Vec<String> = tokens
        .windows(3)
        .filter(|w| w[0].is_ident("params") && w[1].is_punct("."))
        .filter_map(|w| w[2].ident().map(str::to_owned))
        .chain(tokens.iter().filter_map(|t| match takes.get(t.ident()?) {
            Some(TakeValue::Param(name)) => Some(name.clone()),
            _ => None,
        }))
        .collect();
    params.sort_unstable();
    params.dedup();
    SourceCondition::Unknown { params }
}

struct Parser<'t> {
    tokens: &'t [&'t Token],
    at: usize,
    terms: usize,
    takes: &'t Takes,
}

impl<'t> Parser<'t> {
    fn peek_punct(&self, p: &str) -> bool {
        self.tokens.get(self.at).is_some_and(|t| t.is_punct(p))
    }

    fn counted(&mut self) -> Option<()> {
        self.terms += 1;
        (self.terms <= MAX_TERMS).then_some(())
    }

    fn or(&mut self) -> Option<SourceCondition> {
        let mut of = vec![self.and()?];
        while self.peek_punct("||") {
            self.at += 1;
            self.counted()?;
            of.push(self.and()?);
        }
        Some(if of.len() == 1 {
            of.remove(0)
        } else {
            SourceCondition::Any { of }
        })
    }

    fn and(&mut self) -> Option<SourceCondition> {
        let mut of = vec![self.unary()?];
        while self.peek_punct("&&") {
            self.at += 1;
            self.counted()?;
            of.push(self.unary()?);
        }
        Some(if of.len() == 1 {
            of.remove(0)
        } else {
            SourceCondition::All { of }
        })
    }

    fn unary(&mut self) -> Option<SourceCondition> {
        if self.peek_punct("!") {
            let negated = self.negatable()?;
            // `!a == b` compares `!a`: not a form nf-core writes.
            return (!self.peek_punct("==") && !self.peek_punct("!=")).then_some(negated);
        }
        if self.peek_punct("(") {
            return self.parenthesised();
        }
        self.counted()?;
        let left = self.operand();
        if self.peek_punct("==") || self.peek_punct("!=") {
            let negated = self.peek_punct("!=");
            self.at += 1;
            let right = self.operand();
            let equals = comparison(left, right, self.takes)?;
            return Some(if negated {
                SourceCondition::Not {
                    of: Box::new(equals),
                }
            } else {
                equals
            });
        }
        truth_of(left, self.takes)
    }

    /// `!x`, `!!x`, `!(…)` with the parser at the `!`: the negation of an
    /// operand's truth.
    fn negatable(&mut self) -> Option<SourceCondition> {
        self.counted()?;
        self.at += 1;
        let of = if self.peek_punct("!") {
            self.negatable()?
        } else if self.peek_punct("(") {
            self.parenthesised()?
        } else {
            let operand = self.operand();
            truth_of(operand, self.takes)?
        };
        Some(SourceCondition::Not { of: Box::new(of) })
    }

    /// `( condition )` with the parser at the `(`.
    fn parenthesised(&mut self) -> Option<SourceCondition> {
        self.counted()?;
        self.at += 1;
        let inner = self.or()?;
        if !self.peek_punct(")") {
            return None;
        }
        self.at += 1;
        // `(a) == b` compares a parenthesised operand: not read.
        (!self.peek_punct("==") && !self.peek_punct("!=")).then_some(inner)
    }

    /// The tokens up to the next `&&`, `||`, `==` or `!=` outside brackets.
    fn operand(&mut self) -> &'t [&'t Token] {
        let tokens = self.tokens;
        let start = self.at;
        let mut depth = 0usize;
        while let Some(token) = tokens.get(self.at) {
            match token.tok {
                Tok::Punct("(" | "[") => depth += 1,
                Tok::Punct(")" | "]") if depth == 0 => break,
                Tok::Punct(")" | "]") => depth -= 1,
                Tok::Punct("&&" | "||" | "==" | "!=") if depth == 0 => break,
                _ => {}
            }
            self.at += 1;
        }
        &tokens[start..self.at]
    }
}

/// An operand read for its Groovy truth.
fn truth_of(operand: &[&Token], takes: &Takes) -> Option<SourceCondition> {
    if operand.is_empty() {
        return None;
    }
    Some(match Operand::of(operand, takes) {
        Operand::Param(name) => SourceCondition::Param { name },
        Operand::Literal(Value::Bool(value)) => SourceCondition::Literal { value },
        Operand::Contains {
            param,
            item,
            separator,
        } => SourceCondition::Contains {
            param,
            item,
            separator,
        },
        Operand::Literal(_) | Operand::Other => unknown(operand, takes),
    })
}

/// `params.x == literal` either way round; anything else is unknown.
fn comparison(left: &[&Token], right: &[&Token], takes: &Takes) -> Option<SourceCondition> {
    if left.is_empty() || right.is_empty() {
        return None;
    }
    Some(
        match (Operand::of(left, takes), Operand::of(right, takes)) {
            (Operand::Param(param), Operand::Literal(value))
            | (Operand::Literal(value), Operand::Param(param)) => {
                SourceCondition::Equals { param, value }
            }
            _ => {
                let both: Vec<&Token> = left.iter().chain(right).copied().collect();
                unknown(&both, takes)
            }
        },
    )
}

/// What one operand is.
enum Operand {
    /// `params.NAME`.
    Param(String),
    /// A string without interpolation, a number, `true`, `false`, `null`.
    Literal(Value),
    /// `params.NAME.split('SEP').contains('ITEM')` or
    /// `params.NAME.contains('ITEM')`.
    Contains {
        param: String,
        item: String,
        separator: Option<String>,
    },
    Other,
}

impl Operand {
    fn of(tokens: &[&Token], takes: &Takes) -> Operand {
        match tokens {
            [only] => match &only.tok {
                Tok::Ident(word) => match word.as_str() {
                    "true" => Operand::Literal(Value::Bool(true)),
                    "false" => Operand::Literal(Value::Bool(false)),
                    "null" => Operand::Literal(Value::Null),
                    // A `take:` the caller filled with `params.x` or a literal.
                    name => match takes.get(name) {
                        Some(TakeValue::Param(param)) => Operand::Param(param.clone()),
                        Some(TakeValue::Literal(value)) => Operand::Literal(value.clone()),
                        None => Operand::Other,
                    },
                },
                Tok::Number(text) => number(text).map_or(Operand::Other, Operand::Literal),
                Tok::Str { .. } => only
                    .constant_str()
                    .map_or(Operand::Other, |s| Operand::Literal(Value::String(s))),
                _ => Operand::Other,
            },
            [p, dot, name] if p.is_ident("params") && dot.is_punct(".") => name
                .ident()
                .map_or(Operand::Other, |n| Operand::Param(n.to_owned())),
            [
                p,
                d1,
                name,
                d2,
                split,
                o1,
                sep,
                c1,
                d3,
                contains,
                o2,
                item,
                c2,
            ] if p.is_ident("params")
                && [d1, d2, d3].iter().all(|t| t.is_punct("."))
                && split.is_ident("split")
                && contains.is_ident("contains")
                && [o1, o2].iter().all(|t| t.is_punct("("))
                && [c1, c2].iter().all(|t| t.is_punct(")")) =>
            {
                match (name.ident(), sep.constant_str(), item.constant_str()) {
                    (Some(param), Some(separator), Some(item)) => Operand::Contains {
                        param: param.to_owned(),
                        item,
                        separator: Some(separator),
                    },
                    _ => Operand::Other,
                }
            }
            [p, d1, name, d2, contains, open, item, close]
                if p.is_ident("params")
                    && d1.is_punct(".")
                    && d2.is_punct(".")
                    && contains.is_ident("contains")
                    && open.is_punct("(")
                    && close.is_punct(")") =>
            {
                match (name.ident(), item.constant_str()) {
                    (Some(param), Some(item)) => Operand::Contains {
                        param: param.to_owned(),
                        item,
                        separator: None,
                    },
                    _ => Operand::Other,
                }
            }
            _ => Operand::Other,
        }
    }
}

/// A Groovy integer or decimal literal as JSON (no suffixes such as `1L`).
fn number(text: &str) -> Option<Value> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::Number(n.into()));
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}
