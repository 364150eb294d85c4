//! `nextflow.config`, read statically: the `params { }` defaults and the
//! `manifest { }`, as blocks or as dotted assignments (`params.x = 1`,
//! `manifest.version = '1.0'`) at the top level.
//!
//! Nothing is evaluated: `includeConfig` files and profiles are not followed
//! (their values depend on the profile a run chooses), and a default that is
//! not a literal (`"${params.outdir}/x"`, `8.GB`) is kept as its expression
//! text.

use crate::lexer::{Lexed, Tok, Token};
use crate::model::{ConfigDefault, ConfigValue, Location, Manifest};
use crate::syntax::{close_of, statements, text, trim};
use serde_json::{Number, Value};
use std::ops::Range;

/// The parts of a config the outline reads.
#[derive(Debug, Default)]
pub struct Config {
    /// Parameter defaults in declaration order (a later one wins).
    pub params: Vec<(String, ConfigDefault)>,
    pub manifest: Manifest,
}

pub fn read(file: &str, src: &[u8], lexed: &Lexed, max_nesting: usize) -> Config {
    let tokens = &lexed.tokens;
    let mut config = Config::default();
    let reader = Reader {
        file,
        src,
        tokens,
        max_nesting,
    };
    for statement in statements(tokens, 0..tokens.len()) {
        let s = statement.start;
        match (
            reader.ident(s),
            reader.punct(s + 1, "{"),
            reader.punct(s + 1, "."),
        ) {
            (Some(scope @ ("params" | "manifest")), true, _) => {
                let Some(close) = close_of(tokens, s + 1, max_nesting) else {
                    continue;
                };
                if scope == "manifest" {
                    config.manifest.location = Some(reader.location(s));
                }
                for inner in statements(tokens, s + 2..close) {
                    reader.assignment(scope, inner, &mut config);
                }
            }
            (Some("params" | "manifest"), _, true) => {
                let scope = reader.ident(s).unwrap_or_default();
                if scope == "manifest" && config.manifest.location.is_none() {
                    config.manifest.location = Some(reader.location(s));
                }
                reader.assignment(scope, s + 2..statement.end, &mut config);
            }
            _ => {}
        }
    }
    config
}

struct Reader<'a> {
    file: &'a str,
    src: &'a [u8],
    tokens: &'a [Token],
    max_nesting: usize,
}

impl Reader<'_> {
    fn ident(&self, i: usize) -> Option<&str> {
        self.tokens.get(i).and_then(Token::ident)
    }

    fn punct(&self, i: usize, p: &str) -> bool {
        self.tokens.get(i).is_some_and(|t| t.is_punct(p))
    }

    fn location(&self, i: usize) -> Location {
        Location {
            file: self.file.to_owned(),
            line: self.tokens[i].line,
        }
    }

    /// `name = value` inside `scope`.
    fn assignment(&self, scope: &str, range: Range<usize>, config: &mut Config) {
        let s = range.start;
        let (Some(name), true) = (self.ident(s), self.punct(s + 1, "=")) else {
            return;
        };
        let value = self.value(s + 2..range.end);
        if scope == "params" {
            config.params.push((
                name.to_owned(),
                ConfigDefault {
                    value,
                    location: self.location(s),
                },
            ));
            return;
        }
        let ConfigValue::Literal(Value::String(text)) = value else {
            return;
        };
        let manifest = &mut config.manifest;
        let slot = match name {
            "name" => &mut manifest.name,
            "description" => &mut manifest.description,
            "version" => &mut manifest.version,
            "nextflowVersion" => &mut manifest.nextflow_version,
            "mainScript" => &mut manifest.main_script,
            "homePage" => &mut manifest.home_page,
            _ => return,
        };
        *slot = Some(text);
    }

    fn value(&self, range: Range<usize>) -> ConfigValue {
        let range = trim(self.tokens, range);
        let expression = || ConfigValue::Expression(text(self.src, self.tokens, range.clone()));
        if let Some(literal) = self.literal(range.clone()) {
            return ConfigValue::Literal(literal);
        }
        // A list of literals.
        if self.punct(range.start, "[")
            && close_of(self.tokens, range.start, self.max_nesting) == Some(range.end - 1)
        {
            let mut items = Vec::new();
            for item in crate::syntax::split_commas(self.tokens, range.start + 1..range.end - 1) {
                match self.literal(item) {
                    Some(value) => items.push(value),
                    None => return expression(),
                }
            }
            return ConfigValue::Literal(Value::Array(items));
        }
        expression()
    }

    fn literal(&self, range: Range<usize>) -> Option<Value> {
        let range = trim(self.tokens, range);
        let (negative, at) = if self.punct(range.start, "-") {
            (true, range.start + 1)
        } else {
            (false, range.start)
        };
        if at + 1 != range.end {
            return None;
        }
        let token = &self.tokens[at];
        match &token.tok {
            Tok::Ident(word) if !negative => match word.as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                "null" => Some(Value::Null),
                _ => None,
            },
            Tok::Str { .. } if !negative => token.constant_str().map(Value::String),
            Tok::Number(digits) => {
                let signed = if negative {
                    format!("-{digits}")
                } else {
                    digits.clone()
                };
                if let Ok(n) = signed.parse::<i64>() {
                    Some(Value::Number(n.into()))
                } else {
                    signed
                        .parse::<f64>()
                        .ok()
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                }
            }
            _ => None,
        }
    }
}
