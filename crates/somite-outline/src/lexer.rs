//! A tokenizer for Groovy as Nextflow scripts and configs write it.
//!
//! Why a tokenizer and not regular expressions over lines: what the outline
//! needs (where a block ends, which `X.out.y` an argument names, the string a
//! `container` directive holds) is decided by brackets, and brackets are only
//! brackets outside strings and comments. nf-core's own files put `}` and
//! `//` inside strings (`"https://…"`, help texts drawn with braces),
//! interpolations that hold strings that hold braces
//! (`"${ cond ? 'a' : "b" }"`), slashy regular expressions (`/^SRR\d+$/`)
//! and multi-line triple-quoted scripts. A line-based pattern miscounts every
//! one of those and silently attaches the rest of a file to the wrong block.
//!
//! The tokenizer reads bytes, not `str`, so any input (a binary file named
//! `main.nf`) tokenizes; text is decoded lossily only where a token keeps it.
//! It never fails: an unterminated string or comment ends at the end of its
//! line or of the input and is reported in [`Lexed::problems`], and an
//! interpolation nested deeper than the limit stops the tokenizer with a
//! problem, so the recursion (one level per `${` inside a string inside a
//! `${`) is bounded.

/// The kind of quoting a string literal used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// `'…'`
    Single,
    /// `"…"`
    Double,
    /// `'''…'''`
    TripleSingle,
    /// `"""…"""`
    TripleDouble,
    /// `/…/`
    Slashy,
    /// `$/…/$`
    DollarSlashy,
}

/// One piece of a string literal.
#[derive(Debug, Clone, PartialEq)]
pub enum StrPart {
    /// Literal text, escapes resolved for the common ones.
    Text(String),
    /// `$name` or `$a.b.c`.
    Var(String),
    /// `${ … }`: the tokens between the braces.
    Expr(Vec<Token>),
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Number(String),
    Str {
        quote: Quote,
        parts: Vec<StrPart>,
    },
    /// An operator or bracket, longest match first (`?.`, `->`, `==`, `{`).
    Punct(&'static str),
    /// A line break outside strings and comments: Groovy ends statements
    /// at line breaks, so the readers need them.
    Newline,
    /// A byte that starts no token (a stray `\`, `#`, a non-ASCII byte).
    Other(u8),
}

/// A token and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    /// 1-based line of the token's first byte.
    pub line: u32,
    /// Byte range in the input.
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(name) => Some(name),
            _ => None,
        }
    }

    pub fn is_punct(&self, p: &str) -> bool {
        matches!(&self.tok, Tok::Punct(q) if *q == p)
    }

    pub fn is_ident(&self, name: &str) -> bool {
        matches!(&self.tok, Tok::Ident(n) if n == name)
    }

    pub fn is_newline(&self) -> bool {
        matches!(self.tok, Tok::Newline)
    }

    /// The string's text when it is a literal without interpolation.
    pub fn constant_str(&self) -> Option<String> {
        let Tok::Str { parts, .. } = &self.tok else {
            return None;
        };
        let mut text = String::new();
        for part in parts {
            match part {
                StrPart::Text(t) => text.push_str(t),
                _ => return None,
            }
        }
        Some(text)
    }

    /// The string's text with interpolations written back as `${…}` (the
    /// source text of the expression) — what a reader of the file sees.
    pub fn template_str(&self, src: &[u8]) -> Option<String> {
        let Tok::Str { parts, .. } = &self.tok else {
            return None;
        };
        let mut text = String::new();
        for part in parts {
            match part {
                StrPart::Text(t) => text.push_str(t),
                StrPart::Var(v) => {
                    text.push_str("${");
                    text.push_str(v);
                    text.push('}');
                }
                StrPart::Expr(tokens) => {
                    text.push_str("${");
                    if let (Some(first), Some(last)) = (tokens.first(), tokens.last()) {
                        text.push_str(&collapse(&src[first.start..last.end]));
                    }
                    text.push('}');
                }
            }
        }
        Some(text)
    }
}

/// Source text with runs of whitespace collapsed to one space.
pub fn collapse(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Something the tokenizer had to guess about.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub line: u32,
    pub message: String,
}

/// The tokens of an input and what went wrong while reading it.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub problems: Vec<Problem>,
}

/// Operators, longest first so that the first match is the longest.
const PUNCTS: &[&str] = &[
    "==~", "...", "..<", "<=>", "?.", "*.", ".&", "?:", "->", "==", "!=", "<=", ">=", "&&", "||",
    "<<", ">>", "++", "--", "+=", "-=", "*=", "/=", "=~", "..", "::", "**", "{", "}", "(", ")",
    "[", "]", ",", ";", ".", ":", "?", "=", "+", "-", "*", "/", "%", "!", "~", "<", ">", "&", "|",
    "^", "@",
];

