//! The permission policy: which permission requests Somite answers itself.
//!
//! Somite answers a `session/request_permission` on the user's behalf only
//! when the tool call's structured identity — its MCP server and tool name —
//! is certain and on an allowlist:
//! - the Somite MCP server and one exact advertised `somite.*` tool;
//! - the Pixi or Nextflow server and one exact read-only tool
//!   ([`PIXI_READ_ONLY_TOOLS`], [`NEXTFLOW_READ_ONLY_TOOLS`]); a tool that
//!   takes an `action` argument is allowed only for its read-only actions,
//!   read from the call's arguments.
//!
//! One Somite tool is never answered by Somite: `somite.resource` with
//! an `install` (gigabytes of download and disk, and a scientific choice
//! only the user makes) or a `cancel` that deletes the partial download
//! ([`tools::resource::needs_user`]) always waits for the user, whatever
//! the options; its `inspect` is allowed like any other Somite read. The
//! runtime keeps the same line on its side: it installs for an agent only
//! after the user answered that very prompt, so an agent that remembered
//! an `allow_always` and skips asking is refused there.
//!
//! Everything else waits for the user: unknown tools, prefix-shaped labels
//! (`somite.workflow.get_evil`, `somite.*`), shell commands, installs,
//! executions, remote launches, cleanup and other mutations, and any call
//! whose fields disagree about who it is.
//!
//! # Where the identity comes from
//!
//! Agents present MCP calls in different shapes, so every field that can
//! carry an identity is read, and all that do must agree:
//! - `rawInput` `{server, tool, arguments}` (Codex ACP);
//! - a title `Tool: <server>/<tool>` (Codex ACP in Rust) or
//!   `mcp.<server>.<tool>` (Codex ACP in TypeScript);
//! - `mcp__<server>__<tool>` in the title, the tool call's `name` or
//!   `_meta.claudeCode.toolName` (Claude ACP), where both names have had every
//!   character outside `[A-Za-z0-9_-]` replaced by `_`; such a name is
//!   resolved only when exactly one configured server and one known tool
//!   normalise to it;
//! - `_meta.claudeCode.mcpServer.name` (Claude ACP's permission requests),
//!   which names only the server.
//!
//! Other titles are display text and say nothing; a `name` or
//! `_meta.claudeCode.toolName` that is not an MCP name is a claim that the call
//! is something else, and conflicts with any MCP identity.
//!
//! Somite auto-allows only through an `allow_once` option, chosen by kind —
//! never `allow_always`, which would let the agent skip asking next time,
//! whatever the arguments. A permission the user does not answer within the
//! timeout is answered by [`timeout_answer`].

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use somite_api::tools;
use thiserror::Error;

/// The argument that selects the operation of a multi-action tool.
pub const ACTION_ARGUMENT: &str = "action";

/// A read-only tool of a toolchain server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOnlyTool {
    /// The exact MCP tool name.
    pub name: &'static str,
    /// For a multi-action tool, the [`ACTION_ARGUMENT`] values that only read.
    pub read_only_actions: Option<&'static [&'static str]>,
}

const fn any_call(name: &'static str) -> ReadOnlyTool {
    ReadOnlyTool {
        name,
        read_only_actions: None,
    }
}

const fn actions(name: &'static str, read_only_actions: &'static [&'static str]) -> ReadOnlyTool {
    ReadOnlyTool {
        name,
        read_only_actions: Some(read_only_actions),
    }
}

/// Pixi calls Somite allows without asking: documentation, runtime
/// information, inspection, package search, `pixi_lock` checks and
/// `pixi_task` listings. The names are exactly those `somite mcp pixi`
/// advertises.
pub const PIXI_READ_ONLY_TOOLS: &[ReadOnlyTool] = &[
    any_call(tools::pixi::DOCS_SEARCH),
    any_call(tools::pixi::DOCS_READ),
    any_call(tools::pixi::DOCS_LIST),
    any_call(tools::pixi::RUNTIME_INFO),
    any_call(tools::pixi::INSPECT),
    any_call(tools::pixi::PACKAGE_SEARCH),
    actions(tools::pixi::LOCK, &["check"]),
    actions(tools::pixi::TASK, &["list"]),
];

/// Nextflow calls Somite allows without asking: documentation, runtime
/// information, lint and history reads (`nextflow log` of the runs and of
/// one run). The names are exactly those `somite mcp nextflow` advertises;
/// it has no module tool, so none is allowed.
pub const NEXTFLOW_READ_ONLY_TOOLS: &[ReadOnlyTool] = &[
    any_call(tools::nextflow::DOCS_SEARCH),
    any_call(tools::nextflow::DOCS_READ),
    any_call(tools::nextflow::DOCS_LIST),
    any_call(tools::nextflow::RUNTIME_INFO),
    actions(tools::nextflow::ANALYZE, &["lint"]),
    actions(tools::nextflow::HISTORY, &["runs", "run"]),
];

/// The MCP servers and tools of one session, as Somite configured them. The
/// default boundary knows no server, so nothing is allowed automatically.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolBoundary {
    somite: Option<SomiteServer>,
    pixi_server: Option<String>,
    nextflow_server: Option<String>,
}

