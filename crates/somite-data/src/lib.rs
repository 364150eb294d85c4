//! Public data for Somite workflows: reads, reference assemblies, organisms
//! and genes at NCBI and Ensembl, found by one search and placed on the
//! canvas by native source recipes.
//!
//! Why a crate of its own: the providers' shapes, their rate limits and
//! the answer cache are one concern, shared by the HTTP route, the CLI and
//! (through the route) the MCP tool `somite.source.search`. The domain
//! logic is pure and unit-tested: reading a query ([`accession`]), reading
//! provider answers ([`ncbi`], [`ensembl`]) and building recipes
//! ([`recipe`]). HTTP stays at the edge ([`fetch`], driven by [`search`]).
//! The real endpoints and how to replace them are in `docs/public-data.md`.

pub mod accession;
pub mod config;
pub mod ensembl;
pub mod error;
mod fetch;
pub mod model;
pub mod ncbi;
pub mod recipe;
pub mod search;

pub use config::{ApiKey, Clock, DataConfig};
pub use error::DataError;
pub use model::{SearchRequest, SearchResponse};
pub use search::DataSearch;
