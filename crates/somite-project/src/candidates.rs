//! Operator candidates: `project.*` contracts an agent (or a person) drafts
//! when the catalog lacks a tool, kept apart from the catalog until a person
//! accepts one.
//!
//! A candidate is the contract in the catalog's own strict format plus the
//! evidence it rests on: where the tool is documented, the package spec it
//! pins, and the help or manual excerpt each flag came from. It is checked
//! by the catalog's own validator ([`OperatorContract::validate`], through
//! the same strict parse) and then by the rules only a project operator
//! has ([`check_candidate`]): its id is under `project.`, it shadows no
//! reviewed id, it runs no shell and calls no Conda, Pixi, Docker or
//! Nextflow, and its evidence covers its pins and flags.
//!
//! Candidates live under `.somite/operator-candidates/<digest>.json`, named
//! by the digest of their content, so drafting the same content again is a
//! replay and two versions of one contract sit side by side for a diff.
//! They never enter the catalog: only [`accept`], which no agent-reachable
//! surface calls, publishes one under `.somite/operators/`.

use crate::durable::{self, DurableError};
use crate::layout::Layout;
use crate::project::Project;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_api::limits::{MAX_CANDIDATE_BYTES, MAX_CANDIDATES};
use somite_api::{DomainCode, Error, WorkshopCode};
use somite_workflow::canonical::revision_of;
use somite_workflow::operator::{ArgPart, OperatorContract, OperatorKind};
use somite_workflow::{Catalog, Revision, SomiteError};
use std::path::{Path, PathBuf};

/// The id prefix every project operator carries.
pub const PROJECT_PREFIX: &str = "project.";

/// Executables a candidate may not run: a shell would let any argv value
/// become a command, and environment and workflow managers belong to
/// Somite's own compiler and runner, not to one task.
pub const FORBIDDEN_EXECUTABLES: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "csh",
    "tcsh",
    "fish",
    "busybox",
    "env",
    "eval",
    "exec",
    "xargs",
    "conda",
    "mamba",
    "micromamba",
    "pixi",
    "docker",
    "podman",
    "singularity",
    "apptainer",
    "nextflow",
    "nf-core",
];

/// Interpreters that run a program given inline, and the short or long
/// flags that give it (`python3 -c CODE`, `perl -ne CODE`, `node --eval
/// CODE`). Such a command is a shell by another name: a person reviewing
/// the candidate would have to read a program hidden in one argument. The
/// awk and sed families take their program as the first operand, so only
/// `-f FILE` makes them acceptable.
const INLINE_CODE: &[(&str, &[char], &[&str])] = &[
    ("python", &['c'], &[]),
    ("perl", &['e', 'E'], &[]),
    ("ruby", &['e'], &[]),
    ("node", &['e', 'p'], &["--eval", "--print"]),
    ("nodejs", &['e', 'p'], &["--eval", "--print"]),
    ("deno", &[], &["eval"]),
    ("Rscript", &['e'], &[]),
    ("R", &['e'], &[]),
    ("php", &['r'], &[]),
    ("lua", &['e'], &[]),
    ("julia", &['e', 'E'], &["--eval", "--print"]),
    ("tclsh", &[], &[]),
];
const PROGRAM_FIRST: &[&str] = &["awk", "gawk", "mawk", "nawk", "sed", "gsed"];