/// The Somite server and the exact tools it advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SomiteServer {
    name: String,
    tools: BTreeSet<String>,
}

/// A tool list that cannot be the Somite server's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoundaryError {
    /// An advertised tool is not a `somite.*` MCP tool name.
    #[error(
        "`{name}` is not a Somite tool: Somite tools are named `somite.` followed by 1-121 of [A-Za-z0-9_.-]"
    )]
    NotASomiteTool {
        /// The offending name.
        name: String,
    },
}

impl ToolBoundary {
    /// Names the Somite server of this session and the exact tools it advertises.
    ///
    /// # Errors
    /// [`BoundaryError::NotASomiteTool`] for a tool outside `somite.*`.
    pub fn with_somite<I, S>(
        mut self,
        server: impl Into<String>,
        somite_tools: I,
    ) -> Result<Self, BoundaryError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let tools = somite_tools
            .into_iter()
            .map(Into::into)
            .map(|name: String| {
                let valid = name.len() <= 128
                    && name
                        .strip_prefix(tools::somite::PREFIX)
                        .is_some_and(|rest| {
                            !rest.is_empty()
                                && rest.bytes().all(|b| {
                                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
                                })
                        });
                if valid {
                    Ok(name)
                } else {
                    Err(BoundaryError::NotASomiteTool { name })
                }
            })
            .collect::<Result<_, _>>()?;
        self.somite = Some(SomiteServer {
            name: server.into(),
            tools,
        });
        Ok(self)
    }

    /// Names the Pixi server of this session.
    #[must_use]
    pub fn with_pixi(mut self, server: impl Into<String>) -> Self {
        self.pixi_server = Some(server.into());
        self
    }

    /// Names the Nextflow server of this session.
    #[must_use]
    pub fn with_nextflow(mut self, server: impl Into<String>) -> Self {
        self.nextflow_server = Some(server.into());
        self
    }

    fn servers(&self) -> impl Iterator<Item = &str> {
        self.somite
            .as_ref()
            .map(|somite| somite.name.as_str())
            .into_iter()
            .chain(self.pixi_server.as_deref())
            .chain(self.nextflow_server.as_deref())
    }

    /// The tools Somite knows by exact name on `server`.
    fn known_tools(&self, server: &str) -> Vec<&str> {
        if let Some(somite) = self.somite.as_ref().filter(|somite| somite.name == server) {
            somite.tools.iter().map(String::as_str).collect()
        } else if Some(server) == self.pixi_server.as_deref() {
            PIXI_READ_ONLY_TOOLS.iter().map(|tool| tool.name).collect()
        } else if Some(server) == self.nextflow_server.as_deref() {
            NEXTFLOW_READ_ONLY_TOOLS
                .iter()
                .map(|tool| tool.name)
                .collect()
        } else {
            Vec::new()
        }
    }
}

/// The merged fields an agent has sent about one tool call, across its
/// `tool_call`, `tool_call_update`s and permission requests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallFacts {
    /// The latest title.
    pub title: Option<String>,
    /// The latest tool name (ACP's optional `name`).
    pub name: Option<String>,
    /// The latest raw input.
    pub raw_input: Option<Value>,
    /// Every `_meta` key seen, the latest value winning.
    pub meta: Map<String, Value>,
}

/// Which MCP tool a call is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolIdentity {
    /// The MCP server's name, as Somite configured it.
    pub server: String,
    /// The exact MCP tool name.
    pub tool: String,
}

impl fmt::Display for ToolIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.server, self.tool)
    }
}

