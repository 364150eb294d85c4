//! Bounded, typed request bodies.
//!
//! Every JSON body is read up to a named limit and parsed into a closed Rust
//! type before a route sees it; anything else becomes the standard error
//! envelope. General requests get [`MAX_REQUEST_BYTES`]; the 64 MiB document
//! envelope applies only to documents and never widens this.
//!
//! A body must also arrive within [`BODY_READ_TIMEOUT`] (or the runtime's
//! configured [`BodyReadTimeout`]): a client that sends its head and then
//! stalls would otherwise hold one of the runtime's bounded connections for
//! good. Every route that reads a body reads it here.

use crate::api_error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;
use somite_api::{DomainCode, HttpCode};
use std::time::Duration;

/// Other JSON requests: 16 MiB.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// How long a request body may take to arrive by default; 16 MiB over
/// loopback takes a fraction of a second.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The body read timeout the runtime was configured with, as a request
/// extension; without it, [`BODY_READ_TIMEOUT`] applies.
#[derive(Debug, Clone, Copy)]
pub struct BodyReadTimeout(pub Duration);

/// A JSON body of type `T`, at most [`MAX_REQUEST_BYTES`].
pub struct JsonBody<T>(pub T);

/// The raw bytes of a JSON body, at most [`MAX_REQUEST_BYTES`], for routes
/// whose parser reports its own domain error code.
pub struct RawJson(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for RawJson {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let is_json = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim() == "application/json");
        if !is_json {
            return Err(ApiError::new(
                DomainCode::InvalidRequest,
                "the request body must be application/json",
                "send the body with `Content-Type: application/json`",
            ));
        }
        let timeout = request
            .extensions()
            .get::<BodyReadTimeout>()
            .map_or(BODY_READ_TIMEOUT, |t| t.0);
        let read = axum::body::to_bytes(request.into_body(), MAX_REQUEST_BYTES);
        let Ok(read) = tokio::time::timeout(timeout, read).await else {
            return Err(ApiError::new(
                HttpCode::RequestTimeout,
                format!(
                    "the request body did not arrive within {} ms",
                    timeout.as_millis()
                ),
                "send the whole body right after the headers",
            ));
        };
        read.map(RawJson).map_err(|_| {
            ApiError::new(
                DomainCode::PayloadTooLarge,
                format!("the request body exceeds {MAX_REQUEST_BYTES} bytes"),
                "send a smaller request; split large edits into several transactions",
            )
        })
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let RawJson(bytes) = RawJson::from_request(request, state).await?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
            ApiError::new(
                DomainCode::InvalidRequest,
                format!("the request body does not match its schema: {e}"),
                "fix the named field; unknown fields are rejected",
            )
        })
    }
}
