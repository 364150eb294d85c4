//! Reading one Nextflow script (`.nf`): its includes, workflows with the calls
//! and channels in them, processes and functions.
//!
//! The reader works on [`crate::lexer`] tokens and knows the DSL2 shapes
//! nf-core and most GitHub pipelines use; anything else at the top level of a
//! file, in a workflow body or a process body becomes an [`Opaque`] step with
//! its location. Channel flow is followed only as far as the text shows it:
//! `X.out.y` / `X.out[0]` / `X(…)` references, variables assigned from them
//! (`ch = …`, `.set { ch }`, `ch = ch.mix(…)`, through `if`/`else` as a
//! union), `take:` names and `params.NAME`. Closures are not evaluated.
//!
//! Names are resolved later, across files ([`crate::outline_with`]): this
//! module fills what one file shows.

use crate::condition;
use crate::lexer::{Lexed, StrPart, Tok, Token};
use crate::model::{
    Argument, Call, ChannelSource, Component, Conda, Container, Declaration, Diagnostic,
    DiagnosticCode, Directive, Emit, Function, Include, IncludeItem, Location, Opaque,
    OutputSelector, Process, Workflow,
};
use crate::syntax::{
    Section, close_of, excerpt, next_significant, sections, split_commas, statements, text, trim,
};
use somite_workflow::source_reach::{GuardKind, SourceGuard};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

/// Longest excerpt kept for an opaque step.
const EXCERPT_CHARS: usize = 100;

/// Most channel sources kept for one argument, emit or variable: a file of
/// `ch = ch.mix(P.out[i])` lines would otherwise make every later argument
/// copy all of them (quadratic in the file's size).
pub const MAX_SOURCES: usize = 256;

/// What one script file declares.
#[derive(Debug, Default)]
pub struct Script {
    pub includes: Vec<Include>,
    pub workflows: Vec<Workflow>,
    pub processes: Vec<Process>,
    pub functions: Vec<Function>,
    pub opaque: Vec<Opaque>,
    pub diagnostics: Vec<Diagnostic>,
}

struct Reader<'a> {
    file: &'a str,
    src: &'a [u8],
    tokens: &'a [Token],
    max_nesting: usize,
    /// Names a workflow body may call: includes and local declarations.
    callables: HashSet<String>,
    out: Script,
}

/// Reads a script's tokens.
pub fn read(file: &str, src: &[u8], lexed: &Lexed, max_nesting: usize) -> Script {
    let mut reader = Reader {
        file,
        src,
        tokens: &lexed.tokens,
        max_nesting,
        callables: HashSet::new(),
        out: Script::default(),
    };
    for problem in &lexed.problems {
        reader.diagnostic(
            DiagnosticCode::Syntax,
            problem.message.clone(),
            problem.line,
        );
    }
    let top = statements(reader.tokens, 0..reader.tokens.len());
    // Declarations first, so a workflow may call what the file declares
    // below it.
    for range in &top {
        reader.declare(range.clone());
    }
    for range in top {
        reader.top_level(range);
    }
    reader.out
}

