//! Turning a manual's source markup into plain, readable Markdown.
//!
//! The manuals are written for their site generators, not for a reader of raw
//! files: Pixi's (MkDocs/Zensical) uses `!!! note` admonitions, `=== "Tab"`
//! content tabs, `--8<--` snippet includes, HTML anchors and attribute lists;
//! Nextflow's (Sphinx/MyST) uses `(label)=` targets, `{ref}` roles, and
//! `:::{directive}` / `` ```{directive} `` blocks. An agent reading a page, or
//! the search index, should see the text those render to:
//!
//! - admonitions and MyST notes become block quotes headed by their kind;
//! - version directives become "New in version X." lines;
//! - tabs become bold headings over their content;
//! - `{ref}` roles become links to the target page's catalog path;
//! - includes of pages in the manual are inlined; includes of files outside
//!   it (snippets, generated extenders, `literalinclude`) become a labelled
//!   reference with the file's URL at the manual's tag;
//! - code blocks are kept verbatim (their MkDocs attributes removed).
//!
//! Normalisation is a pure function of the page text and a
//! [`ManualContext`] describing the rest of the manual.

use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The markup dialect of a manual.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// MkDocs / Zensical with pymdownx extensions (Pixi).
    MkDocs,
    /// Sphinx with MyST Markdown (Nextflow).
    Myst,
}

/// Where a MyST `(label)=` target points.
#[derive(Debug, Clone)]
pub struct LabelTarget {
    pub path: String,
    pub text: String,
}

/// What normalising one page needs to know about the whole manual.
#[derive(Debug, Clone)]
pub struct ManualContext<'a> {
    pub markup: Markup,
    /// `owner/name` of the upstream repository.
    pub repository: &'a str,
    pub tag: &'a str,
    /// The manual's folder in the repository (`docs`).
    pub folder: &'a str,
    /// Raw text of every page, by catalog path (for inlined includes).
    pub raw_pages: &'a HashMap<String, String>,
    /// MyST labels, by name.
    pub labels: &'a HashMap<String, LabelTarget>,
    /// Page titles, by catalog path.
    pub titles: &'a HashMap<String, String>,
}

impl ManualContext<'_> {
    fn file_url(&self, repository_path: &str) -> String {
        format!(
            "https://github.com/{}/blob/{}/{}",
            self.repository, self.tag, repository_path
        )
    }
}

/// A normalised page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// The `title:` of the page's front matter, if it has one.
    pub front_matter_title: Option<String>,
    pub markdown: String,
}

/// Normalises the page at `path` (a catalog path such as `workspace/lock_file.md`).
pub fn normalize(text: &str, path: &str, context: &ManualContext<'_>) -> Normalized {
    normalize_at_depth(text, path, context, 0)
}

/// How deep page includes may nest before they are rendered as references.
const MAX_INCLUDE_DEPTH: usize = 2;

fn normalize_at_depth(
    text: &str,
    path: &str,
    context: &ManualContext<'_>,
    depth: usize,
) -> Normalized {
    let (front_matter_title, body) = split_front_matter(text);
    let body = HTML_COMMENT.replace_all(body, "");
    let lines: Vec<&str> = body.lines().collect();
    let page = PageContext {
        manual: context,
        path,
        depth,
    };
    let rendered = match context.markup {
        Markup::MkDocs => page.mkdocs_block(&lines),
        Markup::Myst => page.myst_block(&lines),
    };
    Normalized {
        front_matter_title,
        markdown: tidy(&rendered),
    }
}

/// Extracts and removes a leading `---` YAML front matter block.
fn split_front_matter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text);
    };
    let header = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    let title = header.lines().find_map(|line| {
        line.strip_prefix("title:")
            .map(|value| value.trim().trim_matches(['"', '\'']).to_owned())
            .filter(|value| !value.is_empty())
    });
    (title, body)
}

/// Collapses runs of blank lines and trims the ends.
fn tidy(lines: &[String]) -> String {
    let mut out = String::new();
    let mut blank_run = 0;
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    let trimmed = out.trim_matches('\n');
    format!("{trimmed}\n")
}