/// What the fields of a tool call establish about its identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityVerdict {
    /// Every identity-bearing field agrees.
    Identified(ToolIdentity),
    /// No field carries an MCP identity.
    Unidentified,
    /// A field carries an identity Somite cannot pin to one server and tool.
    Unresolved {
        /// The field and what it says.
        claim: String,
    },
    /// Fields disagree.
    Conflicting {
        /// The disagreeing fields and what each says.
        claims: Vec<String>,
    },
}

/// What one field says about the call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Claim {
    /// An exact server and tool.
    Exact(ToolIdentity),
    /// Only the server.
    Server(String),
    /// The call is not an MCP call (a non-MCP tool name).
    NotMcp,
}

/// A field that carries an identity, with what it says; `claim` is `None`
/// when the field names a tool Somite cannot pin to one server and tool.
struct FieldClaim {
    field: &'static str,
    text: String,
    claim: Option<Claim>,
}

impl FieldClaim {
    fn describe(&self) -> String {
        format!("{} says `{}`", self.field, self.text)
    }
}

/// The single item of `items`, if there is exactly one.
fn only_one<T>(mut items: Vec<T>) -> Option<T> {
    if items.len() == 1 { items.pop() } else { None }
}

/// Claude Code's tool-name normalisation.
fn claude_normalized(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn is_plain_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

impl ToolBoundary {
    /// Resolves `mcp__<server>__<tool>` against the configured servers and
    /// known tools; exactly one of each must normalise to the given names.
    fn resolve_claude_name(&self, name: &str) -> Option<Claim> {
        let rest = name.strip_prefix("mcp__")?;
        let (server_part, tool_part) = rest.split_once("__")?;
        let server = only_one(
            self.servers()
                .filter(|server| claude_normalized(server) == server_part)
                .collect(),
        )?;
        let tool = only_one(
            self.known_tools(server)
                .into_iter()
                .filter(|tool| claude_normalized(tool) == tool_part)
                .collect(),
        )?;
        Some(Claim::Exact(ToolIdentity {
            server: server.to_owned(),
            tool: tool.to_owned(),
        }))
    }

    /// Resolves `mcp.<server>.<tool>`; exactly one configured server must prefix it.
    fn resolve_dotted_name(&self, name: &str) -> Option<Claim> {
        let rest = name.strip_prefix("mcp.")?;
        let mut matches = self.servers().filter_map(|server| {
            let tool = rest.strip_prefix(server)?.strip_prefix('.')?;
            is_plain_name(tool).then(|| ToolIdentity {
                server: server.to_owned(),
                tool: tool.to_owned(),
            })
        });
        match (matches.next(), matches.next()) {
            (Some(identity), None) => Some(Claim::Exact(identity)),
            _ => None,
        }
    }

    /// A title: `Tool: <server>/<tool>`, `mcp.<server>.<tool>`, `mcp__...`, or
    /// display text (no claim).
    fn title_claim(&self, title: &str) -> Option<Option<Claim>> {
        if let Some(rest) = title.strip_prefix("Tool: ") {
            return Some(match rest.split_once('/') {
                Some((server, tool)) if is_plain_name(server) && is_plain_name(tool) => {
                    Some(Claim::Exact(ToolIdentity {
                        server: server.to_owned(),
                        tool: tool.to_owned(),
                    }))
                }
                _ => None,
            });
        }
        if title.starts_with("mcp__") {
            return Some(self.resolve_claude_name(title));
        }
        if title.starts_with("mcp.") {
            return Some(self.resolve_dotted_name(title));
        }
        None
    }

    /// A tool name: `mcp__...` is an MCP name; anything else says the call is
    /// not an MCP call.
    fn tool_name_claim(&self, name: &str) -> Option<Claim> {
        if name.starts_with("mcp__") {
            self.resolve_claude_name(name)
        } else {
            Some(Claim::NotMcp)
        }
    }

    fn claims(&self, call: &ToolCallFacts) -> Vec<FieldClaim> {
        let mut claims = Vec::new();
        if let Some(Value::Object(input)) = &call.raw_input
            && (input.contains_key("server") || input.contains_key("tool"))
        {
            let server = input.get("server").and_then(Value::as_str);
            let tool = input.get("tool").and_then(Value::as_str);
            claims.push(FieldClaim {
                field: "rawInput",
                text: format!("{}/{}", server.unwrap_or("?"), tool.unwrap_or("?")),
                claim: match (server, tool) {
                    (Some(server), Some(tool)) if !server.is_empty() && !tool.is_empty() => {
                        Some(Claim::Exact(ToolIdentity {
                            server: server.to_owned(),
                            tool: tool.to_owned(),
                        }))
                    }
                    _ => None,
                },
            });
        }
        if let Some(title) = &call.title
            && let Some(claim) = self.title_claim(title)
        {
            claims.push(FieldClaim {
                field: "title",
                text: title.clone(),
                claim,
            });
        }
        if let Some(name) = &call.name {
            claims.push(FieldClaim {
                field: "name",
                text: name.clone(),
                claim: self.tool_name_claim(name),
            });
        }
        let claude = call.meta.get("claudeCode");
        if let Some(tool_name) = claude.and_then(|meta| meta.get("toolName")) {
            let text = tool_name.as_str().unwrap_or_default().to_owned();
            claims.push(FieldClaim {
                field: "_meta.claudeCode.toolName",
                claim: tool_name
                    .as_str()
                    .and_then(|name| self.tool_name_claim(name)),
                text,
            });
        }
        if let Some(server) = claude.and_then(|meta| meta.pointer("/mcpServer/name")) {
            let text = server.as_str().unwrap_or_default().to_owned();
            claims.push(FieldClaim {
                field: "_meta.claudeCode.mcpServer.name",
                claim: server
                    .as_str()
                    .filter(|name| !name.is_empty())
                    .map(|name| Claim::Server(name.to_owned())),
                text,
            });
        }
        claims
    }

    /// What the fields of `call` establish about its identity (see the module docs).
    #[must_use]
    pub fn identify(&self, call: &ToolCallFacts) -> IdentityVerdict {
        let claims = self.claims(call);
        if let Some(unresolved) = claims.iter().find(|claim| claim.claim.is_none()) {
            return IdentityVerdict::Unresolved {
                claim: unresolved.describe(),
            };
        }
        let identities: Vec<&ToolIdentity> = claims
            .iter()
            .filter_map(|claim| match &claim.claim {
                Some(Claim::Exact(identity)) => Some(identity),
                _ => None,
            })
            .collect();
        let Some(&identity) = identities.first() else {
            return IdentityVerdict::Unidentified;
        };
        let agrees = |claim: &FieldClaim| match &claim.claim {
            Some(Claim::Exact(other)) => other == identity,
            Some(Claim::Server(server)) => *server == identity.server,
            Some(Claim::NotMcp) | None => false,
        };
        if claims.iter().all(agrees) {
            IdentityVerdict::Identified(identity.clone())
        } else {
            IdentityVerdict::Conflicting {
                claims: claims.iter().map(FieldClaim::describe).collect(),
            }
        }
    }

    /// Decides whether Somite answers a permission request itself.
    #[must_use]
    pub fn decide(&self, call: &ToolCallFacts, options: &[PermissionChoice]) -> PermissionDecision {
        let identity = match self.identify(call) {
            IdentityVerdict::Identified(identity) => identity,
            IdentityVerdict::Unidentified => {
                return PermissionDecision::Ask(AskReason::NoIdentity);
            }
            IdentityVerdict::Unresolved { claim } => {
                return PermissionDecision::Ask(AskReason::UnresolvedIdentity { claim });
            }
            IdentityVerdict::Conflicting { claims } => {
                return PermissionDecision::Ask(AskReason::ConflictingIdentity { claims });
            }
        };
        if let Err(reason) = self.allowlisted(&identity, call) {
            return PermissionDecision::Ask(reason);
        }
        match options
            .iter()
            .find(|option| option.kind == PermissionChoiceKind::AllowOnce)
        {
            Some(option) => PermissionDecision::AutoAllow {
                option_id: option.option_id.clone(),
                identity,
            },
            None => PermissionDecision::Ask(AskReason::NoAllowOnceOption { identity }),
        }
    }

    fn allowlisted(&self, identity: &ToolIdentity, call: &ToolCallFacts) -> Result<(), AskReason> {
        if let Some(somite) = self
            .somite
            .as_ref()
            .filter(|somite| somite.name == identity.server)
        {
            return if !somite.tools.contains(&identity.tool) {
                Err(AskReason::NotAllowlisted {
                    identity: identity.clone(),
                })
            } else if identity.tool == tools::somite::RESOURCE
                && tools::resource::needs_user(call_arguments(call))
            {
                Err(AskReason::UserDecision {
                    identity: identity.clone(),
                    action: call_arguments(call)
                        .and_then(|arguments| arguments.get(tools::resource::ACTION))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            } else {
                Ok(())
            };
        }
        let table = if Some(identity.server.as_str()) == self.pixi_server.as_deref() {
            PIXI_READ_ONLY_TOOLS
        } else if Some(identity.server.as_str()) == self.nextflow_server.as_deref() {
            NEXTFLOW_READ_ONLY_TOOLS
        } else {
            &[]
        };
        let Some(tool) = table.iter().find(|tool| tool.name == identity.tool) else {
            return Err(AskReason::NotAllowlisted {
                identity: identity.clone(),
            });
        };
        let Some(read_only_actions) = tool.read_only_actions else {
            return Ok(());
        };
        let action = call_arguments(call)
            .and_then(|arguments| arguments.get(ACTION_ARGUMENT))
            .and_then(Value::as_str);
        match action {
            Some(action) if read_only_actions.contains(&action) => Ok(()),
            _ => Err(AskReason::ActionNotReadOnly {
                identity: identity.clone(),
                action: action.map(str::to_owned),
            }),
        }
    }
}

/// The call's MCP arguments: `rawInput.arguments` in the `{server, tool,
/// arguments}` shape, otherwise `rawInput` itself.
fn call_arguments(call: &ToolCallFacts) -> Option<&Map<String, Value>> {
    let input = call.raw_input.as_ref()?.as_object()?;
    if input.contains_key("server") || input.contains_key("tool") {
        input.get("arguments")?.as_object()
    } else {
        Some(input)
    }
}

/// One option a permission request offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionChoice {
    /// The agent's id for the option.
    pub option_id: String,
    /// The agent's label.
    pub name: String,
    /// What choosing it means.
    pub kind: PermissionChoiceKind,
}

/// What a permission option means, which is how Somite chooses among them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionChoiceKind {
    /// Allow this call.
    AllowOnce,
    /// Allow this call and later ones like it.
    AllowAlways,
    /// Deny this call.
    RejectOnce,
    /// Deny this call and later ones like it.
    RejectAlways,
}

/// How a permission request is answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum PermissionAnswer {
    /// Select one of the advertised options.
    Selected {
        /// The option's id.
        option_id: String,
    },
    /// Cancel the request (real agents then abort the whole turn).
    Cancelled,
}