impl Reader<'_> {
    fn location(&self, index: usize) -> Location {
        Location {
            file: self.file.to_owned(),
            line: self.tokens[index].line,
        }
    }

    fn diagnostic(&mut self, code: DiagnosticCode, message: impl Into<String>, line: u32) {
        self.out.diagnostics.push(Diagnostic {
            code,
            message: message.into(),
            file: self.file.to_owned(),
            line: Some(line),
        });
    }

    fn opaque(&self, kind: impl Into<String>, range: Range<usize>) -> Opaque {
        Opaque {
            kind: kind.into(),
            excerpt: excerpt(self.src, self.tokens, range.clone(), EXCERPT_CHARS),
            location: self.location(range.start),
        }
    }

    fn ident(&self, i: usize) -> Option<&str> {
        self.tokens.get(i).and_then(Token::ident)
    }

    fn punct(&self, i: usize, p: &str) -> bool {
        self.tokens.get(i).is_some_and(|t| t.is_punct(p))
    }

    /// Records the names a statement declares (first pass).
    fn declare(&mut self, range: Range<usize>) {
        let s = range.start;
        match self.ident(s) {
            Some("include") => {
                if let Some((items, _)) = self.include_items(range) {
                    for item in items {
                        self.callables.insert(item.alias.unwrap_or(item.name));
                    }
                }
            }
            Some("if") => {
                for include in self.guarded_includes(range, 0) {
                    self.declare(include);
                }
            }
            Some("process" | "workflow") => {
                if let Some(name) = self.ident(s + 1)
                    && self.punct(s + 2, "{")
                {
                    self.callables.insert(name.to_owned());
                }
            }
            _ => {
                if let Some(name) = self.function_name(range) {
                    self.callables.insert(name);
                }
            }
        }
    }

    fn top_level(&mut self, range: Range<usize>) {
        let s = range.start;
        match self.ident(s) {
            Some("include") => self.include(range),
            // `if (params.platform == 'x') { include { X } from … }`
            // (viralrecon): the includes are read, the rest stays opaque.
            Some("if") => {
                for include in self.guarded_includes(range.clone(), 0) {
                    self.include(include);
                }
                let step = self.opaque("if", range);
                self.out.opaque.push(step);
            }
            Some("workflow") if self.punct(s + 1, "{") => self.workflow(None, range, s + 1),
            Some("workflow") if self.ident(s + 1).is_some() && self.punct(s + 2, "{") => {
                let name = self.ident(s + 1).map(str::to_owned);
                self.workflow(name, range, s + 2)
            }
            Some("process") if self.ident(s + 1).is_some() && self.punct(s + 2, "{") => {
                self.process(range, s + 2)
            }
            // Feature flags and imports shape how Nextflow reads the file,
            // not the pipeline.
            Some("nextflow") if self.punct(s + 1, ".") => {}
            Some("import") => {}
            _ => match self.function_name(range.clone()) {
                Some(name) => self.out.functions.push(Function {
                    name,
                    location: self.location(s),
                }),
                None => {
                    let kind = self.kind_of(range.clone());
                    let step = self.opaque(kind, range);
                    self.out.opaque.push(step);
                }
            },
        }
    }

    /// `workflow.onComplete`, `params.x`, `output`: the statement's leading
    /// name path.
    fn kind_of(&self, range: Range<usize>) -> String {
        let mut kind = String::new();
        let mut i = range.start;
        while i < range.end {
            match &self.tokens[i].tok {
                Tok::Ident(name) => kind.push_str(name),
                _ if kind.is_empty() => return "statement".to_owned(),
                _ => break,
            }
            if self.punct(i + 1, ".") && self.ident(i + 2).is_some() {
                kind.push('.');
                i += 2;
            } else {
                break;
            }
        }
        kind
    }

    /// The name of `def [Type] name(…) { … }` or `Type name(…) { … }`.
    fn function_name(&self, range: Range<usize>) -> Option<String> {
        let s = range.start;
        let mut i = s;
        if self.ident(i) == Some("def") {
            i += 1;
        }
        // Up to one return type (with generics skipped) before the name.
        let mut names = 0;
        while i < range.end {
            match &self.tokens[i].tok {
                Tok::Ident(_) => names += 1,
                Tok::Punct("<" | ">" | "," | "." | "[" | "]" | "?") => {}
                Tok::Punct("(") => break,
                _ => return None,
            }
            i += 1;
        }
        let has_def = self.ident(s) == Some("def");
        if i >= range.end || !(names == 1 && has_def || names >= 2) {
            return None;
        }
        let close = close_of(self.tokens, i, self.max_nesting)?;
        let body = next_significant(self.tokens, close + 1, range.end)?;
        if !self.tokens[body].is_punct("{") {
            return None;
        }
        self.ident(i - 1).map(str::to_owned)
    }

    /// The `include` statements in the blocks of a top-level `if` (and of
    /// the `if`s nested in them).
    fn guarded_includes(&self, range: Range<usize>, depth: usize) -> Vec<Range<usize>> {
        let mut found = Vec::new();
        if depth > self.max_nesting {
            return found;
        }
        let mut i = range.start;
        while i < range.end {
            if self.punct(i, "{")
                && let Some(close) = close_of(self.tokens, i, self.max_nesting)
            {
                for inner in statements(self.tokens, i + 1..close) {
                    match self.ident(inner.start) {
                        Some("include") => found.push(inner),
                        Some("if") => found.extend(self.guarded_includes(inner, depth + 1)),
                        _ => {}
                    }
                }
                i = close;
            }
            i += 1;
        }
        found
    }

    fn include_items(&self, range: Range<usize>) -> Option<(Vec<IncludeItem>, usize)> {
        let open = range.start + 1;
        if !self.punct(open, "{") {
            return None;
        }
        let close = close_of(self.tokens, open, self.max_nesting)?;
        let mut items = Vec::new();
        let mut i = open + 1;
        while i < close {
            let token = &self.tokens[i];
            if token.is_newline() || token.is_punct(";") {
                i += 1;
                continue;
            }
            let name = token.ident()?.to_owned();
            let mut alias = None;
            if self.ident(i + 1) == Some("as") {
                alias = Some(self.ident(i + 2)?.to_owned());
                i += 2;
            }
            items.push(IncludeItem { name, alias });
            i += 1;
        }
        Some((items, close))
    }

    fn include(&mut self, range: Range<usize>) {
        let parsed = self
            .include_items(range.clone())
            .and_then(|(items, close)| {
                let from = next_significant(self.tokens, close + 1, range.end)?;
                if self.ident(from) != Some("from") {
                    return None;
                }
                let source = next_significant(self.tokens, from + 1, range.end)?;
                Some((items, self.tokens[source].constant_str()?))
            });
        match parsed {
            Some((items, source)) => {
                let plugin = source.strip_prefix("plugin/").map(str::to_owned);
                self.out.includes.push(Include {
                    items,
                    source,
                    resolved: None,
                    plugin,
                    location: self.location(range.start),
                });
            }
            None => {
                let step = self.opaque("include", range);
                self.out.opaque.push(step);
            }
        }
    }

    /// The body of a block whose `{` is at `open`, or an opaque step.
    fn block(&mut self, kind: &str, range: &Range<usize>, open: usize) -> Option<Range<usize>> {
        match close_of(self.tokens, open, self.max_nesting) {
            Some(close) => Some(open + 1..close),
            None => {
                let line = self.tokens[open].line;
                self.diagnostic(
                    DiagnosticCode::Unbalanced,
                    format!("the {kind} block's brackets do not balance (or nest deeper than {} levels); read as opaque", self.max_nesting),
                    line,
                );
                let step = self.opaque(kind.to_owned(), range.clone());
                self.out.opaque.push(step);
                None
            }
        }
    }

    fn workflow(&mut self, name: Option<String>, range: Range<usize>, open: usize) {
        let Some(body) = self.block("workflow", &range, open) else {
            return;
        };
        let (preamble, found) = sections(
            self.tokens,
            body.clone(),
            &["take", "main", "emit", "publish"],
        );
        let mut flow = Flow::default();
        let mut emits_at = None;
        let mut opaque = Vec::new();
        let mut takes = Vec::new();
        if found.is_empty() {
            self.flow(&mut flow, body, false, 0);
        } else {
            if !trim(self.tokens, preamble.clone()).is_empty() {
                self.flow(&mut flow, preamble, false, 0);
            }
            for Section {
                label,
                at,
                body: section,
            } in found
            {
                match label {
                    "take" => {
                        for statement in statements(self.tokens, section) {
                            if let Some(name) = self.ident(statement.start) {
                                takes.push(name.to_owned());
                            }
                        }
                        flow.takes = takes.iter().cloned().collect();
                    }
                    "main" => self.flow(&mut flow, section, false, 0),
                    "emit" => emits_at = Some(section),
                    _ => opaque.push(self.opaque(label, at..section.end)),
                }
            }
        }
        let emits = emits_at.map_or_else(Vec::new, |section| self.emits(&flow, section));
        if flow.truncated.get() {
            let line = self.tokens[range.start].line;
            self.diagnostic(
                DiagnosticCode::Truncated,
                format!(
                    "more than {MAX_SOURCES} channel sources for one value; the rest are left out"
                ),
                line,
            );
        }
        self.out.workflows.push(Workflow {
            name,
            takes,
            calls: flow.calls,
            emits,
            opaque,
            location: self.location(range.start),
        });
    }

    fn emits(&self, flow: &Flow, section: Range<usize>) -> Vec<Emit> {
        let mut out = Vec::new();
        for statement in statements(self.tokens, section) {
            let s = statement.start;
            let (name, value) = match self.ident(s) {
                Some(name) if self.punct(s + 1, "=") => {
                    (Some(name.to_owned()), s + 2..statement.end)
                }
                _ => (None, statement.clone()),
            };
            out.push(Emit {
                name,
                text: text(self.src, self.tokens, value.clone()),
                sources: self.sources(flow, value).into_iter().collect(),
                location: self.location(s),
            });
        }
        out
    }

    /// Follows the calls and channels of a workflow body's statements.
    fn flow(&mut self, flow: &mut Flow, range: Range<usize>, conditional: bool, depth: usize) {
        if depth > self.max_nesting {
            let line = self.tokens[range.start].line;
            self.diagnostic(
                DiagnosticCode::TooDeep,
                format!(
                    "control flow nested deeper than {} levels; not followed",
                    self.max_nesting
                ),
                line,
            );
            return;
        }
        for statement in statements(self.tokens, range) {
            if self.ident(statement.start) == Some("if") {
                self.conditional(flow, statement, depth);
            } else {
                self.statement(flow, statement, conditional);
            }
        }
    }

    /// `if (…) { … } else if (…) { … } else { … }`: each block's statements
    /// are followed under its guards (its own condition, and the negation
    /// of each condition before it); what they assign joins what came
    /// before.
    fn conditional(&mut self, flow: &mut Flow, range: Range<usize>, depth: usize) {
        let outer = flow.guards.len();
        self.branches(flow, range, depth, outer);
        flow.guards.truncate(outer);
    }

    /// The branches of [`Self::conditional`], leaving the negated guards of
    /// those read on `flow` for the caller to drop.
    fn branches(&mut self, flow: &mut Flow, range: Range<usize>, depth: usize, outer: usize) {
        let mut i = range.start;
        loop {
            // At `if`.
            let Some(open) = next_significant(self.tokens, i + 1, range.end) else {
                return;
            };
            let Some(close) = (if self.punct(open, "(") {
                close_of(self.tokens, open, self.max_nesting)
            } else {
                None
            }) else {
                self.statement(flow, range, true);
                return;
            };
            self.statement(flow, open..close + 1, true);
            let guard = self.guard(GuardKind::If, open + 1..close);
            flow.guards.push(guard.clone());
            let after = self.branch(flow, close + 1, range.end, depth);
            // The branches after this one run only when it did not.
            flow.guards.pop();
            flow.guards.push(SourceGuard {
                kind: GuardKind::Else,
                holds: false,
                ..guard
            });
            let Some(after) = after else {
                return;
            };
            // After a branch: `else if`, `else { }`, or the end.
            let Some(word) = next_significant(self.tokens, after, range.end) else {
                return;
            };
            if self.ident(word) != Some("else") {
                let rest = word..range.end;
                flow.guards.truncate(outer);
                self.statement(flow, rest, true);
                return;
            }
            let Some(next) = next_significant(self.tokens, word + 1, range.end) else {
                return;
            };
            if self.ident(next) == Some("if") {
                i = next;
                continue;
            }
            self.branch(flow, next, range.end, depth);
            return;
        }
    }

    /// A guard of `kind` whose condition is `tokens[range]`.
    fn guard(&self, kind: GuardKind, range: Range<usize>) -> SourceGuard {
        let significant: Vec<&Token> = self.tokens[range.clone()]
            .iter()
            .filter(|t| !t.is_newline())
            .collect();
        let line = self.tokens.get(range.start).map_or(0, |t| t.line);
        SourceGuard {
            kind,
            text: guard_text(&text(self.src, self.tokens, range)),
            holds: true,
            condition: condition::read(&significant),
            file: self.file.to_owned(),
            line,
        }
    }

    /// One branch starting at `from`: a braced block or a single statement.
    /// Returns the index after it.
    fn branch(&mut self, flow: &mut Flow, from: usize, end: usize, depth: usize) -> Option<usize> {
        let start = next_significant(self.tokens, from, end)?;
        if self.punct(start, "{") {
            let close = close_of(self.tokens, start, self.max_nesting)?;
            self.flow(flow, start + 1..close, true, depth + 1);
            Some(close + 1)
        } else {
            // A braceless branch runs to the end of its line.
            let stop = (start..end)
                .find(|&i| self.tokens[i].is_newline())
                .unwrap_or(end);
            self.statement(flow, start..stop, true);
            Some(stop)
        }
    }

    /// A statement of a workflow body: the calls in it, and what it assigns.
    fn statement(&mut self, flow: &mut Flow, range: Range<usize>, conditional: bool) {
        let mut i = range.start;
        while i < range.end {
            if let Some(name) = self.callee(i, range.end) {
                let open = next_significant(self.tokens, i + 1, range.end).unwrap_or(i + 1);
                let Some(close) = close_of(self.tokens, open, self.max_nesting) else {
                    break;
                };
                let arguments = split_commas(self.tokens, open + 1..close)
                    .into_iter()
                    .map(|arg| Argument {
                        text: text(self.src, self.tokens, arg.clone()),
                        sources: self.sources(flow, arg).into_iter().collect(),
                    })
                    .collect();
                flow.calls.push(Call {
                    name,
                    target: None,
                    arguments,
                    guards: flow.guards.clone(),
                    location: self.location(i),
                });
                i = open + 1;
                continue;
            }
            if let Some(pipe) = self.piped_into(i, range.start) {
                // `input | NAME`: the input is what the previous `|` passes
                // on, else the statement up to this `|`.
                let from = (range.start..pipe)
                    .rev()
                    .find(|&j| self.punct(j, "|"))
                    .map_or(range.start, |j| j + 1);
                flow.calls.push(Call {
                    name: self.ident(i).unwrap_or_default().to_owned(),
                    target: None,
                    arguments: vec![Argument {
                        text: text(self.src, self.tokens, from..pipe),
                        sources: self.sources(flow, from..pipe).into_iter().collect(),
                    }],
                    guards: flow.guards.clone(),
                    location: self.location(i),
                });
            }
            i += 1;
        }

        // `v = …` and `….set { v }` / `….tap { v }`.
        let mut s = range.start;
        if self.ident(s) == Some("def") {
            s += 1;
        }
        if let Some(var) = self.ident(s)
            && self.punct(s + 1, "=")
        {
            let sources = self.sources(flow, last_stage(self.tokens, s + 2..range.end));
            flow.assign(var, sources, conditional);
        }
        for j in range.clone() {
            if self.punct(j, ".")
                && matches!(self.ident(j + 1), Some("set" | "tap"))
                && let Some(open) = next_significant(self.tokens, j + 2, range.end)
                && self.punct(open, "{")
                && let Some(var) =
                    next_significant(self.tokens, open + 1, range.end).and_then(|v| self.ident(v))
            {
                let sources = self.sources(flow, range.start..j);
                flow.assign(var, sources, conditional);
            }
        }
    }

    /// The name called at `i` (`NAME (`), when NAME is a callable and not a
    /// method.
    fn callee(&self, i: usize, end: usize) -> Option<String> {
        let name = self.ident(i)?;
        if !self.callables.contains(name) || i > 0 && self.after_dot(i) {
            return None;
        }
        let open = next_significant(self.tokens, i + 1, end)?;
        self.punct(open, "(").then(|| name.to_owned())
    }

    /// The `|` before a callable at `i` that a channel is piped into
    /// (`ch | NAME`), not called with parentheses.
    fn piped_into(&self, i: usize, start: usize) -> Option<usize> {
        let name = self.ident(i)?;
        if !self.callables.contains(name) || self.punct(i + 1, "(") || self.punct(i + 1, ".") {
            return None;
        }
        let pipe = (start..i).rev().find(|&j| !self.tokens[j].is_newline())?;
        self.punct(pipe, "|").then_some(pipe)
    }

    fn after_dot(&self, i: usize) -> bool {
        (0..i)
            .rev()
            .find(|&j| !self.tokens[j].is_newline())
            .is_some_and(|j| matches!(self.tokens[j].tok, Tok::Punct("." | "?." | "*." | ".&")))
    }

    /// The channels `tokens[range]` reads.
    fn sources(&self, flow: &Flow, range: Range<usize>) -> BTreeSet<ChannelSource> {
        let sig: Vec<usize> = range.filter(|&i| !self.tokens[i].is_newline()).collect();
        let mut out = BTreeSet::new();
        let at = |n: usize| sig.get(n).map(|&i| &self.tokens[i]);
        let mut n = 0;
        while n < sig.len() {
            if out.len() >= MAX_SOURCES {
                flow.truncated.set(true);
                break;
            }
            let Some(name) = at(n).and_then(Token::ident) else {
                n += 1;
                continue;
            };
            if n > 0 && at(n - 1).is_some_and(|t| matches!(t.tok, Tok::Punct("." | "?." | "*."))) {
                n += 1;
                continue;
            }
            let dot = at(n + 1).is_some_and(|t| t.is_punct("."));
            if self.callables.contains(name) {
                if dot && at(n + 2).is_some_and(|t| t.is_ident("out")) {
                    let (output, used) = match (at(n + 3), at(n + 4), at(n + 5)) {
                        (Some(d), Some(e), _) if d.is_punct(".") && e.ident().is_some() => (
                            OutputSelector::Emit(e.ident().unwrap_or_default().to_owned()),
                            5,
                        ),
                        (
                            Some(o),
                            Some(Token {
                                tok: Tok::Number(k),
                                ..
                            }),
                            Some(c),
                        ) if o.is_punct("[") && c.is_punct("]") && k.parse::<u32>().is_ok() => {
                            (OutputSelector::Index(k.parse().unwrap_or_default()), 6)
                        }
                        _ => (OutputSelector::All, 3),
                    };
                    out.insert(ChannelSource::Output {
                        call: name.to_owned(),
                        output,
                    });
                    n += used;
                    continue;
                }
                // `NAME(…)` (its result, not its arguments), or a bare
                // `NAME` piped into (`ch | NAME`).
                if !dot {
                    out.insert(ChannelSource::Output {
                        call: name.to_owned(),
                        output: OutputSelector::All,
                    });
                    n += 1;
                    if at(n).is_some_and(|t| t.is_punct("("))
                        && let Some(close) = close_of(self.tokens, sig[n], self.max_nesting)
                        && let Some(after) = sig.iter().position(|&i| i == close)
                    {
                        n = after + 1;
                    }
                    continue;
                }
            }
            if name == "params" && dot {
                if let Some(param) = at(n + 2).and_then(Token::ident) {
                    out.insert(ChannelSource::Param {
                        name: param.to_owned(),
                    });
                }
                n += 3;
                continue;
            }
            // A named argument (`name: …`) is not a read.
            if !at(n + 1).is_some_and(|t| t.is_punct(":")) {
                if let Some(known) = flow.vars.get(name) {
                    let room = MAX_SOURCES.saturating_sub(out.len());
                    out.extend(known.iter().take(room).cloned());
                } else if flow.takes.contains(name) {
                    out.insert(ChannelSource::Take {
                        name: name.to_owned(),
                    });
                }
            }
            n += 1;
        }
        out
    }

    fn process(&mut self, range: Range<usize>, open: usize) {
        let name = self.ident(range.start + 1).unwrap_or_default().to_owned();
        let Some(body) = self.block("process", &range, open) else {
            return;
        };
        let mut process = Process {
            name,
            labels: Vec::new(),
            conda: None,
            container: None,
            directives: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            body: None,
            opaque: Vec::new(),
            location: self.location(range.start),
            meta: None,
            when: None,
        };
        let (preamble, found) = sections(
            self.tokens,
            body,
            &["input", "output", "when", "script", "shell", "exec", "stub"],
        );
        let mut directives = statements(self.tokens, preamble);
        // A process without a body label runs its last string as the script.
        if found.is_empty()
            && directives
                .last()
                .is_some_and(|last| matches!(self.tokens[last.start].tok, Tok::Str { .. }))
        {
            process.body = Some("script".to_owned());
            directives.pop();
        }
        for statement in directives {
            self.directive(&mut process, statement);
        }
        for Section {
            label,
            body: section,
            ..
        } in found
        {
            match label {
                "input" | "output" => {
                    for statement in statements(self.tokens, section) {
                        let declaration = self.declaration(statement);
                        if label == "input" {
                            process.inputs.push(declaration);
                        } else {
                            process.outputs.push(declaration);
                        }
                    }
                }
                "script" | "shell" | "exec" => {
                    let template = statements(self.tokens, section)
                        .last()
                        .is_some_and(|s| self.ident(s.start) == Some("template"));
                    process.body = Some(if template { "template" } else { label }.to_owned());
                }
                "when" => process.when = self.when(section),
                _ => {}
            }
        }
        self.out.processes.push(process);
    }

    /// A `when:` section's guard; none for nf-core's standard
    /// `task.ext.when == null || task.ext.when`, which holds unless a config
    /// sets `ext.when`.
    fn when(&self, section: Range<usize>) -> Option<SourceGuard> {
        let section = trim(self.tokens, section);
        if section.is_empty() {
            return None;
        }
        let guard = self.guard(GuardKind::When, section);
        let standard = guard.text.split_whitespace().collect::<String>()
            == "task.ext.when==null||task.ext.when";
        (!standard).then_some(guard)
    }

    fn directive(&mut self, process: &mut Process, range: Range<usize>) {
        let s = range.start;
        let Some(name) = self.ident(s) else {
            process.opaque.push(self.opaque("statement", range));
            return;
        };
        let args = s + 1..range.end;
        let value = text(self.src, self.tokens, args.clone());
        match name {
            "label" => process.labels.extend(
                self.strings(args)
                    .into_iter()
                    .filter_map(|t| t.constant_str()),
            ),
            "conda" => {
                // `conda 'a::b=1 c'`, and the older
                // `conda (params.enable_conda ? 'a::b=1' : null)`.
                let mut specs = Vec::new();
                collect_constants(&self.tokens[args], &mut specs);
                let packages = specs
                    .iter()
                    .filter(|spec| !(spec.ends_with(".yml") || spec.ends_with(".yaml")))
                    .flat_map(|spec| spec.split_whitespace().map(str::to_owned))
                    .collect();
                process.conda = Some(Conda {
                    directive: Some(self.directive_value(s + 1..range.end)),
                    packages,
                    environment: None,
                });
            }
            "container" => {
                let mut images: Vec<String> = Vec::new();
                collect_constants(&self.tokens[args], &mut images);
                images.dedup();
                process.container = Some(Container {
                    text: value,
                    images,
                });
            }
            _ => process.directives.push(Directive {
                name: name.to_owned(),
                text: value,
                location: self.location(s),
            }),
        }
    }

    /// A directive's value: a single string's template, else its text.
    fn directive_value(&self, range: Range<usize>) -> String {
        self.single_string(range.clone())
            .and_then(|t| t.template_str(self.src))
            .unwrap_or_else(|| text(self.src, self.tokens, range))
    }

    fn single_string(&self, range: Range<usize>) -> Option<&Token> {
        let range = trim(self.tokens, range);
        let mut i = range.start;
        let mut end = range.end;
        // `conda("…")`
        if self.punct(i, "(") && end > i + 1 && self.punct(end - 1, ")") {
            i += 1;
            end -= 1;
        }
        let range = trim(self.tokens, i..end);
        (range.len() == 1)
            .then(|| &self.tokens[range.start])
            .filter(|t| matches!(t.tok, Tok::Str { .. }))
    }

    fn strings(&self, range: Range<usize>) -> Vec<&Token> {
        self.tokens[range]
            .iter()
            .filter(|t| matches!(t.tok, Tok::Str { .. }))
            .collect()
    }

    /// One `input:`/`output:` line.
    fn declaration(&self, range: Range<usize>) -> Declaration {
        let s = range.start;
        let qualifier = self.ident(s).unwrap_or_default().to_owned();
        let mut declaration = Declaration {
            qualifier: qualifier.clone(),
            components: Vec::new(),
            emit: None,
            optional: false,
            topic: None,
            text: text(self.src, self.tokens, range.clone()),
            location: self.location(s),
        };
        if qualifier.is_empty() {
            return declaration;
        }
        for part in split_commas(self.tokens, s + 1..range.end) {
            let p = part.start;
            if let Some(key) = self.ident(p)
                && self.punct(p + 1, ":")
            {
                let value = text(self.src, self.tokens, p + 2..part.end);
                match key {
                    "emit" => declaration.emit = Some(value),
                    "optional" => declaration.optional = value == "true",
                    "topic" => declaration.topic = Some(value),
                    _ => {}
                }
                continue;
            }
            if qualifier == "tuple" {
                let element = self.ident(p).unwrap_or_default().to_owned();
                declaration.components.push(Component {
                    qualifier: element,
                    value: self.component_value(p + 1..part.end),
                });
            } else {
                declaration.components.push(Component {
                    qualifier: qualifier.clone(),
                    value: self.component_value(part),
                });
            }
        }
        declaration
    }

    /// `(name)`, `("*.txt", arity: '1')`, `name` or `"*.txt"` → the name or
    /// pattern.
    fn component_value(&self, range: Range<usize>) -> String {
        let range = trim(self.tokens, range);
        let inner = if self.punct(range.start, "(")
            && close_of(self.tokens, range.start, self.max_nesting) == Some(range.end - 1)
        {
            split_commas(self.tokens, range.start + 1..range.end - 1)
                .into_iter()
                .next()
                .unwrap_or(range.start + 1..range.start + 1)
        } else {
            range
        };
        if inner.len() == 1
            && let Some(template) = self.tokens[inner.start].template_str(self.src)
        {
            return template;
        }
        text(self.src, self.tokens, inner)
    }
}