static HTML_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)<!--.*?-->"));
static CODE_FENCE: LazyLock<Regex> = LazyLock::new(|| re(r"^(\s*)(`{3,}|~{3,})\s*(.*)$"));
static MKDOCS_ADMONITION: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"^(\s*)(?:!!!|\?\?\?\+?)\s*([A-Za-z][\w-]*)?\s*(?:"([^"]*)"|([^"\s].*?))?\s*$"#)
});
static MKDOCS_TAB: LazyLock<Regex> = LazyLock::new(|| re(r#"^(\s*)===\+?\s*"([^"]*)"\s*$"#));
static SNIPPET_INCLUDE: LazyLock<Regex> = LazyLock::new(|| re(r#"^(\s*)--8<--\s+"([^"]+)"\s*$"#));
static HTML_ANCHOR_OPEN: LazyLock<Regex> = LazyLock::new(|| re(r"<a\s[^>]*>"));
static HTML_BREAK: LazyLock<Regex> = LazyLock::new(|| re(r"<br\s*/?>"));
static ATTRIBUTE_LIST: LazyLock<Regex> = LazyLock::new(|| re(r"\{\s*[.#:][^{}\n]*\}"));
static ICON_SHORTCODE: LazyLock<Regex> =
    LazyLock::new(|| re(r":(?:material|octicons|fontawesome|simple)-[a-z0-9-]+:"));
static FENCE_TITLE: LazyLock<Regex> = LazyLock::new(|| re(r#"title="([^"]*)""#));
static MYST_LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\(([^()\s]+)\)=\s*$"));
static MYST_COLON_OPEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\s*(?::\s+)?)(:{3,})\{([A-Za-z][\w-]*)\}\s*(.*)$"));
static MYST_DIRECTIVE_INFO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\{([A-Za-z][\w-]*)\}\s*(.*)$"));
static MYST_OPTION: LazyLock<Regex> = LazyLock::new(|| re(r"^:([\w-]+):\s*(.*)$"));
static MYST_ROLE: LazyLock<Regex> = LazyLock::new(|| re(r"\{(ref|doc)\}`([^`]*)`"));
static HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"^#{1,6}\s+(.*?)\s*#*\s*$"));
static MARKDOWN_LINK: LazyLock<Regex> = LazyLock::new(|| re(r"\[([^\]]*)\]\([^)]*\)"));

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests.
    Regex::new(pattern)
        .unwrap_or_else(|error| panic!("invalid built-in pattern {pattern}: {error}"))
}

struct PageContext<'a> {
    manual: &'a ManualContext<'a>,
    path: &'a str,
    depth: usize,
}

/// A fenced block found at `lines[start]`: its closing line index.
fn find_fence_close(lines: &[&str], start: usize, fence: &str) -> usize {
    let marker = fence.as_bytes()[0] as char;
    for (offset, line) in lines[start + 1..].iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.len() >= fence.len() && trimmed.chars().all(|c| c == marker) {
            return start + 1 + offset;
        }
    }
    lines.len()
}

/// Like [`find_fence_close`] for directive fences, which may nest: openers
/// with the same fence string increase the depth.
fn find_directive_close(lines: &[&str], start: usize, fence: &str) -> usize {
    let marker = fence.as_bytes()[0] as char;
    let mut depth = 0usize;
    for (offset, line) in lines[start + 1..].iter().enumerate() {
        let trimmed = line.trim_start().trim_start_matches(": ").trim_end();
        let run = trimmed.chars().take_while(|&c| c == marker).count();
        if run != fence.len() {
            continue;
        }
        if trimmed.len() == run {
            if depth == 0 {
                return start + 1 + offset;
            }
            depth -= 1;
        } else {
            depth += 1;
        }
    }
    lines.len()
}

/// Lines of an indented block (MkDocs admonitions and tabs) after `start`:
/// every following line that is blank or indented deeper than `indent`.
fn indented_block_end(lines: &[&str], start: usize, indent: usize) -> usize {
    let mut end = start + 1;
    let mut last_content = start;
    while end < lines.len() {
        let line = lines[end];
        if line.trim().is_empty() {
            end += 1;
            continue;
        }
        if leading_spaces(line) > indent {
            last_content = end;
            end += 1;
        } else {
            break;
        }
    }
    last_content + 1
}

fn leading_spaces(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn dedent(lines: &[&str], amount: usize) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let cut = line
                .char_indices()
                .take_while(|(index, c)| *index < amount && (*c == ' ' || *c == '\t'))
                .count();
            line[cut..].to_owned()
        })
        .collect()
}

