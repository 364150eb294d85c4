//! Somite's pinned pipeline sources: fetch a real nf-core or GitHub
//! Nextflow pipeline once, keep it by commit, and hand out only a tree
//! whose digest was just checked.
//!
//! Most people start from nf-core/rnaseq or their lab's pipeline rather
//! than an empty canvas. This crate owns that first step and nothing after
//! it: the static outline of a tree, the canvas node, compile, and the
//! HTTP/MCP/CLI/web surfaces build on the [`VerifiedSource::path`] it hands
//! out.
//!
//! # Using it
//!
//! [`SourceStore`] is the entry point; build it once with
//! [`SourceStore::from_env`] (or [`SourceStore::new`] and a
//! [`SourceConfig`]) inside a Tokio runtime.
//!
//! - [`search_nfcore`](SourceStore::search_nfcore)`(query, cursor, limit)`
//!   → [`NfCoreSearchPage`]: ranked pipelines with every exact
//!   repository/release/commit triple, the catalog they came from (fetched,
//!   cached, or offline with its age) and an opaque cursor (ranking:
//!   [`nfcore`]).
//! - [`resolve_nfcore`](SourceStore::resolve_nfcore)`(pipeline, release)` and
//!   [`resolve_github`](SourceStore::resolve_github)`(repository, ref)` →
//!   [`PinnedSource`]: the repository, how it was chosen
//!   ([`SourceOrigin`]), the commit, and the fetched, verified tree. A source
//!   is always a commit, never a moving branch or tag.
//! - [`open`](SourceStore::open)`(commit, pinned_digest)` →
//!   [`VerifiedSource`]: the stored tree checked again; call it before
//!   every use (outline, compile, run).
//!
//! The result types derive `serde` and `schemars::JsonSchema`, as they are
//! the MCP tools' outputs; a machine-local path is never serialized. Every
//! failure is a [`SourceError`] with a stable wire code (`somite_api::ErrorCode`), a
//! recovery and structured details.
//!
//! # Providers
//!
//! The nf-core catalog is `GET https://nf-co.re/pipelines.json`; GitHub is
//! `GET {api}/repos/{owner}/{repo}/commits/{ref}` and
//! `GET {api}/repos/{owner}/{repo}/tarball/{sha}` ([`github`]). The bases
//! are replaceable with `somite_api::EnvVars::SOMITE_NFCORE_PIPELINES_URL` and `SOMITE_GITHUB_API_URL`; `GITHUB_TOKEN`
//! is sent only when set and never shown. Bounds ([`config::limits`]): 10 s
//! to connect, 30 s per API request or stalled read, 300 s per download, a
//! 128 MiB archive, 20,000 archive entries, 512 MiB unpacked, a 16 MiB
//! catalog; the catalog is reused for an hour.
//!
//! # Safety of a tree
//!
//! Extraction refuses absolute paths, `..`, hard links, devices, FIFOs and
//! links that leave the tree, and publishes by rename so a refused archive
//! leaves nothing behind ([`archive`], [`store`]). The tree digest is one
//! BLAKE3 over the sorted inventory of paths, modes and file digests
//! ([`tree`]).

pub mod archive;
pub mod config;
pub mod error;
pub mod github;
mod http;
pub mod ids;
pub mod nfcore;
pub mod remote;
pub mod store;
pub mod tree;

pub use config::{Clock, GithubToken, Limits, SourceConfig, Timeouts};
pub use error::{Provider, SourceError};
pub use http::{RATE_LIMIT_REMAINING, RATE_LIMIT_RESET};
pub use ids::{CommitSha, GitRef, Repository, TreeDigest};
pub use nfcore::{NfCoreCatalog, NfCoreMatch, NfCorePipeline, NfCoreRelease};
pub use store::{
    CatalogInfo, CatalogOrigin, MAIN_SCRIPT, NfCoreSearchPage, PinnedSource, SourceOrigin,
    SourceStore, VerifiedSource,
};
