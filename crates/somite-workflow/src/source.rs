//! The `workflow.source` node: a real Nextflow pipeline, pinned to one
//! commit and tree digest, standing on the canvas as one node.
//!
//! Most people start from nf-core/rnaseq or their lab's pipeline rather than
//! an empty canvas. Such a pipeline is not made of Somite operators, so its
//! node carries its own contract instead of a catalog revision: the
//! [`SourceBinding`] pins the repository, release, commit and tree digest,
//! and lists the typed parameters of the pipeline's `nextflow_schema.json`
//! and its processes with the Conda environment each one declares. Keeping
//! that contract in the node keeps this crate pure: parameter checks and the
//! Workflow assessment need no file system and no network. The node's
//! `operator_revision` is the digest of its binding, so a document whose
//! binding was altered does not validate.
//!
//! Only the resolve surfaces create a binding (from a verified tree and its
//! static outline), through [`Operation::PlaceSource`](crate::transaction::Operation),
//! which a client cannot send. A source workflow is the source node alone:
//! it never mixes with native nodes, so its compile is the pinned pipeline
//! itself.

use crate::canonical::{Revision, is_revision, revision_of};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::operator::{ParamType, check_import_path};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The operator id every source node carries.
pub const SOURCE_OPERATOR_ID: &str = "workflow.source";

/// The node id the resolve surfaces use unless told otherwise.
pub const DEFAULT_SOURCE_NODE_ID: &str = "source";

/// Where a pinned pipeline came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SourceProvider {
    #[serde(rename = "nf-core")]
    NfCore,
    #[serde(rename = "github")]
    GitHub,
}

/// The pin and the contract of a source node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceBinding {
    pub provider: SourceProvider,
    /// `owner/name` on GitHub.
    pub repository: String,
    /// The nf-core release tag; none for a GitHub source.
    pub release: Option<String>,
    /// The GitHub ref as the user gave it; none for an nf-core release.
    pub git_ref: Option<String>,
    /// The 40-hex commit the source is pinned to.
    pub commit: String,
    /// The tree digest checked before every use.
    pub tree_digest: Revision,
    /// The entry script, relative to the tree.
    pub entry: String,
    /// The manifest's name, else the repository.
    pub name: String,
    pub description: Option<String>,
    /// The manifest's Nextflow requirement as written (`!>=24.04.2`).
    pub nextflow_version: Option<String>,
    /// Typed parameters of `nextflow_schema.json`, in schema order.
    pub params: Vec<SourceParam>,
    /// Every process the outline found, by file and line.
    pub processes: Vec<SourceProcess>,
}

/// A pipeline parameter's JSON Schema type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SourceParamType {
    String,
    Integer,
    Number,
    Boolean,
}

impl SourceParamType {
    /// The schema type name as written in `nextflow_schema.json`.
    pub fn from_schema(name: &str) -> Option<SourceParamType> {
        match name {
            "string" => Some(SourceParamType::String),
            "integer" => Some(SourceParamType::Integer),
            "number" => Some(SourceParamType::Number),
            "boolean" => Some(SourceParamType::Boolean),
            _ => None,
        }
    }

    fn param_type(self) -> ParamType {
        match self {
            SourceParamType::String => ParamType::String,
            SourceParamType::Integer => ParamType::Int,
            SourceParamType::Number => ParamType::Float,
            SourceParamType::Boolean => ParamType::Bool,
        }
    }
}

/// One typed parameter of the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceParam {
    pub name: String,
    pub group: Option<String>,
    #[serde(rename = "type")]
    pub ty: SourceParamType,
    pub description: Option<String>,
    pub help_text: Option<String>,
    pub default: Option<Value>,
    /// The allowed values; empty allows any.
    #[serde(rename = "enum")]
    pub enum_values: Vec<Value>,
    /// A regular expression a string value must match.
    pub pattern: Option<String>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    /// `file-path`, `directory-path`, `path`, `file-path-pattern`, …
    pub format: Option<String>,
    /// The schema's `exists: true`: the path must be there before a run.
    pub exists: bool,
    pub required: bool,
    pub hidden: bool,
}

impl SourceParam {
    /// Whether the value names one local file or folder that must exist
    /// before a run (a glob pattern is matched at run time instead).
    pub fn is_path(&self) -> bool {
        matches!(
            self.format.as_deref(),
            Some("file-path" | "directory-path" | "path")
        )
    }

    /// Whether readiness checks that the path exists: the schema says so,
    /// or it names a file (a folder such as `outdir` is made by the run).
    pub fn must_exist(&self) -> bool {
        self.is_path() && (self.exists || self.format.as_deref() == Some("file-path"))
    }
}