/// `body` as a block quote under a bold `heading`, set apart by a blank
/// line on each side.
fn quote(indent: &str, heading: &str, body: &[String]) -> Vec<String> {
    let mut out = vec![String::new(), format!("{indent}> **{heading}**")];
    let content: Vec<&String> = body.iter().collect();
    let first = content.iter().position(|l| !l.trim().is_empty());
    let last = content.iter().rposition(|l| !l.trim().is_empty());
    if let (Some(first), Some(last)) = (first, last) {
        out.push(format!("{indent}>"));
        for line in &content[first..=last] {
            if line.trim().is_empty() {
                out.push(format!("{indent}>"));
            } else {
                out.push(format!("{indent}> {line}"));
            }
        }
    }
    out.push(String::new());
    out
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Splits a snippet include target into file and optional `:section`.
fn split_include(target: &str) -> (&str, Option<&str>) {
    if let Some((file, section)) = target.rsplit_once(':')
        && !section.is_empty()
        && section
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return (file, Some(section));
    }
    (target, None)
}

/// The catalog path a relative reference from `from_page` points to.
fn resolve_relative(from_page: &str, target: &str) -> String {
    if let Some(rooted) = target.strip_prefix('/') {
        return rooted.to_owned();
    }
    let mut parts: Vec<&str> = from_page.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

impl PageContext<'_> {
    // ---- MkDocs -------------------------------------------------------

    fn mkdocs_block(&self, lines: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut index = 0;
        while index < lines.len() {
            let line = lines[index];
            if let Some(fence) = CODE_FENCE.captures(line) {
                let close = find_fence_close(lines, index, &fence[2]);
                self.mkdocs_code_block(
                    &fence[1],
                    &fence[2],
                    &fence[3],
                    &lines[index + 1..close.min(lines.len())],
                    &mut out,
                );
                index = close + 1;
                continue;
            }
            if let Some(include) = SNIPPET_INCLUDE.captures(line) {
                out.extend(self.render_snippet_include(&include[1], &include[2], false));
                index += 1;
                continue;
            }
            if let Some(admonition) = MKDOCS_ADMONITION.captures(line) {
                let indent = &admonition[1];
                let kind = admonition.get(2).map_or("Note", |m| m.as_str());
                let title = admonition.get(3).or_else(|| admonition.get(4));
                let heading = match title.map(|m| m.as_str().trim()) {
                    Some(title) if !title.is_empty() => format!("{}: {title}", capitalised(kind)),
                    _ => capitalised(kind),
                };
                let end = indented_block_end(lines, index, leading_spaces(indent));
                let body = dedent(&lines[index + 1..end], leading_spaces(indent) + 4);
                let body_refs: Vec<&str> = body.iter().map(String::as_str).collect();
                let rendered = self.mkdocs_block(&body_refs);
                out.extend(quote(indent, &heading, &rendered));
                index = end;
                continue;
            }
            if let Some(tab) = MKDOCS_TAB.captures(line) {
                let indent = &tab[1];
                let end = indented_block_end(lines, index, leading_spaces(indent));
                let body = dedent(&lines[index + 1..end], leading_spaces(indent) + 4);
                let body_refs: Vec<&str> = body.iter().map(String::as_str).collect();
                out.push(String::new());
                out.push(format!("{indent}**{}**", tab[2].trim().replace('`', "")));
                out.push(String::new());
                out.extend(self.mkdocs_block(&body_refs).into_iter().map(|l| {
                    if l.is_empty() {
                        l
                    } else {
                        format!("{indent}{l}")
                    }
                }));
                index = end;
                continue;
            }
            out.push(mkdocs_inline(line));
            index += 1;
        }
        out
    }

    fn mkdocs_code_block(
        &self,
        indent: &str,
        fence: &str,
        info: &str,
        body: &[&str],
        out: &mut Vec<String>,
    ) {
        let language = info.split_whitespace().next().unwrap_or("");
        let language = language.trim_start_matches('.').trim_matches(['{', '}']);
        if let Some(title) = FENCE_TITLE.captures(info) {
            out.push(format!("{indent}*{}*", &title[1]));
            out.push(String::new());
        }
        out.push(format!("{indent}{fence}{language}"));
        for line in body {
            match SNIPPET_INCLUDE.captures(line) {
                Some(include) => {
                    out.extend(self.render_snippet_include(&include[1], &include[2], true));
                }
                None => out.push((*line).to_owned()),
            }
        }
        out.push(format!("{indent}{fence}"));
    }

    /// A `--8<-- "file[:section]"` include: a page of this manual is
    /// inlined; anything else becomes a labelled reference.
    fn render_snippet_include(&self, indent: &str, target: &str, in_code: bool) -> Vec<String> {
        let (file, section) = split_include(target);
        let folder_prefix = format!("{}/", self.manual.folder);
        let catalog_path = file.strip_prefix(&folder_prefix).unwrap_or(file);
        if section.is_none()
            && !in_code
            && self.depth < MAX_INCLUDE_DEPTH
            && let Some(raw) = self.manual.raw_pages.get(catalog_path)
        {
            let included = normalize_at_depth(raw, catalog_path, self.manual, self.depth + 1);
            return included
                .markdown
                .lines()
                .map(|line| {
                    if line.is_empty() {
                        String::new()
                    } else {
                        format!("{indent}{line}")
                    }
                })
                .collect();
        }
        let url = self.manual.file_url(file);
        let section_text = section.map_or(String::new(), |s| format!(", section `{s}`"));
        if in_code {
            let section_text = section.map_or(String::new(), |s| format!(", section {s}"));
            vec![format!(
                "{indent}# [snippet: {file}{section_text} is included here in the published manual; it is not part of this catalog: {url}]"
            )]
        } else {
            vec![
                String::new(),
                format!(
                    "{indent}> **Snippet:** `{file}`{section_text} is included here in the published manual; it is not part of this catalog. Source: <{url}>"
                ),
                String::new(),
            ]
        }
    }

    // ---- MyST -----------------------------------------------------------

    fn myst_block(&self, lines: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut index = 0;
        while index < lines.len() {
            let line = lines[index];
            if MYST_LABEL.is_match(line) {
                index += 1;
                continue;
            }
            if let Some(open) = MYST_COLON_OPEN.captures(line) {
                let close = find_directive_close(lines, index, &open[2]);
                let prefix = &open[1];
                let body = &lines[index + 1..close.min(lines.len())];
                let content_indent = leading_spaces(prefix.trim_end_matches([':', ' ']))
                    + if prefix.contains(':') { 2 } else { 0 };
                let body = dedent(body, content_indent);
                out.extend(self.myst_directive(prefix, &open[3], open[4].trim(), &body));
                index = close + 1;
                continue;
            }
            if let Some(fence) = CODE_FENCE.captures(line) {
                let indent = &fence[1];
                if let Some(directive) = MYST_DIRECTIVE_INFO.captures(fence[3].trim()) {
                    let close = find_directive_close(lines, index, &fence[2]);
                    let body = dedent(&lines[index + 1..close.min(lines.len())], indent.len());
                    out.extend(self.myst_directive(
                        indent,
                        &directive[1],
                        directive[2].trim(),
                        &body,
                    ));
                    index = close + 1;
                } else {
                    let close = find_fence_close(lines, index, &fence[2]);
                    out.extend(
                        lines[index..(close + 1).min(lines.len())]
                            .iter()
                            .map(|l| (*l).to_owned()),
                    );
                    index = close + 1;
                }
                continue;
            }
            out.push(self.myst_inline(line));
            index += 1;
        }
        out
    }

    fn myst_directive(
        &self,
        prefix: &str,
        name: &str,
        argument: &str,
        body: &[String],
    ) -> Vec<String> {
        let mut options = HashMap::new();
        let mut content_start = 0;
        for line in body {
            match MYST_OPTION.captures(line.trim()) {
                Some(option) if content_start == options.len() => {
                    options.insert(option[1].to_owned(), option[2].trim().to_owned());
                    content_start += 1;
                }
                _ => break,
            }
        }
        let content: Vec<&str> = body[content_start..].iter().map(String::as_str).collect();
        let indent: String = prefix
            .chars()
            .map(|c| if c == ':' { ' ' } else { c })
            .collect();
        match name {
            "versionadded" | "versionchanged" | "deprecated" => {
                let phrase = match name {
                    "versionadded" => "New in version",
                    "versionchanged" => "Changed in version",
                    _ => "Deprecated since version",
                };
                let heading = format!("{phrase} {argument}.");
                let rendered = self.myst_block(&content);
                if rendered.iter().all(|l| l.trim().is_empty()) {
                    vec![format!("{prefix}*{heading}*")]
                } else {
                    quote(&indent, &heading, &rendered)
                }
            }
            "code-block" | "code" | "sourcecode" | "mermaid" => {
                let language = if name == "mermaid" {
                    "mermaid"
                } else {
                    argument
                };
                let mut out = vec![format!("{indent}```{language}")];
                out.extend(content.iter().map(|l| format!("{indent}{l}")));
                out.push(format!("{indent}```"));
                out
            }
            "literalinclude" | "include" => {
                let file = format!(
                    "{}/{}",
                    self.manual.folder,
                    resolve_relative(self.path, argument)
                );
                let url = self.manual.file_url(&file);
                let language = options
                    .get("language")
                    .map_or(String::new(), |language| format!(" ({language})"));
                vec![
                    String::new(),
                    format!(
                        "{indent}> **Included file:** `{argument}`{language} is shown here in the published manual; it is not part of this catalog. Source: <{url}>"
                    ),
                    String::new(),
                ]
            }
            "toctree" => {
                let caption = options.get("caption").map_or("Contents", String::as_str);
                let mut out = vec![
                    String::new(),
                    format!("{indent}**{caption}:**"),
                    String::new(),
                ];
                for entry in content.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
                    let (label, target) = match entry.rsplit_once('<') {
                        Some((label, target)) if entry.ends_with('>') => {
                            (Some(label.trim()), target.trim_end_matches('>').trim())
                        }
                        _ => (None, entry),
                    };
                    let page = format!("{}.md", resolve_relative(self.path, target));
                    let title = label
                        .map(str::to_owned)
                        .or_else(|| self.manual.titles.get(&page).cloned())
                        .unwrap_or_else(|| target.to_owned());
                    out.push(format!("{indent}- [{title}]({page})"));
                }
                out.push(String::new());
                out
            }
            "image" | "figure" => {
                let alt = options.get("alt").map_or("image", String::as_str);
                let mut out = vec![format!("{indent}![{alt}]({argument})")];
                out.extend(self.myst_block(&content));
                out
            }
            "tabs" | "tab-set" => self.myst_block(&content),
            "group-tab" | "tab" | "tab-item" => {
                let mut out = vec![
                    String::new(),
                    format!("{indent}**{argument}**"),
                    String::new(),
                ];
                out.extend(self.myst_block(&content));
                out
            }
            "contents" | "index" => Vec::new(),
            // Admonitions (`note`, `tip`, `warning`, `seealso`, …) and any
            // directive not known above: a quote under its name, or under
            // its own title for a generic `admonition`.
            other => {
                let heading = if other == "admonition" && !argument.is_empty() {
                    argument.to_owned()
                } else if argument.is_empty() {
                    capitalised(other)
                } else {
                    format!("{}: {argument}", capitalised(other))
                };
                quote(&indent, &heading, &self.myst_block(&content))
            }
        }
    }

    fn myst_inline(&self, line: &str) -> String {
        MYST_ROLE
            .replace_all(line, |captures: &regex::Captures<'_>| {
                let role = &captures[1];
                let inner = &captures[2];
                let (text, target) = match inner.rsplit_once('<') {
                    Some((text, target)) if inner.ends_with('>') => {
                        (Some(text.trim()), target.trim_end_matches('>').trim())
                    }
                    _ => (None, inner.trim()),
                };
                if role == "doc" {
                    let page = format!("{}.md", resolve_relative(self.path, target));
                    let title = text
                        .map(str::to_owned)
                        .or_else(|| self.manual.titles.get(&page).cloned())
                        .unwrap_or_else(|| target.to_owned());
                    return format!("[{title}]({page})");
                }
                match self.manual.labels.get(target) {
                    Some(label) => format!("[{}]({})", text.unwrap_or(&label.text), label.path),
                    None => text.unwrap_or(target).to_owned(),
                }
            })
            .into_owned()
    }
}