/// Whether Somite answers a request itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// Answer by selecting `option_id`, an `allow_once` option.
    AutoAllow {
        /// The option to select.
        option_id: String,
        /// The identity that matched the allowlist.
        identity: ToolIdentity,
    },
    /// Ask the user.
    Ask(AskReason),
}

/// Why a request waits for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AskReason {
    /// No field says which tool this is.
    NoIdentity,
    /// A field names a tool Somite cannot pin down.
    UnresolvedIdentity {
        /// The field and what it says.
        claim: String,
    },
    /// Fields disagree about which tool this is.
    ConflictingIdentity {
        /// Each field and what it says.
        claims: Vec<String>,
    },
    /// The tool is not on an automatic allowlist.
    NotAllowlisted {
        /// The tool.
        identity: ToolIdentity,
    },
    /// The tool is allowlisted only for read-only actions, and this is not one.
    ActionNotReadOnly {
        /// The tool.
        identity: ToolIdentity,
        /// The requested action, if any.
        action: Option<String>,
    },
    /// Only the user decides this call (a managed-resource install, or a
    /// cancel that deletes its partial download), whatever the options.
    UserDecision {
        /// The tool.
        identity: ToolIdentity,
        /// The requested action, if any.
        action: Option<String>,
    },
    /// The agent offered no `allow_once` option.
    NoAllowOnceOption {
        /// The tool.
        identity: ToolIdentity,
    },
}