/// The inline-code refusal of a candidate whose `bin` runs `words`, if any.
fn inline_code(bin: &str, words: &[&str]) -> Option<String> {
    let base = bin.rsplit('/').next().unwrap_or(bin);
    // `python3`, `python3.11`, `perl5.36`: the interpreter's family.
    let family = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if PROGRAM_FIRST.contains(&family) {
        return (!words.iter().any(|w| *w == "-f" || w.starts_with("--file"))).then(|| {
            format!(
                "`{base}` runs the program its first argument gives; ship it as a file with `-f`"
            )
        });
    }
    let (_, short, long) = INLINE_CODE.iter().find(|(name, ..)| *name == family)?;
    // The interpreter's own options come before its script: `python3 x.py
    // -c y` passes `-c` to the script.
    let options = words
        .iter()
        .skip_while(|w| w.rsplit('/').next() == Some(base))
        .take_while(|w| w.starts_with('-') || long.contains(w));
    options.into_iter().find_map(|word| {
        let inline = long
            .iter()
            .any(|l| word == l || word.starts_with(&format!("{l}=")))
            || word
                .strip_prefix('-')
                .filter(|flags| !flags.starts_with('-') && !flags.is_empty())
                .is_some_and(|flags| flags.chars().any(|c| short.contains(&c)));
        inline.then(|| format!("`{base} {word}` runs code given inline"))
    })
}

/// What a candidate's flags and pins rest on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// The tool's documentation URL (`https://…`) or a citation.
    pub documentation: String,
    /// The package spec the contract pins, one `name==version` per entry of
    /// the contract's `pixi` table.
    pub packages: Vec<String>,
    /// For each flag of the argv, the help or manual excerpt it came from.
    #[serde(default)]
    pub flags: Vec<FlagEvidence>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FlagEvidence {
    /// The flag as the argv writes it, e.g. `-a` or `--threads`.
    pub flag: String,
    /// The tool's own words about it (its `--help` or manual).
    pub excerpt: String,
}

/// A draft as submitted: the contract (JSON, the catalog's format) and its
/// evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateDraft {
    pub contract: Value,
    pub evidence: Evidence,
}

/// A stored candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    /// The digest of `{contract, evidence}`: the candidate's name.
    pub digest: Revision,
    pub operator_id: String,
    /// The execution revision the contract would pin once accepted.
    pub operator_revision: Revision,
    pub contract: OperatorContract,
    pub evidence: Evidence,
    /// Milliseconds since the Unix epoch, to order versions of one id.
    pub drafted_at_ms: u64,
}

/// A draft's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Drafted {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// True when the same content was already stored.
    pub replayed: bool,
}

fn invalid(field: &str, message: impl Into<String>) -> Error {
    Error::new(
        WorkshopCode::InvalidCandidate,
        format!("candidate field `{field}`: {}", message.into()),
        "fix the named field and draft the candidate again",
    )
    .with_details(json!({ "field": field }))
}

fn somite(error: SomiteError) -> Error {
    Error::from(error)
}

fn durable_error(error: DurableError) -> Error {
    Error::from(SomiteError::from(error))
}

/// Parses and checks a draft's bytes, returning the candidate it would store.
pub fn parse_draft(bytes: &[u8], builtin: &Catalog) -> Result<Candidate, Error> {
    if bytes.len() > MAX_CANDIDATE_BYTES {
        return Err(Error::new(
            WorkshopCode::CandidateLimit,
            format!(
                "the candidate is {} bytes; a candidate holds at most {MAX_CANDIDATE_BYTES}",
                bytes.len()
            ),
            "shorten the evidence excerpts to the lines each flag came from",
        ));
    }
    let draft: CandidateDraft =
        serde_json::from_slice(bytes).map_err(|e| invalid("candidate", e.to_string()))?;
    let text = serde_json::to_string(&draft.contract).expect("JSON values serialize");
    // The catalog's own strict parse and validator: a candidate is exactly
    // as valid as a contract file would be.
    let contract = OperatorContract::from_json(&text)
        .map_err(|e| invalid("contract", e.message.replace("operator contract ", "")))?;
    check_candidate(&contract, &draft.evidence, builtin)?;
    let digest = revision_of(&json!({"contract": draft.contract, "evidence": draft.evidence}));
    Ok(Candidate {
        digest,
        operator_id: contract.id.clone(),
        operator_revision: contract.revision(),
        contract,
        evidence: draft.evidence,
        drafted_at_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
    })
}

