//! The names of the MCP tools Somite's three servers advertise.
//!
//! The permission policy, the evaluation's scoring, the agent setup and the
//! tests all name tools by these constants. The servers themselves register
//! their tools through `rmcp`'s `#[tool(name = "…")]`, which takes only a
//! string literal; each server has a test that its registered names are
//! exactly the `ALL` list here, so the one remaining literal cannot drift.

/// `somite mcp somite`: the canvas and its evidence.
pub mod somite {
    /// The prefix every Somite tool name carries.
    pub const PREFIX: &str = "somite.";
    pub const WORKFLOW_GET: &str = "somite.workflow.get";
    pub const READINESS_GET: &str = "somite.readiness.get";
    pub const CATALOG_SEARCH: &str = "somite.catalog.search";
    pub const SOURCE_SEARCH: &str = "somite.source.search";
    pub const GRAPH_APPLY_TRANSACTION: &str = "somite.graph.apply_transaction";
    pub const WORKFLOW_COMPILE: &str = "somite.workflow.compile";
    pub const RUN_START: &str = "somite.run.start";
    pub const VALIDATION_START: &str = "somite.validation.start";
    pub const RUN_STATUS: &str = "somite.run.status";
    pub const RUN_CANCEL: &str = "somite.run.cancel";
    pub const EVIDENCE_LOOKUP: &str = "somite.evidence.lookup";
    pub const OPERATOR_CANDIDATE_DRAFT: &str = "somite.operator_candidate.draft";
    pub const OPERATOR_CANDIDATE_PROVE: &str = "somite.operator_candidate.prove";
    pub const OPERATOR_PROOF_STATUS: &str = "somite.operator_proof.status";
    /// Install, inspect or cancel a managed resource. Its install (and a
    /// cancel that deletes the partial download) is never auto-approved.
    pub const RESOURCE: &str = "somite.resource";
    pub const SOURCE_SEARCH_NFCORE: &str = "somite.source_workflow.search_nfcore";
    pub const SOURCE_RESOLVE_NFCORE: &str = "somite.source_workflow.resolve_nfcore";
    pub const SOURCE_RESOLVE_GITHUB: &str = "somite.source_workflow.resolve_github";
    pub const SOURCE_WORKFLOW_EDIT: &str = "somite.source_workflow.edit";
    pub const SOURCE_WORKFLOW_PROMOTE: &str = "somite.source_workflow.promote";

    /// Every tool, in the order the server lists them.
    pub const ALL: &[&str] = &[
        WORKFLOW_GET,
        READINESS_GET,
        CATALOG_SEARCH,
        SOURCE_SEARCH,
        GRAPH_APPLY_TRANSACTION,
        WORKFLOW_COMPILE,
        RUN_START,
        VALIDATION_START,
        RUN_STATUS,
        RUN_CANCEL,
        EVIDENCE_LOOKUP,
        OPERATOR_CANDIDATE_DRAFT,
        OPERATOR_CANDIDATE_PROVE,
        OPERATOR_PROOF_STATUS,
        RESOURCE,
        SOURCE_SEARCH_NFCORE,
        SOURCE_RESOLVE_NFCORE,
        SOURCE_RESOLVE_GITHUB,
        SOURCE_WORKFLOW_EDIT,
        SOURCE_WORKFLOW_PROMOTE,
    ];
}

/// The arguments of [`somite::RESOURCE`] that decide who approves a call.
pub mod resource {
    use serde_json::{Map, Value};

    /// The argument naming the operation.
    pub const ACTION: &str = "action";
    pub const INSPECT: &str = "inspect";
    pub const INSTALL: &str = "install";
    pub const CANCEL: &str = "cancel";
    /// The cancel argument that keeps the partial download (default false).
    pub const KEEP_PARTIAL: &str = "keep_partial";

    /// Whether a call with these arguments needs the user's own answer: an
    /// install (gigabytes of download and disk, and a scientific choice),
    /// a cancel that deletes the partial download, and anything that is
    /// not plainly one of the read or keep-everything calls.
    pub fn needs_user(arguments: Option<&Map<String, Value>>) -> bool {
        let Some(arguments) = arguments else {
            return true;
        };
        match arguments.get(ACTION).and_then(Value::as_str) {
            Some(INSPECT) => false,
            Some(CANCEL) => arguments.get(KEEP_PARTIAL).and_then(Value::as_bool) != Some(true),
            _ => true,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use serde_json::json;

        #[test]
        fn only_inspect_and_a_cancel_keeping_the_partial_skip_the_user() {
            let needs = |v: serde_json::Value| needs_user(v.as_object());
            assert!(!needs(json!({"action": "inspect"})));
            assert!(!needs(
                json!({"action": "cancel", "provider_id": "p", "keep_partial": true})
            ));
            assert!(needs(json!({"action": "install", "provider_id": "p"})));
            assert!(needs(json!({"action": "cancel", "provider_id": "p"})));
            assert!(needs(json!({"action": "cancel", "keep_partial": "true"})));
            assert!(needs(json!({"action": "Inspect"})));
            assert!(needs(json!({})));
            assert!(needs_user(None));
        }
    }
}

/// `somite mcp pixi`: Pixi's manual and CLI.
pub mod pixi {
    pub const DOCS_SEARCH: &str = "pixi_docs_search";
    pub const DOCS_READ: &str = "pixi_docs_read";
    pub const DOCS_LIST: &str = "pixi_docs_list";
    pub const RUNTIME_INFO: &str = "pixi_runtime_info";
    pub const INSPECT: &str = "pixi_inspect";
    pub const PACKAGE_SEARCH: &str = "pixi_package_search";
    pub const DEPENDENCY: &str = "pixi_dependency";
    pub const LOCK: &str = "pixi_lock";
    pub const WORKSPACE: &str = "pixi_workspace";
    pub const ENVIRONMENT: &str = "pixi_environment";
    pub const TASK: &str = "pixi_task";

    /// Every tool, in the order the server lists them.
    pub const ALL: &[&str] = &[
        DOCS_SEARCH,
        DOCS_READ,
        DOCS_LIST,
        RUNTIME_INFO,
        INSPECT,
        PACKAGE_SEARCH,
        DEPENDENCY,
        LOCK,
        WORKSPACE,
        ENVIRONMENT,
        TASK,
    ];
}

/// `somite mcp nextflow`: Nextflow's manual and CLI.
pub mod nextflow {
    pub const DOCS_SEARCH: &str = "nextflow_docs_search";
    pub const DOCS_READ: &str = "nextflow_docs_read";
    pub const DOCS_LIST: &str = "nextflow_docs_list";
    pub const RUNTIME_INFO: &str = "nextflow_runtime_info";
    pub const ANALYZE: &str = "nextflow_analyze";
    pub const RUN: &str = "nextflow_run";
    pub const HISTORY: &str = "nextflow_history";

    /// Every tool, in the order the server lists them.
    pub const ALL: &[&str] = &[
        DOCS_SEARCH,
        DOCS_READ,
        DOCS_LIST,
        RUNTIME_INFO,
        ANALYZE,
        RUN,
        HISTORY,
    ];
}