/// Words after which a `/` begins a slashy string rather than a division.
const EXPRESSION_KEYWORDS: &[&str] = &[
    "return",
    "in",
    "case",
    "assert",
    "else",
    "new",
    "instanceof",
    "and",
    "or",
];

/// Tokenizes `src`; `max_nesting` bounds interpolations within strings within
/// interpolations.
pub fn lex(src: &[u8], max_nesting: usize) -> Lexed {
    let mut lexer = Lexer {
        src,
        pos: 0,
        line: 1,
        max_nesting,
        problems: Vec::new(),
        stopped: false,
    };
    if src.starts_with(b"#!") {
        lexer.skip_line();
    }
    let tokens = lexer.tokens(0, false);
    Lexed {
        tokens,
        problems: lexer.problems,
    }
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: u32,
    max_nesting: usize,
    problems: Vec<Problem>,
    /// Set when nesting went too deep: every level returns at once.
    stopped: bool,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.src[self.pos..].starts_with(s)
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek(0)?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    fn problem(&mut self, line: u32, message: impl Into<String>) {
        self.problems.push(Problem {
            line,
            message: message.into(),
        });
    }

    fn skip_line(&mut self) {
        while let Some(b) = self.peek(0) {
            if b == b'\n' {
                break;
            }
            self.pos += 1;
        }
    }

    /// Tokens until the end of input or, inside an interpolation
    /// (`in_interpolation`), until the `}` that closes it (consumed).
    fn tokens(&mut self, depth: usize, in_interpolation: bool) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::new();
        let mut braces = 0usize;
        while !self.stopped {
            let Some(b) = self.peek(0) else {
                if in_interpolation {
                    let line = self.line;
                    self.problem(line, "unterminated `${` interpolation");
                }
                break;
            };
            let start = self.pos;
            let line = self.line;
            match b {
                b' ' | b'\t' | b'\r' | b'\x0c' => {
                    self.pos += 1;
                    continue;
                }
                b'\\' if matches!(self.peek(1), Some(b'\n')) => {
                    // A line continuation.
                    self.bump();
                    self.bump();
                    continue;
                }
                b'\\' if self.peek(1) == Some(b'\r') && self.peek(2) == Some(b'\n') => {
                    self.pos += 2;
                    self.bump();
                    continue;
                }
                b'\n' => {
                    self.bump();
                    out.push(Token {
                        tok: Tok::Newline,
                        line,
                        start,
                        end: self.pos,
                    });
                    continue;
                }
                b'/' if self.peek(1) == Some(b'/') => {
                    self.skip_line();
                    continue;
                }
                b'/' if self.peek(1) == Some(b'*') => {
                    self.pos += 2;
                    loop {
                        if self.starts_with(b"*/") {
                            self.pos += 2;
                            break;
                        }
                        if self.bump().is_none() {
                            self.problem(line, "unterminated `/*` comment");
                            break;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let tok = if b.is_ascii_alphabetic()
                || b == b'_'
                || (b == b'$' && self.peek(1) != Some(b'/'))
            {
                while let Some(c) = self.peek(0) {
                    if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                Tok::Ident(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
            } else if b.is_ascii_digit() {
                self.number();
                Tok::Number(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
            } else if self.starts_with(b"'''") {
                self.pos += 3;
                self.string(Quote::TripleSingle, depth, line)
            } else if self.starts_with(b"\"\"\"") {
                self.pos += 3;
                self.string(Quote::TripleDouble, depth, line)
            } else if b == b'\'' {
                self.pos += 1;
                self.string(Quote::Single, depth, line)
            } else if b == b'"' {
                self.pos += 1;
                self.string(Quote::Double, depth, line)
            } else if self.starts_with(b"$/") {
                self.pos += 2;
                self.string(Quote::DollarSlashy, depth, line)
            } else if b == b'/' && slashy_may_start(out.last()) {
                self.pos += 1;
                self.string(Quote::Slashy, depth, line)
            } else if let Some(p) = PUNCTS.iter().find(|p| self.starts_with(p.as_bytes())) {
                self.pos += p.len();
                if in_interpolation {
                    if *p == "{" {
                        braces += 1;
                    } else if *p == "}" {
                        if braces == 0 {
                            return out;
                        }
                        braces -= 1;
                    }
                }
                Tok::Punct(p)
            } else {
                self.pos += 1;
                Tok::Other(b)
            };
            out.push(Token {
                tok,
                line,
                start,
                end: self.pos,
            });
        }
        out
    }

    fn number(&mut self) {
        if self.starts_with(b"0x") || self.starts_with(b"0X") {
            self.pos += 2;
        }
        while let Some(c) = self.peek(0) {
            let fraction = c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit());
            let exponent = (c == b'e' || c == b'E')
                && self
                    .peek(1)
                    .is_some_and(|d| d.is_ascii_digit() || d == b'-' || d == b'+');
            if exponent {
                self.pos += 2;
            } else if c.is_ascii_alphanumeric() || c == b'_' || fraction {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The body of a string whose opening quote was consumed.
    fn string(&mut self, quote: Quote, depth: usize, line: u32) -> Tok {
        let interpolates = !matches!(quote, Quote::Single | Quote::TripleSingle);
        let single_line = matches!(quote, Quote::Single | Quote::Double);
        let mut parts = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek(0) else {
                self.problem(line, "unterminated string");
                break;
            };
            // The closing delimiter.
            let close: &[u8] = match quote {
                Quote::Single => b"'",
                Quote::Double => b"\"",
                Quote::TripleSingle => b"'''",
                Quote::TripleDouble => b"\"\"\"",
                Quote::Slashy => b"/",
                Quote::DollarSlashy => b"/$",
            };
            if self.starts_with(close) {
                self.pos += close.len();
                break;
            }
            if b == b'\n' && single_line {
                // Groovy rejects this; end the string here so the rest of the
                // file still tokenizes.
                self.problem(line, "string not closed on its line");
                break;
            }
            if quote == Quote::DollarSlashy && (self.starts_with(b"$$") || self.starts_with(b"$/"))
            {
                text.push(self.src[self.pos + 1]);
                self.pos += 2;
                continue;
            }
            if b == b'\\' && quote != Quote::DollarSlashy {
                let next = self.peek(1);
                self.pos += 1;
                match (quote, next) {
                    (Quote::Slashy, Some(b'/')) => {
                        text.push(b'/');
                        self.pos += 1;
                    }
                    (Quote::Slashy, _) => text.push(b'\\'),
                    (_, Some(c)) => {
                        text.push(match c {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'r' => b'\r',
                            other => other,
                        });
                        self.bump();
                    }
                    (_, None) => {}
                }
                continue;
            }
            if interpolates && b == b'$' {
                if self.peek(1) == Some(b'{') {
                    flush(&mut text, &mut parts);
                    self.pos += 2;
                    if depth + 1 > self.max_nesting {
                        let l = self.line;
                        self.problem(l, "interpolations nested too deeply");
                        self.stopped = true;
                        break;
                    }
                    let inner = self.tokens(depth + 1, true);
                    parts.push(StrPart::Expr(inner));
                    if self.stopped {
                        break;
                    }
                    continue;
                }
                if self
                    .peek(1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                {
                    flush(&mut text, &mut parts);
                    self.pos += 1;
                    let start = self.pos;
                    loop {
                        while let Some(c) = self.peek(0) {
                            if c.is_ascii_alphanumeric() || c == b'_' {
                                self.pos += 1;
                            } else {
                                break;
                            }
                        }
                        // `$a.b` continues through `.` followed by a name.
                        if self.peek(0) == Some(b'.')
                            && self
                                .peek(1)
                                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                        {
                            self.pos += 1;
                        } else {
                            break;
                        }
                    }
                    parts.push(StrPart::Var(
                        String::from_utf8_lossy(&self.src[start..self.pos]).into_owned(),
                    ));
                    continue;
                }
            }
            text.push(b);
            self.bump();
        }
        flush(&mut text, &mut parts);
        Tok::Str { quote, parts }
    }
}

fn flush(text: &mut Vec<u8>, parts: &mut Vec<StrPart>) {
    if !text.is_empty() {
        parts.push(StrPart::Text(String::from_utf8_lossy(text).into_owned()));
        text.clear();
    }
}

/// Whether a `/` after `prev` opens a slashy string: it does where an
/// expression may start, and is a division after an operand.
fn slashy_may_start(prev: Option<&Token>) -> bool {
    match prev.map(|t| &t.tok) {
        None | Some(Tok::Newline) => true,
        Some(Tok::Ident(word)) => EXPRESSION_KEYWORDS.contains(&word.as_str()),
        Some(Tok::Number(_)) | Some(Tok::Str { .. }) => false,
        Some(Tok::Punct(p)) => !matches!(*p, ")" | "]" | "}"),
        Some(Tok::Other(_)) => true,
    }
}