/// One process declaration of the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceProcess {
    pub name: String,
    pub file: String,
    pub line: u32,
    /// The `environment.yml` the process runs in, relative to the tree;
    /// none when it declares no Conda environment.
    pub environment: Option<String>,
}

impl SourceBinding {
    /// The revision a node holding this binding pins.
    pub fn revision(&self) -> Revision {
        revision_of(self)
    }

    pub fn param(&self, name: &str) -> Option<&SourceParam> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Checks what a stored binding must hold.
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| {
            Err(SomiteError::new(
                ErrorCode::InvalidDocument,
                message,
                "resolve the pipeline again onto an empty canvas",
            ))
        };
        if self.commit.len() != 40
            || !self
                .commit
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return invalid(format!("`{}` is not a full commit SHA", self.commit));
        }
        if !is_revision(&self.tree_digest) {
            return invalid(format!("`{}` is not a tree digest", self.tree_digest));
        }
        if self.repository.split('/').count() != 2 {
            return invalid(format!("`{}` is not owner/name", self.repository));
        }
        let mut names = std::collections::BTreeSet::new();
        for p in &self.params {
            if !names.insert(p.name.as_str()) {
                return invalid(format!("the parameter `{}` is listed twice", p.name));
            }
        }
        Ok(())
    }
}

/// Checks `value` for the source parameter `name` of node `node_id`.
pub fn check_source_param(
    binding: &SourceBinding,
    node_id: &str,
    name: &str,
    value: &Value,
) -> Result<()> {
    let Some(spec) = binding.param(name) else {
        let names: Vec<&str> = binding.params.iter().map(|p| p.name.as_str()).collect();
        return Err(SomiteError::new(
            ErrorCode::UnknownParam,
            format!(
                "{} (node `{node_id}`) has no parameter `{name}`",
                binding.repository
            ),
            format!("its parameters are: {}", names.join(", ")),
        ));
    };
    let type_error = || {
        SomiteError::new(
            ErrorCode::InvalidParamType,
            format!("`{name}` takes a {:?} value", spec.ty.param_type()),
            "send the value with the parameter's type",
        )
    };
    let range = |message: String| {
        SomiteError::new(
            ErrorCode::ParamOutOfRange,
            message,
            "choose a value the pipeline's schema allows",
        )
    };
    let number = match spec.ty {
        SourceParamType::Boolean => {
            value.as_bool().ok_or_else(type_error)?;
            None
        }
        SourceParamType::Integer => Some(value.as_i64().ok_or_else(type_error)? as f64),
        SourceParamType::Number => {
            let n = value.as_f64().ok_or_else(type_error)?;
            if !n.is_finite() {
                return Err(type_error());
            }
            Some(n)
        }
        SourceParamType::String => {
            let text = value.as_str().ok_or_else(type_error)?;
            if text.len() > crate::limits::MAX_STRING_PARAM_BYTES {
                return Err(range(format!(
                    "`{name}` is longer than {} bytes",
                    crate::limits::MAX_STRING_PARAM_BYTES
                )));
            }
            if text.contains('\0') {
                return Err(range(format!("`{name}` cannot contain NUL")));
            }
            if spec.is_path() {
                check_import_path(name, text).map_err(|fault| range(fault.to_string()))?;
            }
            // A pattern this engine cannot compile (JSON Schema patterns are
            // ECMA-262) is left to the pipeline's own validation at run time.
            if let Some(pattern) = &spec.pattern
                && let Ok(re) = regex::Regex::new(pattern)
                && !re.is_match(text)
            {
                return Err(range(format!(
                    "`{name}` must match the pattern `{pattern}`, and `{text}` does not"
                )));
            }
            None
        }
    };
    if !spec.enum_values.is_empty() && !spec.enum_values.contains(value) {
        let choices: Vec<String> = spec.enum_values.iter().map(Value::to_string).collect();
        return Err(range(format!(
            "`{name}` is one of {}, not {value}",
            choices.join(", ")
        )));
    }
    if let Some(n) = number {
        let below = spec.minimum.is_some_and(|min| n < min);
        let above = spec.maximum.is_some_and(|max| n > max);
        if below || above {
            return Err(range(format!(
                "`{name}` must be within {}..={}, not {n}",
                spec.minimum.map_or("-∞".into(), |m| m.to_string()),
                spec.maximum.map_or("∞".into(), |m| m.to_string()),
            )));
        }
    }
    Ok(())
}

/// The type an inspector control shows for a source parameter.
pub(crate) fn control_type(param: &SourceParam) -> ParamType {
    param.ty.param_type()
}
