//! The operator catalog: every contract a node may be created from.
//!
//! A catalog is immutable once built and carries one revision over all of its
//! contracts, so a search cursor, a readiness answer or a pinned node can say
//! exactly which catalog it was computed against. The reviewed contracts ship
//! inside the binary; a project may add its own from `.somite/operators/`, and
//! an id defined twice is an error rather than a silent override. Each
//! contract keeps the file (and the line of each field) it was read from:
//! the embedded ones as `operators/<file>`, their path in the repository.

use crate::canonical::{Revision, revision_of};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::operator::OperatorContract;
use crate::search::SearchIndex;
use crate::source_map::ContractSource;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin_contracts.rs"));
}

/// One contract with its computed execution revision.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    pub contract: OperatorContract,
    pub revision: Revision,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    entries: Arc<BTreeMap<String, CatalogEntry>>,
    revision: Revision,
    index: Arc<SearchIndex>,
}

impl Catalog {
    /// Builds a catalog, rejecting an id that appears twice.
    pub fn new(contracts: impl IntoIterator<Item = OperatorContract>) -> Result<Catalog> {
        let mut entries = BTreeMap::new();
        for contract in contracts {
            contract.validate()?;
            let id = contract.id.clone();
            let revision = contract.revision();
            if entries
                .insert(id.clone(), CatalogEntry { contract, revision })
                .is_some()
            {
                return Err(SomiteError::new(
                    ErrorCode::InvalidContract,
                    format!("operator `{id}` is defined twice"),
                    "give the project operator a new id; reviewed ids cannot be replaced",
                ));
            }
        }
        let by_id: BTreeMap<&str, &OperatorContract> = entries
            .iter()
            .map(|(id, e)| (id.as_str(), &e.contract))
            .collect();
        let revision = revision_of(&by_id);
        let index = SearchIndex::build(entries.values().map(|e| &e.contract));
        Ok(Catalog {
            entries: Arc::new(entries),
            revision,
            index: Arc::new(index),
        })
    }

    /// The reviewed contracts shipped with Somite.
    pub fn builtin_contracts() -> Result<Vec<OperatorContract>> {
        builtin::BUILTIN_CONTRACTS
            .iter()
            .map(|(name, text)| Catalog::parse_contract(&format!("operators/{name}"), text))
            .collect()
    }

    /// The shipped catalog alone.
    pub fn builtin() -> Result<Catalog> {
        Catalog::new(Catalog::builtin_contracts()?)
    }

    /// Reads every `.toml` and `.json` contract in `dir`, in name order.
    pub fn read_dir(dir: &Path) -> Result<Vec<OperatorContract>> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(SomiteError::new(
                    ErrorCode::Io,
                    format!("cannot read operator directory {}: {e}", dir.display()),
                    "check the directory's permissions",
                ));
            }
        };
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml" || x == "json"))
            .collect();
        paths.sort();
        paths
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    SomiteError::new(
                        ErrorCode::Io,
                        format!("cannot read {}: {e}", path.display()),
                        "check the file's permissions",
                    )
                })?;
                Catalog::parse_contract(&path.display().to_string(), &text)
            })
            .collect()
    }

    pub fn revision(&self) -> &Revision {
        &self.revision
    }

    pub fn get(&self, id: &str) -> Option<&CatalogEntry> {
        self.entries.get(id)
    }

    pub fn entries(&self) -> impl Iterator<Item = &CatalogEntry> {
        self.entries.values()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn index(&self) -> &SearchIndex {
        &self.index
    }

    /// Parses the contract file `name` (TOML, or JSON by its extension) and
    /// records where each of its fields is declared, so a requirement
    /// derived from a field can name its line (see [`crate::source_map`]).
    pub fn parse_contract(name: &str, text: &str) -> Result<OperatorContract> {
        let json = name.ends_with(".json");
        let parsed = if json {
            OperatorContract::from_json(text)
        } else {
            OperatorContract::from_toml(text)
        };
        let mut contract = parsed.map_err(|e| SomiteError {
            message: format!("{name}: {}", e.message),
            ..e
        })?;
        contract.source = Some(if json {
            ContractSource::file_only(name)
        } else {
            ContractSource::from_toml(name, text)
        });
        Ok(contract)
    }
}
