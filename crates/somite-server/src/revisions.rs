//! The documents of recent transactions, by state revision.
//!
//! A `transaction` feed event names its revisions and operations but does not
//! carry the result graph: a copy per event made the feed's memory grow with
//! the whole document on every one-field edit. A reader that needs the graph
//! of one transaction (the browser, to add one history entry per edit; the
//! evaluation harness, to record every state) fetches it by state revision
//! (`GET /api/workflow?state_revision=`) from this store.
//!
//! The store keeps each published document once, as the JSON it is served as,
//! and holds at most [`RECENT_DOCUMENTS`] of them and [`RECENT_DOCUMENT_BYTES`]
//! bytes, always keeping the newest. A revision that is gone is answered
//! `not_found`; the reader then reloads the current workflow, as it does
//! after a feed gap.

use axum::body::Bytes;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Documents kept (the byte bound usually binds first for large graphs).
pub const RECENT_DOCUMENTS: usize = 64;

/// Bytes of document JSON kept (32 MiB).
pub const RECENT_DOCUMENT_BYTES: usize = 32 * 1024 * 1024;

/// One published state.
#[derive(Debug, Clone)]
pub struct PublishedDocument {
    pub state_revision: String,
    pub graph_revision: String,
    /// The document's JSON (shared by every reply that serves it).
    pub json: Bytes,
}

#[derive(Debug)]
pub struct RecentDocuments {
    held: Mutex<(VecDeque<PublishedDocument>, usize)>,
    capacity: usize,
    byte_capacity: usize,
}

impl Default for RecentDocuments {
    fn default() -> Self {
        RecentDocuments::with_capacity(RECENT_DOCUMENTS, RECENT_DOCUMENT_BYTES)
    }
}

impl RecentDocuments {
    pub fn with_capacity(capacity: usize, byte_capacity: usize) -> RecentDocuments {
        RecentDocuments {
            held: Mutex::new((VecDeque::new(), 0)),
            capacity,
            byte_capacity,
        }
    }

    /// Keeps `document` as the newest, evicting the oldest beyond the bounds.
    pub fn insert(&self, document: PublishedDocument) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let (documents, bytes) = &mut *held;
        *bytes += document.json.len();
        documents.push_back(document);
        while documents.len() > 1
            && (documents.len() > self.capacity || *bytes > self.byte_capacity)
        {
            if let Some(evicted) = documents.pop_front() {
                *bytes -= evicted.json.len();
            }
        }
    }

    /// The newest held document of `state_revision`.
    pub fn get(&self, state_revision: &str) -> Option<PublishedDocument> {
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.0
            .iter()
            .rev()
            .find(|d| d.state_revision == state_revision)
            .cloned()
    }

    /// Bytes of document JSON held now.
    pub fn held_bytes(&self) -> usize {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(n: u64, bytes: usize) -> PublishedDocument {
        PublishedDocument {
            state_revision: format!("s{n}"),
            graph_revision: format!("g{n}"),
            json: Bytes::from(vec![b' '; bytes]),
        }
    }

    #[test]
    fn the_newest_documents_are_kept_within_both_bounds() {
        let store = RecentDocuments::with_capacity(3, 250);
        for n in 1..=5 {
            store.insert(document(n, 100));
        }
        assert!(store.get("s3").is_none(), "over the byte bound");
        assert!(store.get("s4").is_some());
        assert_eq!(store.get("s5").map(|d| d.graph_revision), Some("g5".into()));
        assert_eq!(store.held_bytes(), 200);

        let store = RecentDocuments::with_capacity(2, usize::MAX);
        for n in 1..=5 {
            store.insert(document(n, 1));
        }
        assert!(store.get("s3").is_none(), "over the count bound");
        assert!(store.get("s4").is_some());
    }

    #[test]
    fn a_document_over_the_byte_bound_is_still_kept_as_the_newest() {
        let store = RecentDocuments::with_capacity(3, 10);
        store.insert(document(1, 100));
        store.insert(document(2, 100));
        assert!(store.get("s1").is_none());
        assert!(store.get("s2").is_some());
    }
}
