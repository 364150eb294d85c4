//! Idempotency records: the memory that makes a retried edit harmless.
//!
//! A record maps an idempotency key to the digest of the request that used it
//! and the outcome it produced. The newest [`MAX_RECORDS`] survive, durably,
//! across restarts, so a client whose response was lost can retry after the
//! server came back and still get the original answer instead of a second edit.

use serde::{Deserialize, Serialize};
use somite_workflow::Revision;
use std::collections::VecDeque;
use std::sync::Arc;

/// How many keys are remembered: the newest 256.
pub const MAX_RECORDS: usize = 256;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record<T> {
    pub key: String,
    pub request_digest: Revision,
    pub outcome: T,
}

/// What a lookup found for a key.
#[derive(Debug, PartialEq)]
pub enum Lookup<'a, T> {
    New,
    Replay(&'a T),
    Conflict,
}

/// An ordered, bounded set of records, oldest first. Records are shared
/// (`Arc`), so a copy to change (every edit makes one) costs a counter per
/// record, not the records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Records<T> {
    records: VecDeque<Arc<Record<T>>>,
}

impl<T> Default for Records<T> {
    fn default() -> Self {
        Records {
            records: VecDeque::new(),
        }
    }
}

impl<T> Records<T> {
    pub fn lookup(&self, key: &str, request_digest: &str) -> Lookup<'_, T> {
        match self.records.iter().find(|r| r.key == key) {
            None => Lookup::New,
            Some(r) if r.request_digest == request_digest => Lookup::Replay(&r.outcome),
            Some(_) => Lookup::Conflict,
        }
    }

    /// Remembers a new key, forgetting the oldest past the bound.
    pub fn insert(&mut self, key: String, request_digest: Revision, outcome: T) {
        self.records.retain(|r| r.key != key);
        self.records.push_back(Arc::new(Record {
            key,
            request_digest,
            outcome,
        }));
        while self.records.len() > MAX_RECORDS {
            self.records.pop_front();
        }
    }

    /// Forgets `key`, for an edit that turned out never to have happened.
    pub fn remove(&mut self, key: &str) {
        self.records.retain(|r| r.key != key);
    }

    /// The records, oldest first, as shared: a caller can recognise a record
    /// it has seen before (`Arc::ptr_eq`), e.g. to reuse its serialization.
    pub fn shared(&self) -> impl Iterator<Item = &Arc<Record<T>>> {
        self.records.iter()
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_digest_replays_and_other_digest_conflicts() {
        let mut records = Records::default();
        records.insert("key-00000001".into(), "blake3:a".into(), 7);
        assert_eq!(
            records.lookup("key-00000001", "blake3:a"),
            Lookup::Replay(&7)
        );
        assert_eq!(records.lookup("key-00000001", "blake3:b"), Lookup::Conflict);
        assert_eq!(records.lookup("key-00000002", "blake3:a"), Lookup::New);
    }

    #[test]
    fn only_the_newest_records_are_kept() {
        let mut records = Records::default();
        for i in 0..MAX_RECORDS + 10 {
            records.insert(format!("key-{i:08}"), format!("blake3:{i}"), i);
        }
        assert_eq!(records.len(), MAX_RECORDS);
        assert_eq!(records.lookup("key-00000000", "blake3:0"), Lookup::New);
        let newest = MAX_RECORDS + 9;
        assert_eq!(
            records.lookup(&format!("key-{newest:08}"), &format!("blake3:{newest}")),
            Lookup::Replay(&newest)
        );
    }
}