/// The answer to a request nobody answered in time: its `reject_once`
/// option if it has one, or `cancelled`.
#[must_use]
pub fn timeout_answer(options: &[PermissionChoice]) -> PermissionAnswer {
    options
        .iter()
        .find(|option| option.kind == PermissionChoiceKind::RejectOnce)
        .map_or(PermissionAnswer::Cancelled, |option| {
            PermissionAnswer::Selected {
                option_id: option.option_id.clone(),
            }
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SOMITE_TOOLS: &[&str] = &[
        tools::somite::WORKFLOW_GET,
        tools::somite::READINESS_GET,
        tools::somite::GRAPH_APPLY_TRANSACTION,
    ];

    fn boundary() -> ToolBoundary {
        ToolBoundary::default()
            .with_somite("somite", SOMITE_TOOLS.iter().copied())
            .expect("valid tools")
            .with_pixi("pixi")
            .with_nextflow("nextflow")
    }

    fn options() -> Vec<PermissionChoice> {
        [
            ("always", PermissionChoiceKind::AllowAlways),
            ("once", PermissionChoiceKind::AllowOnce),
            ("reject", PermissionChoiceKind::RejectOnce),
        ]
        .into_iter()
        .map(|(id, kind)| PermissionChoice {
            option_id: id.into(),
            name: format!("label {id}"),
            kind,
        })
        .collect()
    }

    fn codex(server: &str, tool: &str, arguments: Value) -> ToolCallFacts {
        ToolCallFacts {
            title: Some(format!("Tool: {server}/{tool}")),
            raw_input: Some(json!({"server": server, "tool": tool, "arguments": arguments})),
            ..ToolCallFacts::default()
        }
    }

    fn claude(server: &str, tool: &str, arguments: Value) -> ToolCallFacts {
        let name = format!(
            "mcp__{}__{}",
            claude_normalized(server),
            claude_normalized(tool)
        );
        ToolCallFacts {
            title: Some(name.clone()),
            name: Some(name.clone()),
            raw_input: Some(arguments),
            meta: json!({"claudeCode": {"toolName": name, "mcpServer": {"name": server}}})
                .as_object()
                .cloned()
                .expect("object"),
        }
    }

    fn allowed(call: &ToolCallFacts) -> bool {
        matches!(
            boundary().decide(call, &options()),
            PermissionDecision::AutoAllow { ref option_id, .. } if option_id == "once"
        )
    }

    #[test]
    fn exact_somite_tools_are_allowed_in_every_agent_shape() {
        for tool in SOMITE_TOOLS {
            assert!(allowed(&codex("somite", tool, json!({}))), "codex {tool}");
            assert!(allowed(&claude("somite", tool, json!({}))), "claude {tool}");
            let typescript = ToolCallFacts {
                title: Some(format!("mcp.somite.{tool}")),
                raw_input: Some(json!({"server": "somite", "tool": tool, "arguments": {}})),
                ..ToolCallFacts::default()
            };
            assert!(allowed(&typescript), "codex ts {tool}");
        }
        let raw_only = ToolCallFacts {
            title: Some("Approve Read workflow".into()),
            raw_input: Some(
                json!({"server": "somite", "tool": somite_api::tools::somite::WORKFLOW_GET}),
            ),
            ..ToolCallFacts::default()
        };
        assert!(allowed(&raw_only));
    }

    #[test]
    fn prefix_shaped_and_unadvertised_somite_names_ask() {
        for tool in [
            "somite.workflow.get_evil",
            "somite.*",
            "somite.workflow",
            "somite.workflow.get.",
            somite_api::tools::somite::RUN_START,
        ] {
            assert!(
                matches!(
                    boundary().decide(&codex("somite", tool, json!({})), &options()),
                    PermissionDecision::Ask(
                        AskReason::NotAllowlisted { .. } | AskReason::UnresolvedIdentity { .. }
                    )
                ),
                "{tool}"
            );
            assert!(
                !allowed(&claude("somite", tool, json!({}))),
                "claude {tool}"
            );
        }
    }

    /// A resource install (or a cancel deleting the partial download) is
    /// the user's decision in every agent shape and whatever the agent
    /// offers — allow-always included — while inspect and a cancel that
    /// keeps the partial are answered like any other Somite call.
    #[test]
    fn resource_installs_always_wait_for_the_user() {
        let boundary = ToolBoundary::default()
            .with_somite("somite", [tools::somite::RESOURCE])
            .expect("valid");
        let consent = json!({"download_bytes": 1, "stored_bytes": 2, "effect_digest": "blake3:00"});
        let always_first = [
            PermissionChoice {
                option_id: "always".into(),
                name: "Always allow".into(),
                kind: PermissionChoiceKind::AllowAlways,
            },
            PermissionChoice {
                option_id: "once".into(),
                name: "Allow".into(),
                kind: PermissionChoiceKind::AllowOnce,
            },
        ];
        for arguments in [
            json!({"action": "install", "provider_id": "k2_standard_08gb", "consent": consent}),
            json!({"action": "cancel", "provider_id": "k2_standard_08gb"}),
            json!({"action": "cancel", "provider_id": "k2_standard_08gb", "keep_partial": false}),
            json!({"provider_id": "k2_standard_08gb"}),
        ] {
            for call in [
                codex("somite", tools::somite::RESOURCE, arguments.clone()),
                claude("somite", tools::somite::RESOURCE, arguments.clone()),
            ] {
                for options in [options(), always_first.to_vec()] {
                    assert!(
                        matches!(
                            boundary.decide(&call, &options),
                            PermissionDecision::Ask(AskReason::UserDecision { ref identity, .. })
                                if identity.tool == tools::somite::RESOURCE
                        ),
                        "{arguments}"
                    );
                }
            }
        }
        for arguments in [
            json!({"action": "inspect"}),
            json!({"action": "inspect", "provider_id": "k2_standard_08gb"}),
            json!({"action": "cancel", "provider_id": "k2_standard_08gb", "keep_partial": true}),
        ] {
            for call in [
                codex("somite", tools::somite::RESOURCE, arguments.clone()),
                claude("somite", tools::somite::RESOURCE, arguments.clone()),
            ] {
                assert!(
                    matches!(
                        boundary.decide(&call, &options()),
                        PermissionDecision::AutoAllow { ref option_id, .. } if option_id == "once"
                    ),
                    "{arguments}"
                );
            }
        }
    }

    #[test]
    fn the_default_boundary_allows_nothing() {
        let call = codex("somite", somite_api::tools::somite::WORKFLOW_GET, json!({}));
        assert!(matches!(
            ToolBoundary::default().decide(&call, &options()),
            PermissionDecision::Ask(AskReason::NotAllowlisted { .. })
        ));
    }

    #[test]
    fn a_somite_tool_name_on_another_server_asks() {
        assert!(!allowed(&codex(
            "evil",
            somite_api::tools::somite::WORKFLOW_GET,
            json!({})
        )));
        assert!(!allowed(&codex(
            "pixi",
            somite_api::tools::somite::WORKFLOW_GET,
            json!({})
        )));
    }

    #[test]
    fn conflicting_identities_ask() {
        let mut call = codex("somite", somite_api::tools::somite::WORKFLOW_GET, json!({}));
        call.title = Some("Tool: somite/somite.graph.apply_transaction".into());
        assert!(matches!(
            boundary().decide(&call, &options()),
            PermissionDecision::Ask(AskReason::ConflictingIdentity { .. })
        ));

        let mut call = claude("somite", somite_api::tools::somite::WORKFLOW_GET, json!({}));
        call.meta = json!({"claudeCode": {"toolName": "mcp__somite__somite_workflow_get",
            "mcpServer": {"name": "pixi"}}})
        .as_object()
        .cloned()
        .expect("object");
        assert!(matches!(
            boundary().decide(&call, &options()),
            PermissionDecision::Ask(AskReason::ConflictingIdentity { .. })
        ));

        let mut call = codex("somite", somite_api::tools::somite::WORKFLOW_GET, json!({}));
        call.name = Some("Bash".into());
        assert!(matches!(
            boundary().decide(&call, &options()),
            PermissionDecision::Ask(AskReason::ConflictingIdentity { .. })
        ));
    }

    #[test]
    fn unparseable_or_ambiguous_identity_fields_ask() {
        let unresolved = [
            ToolCallFacts {
                title: Some("Tool: somite".into()),
                ..ToolCallFacts::default()
            },
            ToolCallFacts {
                raw_input: Some(json!({"server": "somite"})),
                ..ToolCallFacts::default()
            },
            ToolCallFacts {
                title: Some("mcp__somite__somite_workflow_get_evil".into()),
                ..ToolCallFacts::default()
            },
            ToolCallFacts {
                title: Some("mcp__unknown__somite_workflow_get".into()),
                ..ToolCallFacts::default()
            },
        ];
        for call in unresolved {
            assert!(
                matches!(
                    boundary().decide(&call, &options()),
                    PermissionDecision::Ask(AskReason::UnresolvedIdentity { .. })
                ),
                "{call:?}"
            );
        }
        let display_text_only = ToolCallFacts {
            title: Some("Run somite.workflow.get".into()),
            ..ToolCallFacts::default()
        };
        assert_eq!(
            boundary().decide(&display_text_only, &options()),
            PermissionDecision::Ask(AskReason::NoIdentity)
        );
    }

    #[test]
    fn claude_names_resolve_only_to_a_unique_known_tool() {
        let boundary = ToolBoundary::default()
            .with_somite("somite", ["somite.a.b", "somite.a_b"])
            .expect("valid")
            .with_pixi("pixi");
        let ambiguous = ToolCallFacts {
            title: Some("mcp__somite__somite_a_b".into()),
            ..ToolCallFacts::default()
        };
        assert!(matches!(
            boundary.identify(&ambiguous),
            IdentityVerdict::Unresolved { .. }
        ));
    }

    #[test]
    fn toolchain_reads_are_allowed_and_mutations_ask() {
        assert!(allowed(&codex(
            "pixi",
            somite_api::tools::pixi::DOCS_SEARCH,
            json!({"query": "lock"})
        )));
        assert!(allowed(&codex(
            "pixi",
            somite_api::tools::pixi::LOCK,
            json!({"action": "check"})
        )));
        assert!(allowed(&claude(
            "pixi",
            somite_api::tools::pixi::TASK,
            json!({"action": "list"})
        )));
        assert!(allowed(&codex(
            "nextflow",
            somite_api::tools::nextflow::ANALYZE,
            json!({"action": "lint"})
        )));
        assert!(allowed(&claude(
            "nextflow",
            somite_api::tools::nextflow::DOCS_LIST,
            json!({})
        )));
        assert!(allowed(&codex(
            "nextflow",
            somite_api::tools::nextflow::HISTORY,
            json!({"action": "runs"})
        )));
        assert!(allowed(&codex(
            "nextflow",
            somite_api::tools::nextflow::RUNTIME_INFO,
            json!({})
        )));

        for (server, tool, arguments) in [
            (
                "pixi",
                somite_api::tools::pixi::LOCK,
                json!({"action": "update"}),
            ),
            ("pixi", somite_api::tools::pixi::LOCK, json!({})),
            (
                "pixi",
                somite_api::tools::pixi::TASK,
                json!({"action": "run"}),
            ),
            (
                "pixi",
                somite_api::tools::pixi::DEPENDENCY,
                json!({"action": "add"}),
            ),
            ("pixi", "pixi_exec", json!({})),
            (
                "nextflow",
                somite_api::tools::nextflow::RUN,
                json!({"action": "preview"}),
            ),
            (
                "nextflow",
                somite_api::tools::nextflow::ANALYZE,
                json!({"action": "inspect"}),
            ),
            ("nextflow", "nextflow_module", json!({"action": "install"})),
            (
                "nextflow",
                somite_api::tools::nextflow::HISTORY,
                json!({"action": "clean"}),
            ),
            ("nextflow", "nextflow_project", json!({})),
            ("nextflow", somite_api::tools::pixi::DOCS_SEARCH, json!({})),
        ] {
            assert!(
                !allowed(&codex(server, tool, arguments.clone())),
                "{tool} {arguments}"
            );
            assert!(
                !allowed(&claude(server, tool, arguments.clone())),
                "claude {tool}"
            );
        }
    }

    #[test]
    fn auto_allow_uses_allow_once_by_kind_never_allow_always() {
        let call = codex("somite", somite_api::tools::somite::WORKFLOW_GET, json!({}));
        let only_always: Vec<PermissionChoice> = options()
            .into_iter()
            .filter(|option| option.kind != PermissionChoiceKind::AllowOnce)
            .collect();
        assert!(matches!(
            boundary().decide(&call, &only_always),
            PermissionDecision::Ask(AskReason::NoAllowOnceOption { .. })
        ));
        let mut relabelled = options();
        relabelled.reverse();
        for option in &mut relabelled {
            option.name = "Allow".into();
        }
        assert!(matches!(
            boundary().decide(&call, &relabelled),
            PermissionDecision::AutoAllow { ref option_id, .. } if option_id == "once"
        ));
    }

    #[test]
    fn timeouts_reject_once_or_cancel() {
        assert_eq!(
            timeout_answer(&options()),
            PermissionAnswer::Selected {
                option_id: "reject".into()
            }
        );
        let no_reject_once: Vec<PermissionChoice> = options()
            .into_iter()
            .filter(|option| option.kind != PermissionChoiceKind::RejectOnce)
            .collect();
        assert_eq!(timeout_answer(&no_reject_once), PermissionAnswer::Cancelled);
    }

    #[test]
    fn the_somite_tool_list_must_be_somite_tools() {
        for bad in [
            somite_api::tools::pixi::LOCK,
            "somite.",
            "somite.a b",
            "somite.*",
        ] {
            assert_eq!(
                ToolBoundary::default().with_somite("somite", [bad]),
                Err(BoundaryError::NotASomiteTool { name: bad.into() })
            );
        }
    }
}
