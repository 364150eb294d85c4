//! The HTTP headers between Somite's MCP adapter and the loopback runtime.

/// The header on which an MCP child presents its capability
/// ([`crate::EnvVars::SOMITE_MCP_CAPABILITY`]) on every `/api/mcp/` call.
pub const CAPABILITY: &str = "x-somite-capability";

/// The header with which the MCP adapter names the agent activity (its MCP
/// request or tool call) behind a request, for correlation in the feed.
pub const MCP_ACTIVITY: &str = "x-somite-mcp-activity";
