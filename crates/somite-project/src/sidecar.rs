//! The input-origin sidecar: the commit record of every edit, kept in two
//! checksummed slot files that are overwritten in place, in turn.
//!
//! The record must be on stable storage before the graph it describes is
//! renamed into place (see [`crate::project`]), so its publication sits on
//! every edit's path. Publishing a whole file (temporary file, sync,
//! rename, directory sync) would put a second rename and a second
//! directory sync in front of the graph's. A slot costs one in-place write
//! and one data sync instead, which runs while the graph's bytes are being
//! staged, so an edit waits for about the graph's own publication.
//!
//! In-place writes can tear, which is why there are two slots and why each
//! one carries a sequence number and a CRC-32 of its content:
//!
//! - a commit always overwrites the slot that does *not* hold the newest
//!   record, so a crash mid-write can only ever damage a record that was
//!   already superseded;
//! - on reading, the whole slot with the highest sequence number is the
//!   record; a torn slot fails its checksum and is ignored, which is exact,
//!   because the graph's rename waits for the slot's sync: an edit whose
//!   slot is torn was never applied and never acknowledged, and the other
//!   slot still describes the graph on disk.
//!
//! A slot is a header line, `somite-commit v1 seq=… len=… crc32=…`, then the
//! record as one line of JSON: the same record the older single-file format
//! (`input-origins/web.json`, written whole) held, so a project in that
//! format opens and is migrated by its first commit. A slot that does not
//! exist yet is created with [`durable::publish`], so its directory entry
//! is durable before anything relies on it.

use crate::durable::{self, DurableError};
use crate::layout::Layout;
use crate::project::TransactionOutcome;
use crate::records::{Record, Records};
use serde::{Deserialize, Serialize};
use somite_workflow::Revision;
use somite_workflow::limits::MAX_DOCUMENT_BYTES;
use std::collections::HashMap;
use std::sync::Arc;

const MAGIC: &str = "somite-commit v1";

/// The commit record: binds the canonical graph to its location and
/// carries the idempotency records of the edit that produced it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommitRecord {
    pub(crate) location: String,
    /// BLAKE3 of the canonical graph file's bytes.
    pub(crate) document_digest: Revision,
    pub(crate) state_revision: Revision,
    pub(crate) graph_revision: Revision,
    /// The committed graph this one replaces: absent when the commit binds a
    /// graph that was not bound before (the first save of a recovered
    /// project, a rebind, the rewrite after recovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) replaces: Option<Replaced>,
    /// The idempotency records, the newest edit's included. Absent only in
    /// the single-file sidecars written before the records moved here;
    /// those projects still have them in
    /// [`Layout::legacy_transaction_records`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) transactions: Option<Records<TransactionOutcome>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Replaced {
    /// The digest of the graph file before this commit; none when there was
    /// no graph file yet.
    pub(crate) document_digest: Option<Revision>,
    /// The key of the edit this commit records, forgotten if the graph
    /// turns out never to have been replaced.
    pub(crate) idempotency_key: Option<String>,
}

/// The sidecar found on disk.
#[derive(Debug)]
pub(crate) enum Found {
    /// The newest whole slot's record.
    Slot(CommitRecord),
    /// No whole slot, but a single-file sidecar of the older format: its
    /// record, or why it does not parse.
    Legacy(Result<CommitRecord, String>),
    /// Neither.
    Missing,
}

/// Which slot holds the newest whole record, and its sequence number.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Newest(Option<(usize, u64)>);

/// The writer's side of the slots: where the next commit goes.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    newest: Newest,
    /// Each idempotency record's JSON, made when the record was first
    /// written: every commit writes all (up to 256) records, but only the
    /// newest is new. Keyed by the shared record's address; holding the
    /// record keeps the address from being reused.
    record_json: HashMap<usize, RecordJson>,
}

/// An idempotency record and its JSON.
type RecordJson = (Arc<Record<TransactionOutcome>>, Box<[u8]>);

