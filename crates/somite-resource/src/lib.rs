//! Managed scientific resources: reference databases Somite installs for
//! the user, with consent, and binds to runs by verified identity.
//!
//! A Kraken 2 graph needs a multi-gigabyte database nobody should fetch by
//! hand, nor have an agent fetch behind their back. This crate keeps the
//! reviewed providers (`resources/*.toml`, every value cited from the
//! publisher, [`provider`]), installs one only after a consent that repeats
//! its exact sizes and the digest of its scientific effect, downloads it
//! resumably while hashing it, unpacks it safely ([`extract`]) and publishes
//! it atomically into a user-owned store ([`store`]), one job per provider
//! with progress for the activity feed ([`manager`]). A graph refers to an
//! installed resource as `somite-resource:<provider>@<release>`
//! ([`model::Reference`]); [`store::Store::resolve`] turns that into the
//! verified folder and identity a run closure records.
//!
//! Domain rules (consent, ordering of resolutions, structure) are plain
//! functions; the network and the disk are touched only by the manager's
//! jobs and the store.

pub mod error;
pub mod extract;
pub mod manager;
pub mod model;
pub mod provider;
pub mod store;

pub use error::ResourceError;
pub use manager::{ResourceConfig, ResourceManager};
