//! HTTP rendering of Somite's failure envelope.
//!
//! Routes return [`ApiError`], which is the domain's `SomiteError` plus the
//! HTTP status its code maps to. The body is always the envelope
//! `{"code", "message", "recovery", "details"?}`, whatever went wrong —
//! including extractor failures, which axum would otherwise answer in plain
//! text.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use somite_workflow::{ErrorCode, SomiteError};

#[derive(Debug)]
pub struct ApiError(pub SomiteError);

impl From<SomiteError> for ApiError {
    fn from(e: SomiteError) -> Self {
        ApiError(e)
    }
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>, recovery: impl Into<String>) -> Self {
        ApiError(SomiteError::new(code, message, recovery))
    }
}

/// The status a failure code is reported with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    use ErrorCode::*;
    match code {
        StaleRevision
        | IdempotencyConflict
        | WorkflowNotReady
        | InputOriginRecoveryRequired
        | ProjectInUse
        | AgentNotConnected
        | AgentAlreadyConnected
        | AgentNotReady
        | AgentBusy => StatusCode::CONFLICT,
        AgentCommandRejected | RepresentativeFixtureUnsupported => StatusCode::UNPROCESSABLE_ENTITY,
        RunFailed | RunLost => StatusCode::CONFLICT,
        EvidenceTampered => StatusCode::INTERNAL_SERVER_ERROR,
        AgentError => StatusCode::BAD_GATEWAY,
        InvalidRequest | InvalidQuery | InvalidCursor => StatusCode::BAD_REQUEST,
        InvalidTransaction | TooManyOperations | UnknownOperator | UnknownNode | UnknownPort
        | UnknownParam | UnknownEdge | UnknownNote | InvalidParamType | ParamOutOfRange
        | MissingParam | DuplicateId | IncompatiblePorts | PortAlreadyConnected | Cycle
        | InvalidDocument | InvalidContract => StatusCode::UNPROCESSABLE_ENTITY,
        CapabilityRequired => StatusCode::UNAUTHORIZED,
        ForbiddenHost | ForbiddenOrigin => StatusCode::FORBIDDEN,
        PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        UriTooLong => StatusCode::URI_TOO_LONG,
        HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        NotFound => StatusCode::NOT_FOUND,
        ToolchainMissing => StatusCode::SERVICE_UNAVAILABLE,
        Io => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (status_of(self.0.code), Json(self.0)).into_response()
    }
}
