//! The Somite workflow contract: the short, Somite-owned routing context sent
//! with every user turn.
//!
//! It travels as its own content block *before* the user's unchanged message,
//! so the agent reads both while the activity feed and the transcript keep
//! only the user's words. It tells the agent to work on the canvas through
//! the MCP tools at once, with exact catalog contracts and without a
//! confirmation round trip for ordinary reversible edits, to keep generic web
//! research for current external evidence Somite cannot supply, and how to
//! treat readiness and escalated requirements.

/// The contract text, sent verbatim as the first content block of a prompt.
pub const WORKFLOW_CONTRACT: &str = "\
Somite workflow contract (from Somite, not from the user; the user's message follows).
- Act on the Somite canvas through the Somite MCP tools now. Make ordinary, reversible edits without asking for confirmation first.
- Read the graph with somite.workflow.get and edit it with somite.graph.apply_transaction, using the state_revision you were given.
- Use exact operator contracts from somite.catalog.search; never invent operators, ports or parameters. Search with short single-concept queries, several in parallel.
- Find public reads, assemblies and genes with somite.source.search, not a generic browser; apply a result's recipe as one transaction.
- After editing, call somite.readiness.get and follow the deterministic Workflow assessment in its order.
- A missing local resource (for example a Kraken2 database) stays an explicit typed requirement with its known resolutions: do not search the web or NCBI to fabricate it, and do not compile, run or validate while readiness is blocked.
- To start from a published pipeline, resolve an exact release from somite.source_workflow.search_nfcore (never a branch) onto an empty canvas.
- File, parameter and connection work is deterministic: resolve it with the tools, not by interpretation.
- An escalated requirement carries its evidence, source location, choices and versioned recipes; use them. Generic web research is a last resort, only for current external evidence Somite cannot supply.";

#[cfg(test)]
mod tests {
    use super::WORKFLOW_CONTRACT;

    #[test]
    fn the_contract_covers_the_specified_rules_and_stays_concise() {
        for required in [
            "MCP tools now",
            "without asking for confirmation",
            "exact operator contracts",
            "single-concept queries, several in parallel",
            somite_api::tools::somite::READINESS_GET,
            somite_api::tools::somite::SOURCE_SEARCH,
            "not a generic browser",
            somite_api::tools::somite::SOURCE_SEARCH_NFCORE,
            "Kraken2",
            "do not compile, run or validate while readiness is blocked",
            "recipes",
            "last resort",
        ] {
            assert!(WORKFLOW_CONTRACT.contains(required), "missing: {required}");
        }
        assert!(
            WORKFLOW_CONTRACT.len() < 1500,
            "{}",
            WORKFLOW_CONTRACT.len()
        );
    }
}
