//! The failures of a search, and their envelope codes.

use crate::model::DataProvider;
use serde_json::json;
use somite_api::{DataCode, DomainCode, Error, SourceCode};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    #[error("{field}: {detail}")]
    InvalidQuery { field: &'static str, detail: String },
    #[error("{} is unavailable: {detail}", .provider.as_str())]
    Unavailable {
        provider: DataProvider,
        detail: String,
    },
    #[error("{} asks Somite to wait {retry_after_seconds} s", .provider.as_str())]
    RateLimited {
        provider: DataProvider,
        retry_after_seconds: u64,
        retry_at: String,
    },
    #[error("{} answered {endpoint} outside its documented shape: {detail}", .provider.as_str())]
    Invalid {
        provider: DataProvider,
        endpoint: String,
        detail: String,
    },
}

pub type Result<T, E = DataError> = std::result::Result<T, E>;

impl DataError {
    pub(crate) fn query(field: &'static str, detail: impl Into<String>) -> DataError {
        DataError::InvalidQuery {
            field,
            detail: detail.into(),
        }
    }

    /// The envelope every surface renders.
    pub fn to_envelope(&self) -> Error {
        let message = self.to_string();
        match self {
            DataError::InvalidQuery { field, .. } => Error::new(
                DomainCode::InvalidQuery,
                message,
                "fix the named field: an accession (SRR…, PRJNA…, SAMN…, GCF_…, ENSG…, GeneID:672, txid9606) or text, kind reads|assembly|organism|gene|accession, provider ncbi|ensembl, limit 1–50, and a cursor only from the same query's previous page",
            )
            .with_details(json!({"field": field})),
            DataError::Unavailable { provider, .. } => Error::new(
                DataCode::SourceUnavailable,
                message,
                "try again later, or ask the other provider",
            )
            .with_details(json!({"provider": provider})),
            DataError::RateLimited {
                provider,
                retry_after_seconds,
                retry_at,
            } => Error::new(
                SourceCode::RateLimited,
                message,
                format!("wait until {retry_at} and search again"),
            )
            .with_details(json!({
                "provider": provider,
                "retry_after_seconds": retry_after_seconds,
                "retry_at": retry_at,
            })),
            DataError::Invalid {
                provider, endpoint, ..
            } => Error::new(
                SourceCode::ProviderResponseInvalid,
                message,
                "the provider changed its answer's shape; report it, and use the other provider meanwhile",
            )
            .with_details(json!({"provider": provider, "endpoint": endpoint})),
        }
    }
}

impl From<DataError> for Error {
    fn from(error: DataError) -> Error {
        error.to_envelope()
    }
}
