//! `somite.resource`: install, inspect or cancel one reviewed managed
//! resource (a Kraken2 database) after explicit size and effect consent.
//!
//! One tool with an `action`, so a permission policy reads the action from
//! the call's arguments: `inspect` only reads and is answered by Somite's
//! policy, while `install` and a `cancel` that deletes the partial download
//! always wait for the user's own answer (`somite_acp::permission`). The
//! runtime enforces the same line on its side: its MCP install and cancel
//! routes act only on a permission the user answered in this session
//! (`resource_permission_required` otherwise), and the manager still checks
//! that the consent repeats the provider's exact sizes and effect digest
//! (`consent_mismatch`).

use super::{Failure, Outcome, Passed, SomiteServer, outcome_schema, percent_encode};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use somite_resource::model::{
    Consent, JobStatus, ResourceAction, ResourceInspect, ResourceOverview,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResourceArgs {
    /// `inspect` (without provider_id: every provider, installed resource
    /// and job), `install` (needs provider_id and consent; the user must
    /// approve it) or `cancel` (stops a running install).
    pub action: ResourceAction,
    /// A reviewed provider's id, e.g. `k2_standard_08gb`.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// For install: the provider's exact `download_bytes`, `stored_bytes`
    /// and `effect_digest` as inspect shows them, which the user consented to.
    #[serde(default)]
    pub consent: Option<Consent>,
    /// For cancel: keep the partial download so a later install resumes it
    /// (default false: it is deleted, which needs the user's approval).
    #[serde(default)]
    pub keep_partial: Option<bool>,
}

/// What `somite.resource` answers: the overview for an inspect of every
/// provider, one provider for an inspect of one, the job for install and cancel.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ResourceResult {
    pub action: ResourceAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overview: Option<ResourceOverview>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ResourceInspect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<JobStatus>,
}

fn missing(what: &str, action: ResourceAction) -> Failure {
    Failure::new(
        somite_api::DomainCode::InvalidRequest,
        format!("`{}` needs `{what}`", action.as_str()),
        "inspect the providers first, then pass provider_id (and for install the consent the user gave)",
    )
}

#[tool_router(router = resource_router, vis = "pub(super)")]
impl SomiteServer {
    /// Install, inspect, or cancel one reviewed managed scientific resource after explicit size and scientific-effect consent. inspect lists providers (sizes, memory, scientific effect, effect_digest), installed resources and jobs; install needs the user's consent {download_bytes, stored_bytes, effect_digest} and their approval, and returns at once with the job (follow it with inspect); cancel stops an install, deleting its partial download unless keep_partial. Never install a database the user did not choose.
    #[tool(
        name = "somite.resource",
        annotations(title = "Managed resources"),
        output_schema = outcome_schema::<ResourceResult>()
    )]
    async fn resource(
        &self,
        Parameters(args): Parameters<ResourceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<ResourceResult> {
        Outcome(
            self.resource_call(args, &context)
                .await
                .map(|result| Passed::composed(&result)),
        )
    }
}

impl SomiteServer {
    async fn resource_call(
        &self,
        args: ResourceArgs,
        context: &RequestContext<RoleServer>,
    ) -> Result<ResourceResult, Failure> {
        let result = |action| ResourceResult {
            action,
            overview: None,
            provider: None,
            job: None,
        };
        let action = args.action;
        match (action, args.provider_id) {
            (ResourceAction::Inspect, None) => Ok(ResourceResult {
                overview: Some(
                    self.runtime
                        .call(reqwest::Method::GET, "/resources", None, context)
                        .await?
                        .into_inner(),
                ),
                ..result(action)
            }),
            (ResourceAction::Inspect, Some(id)) => Ok(ResourceResult {
                provider: Some(
                    self.runtime
                        .call(
                            reqwest::Method::GET,
                            &format!("/resources/{}", percent_encode(&id)),
                            None,
                            context,
                        )
                        .await?
                        .into_inner(),
                ),
                ..result(action)
            }),
            (_, None) => Err(missing("provider_id", action)),
            (ResourceAction::Install, Some(id)) => {
                let consent = args.consent.ok_or_else(|| missing("consent", action))?;
                let body = serde_json::json!({"consent": consent});
                Ok(ResourceResult {
                    job: Some(
                        self.runtime
                            .call(
                                reqwest::Method::POST,
                                &format!("/resources/{}/install", percent_encode(&id)),
                                Some(&body),
                                context,
                            )
                            .await?
                            .into_inner(),
                    ),
                    ..result(action)
                })
            }
            (ResourceAction::Cancel, Some(id)) => {
                let body = serde_json::json!({"keep_partial": args.keep_partial.unwrap_or(false)});
                let job: JobStatus = self
                    .runtime
                    .call(
                        reqwest::Method::POST,
                        &format!("/resources/{}/cancel", percent_encode(&id)),
                        Some(&body),
                        context,
                    )
                    .await?
                    .into_inner();
                Ok(ResourceResult {
                    job: Some(job),
                    ..result(action)
                })
            }
        }
    }
}