/// The rules a project operator has beyond a catalog contract's.
pub fn check_candidate(
    contract: &OperatorContract,
    evidence: &Evidence,
    builtin: &Catalog,
) -> Result<(), Error> {
    let Some(name) = contract.id.strip_prefix(PROJECT_PREFIX) else {
        return Err(invalid(
            "contract.id",
            format!("`{}` is not under `{PROJECT_PREFIX}`", contract.id),
        ));
    };
    // `project.fastp` would read as the reviewed `qc.fastp` in a palette
    // or a transcript: a project name may not be a reviewed operator's.
    if let Some(shadowed) = builtin.entries().find(|e| {
        e.contract.id == contract.id
            || e.contract
                .id
                .split_once('.')
                .is_some_and(|(_, n)| n == name)
    }) {
        return Err(invalid(
            "contract.id",
            format!(
                "`{}` shadows the reviewed catalog operator `{}`",
                contract.id, shadowed.contract.id
            ),
        ));
    }
    if contract.kind != OperatorKind::External {
        return Err(invalid(
            "contract.kind",
            "a project operator runs a tool: its kind is `external`",
        ));
    }
    let forbidden = |word: &str| {
        let base = word.rsplit('/').next().unwrap_or(word);
        FORBIDDEN_EXECUTABLES.contains(&base)
    };
    if let Some(bin) = &contract.bin
        && forbidden(bin)
    {
        return Err(invalid(
            "contract.bin",
            format!("`{bin}` is a shell or an environment/workflow manager"),
        ));
    }
    if let Some(bin) = &contract.bin {
        let templates = contract.argv_templates();
        let words: Vec<&str> = templates
            .iter()
            .flat_map(|t| &t.parts)
            .filter_map(|part| match part {
                ArgPart::Literal(text) => Some(text.as_str()),
                _ => None,
            })
            .flat_map(str::split_whitespace)
            .collect();
        if let Some(why) = inline_code(bin, &words) {
            return Err(Error::new(
                WorkshopCode::InlineCode,
                format!("candidate `{}`: {why}", contract.id),
                "Run a program the candidate's pinned packages install, with its inputs and parameters as arguments; code given inline is not a reviewable command.",
            )
            .with_details(json!({ "field": "contract.argv" })));
        }
    }
    for (index, template) in contract.argv_templates().iter().enumerate() {
        for part in &template.parts {
            if let ArgPart::Literal(text) = part
                && (forbidden(text)
                    || text.split_whitespace().count() > 1
                        && text.split_whitespace().any(forbidden))
            {
                return Err(invalid(
                    &format!("contract.argv[{index}]"),
                    format!("`{text}` calls a shell or an environment/workflow manager"),
                ));
            }
        }
    }
    for package in contract.pixi.keys() {
        if forbidden(package) {
            return Err(invalid(
                &format!("contract.pixi.{package}"),
                "Somite provides Pixi and Nextflow itself; a task does not pin them",
            ));
        }
    }
    let documentation = evidence.documentation.trim();
    let url = documentation.starts_with("https://") && !documentation.contains(char::is_whitespace);
    let citation = !documentation.contains("://") && documentation.len() >= 12;
    if !url && !citation {
        return Err(invalid(
            "evidence.documentation",
            "give the tool's https:// documentation URL or a citation of at least 12 characters",
        ));
    }
    let mut pinned: Vec<String> = contract
        .pixi
        .iter()
        .map(|(name, version)| format!("{name}=={version}"))
        .collect();
    let mut declared = evidence.packages.clone();
    pinned.sort();
    declared.sort();
    if pinned != declared {
        return Err(invalid(
            "evidence.packages",
            format!(
                "the evidence names {declared:?}, the contract pins {pinned:?}; they must be the same"
            ),
        ));
    }
    for flag in argv_flags(contract) {
        let covered = evidence
            .flags
            .iter()
            .any(|f| f.flag == flag && f.excerpt.contains(&flag));
        if !covered {
            return Err(invalid(
                "evidence.flags",
                format!("flag `{flag}` has no help or manual excerpt that mentions it"),
            ));
        }
    }
    Ok(())
}