fn mkdocs_inline(line: &str) -> String {
    let line = HTML_ANCHOR_OPEN.replace_all(line, "");
    let line = line.replace("</a>", "");
    let line = match line.trim_start().strip_prefix("<br>") {
        Some(rest) => rest.to_owned(),
        None => line,
    };
    let line = HTML_BREAK.replace_all(&line, " ");
    let line = ATTRIBUTE_LIST.replace_all(&line, "");
    ICON_SHORTCODE.replace_all(&line, "").into_owned()
}

/// MyST labels and titles of raw pages, collected before any page is
/// normalised so `{ref}` roles and toctrees can be resolved across pages.
pub fn collect_targets(
    pages: &[(String, String)],
) -> (HashMap<String, LabelTarget>, HashMap<String, String>) {
    let mut labels = HashMap::new();
    let mut titles = HashMap::new();
    for (path, text) in pages {
        let mut pending: Vec<String> = Vec::new();
        let mut fence: Option<String> = None;
        for line in text.lines() {
            if let Some(open) = &fence {
                if line.trim() == open.as_str() {
                    fence = None;
                }
                continue;
            }
            if let Some(captures) = CODE_FENCE.captures(line)
                && !captures[3].starts_with('{')
            {
                fence = Some(captures[2].to_owned());
                continue;
            }
            if let Some(label) = MYST_LABEL.captures(line) {
                pending.push(label[1].to_owned());
                continue;
            }
            if let Some(heading) = HEADING.captures(line) {
                let text = plain_heading(&heading[1]);
                if line.starts_with("# ") && !titles.contains_key(path) {
                    titles.insert(path.clone(), text.clone());
                }
                for label in pending.drain(..) {
                    labels.insert(
                        label,
                        LabelTarget {
                            path: path.clone(),
                            text: text.clone(),
                        },
                    );
                }
            } else if !line.trim().is_empty() {
                for label in pending.drain(..) {
                    labels.insert(
                        label.clone(),
                        LabelTarget {
                            path: path.clone(),
                            text: label,
                        },
                    );
                }
            }
        }
    }
    (labels, titles)
}