/// What [`read`] found: the record, where the next commit goes, and
/// whether files of the older format remain beside a slot (a migration
/// interrupted after its first slot), for the writer to remove.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) found: Found,
    pub(crate) newest: Newest,
    pub(crate) legacy_leftover: bool,
}

/// Reads both slots and returns the newest whole record, falling back to
/// the older single-file sidecar when no slot is whole.
pub(crate) fn read(layout: &Layout) -> Result<Read, DurableError> {
    let mut newest: Option<(usize, u64, CommitRecord)> = None;
    for (slot, path) in layout.input_origin_slots().iter().enumerate() {
        let bytes = match durable::read_capped(path, MAX_DOCUMENT_BYTES) {
            Ok(bytes) => bytes,
            Err(DurableError::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        // A slot that is not whole was torn by a crash (or damaged by hand):
        // either way it records nothing.
        let Some((seq, record)) = decode(&bytes) else {
            continue;
        };
        if newest.as_ref().is_none_or(|(_, best, _)| seq > *best) {
            newest = Some((slot, seq, record));
        }
    }
    let legacy = layout.legacy_input_origin();
    if let Some((slot, seq, record)) = newest {
        let legacy_leftover = legacy.exists() || layout.legacy_transaction_records().exists();
        return Ok(Read {
            found: Found::Slot(record),
            newest: Newest(Some((slot, seq))),
            legacy_leftover,
        });
    }
    let found = match durable::read_capped(&legacy, MAX_DOCUMENT_BYTES) {
        Ok(bytes) => {
            Found::Legacy(serde_json::from_slice::<CommitRecord>(&bytes).map_err(|e| e.to_string()))
        }
        Err(DurableError::NotFound { .. }) => Found::Missing,
        Err(e) => return Err(e),
    };
    let legacy_leftover = !matches!(found, Found::Missing);
    Ok(Read {
        found,
        newest: Newest::default(),
        legacy_leftover,
    })
}

impl Slots {
    /// The writer of slots whose newest whole record is `newest`.
    pub(crate) fn after(newest: Newest) -> Slots {
        Slots {
            newest,
            record_json: HashMap::new(),
        }
    }

    /// Writes `record` into the slot that does not hold the newest record
    /// and forces it to stable storage. Until this returns `Ok` the newest
    /// whole record on disk is the previous one; a failure (or crash) leaves
    /// at most this slot torn, and the next commit writes it again.
    pub(crate) fn write(
        &mut self,
        layout: &Layout,
        record: &CommitRecord,
    ) -> Result<(), DurableError> {
        let (slot, seq) = match self.newest.0 {
            Some((slot, seq)) => (1 - slot, seq + 1),
            None => (0, 1),
        };
        let json = self.serialize(record);
        let path = &layout.input_origin_slots()[slot];
        durable::overwrite(path, &encode(seq, &json))?;
        self.newest = Newest(Some((slot, seq)));
        Ok(())
    }
}

impl Slots {
    /// `record` as compact JSON, with the idempotency records' JSON reused
    /// from earlier commits: the same bytes `serde_json` would write.
    fn serialize(&mut self, record: &CommitRecord) -> Vec<u8> {
        let Some(records) = &record.transactions else {
            return serde_json::to_vec(record).expect("commit records serialize");
        };
        let head = CommitRecord {
            transactions: None,
            ..record.clone_head()
        };
        let mut json = serde_json::to_vec(&head).expect("commit records serialize");
        // `transactions` is the last field: reopen the object to add it.
        json.pop();
        json.extend_from_slice(b",\"transactions\":[");
        let mut kept = HashMap::with_capacity(records.len());
        for (i, shared) in records.shared().enumerate() {
            let address = Arc::as_ptr(shared) as usize;
            let entry = self.record_json.remove(&address).unwrap_or_else(|| {
                let bytes = serde_json::to_vec(&**shared).expect("records serialize");
                (shared.clone(), bytes.into())
            });
            if i > 0 {
                json.push(b',');
            }
            json.extend_from_slice(&entry.1);
            kept.insert(address, entry);
        }
        json.extend_from_slice(b"]}");
        self.record_json = kept;
        json
    }
}

impl CommitRecord {
    /// Everything but the idempotency records.
    fn clone_head(&self) -> CommitRecord {
        CommitRecord {
            location: self.location.clone(),
            document_digest: self.document_digest.clone(),
            state_revision: self.state_revision.clone(),
            graph_revision: self.graph_revision.clone(),
            replaces: self.replaces.clone(),
            transactions: None,
        }
    }
}

/// The CRC-32 covers the sequence number too, so a header and a body from
/// two different writes never pass for a whole slot.
fn checksum(seq: u64, json: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&seq.to_le_bytes());
    hasher.update(json);
    hasher.finalize()
}

fn encode(seq: u64, json: &[u8]) -> Vec<u8> {
    let header = format!(
        "{MAGIC} seq={seq} len={} crc32={:08x}\n",
        json.len(),
        checksum(seq, json)
    );
    let mut bytes = Vec::with_capacity(header.len() + json.len() + 1);
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(json);
    bytes.push(b'\n');
    bytes
}

/// The sequence number and record of a whole slot; none for anything else.
fn decode(bytes: &[u8]) -> Option<(u64, CommitRecord)> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..end]).ok()?;
    let rest = header.strip_prefix(MAGIC)?.strip_prefix(' ')?;
    let mut fields = rest.split(' ');
    let seq: u64 = fields.next()?.strip_prefix("seq=")?.parse().ok()?;
    let len: usize = fields.next()?.strip_prefix("len=")?.parse().ok()?;
    let crc = u32::from_str_radix(fields.next()?.strip_prefix("crc32=")?, 16).ok()?;
    if fields.next().is_some() {
        return None;
    }
    let body = &bytes[end + 1..];
    if body.len() != len + 1 || body[len] != b'\n' {
        return None;
    }
    let json = &body[..len];
    if checksum(seq, json) != crc {
        return None;
    }
    let record = serde_json::from_slice(json).ok()?;
    Some((seq, record))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(digest: &str) -> CommitRecord {
        CommitRecord {
            location: ".somite/web.somite.json".into(),
            document_digest: digest.into(),
            state_revision: "blake3:s".into(),
            graph_revision: "blake3:g".into(),
            replaces: None,
            transactions: Some(Records::default()),
        }
    }

    #[test]
    fn a_whole_slot_decodes_and_any_torn_or_altered_one_does_not() {
        let bytes = encode(7, &serde_json::to_vec(&record("blake3:a")).unwrap());
        let (seq, decoded) = decode(&bytes).unwrap();
        assert_eq!(seq, 7);
        assert_eq!(decoded.document_digest, "blake3:a");
        // Every prefix is what a write torn at that byte leaves of a new slot.
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        // A new header over the old body (or the reverse) and a flipped byte.
        let older = encode(6, &serde_json::to_vec(&record("blake3:b")).unwrap());
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        let old_header_end = older.iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut mixed = bytes[..header_end].to_vec();
        mixed.extend_from_slice(&older[old_header_end..]);
        assert!(decode(&mixed).is_none());
        let mut flipped = bytes.clone();
        flipped[header_end + 5] ^= 1;
        assert!(decode(&flipped).is_none());
        assert!(decode(b"{}").is_none());
    }

    #[test]
    fn commits_alternate_slots_and_the_newest_whole_slot_wins() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let [first, second] = layout.input_origin_slots();
        let mut slots = Slots::default();
        slots.write(&layout, &record("blake3:1")).unwrap();
        assert!(first.exists() && !second.exists());
        slots.write(&layout, &record("blake3:2")).unwrap();
        slots.write(&layout, &record("blake3:3")).unwrap();
        let digest = |read: Read| match read.found {
            Found::Slot(record) => record.document_digest,
            other => panic!("{other:?}"),
        };
        assert_eq!(digest(read(&layout).unwrap()), "blake3:3");

        // The third commit went to the first slot; tear it, and the second
        // commit is the record again, and the next commit rewrites the
        // torn slot instead of the whole one.
        let whole = std::fs::read(&first).unwrap();
        std::fs::write(&first, &whole[..whole.len() / 2]).unwrap();
        let found = read(&layout).unwrap();
        assert!(!found.legacy_leftover);
        let mut slots = Slots::after(found.newest);
        assert_eq!(digest(found), "blake3:2");
        let second_before = std::fs::read(&second).unwrap();
        slots.write(&layout, &record("blake3:4")).unwrap();
        assert_eq!(std::fs::read(&second).unwrap(), second_before);
        assert_eq!(digest(read(&layout).unwrap()), "blake3:4");
    }

    #[test]
    fn records_reused_from_earlier_commits_serialize_as_serde_json_would() {
        let outcome = |i: usize| TransactionOutcome {
            previous_state_revision: format!("blake3:{i}"),
            state_revision: format!("blake3:{}", i + 1),
            graph_revision: "blake3:g".into(),
            summary: format!("edit \"{i}\""),
            operations: i,
            replayed: false,
        };
        let mut slots = Slots::default();
        let mut records = Records::default();
        for i in 0..300 {
            records.insert(format!("key-{i:08}"), format!("blake3:r{i}"), outcome(i));
            if i == 150 {
                records.remove("key-00000100");
            }
            let mut commit = record("blake3:d");
            commit.replaces = Some(Replaced {
                document_digest: None,
                idempotency_key: Some(format!("key-{i:08}")),
            });
            commit.transactions = Some(records.clone());
            assert_eq!(
                slots.serialize(&commit),
                serde_json::to_vec(&commit).unwrap()
            );
        }
        assert_eq!(
            slots.record_json.len(),
            records.len(),
            "forgotten records are dropped"
        );
    }

    #[test]
    fn a_shorter_record_overwrites_a_longer_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let mut slots = Slots::default();
        let mut long = record("blake3:long");
        long.state_revision = "x".repeat(4096);
        slots.write(&layout, &long).unwrap();
        slots.write(&layout, &record("blake3:b")).unwrap();
        slots.write(&layout, &record("blake3:c")).unwrap();
        let bytes = std::fs::read(&layout.input_origin_slots()[0]).unwrap();
        assert_eq!(decode(&bytes).unwrap().1.document_digest, "blake3:c");
    }

    #[test]
    fn without_a_whole_slot_the_older_single_file_sidecar_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        assert!(matches!(read(&layout).unwrap().found, Found::Missing));
        let legacy = layout.legacy_input_origin();
        std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        std::fs::write(
            &legacy,
            serde_json::to_vec_pretty(&record("blake3:old")).unwrap(),
        )
        .unwrap();
        std::fs::write(&layout.input_origin_slots()[0], b"torn").unwrap();
        let found = read(&layout).unwrap();
        assert!(found.legacy_leftover);
        assert!(
            matches!(found.found, Found::Legacy(Ok(ref r)) if r.document_digest == "blake3:old")
        );

        // Once a slot is whole, the older file is a leftover to remove.
        let mut slots = Slots::after(found.newest);
        slots.write(&layout, &record("blake3:new")).unwrap();
        let found = read(&layout).unwrap();
        assert!(found.legacy_leftover);
        assert!(matches!(found.found, Found::Slot(ref r) if r.document_digest == "blake3:new"));

        std::fs::write(&legacy, b"{not json").unwrap();
        std::fs::remove_file(&layout.input_origin_slots()[0]).unwrap();
        assert!(matches!(
            read(&layout).unwrap().found,
            Found::Legacy(Err(_))
        ));
    }
}