/// The flags a contract's argv passes: literal tokens starting with `-`,
/// without an `=value`.
pub fn argv_flags(contract: &OperatorContract) -> Vec<String> {
    let mut flags = Vec::new();
    for template in contract.argv_templates() {
        if let Some(ArgPart::Literal(text)) = template.parts.first()
            && text.starts_with('-')
            && text.len() > 1
        {
            let flag = text.split('=').next().unwrap_or(text).to_owned();
            if !flags.contains(&flag) {
                flags.push(flag);
            }
        }
    }
    flags
}

fn candidate_path(layout: &Layout, digest: &str) -> Result<PathBuf, Error> {
    let hex = digest
        .strip_prefix("blake3:")
        .filter(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| not_found(digest))?;
    Ok(layout.operator_candidates().join(format!("{hex}.json")))
}

fn not_found(digest: &str) -> Error {
    Error::new(
        WorkshopCode::CandidateNotFound,
        format!("no operator candidate {digest}"),
        "list the candidates and use one of their digests",
    )
}

/// Stores a checked candidate: a replay when its content is already there,
/// `candidate_limit` when the project holds [`MAX_CANDIDATES`] others.
pub fn store(layout: &Layout, candidate: Candidate) -> Result<Drafted, Error> {
    let path = candidate_path(layout, &candidate.digest)?;
    if let Ok(existing) = read(layout, &candidate.digest) {
        return Ok(Drafted {
            candidate: existing,
            replayed: true,
        });
    }
    let held = list(layout)?.len();
    if held >= MAX_CANDIDATES {
        return Err(Error::new(
            WorkshopCode::CandidateLimit,
            format!("the project already holds {held} operator candidates, the most it keeps"),
            "reject candidates you no longer need in the Project tools panel",
        ));
    }
    let bytes = serde_json::to_vec_pretty(&candidate).expect("candidates serialize");
    durable::publish(&path, &bytes).map_err(durable_error)?;
    Ok(Drafted {
        candidate,
        replayed: false,
    })
}

/// Reads one stored candidate.
pub fn read(layout: &Layout, digest: &str) -> Result<Candidate, Error> {
    let path = candidate_path(layout, digest)?;
    read_file(&path)?.ok_or_else(|| not_found(digest))
}

fn read_file(path: &Path) -> Result<Option<Candidate>, Error> {
    match durable::read_capped(path, 4 * MAX_CANDIDATE_BYTES as u64) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Error::new(
                DomainCode::InvalidDocument,
                format!("{}: {e}", path.display()),
                "reject the damaged candidate and draft it again",
            )
        }),
        Err(DurableError::NotFound { .. }) => Ok(None),
        Err(e) => Err(durable_error(e)),
    }
}

/// Every stored candidate, oldest first.
pub fn list(layout: &Layout) -> Result<Vec<Candidate>, Error> {
    let dir = layout.operator_candidates();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(somite(SomiteError::io(&dir, &e))),
    };
    let mut candidates = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "json")
            && let Some(candidate) = read_file(&path)?
        {
            candidates.push(candidate);
        }
    }
    candidates.sort_by(|a, b| (a.drafted_at_ms, &a.digest).cmp(&(b.drafted_at_ms, &b.digest)));
    Ok(candidates)
}

/// Deletes a candidate (Reject). Human routes only.
pub fn reject(layout: &Layout, digest: &str) -> Result<(), Error> {
    let path = candidate_path(layout, digest)?;
    match std::fs::remove_file(&path) {
        Ok(()) => sync_dir(&layout.operator_candidates()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(not_found(digest)),
        Err(e) => Err(somite(SomiteError::io(&path, &e))),
    }
}

fn sync_dir(dir: &Path) -> Result<(), Error> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| somite(SomiteError::io(dir, &e)))
}