/// A heading's text without link markup.
pub fn plain_heading(text: &str) -> String {
    MARKDOWN_LINK.replace_all(text, "$1").trim().to_owned()
}

/// The headings of normalised Markdown, outside code blocks.
pub fn headings(markdown: &str) -> Vec<String> {
    headings_with_level(markdown)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

/// The text of the first level-one heading, if the page has one.
pub fn top_heading(markdown: &str) -> Option<String> {
    headings_with_level(markdown)
        .into_iter()
        .find(|(level, text)| *level == 1 && !text.is_empty())
        .map(|(_, text)| text)
}

fn headings_with_level(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        if let Some(open) = &fence {
            if line.trim() == open.as_str() {
                fence = None;
            }
            continue;
        }
        if let Some(captures) = CODE_FENCE.captures(line) {
            fence = Some(captures[2].to_owned());
            continue;
        }
        if let Some(heading) = HEADING.captures(line) {
            let level = line.chars().take_while(|c| *c == '#').count();
            out.push((level, plain_heading(&heading[1])));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(markup: Markup, path: &str, text: &str, pages: &[(&str, &str)]) -> Normalized {
        let owned: Vec<(String, String)> = pages
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect();
        let (labels, titles) = collect_targets(&owned);
        let raw_pages: HashMap<String, String> = owned.into_iter().collect();
        let context = ManualContext {
            markup,
            repository: "owner/tool",
            tag: "v1.0.0",
            folder: "docs",
            raw_pages: &raw_pages,
            labels: &labels,
            titles: &titles,
        };
        normalize(text, path, &context)
    }

    #[test]
    fn mkdocs_admonitions_become_quotes() {
        let text = "Intro\n\n!!! note \"Lock files\"\n    Keep `pixi.lock` in git.\n\n    Always.\n\nAfter\n";
        let out = run(Markup::MkDocs, "a.md", text, &[]);
        assert_eq!(
            out.markdown,
            "Intro\n\n> **Note: Lock files**\n>\n> Keep `pixi.lock` in git.\n>\n> Always.\n\nAfter\n"
        );
    }

    #[test]
    fn mkdocs_tabs_snippets_and_html_are_rendered_readably() {
        let text = "---\ntitle: pixi lock\n---\n<!--- generated -->\n# [pixi](index.md) lock\n\n\
=== \"`pixi.toml`\"\n    ```toml title=\"Minimal\"\n    --8<-- \"docs/source_files/a.toml:minimal\"\n    ```\n\n\
- <a id=\"arg---json\" href=\"#arg---json\">`--json`</a>\n<br>**env**: `PIXI_JSON`\n\n--8<-- \"docs/partials/p.md\"\n";
        let out = run(
            Markup::MkDocs,
            "reference/lock.md",
            text,
            &[("partials/p.md", "!!! tip\n    Shared text.\n")],
        );
        assert_eq!(out.front_matter_title.as_deref(), Some("pixi lock"));
        let md = out.markdown;
        assert!(md.starts_with("# [pixi](index.md) lock\n"), "{md}");
        assert!(md.contains("**pixi.toml**\n\n*Minimal*\n\n```toml\n# [snippet: docs/source_files/a.toml, section minimal is included here in the published manual; it is not part of this catalog: https://github.com/owner/tool/blob/v1.0.0/docs/source_files/a.toml]\n```"), "{md}");
        assert!(md.contains("- `--json`\n**env**: `PIXI_JSON`"), "{md}");
        assert!(md.contains("> **Tip**\n>\n> Shared text."), "{md}");
        assert!(!md.contains("<a "), "{md}");
    }

    #[test]
    fn myst_directives_roles_and_labels_are_rendered() {
        let target = "(process-page)=\n\n# Processes\n\n(process-stub)=\n\n## Stub\n";
        let text = "(here)=\n\n# Here\n\nSee {ref}`process-stub` and {ref}`the page <process-page>`.\n\n\
:::{versionadded} 20.11.0-edge\n:::\n\n:::{note}\nA *note*.\n:::\n\n\
```{literalinclude} snippets/a.nf\n:language: nextflow\n```\n\n\
```nextflow\n:::{note}\nnot a directive in code\n```\n\n\
`-d`\n: :::{deprecated} 23.10.0\n  :::\n: Old.\n";
        let out = run(
            Markup::Myst,
            "guide.md",
            text,
            &[("process.md", target), ("guide.md", text)],
        );
        let md = out.markdown;
        assert!(
            md.starts_with("# Here\n\nSee [Stub](process.md) and [the page](process.md).\n"),
            "{md}"
        );
        assert!(md.contains("*New in version 20.11.0-edge.*"), "{md}");
        assert!(md.contains("> **Note**\n>\n> A *note*."), "{md}");
        assert!(md.contains("> **Included file:** `snippets/a.nf` (nextflow) is shown here in the published manual; it is not part of this catalog. Source: <https://github.com/owner/tool/blob/v1.0.0/docs/snippets/a.nf>"), "{md}");
        assert!(
            md.contains("```nextflow\n:::{note}\nnot a directive in code\n```"),
            "{md}"
        );
        assert!(
            md.contains("`-d`\n: *Deprecated since version 23.10.0.*\n: Old."),
            "{md}"
        );
        assert!(!md.contains("(here)="), "{md}");
    }

    #[test]
    fn myst_toctrees_become_link_lists_with_titles() {
        let index = "# Home\n\n```{toctree}\n:hidden:\n:caption: Get started\n\noverview\nInstall it <install>\n```\n";
        let out = run(
            Markup::Myst,
            "index.md",
            index,
            &[("index.md", index), ("overview.md", "# Overview\n")],
        );
        assert!(
            out.markdown.contains(
                "**Get started:**\n\n- [Overview](overview.md)\n- [Install it](install.md)\n"
            ),
            "{}",
            out.markdown
        );
    }

    #[test]
    fn nested_myst_fences_close_at_their_own_level() {
        let text = "````{tabs}\n```{group-tab} DSL2\nText two.\n```\n```{group-tab} Typed\n```nextflow\nx\n```\n```\n````\nAfter\n";
        let out = run(Markup::Myst, "a.md", text, &[]);
        assert!(
            out.markdown.contains("**DSL2**\n\nText two.\n"),
            "{}",
            out.markdown
        );
        assert!(out.markdown.contains("**Typed**"), "{}", out.markdown);
        assert!(
            out.markdown.trim_end().ends_with("After"),
            "{}",
            out.markdown
        );
    }

    #[test]
    fn headings_skip_code_blocks() {
        let md = "# Title\n\n```bash\n# not a heading\n```\n\n## [Linked](x.md) part\n";
        assert_eq!(headings(md), ["Title", "Linked part"]);
    }
}