/// The constant strings among `tokens` and inside their strings'
/// interpolations (`"${ cond ? 'a' : 'b' }"`), except the operands of a
/// comparison (`workflow.containerEngine == 'singularity'`): those name an
/// engine, not an image or a package.
fn collect_constants(tokens: &[Token], out: &mut Vec<String>) {
    let comparison =
        |t: Option<&Token>| t.is_some_and(|t| matches!(t.tok, Tok::Punct("==" | "!=")));
    for (i, token) in tokens.iter().enumerate() {
        let Tok::Str { parts, .. } = &token.tok else {
            continue;
        };
        if comparison(i.checked_sub(1).and_then(|p| tokens.get(p))) || comparison(tokens.get(i + 1))
        {
            continue;
        }
        if let Some(constant) = token.constant_str() {
            if !constant.trim().is_empty() {
                out.push(constant);
            }
            continue;
        }
        for part in parts {
            if let StrPart::Expr(inner) = part {
                collect_constants(inner, out);
            }
        }
    }
}

/// The last stage of a pipe (`a | B | C` → `C`): what the expression's
/// value comes from. Without a `|` outside brackets, the whole range.
fn last_stage(tokens: &[Token], range: Range<usize>) -> Range<usize> {
    let mut depth = 0usize;
    let mut start = range.start;
    for i in range.clone() {
        match tokens[i].tok {
            Tok::Punct("{" | "(" | "[") => depth += 1,
            Tok::Punct("}" | ")" | "]") => depth = depth.saturating_sub(1),
            Tok::Punct("|") if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    start..range.end
}

/// A condition's text, whole up to [`condition::MAX_GUARD_CHARS`], so a
/// subworkflow's guard can be read again with its caller's takes.
fn guard_text(text: &str) -> String {
    if text.chars().count() <= condition::MAX_GUARD_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(condition::MAX_GUARD_CHARS).collect();
    short.push('…');
    short
}

/// What a workflow body has shown so far.
#[derive(Default)]
struct Flow {
    calls: Vec<Call>,
    /// The guards of the `if`/`else` blocks being read, outermost first.
    guards: Vec<SourceGuard>,
    takes: HashSet<String>,
    vars: BTreeMap<String, BTreeSet<ChannelSource>>,
    /// Whether some sources were dropped at [`MAX_SOURCES`].
    truncated: Cell<bool>,
}

impl Flow {
    fn assign(&mut self, var: &str, sources: BTreeSet<ChannelSource>, conditional: bool) {
        let entry = self.vars.entry(var.to_owned()).or_default();
        if !conditional {
            entry.clear();
        }
        entry.extend(sources);
        if entry.len() > MAX_SOURCES {
            while entry.len() > MAX_SOURCES {
                entry.pop_last();
            }
            self.truncated.set(true);
        }
    }
}
