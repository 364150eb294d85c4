//! HTTP rendering of Somite's failure envelope.
//!
//! Routes return [`ApiError`], which is the wire envelope `somite_api::Error`
//! plus the HTTP status its code maps to. The body is always the envelope
//! `{"code", "message", "recovery", "details"?}`, whatever went wrong —
//! including extractor failures, which axum would otherwise answer in plain
//! text.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use somite_api::{
    AgentCode, DataCode, DomainCode, Error, ErrorCode, HttpCode, ResourceCode, SourceCode,
    WorkshopCode,
};
use somite_workflow::SomiteError;

#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl From<SomiteError> for ApiError {
    fn from(e: SomiteError) -> Self {
        ApiError(e.into())
    }
}

impl ApiError {
    pub fn new(
        code: impl Into<ErrorCode>,
        message: impl Into<String>,
        recovery: impl Into<String>,
    ) -> Self {
        ApiError(Error::new(code, message, recovery))
    }
}

/// The status a failure code is reported with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Domain(code) => domain_status(code),
        ErrorCode::Http(code) => match code {
            HttpCode::CapabilityRequired => StatusCode::UNAUTHORIZED,
            HttpCode::ForbiddenHost | HttpCode::ForbiddenOrigin => StatusCode::FORBIDDEN,
            HttpCode::UriTooLong => StatusCode::URI_TOO_LONG,
            HttpCode::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            HttpCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            HttpCode::Busy => StatusCode::SERVICE_UNAVAILABLE,
        },
        ErrorCode::Agent(code) => match code {
            AgentCode::AgentNotConnected
            | AgentCode::AgentAlreadyConnected
            | AgentCode::AgentNotReady
            | AgentCode::AgentBusy => StatusCode::CONFLICT,
            AgentCode::AgentCommandRejected => StatusCode::UNPROCESSABLE_ENTITY,
            AgentCode::AgentError => StatusCode::BAD_GATEWAY,
        },
        ErrorCode::Source(code) => match code {
            SourceCode::PipelineNotFound
            | SourceCode::ReleaseNotFound
            | SourceCode::RepositoryNotFound
            | SourceCode::RefNotFound
            | SourceCode::SourceNotFound => StatusCode::NOT_FOUND,
            // The provider's limit, passed on: the client waits as it would
            // for ours.
            SourceCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            SourceCode::ProviderUnavailable | SourceCode::ProviderResponseInvalid => {
                StatusCode::BAD_GATEWAY
            }
            SourceCode::ArchiveTooLarge
            | SourceCode::UnsafeArchive
            | SourceCode::NotANextflowRepository
            | SourceCode::OutlineLimitExceeded
            | SourceCode::OutlineUnreadable => StatusCode::UNPROCESSABLE_ENTITY,
            SourceCode::SourceTampered => StatusCode::INTERNAL_SERVER_ERROR,
        },
        ErrorCode::Workshop(code) => match code {
            WorkshopCode::InvalidCandidate
            | WorkshopCode::InlineCode
            | WorkshopCode::FixtureUnsupported => StatusCode::UNPROCESSABLE_ENTITY,
            WorkshopCode::CandidateLimit => StatusCode::PAYLOAD_TOO_LARGE,
            WorkshopCode::CandidateNotFound => StatusCode::NOT_FOUND,
            WorkshopCode::PinnedRevisionConflict | WorkshopCode::ProofRequired => {
                StatusCode::CONFLICT
            }
            // The host lacks what the proof needs, not the request.
            WorkshopCode::IsolationUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        },
        // A provider that cannot answer (public data, or a project's pinned
        // source fetched again): the gateway's failure.
        ErrorCode::Data(DataCode::SourceUnavailable) => StatusCode::BAD_GATEWAY,
        ErrorCode::Resource(code) => match code {
            ResourceCode::ResourceNotFound => StatusCode::NOT_FOUND,
            ResourceCode::ResourceUnverified
            | ResourceCode::ConsentMismatch
            | ResourceCode::ResourceJobRunning => StatusCode::CONFLICT,
            ResourceCode::InsufficientDisk => StatusCode::INSUFFICIENT_STORAGE,
            ResourceCode::ChecksumMismatch
            | ResourceCode::ResourceStructureInvalid
            | ResourceCode::ResourceReferenceInvalid => StatusCode::UNPROCESSABLE_ENTITY,
            ResourceCode::DownloadFailed => StatusCode::BAD_GATEWAY,
            ResourceCode::ResourcePermissionRequired => StatusCode::FORBIDDEN,
        },
        // The runtime never reports the MCP servers' own codes; should one
        // pass through, it is the runtime's fault.
        ErrorCode::Tool(_) | ErrorCode::Link(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn domain_status(code: DomainCode) -> StatusCode {
    use DomainCode::*;
    match code {
        StaleRevision
        | IdempotencyConflict
        | WorkflowNotReady
        | CanvasNotEmpty
        | InputOriginRecoveryRequired
        | ProjectInUse => StatusCode::CONFLICT,
        RepresentativeFixtureUnsupported => StatusCode::UNPROCESSABLE_ENTITY,
        RunFailed | RunLost => StatusCode::CONFLICT,
        EvidenceTampered => StatusCode::INTERNAL_SERVER_ERROR,
        InvalidRequest | InvalidQuery | InvalidCursor => StatusCode::BAD_REQUEST,
        InvalidTransaction
        | TooManyOperations
        | UnknownOperator
        | UnknownNode
        | UnknownPort
        | UnknownParam
        | UnknownEdge
        | UnknownNote
        | InvalidParamType
        | ParamOutOfRange
        | MissingParam
        | DuplicateId
        | IncompatiblePorts
        | PortAlreadyConnected
        | Cycle
        | InvalidDocument
        | InvalidContract
        | ParamNotInEnum
        | ParamPatternMismatch
        | ParamPathNotFound
        | UrlCredentials
        | UnknownProcess
        | NotASourceNode
        | UnknownInvocation
        | InvocationPortIncompatible
        | PromotionRefused
        | NotAVariant => StatusCode::UNPROCESSABLE_ENTITY,
        PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        NotFound => StatusCode::NOT_FOUND,
        ToolchainMissing => StatusCode::SERVICE_UNAVAILABLE,
        Io => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// How long a `busy` caller waits before asking again.
pub const BUSY_RETRY_AFTER_SECS: u64 = 2;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let busy = self.0.code == somite_api::ErrorCode::from(HttpCode::Busy);
        let mut response = (status_of(self.0.code), Json(self.0)).into_response();
        if busy {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(BUSY_RETRY_AFTER_SECS),
            );
        }
        response
    }
}