/// What accepting a candidate did.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub operator_id: String,
    pub operator_revision: Revision,
    pub previous_catalog_revision: Revision,
    pub catalog_revision: Revision,
    /// The published contract, relative to the project root.
    pub path: String,
}

/// Publishes a candidate as a project operator (Accept) — human routes only.
///
/// Refused when the graph pins another revision of the same id (accepting
/// would replace it under those nodes). The file is written, the live
/// catalog reloaded from disk, and only if that load succeeds is the
/// candidate removed; a failed load takes the file back out, so the
/// catalog on disk is always one that loads.
pub fn accept(project: &mut Project, digest: &str) -> Result<Accepted, Error> {
    let layout = project.layout().clone();
    let candidate = read(&layout, digest)?;
    let id = &candidate.operator_id;
    if let Some(existing) = project.catalog().get(id)
        && existing.revision != candidate.operator_revision
        && let Some(node) = project
            .document()
            .nodes
            .iter()
            .find(|n| n.operator_id == *id && n.operator_revision == existing.revision)
    {
        return Err(Error::new(
            WorkshopCode::PinnedRevisionConflict,
            format!(
                "node `{}` pins {id} at {}; accepting would replace that revision",
                node.id, existing.revision
            ),
            "draft the new version under a new id, or remove the nodes that pin the old one first",
        ));
    }
    let path = layout.operators().join(format!("{id}.json"));
    let previous = match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(somite(SomiteError::io(&path, &e))),
    };
    let bytes = serde_json::to_vec_pretty(&candidate.contract).expect("contracts serialize");
    durable::publish(&path, &bytes).map_err(durable_error)?;
    let previous_catalog_revision = project.catalog().revision().clone();
    if let Err(error) = project.reload_catalog() {
        let restored = match &previous {
            Some(old) => durable::publish(&path, old).map_err(durable_error),
            None => std::fs::remove_file(&path).map_err(|e| somite(SomiteError::io(&path, &e))),
        };
        restored?;
        return Err(somite(error));
    }
    reject(&layout, digest)?;
    Ok(Accepted {
        operator_id: id.clone(),
        operator_revision: candidate.operator_revision,
        previous_catalog_revision,
        catalog_revision: project.catalog().revision().clone(),
        path: format!("{}/operators/{id}.json", crate::layout::DATA_DIR),
    })
}

#[cfg(test)]
mod tests {
    use super::inline_code;

    #[test]
    fn an_interpreter_given_code_inline_is_refused_and_a_script_is_not() {
        for (bin, argv) in [
            ("python3", &["python3", "-c", "import os"][..]),
            ("/usr/bin/python3.11", &["python3.11", "-Bc", "x"]),
            ("perl", &["perl", "-ne", "print"]),
            ("perl", &["perl", "-E", "say 1"]),
            ("Rscript", &["Rscript", "-e", "1"]),
            ("ruby", &["ruby", "-e", "1"]),
            ("node", &["node", "--eval", "1"]),
            ("node", &["node", "--eval=1"]),
            ("awk", &["awk", "{print $1}"]),
            ("gawk", &["gawk", "-F", "\t", "{print}"]),
            ("sed", &["sed", "-e", "s/a/b/"]),
        ] {
            assert!(inline_code(bin, argv).is_some(), "{bin} {argv:?}");
        }
        for (bin, argv) in [
            (
                "python3",
                &["python3", "-m", "multiqc", "-c", "config.yml"][..],
            ),
            ("python3", &["python3", "script.py", "-c", "5"]),
            ("perl", &["perl", "-w", "tool.pl", "-e", "x"]),
            ("awk", &["awk", "-f", "program.awk"]),
            ("seqtk", &["seqtk", "seq", "-a"]),
            ("fastp", &["fastp", "-c"]),
        ] {
            assert_eq!(inline_code(bin, argv), None, "{bin} {argv:?}");
        }
    }
}
