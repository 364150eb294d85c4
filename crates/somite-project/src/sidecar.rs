//! The input-origin sidecar: the commit record of every edit and the
//! idempotency records, kept in a ring of fixed-size, checksummed entries,
//! of which each commit overwrites one in place.
//!
//! The record must be on stable storage before the graph it describes is
//! renamed into place (see [`crate::project`]), so its publication sits on
//! every edit's path, and an edit writes as little as it can: one entry of
//! [`ENTRY_BYTES`] holding its commit record and its own idempotency
//! record, and one data sync, which runs while the graph's bytes are being
//! staged. Rewriting every remembered record on every edit (about 120 KB at
//! [`MAX_RECORDS`]) made the sync race the graph's own for the disk.
//!
//! The ring has [`MAX_RECORDS`] entries, so its entries *are* the
//! remembered records: entry `seq` lives at place `seq % MAX_RECORDS`, and
//! a commit overwrites the entry of the oldest record, the one its own
//! record evicts. On reading, every whole entry's record is remembered,
//! oldest first by sequence number, and the whole entry with the highest
//! sequence number carries the commit record.
//!
//! In-place writes can tear, which is why every entry carries its sequence
//! number and a CRC-32 of its content. A torn entry fails its checksum and
//! is ignored, which is exact: the graph's rename waits for the entry's
//! sync, so an edit whose entry is torn was never applied nor
//! acknowledged, and the entry before it still describes the graph on
//! disk. (The torn entry also loses the oldest record, which that edit was
//! evicting anyway.)
//!
//! What is not one new record is written as a whole new ring, published
//! like any file (temporary file, sync, rename, directory sync), with the
//! commit record in its newest entry: creating the ring, a commit without
//! an idempotency key (an import, a rebind, a first save), forgetting the
//! record of an edit that never landed, moving an older project in, and
//! any commit after one that failed part-way (the ring may then hold a
//! record the project does not, or miss one it does).
//!
//! An entry is a header line, `somite-commit v2 seq=… len=… crc32=…`, then
//! `{"commit":…,"transaction":…}` on one line, padded with zeros to
//! [`ENTRY_BYTES`].
//!
//! Two older formats are read, so a project in them opens and is moved in
//! by its first writer: two slot files written in turn, each a header
//! `somite-commit v1 …` and one commit record carrying every idempotency
//! record; and before them one file, `input-origins/web.json`, written
//! whole.

use crate::durable::{self, DurableError, InPlace};
use crate::layout::Layout;
use crate::project::TransactionOutcome;
use crate::records::{MAX_RECORDS, Record, Records};
use serde::{Deserialize, Serialize};
use somite_workflow::Revision;
use somite_workflow::limits::MAX_DOCUMENT_BYTES;
use std::path::PathBuf;

const RING_MAGIC: &str = "somite-commit v2";
const SLOT_MAGIC: &str = "somite-commit v1";

/// The bytes of one entry. The largest an edit can make (a 128-byte key, a
/// 500-character summary whose every character JSON escapes to six bytes,
/// five revisions) is under 5 KiB.
pub(crate) const ENTRY_BYTES: usize = 8192;
const ENTRIES: u64 = MAX_RECORDS as u64;
const RING_BYTES: usize = MAX_RECORDS * ENTRY_BYTES;

/// The commit record: binds the canonical graph to its location and
/// carries the idempotency records.
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
    /// The idempotency records, the newest edit's included: as read, those
    /// of every whole entry of the ring, or those an older format carried
    /// (absent only in the single-file sidecars written before the records
    /// joined the sidecar; those projects still have them in
    /// [`Layout::legacy_transaction_records`]). A ring entry carries its
    /// own record beside the commit record, never in it.
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

/// One entry of the ring, as read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(default)]
    commit: Option<CommitRecord>,
    #[serde(default)]
    transaction: Option<Record<TransactionOutcome>>,
}

/// The sidecar found on disk.
#[derive(Debug)]
pub(crate) enum Found {
    /// The ring's newest commit record, with the records of the ring.
    Ring(CommitRecord),
    /// No ring, but the commit record of an older format.
    Older(CommitRecord),
    /// A sidecar that does not parse, and why.
    Unreadable(String),
    /// None at all.
    Missing,
}

/// The sequence number of the ring's newest whole entry; none while there
/// is no readable ring.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Newest(Option<u64>);

/// What [`read`] found: the record, where the next commit goes, and
/// whether files of an older format remain beside the ring (a move
/// interrupted before their removal), for the writer to remove.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) found: Found,
    pub(crate) newest: Newest,
    pub(crate) legacy_leftover: bool,
}

/// Reads the ring, falling back to the older formats when there is none.
pub(crate) fn read(layout: &Layout) -> Result<Read, DurableError> {
    let (found, newest) = match durable::read_capped(&layout.input_origin_ring(), RING_BYTES as u64)
    {
        Ok(bytes) => decode_ring(&bytes),
        Err(DurableError::TooLarge { actual, .. }) => (
            Found::Unreadable(format!(
                "the ring is {actual} bytes, more than {RING_BYTES}"
            )),
            Newest::default(),
        ),
        Err(DurableError::NotFound { .. }) => {
            let found = read_older(layout)?;
            let legacy_leftover = !matches!(found, Found::Missing);
            return Ok(Read {
                found,
                newest: Newest::default(),
                legacy_leftover,
            });
        }
        Err(e) => return Err(e),
    };
    Ok(Read {
        found,
        newest,
        legacy_leftover: legacy_files(layout).iter().any(|path| path.exists()),
    })
}

/// The files of the older formats, to remove once the ring holds what
/// they held.
pub(crate) fn legacy_files(layout: &Layout) -> Vec<PathBuf> {
    let mut files = layout.legacy_input_origin_slots().to_vec();
    files.push(layout.legacy_input_origin());
    files.push(layout.legacy_transaction_records());
    files
}

/// The commit record of the older formats: the newest whole slot, else the
/// single file.
fn read_older(layout: &Layout) -> Result<Found, DurableError> {
    let mut newest: Option<(u64, CommitRecord)> = None;
    for path in layout.legacy_input_origin_slots() {
        let bytes = match durable::read_capped(&path, MAX_DOCUMENT_BYTES) {
            Ok(bytes) => bytes,
            Err(DurableError::NotFound { .. }) => continue,
            Err(e) => return Err(e),
        };
        // A slot that is not whole was torn by a crash (or damaged by hand):
        // either way it records nothing.
        let Some((seq, json)) = decode_framed(&bytes, SLOT_MAGIC) else {
            continue;
        };
        let Ok(record) = serde_json::from_slice::<CommitRecord>(json) else {
            continue;
        };
        if newest.as_ref().is_none_or(|(best, _)| seq > *best) {
            newest = Some((seq, record));
        }
    }
    if let Some((_, record)) = newest {
        return Ok(Found::Older(record));
    }
    match durable::read_capped(&layout.legacy_input_origin(), MAX_DOCUMENT_BYTES) {
        Ok(bytes) => Ok(match serde_json::from_slice::<CommitRecord>(&bytes) {
            Ok(record) => Found::Older(record),
            Err(e) => Found::Unreadable(e.to_string()),
        }),
        Err(DurableError::NotFound { .. }) => Ok(Found::Missing),
        Err(e) => Err(e),
    }
}

/// The ring's newest commit record with every whole entry's record, and
/// the newest whole entry's sequence number.
fn decode_ring(bytes: &[u8]) -> (Found, Newest) {
    let mut entries: Vec<(u64, Entry)> = bytes
        .chunks(ENTRY_BYTES)
        .filter_map(|entry| {
            let (seq, json) = decode_framed(entry, RING_MAGIC)?;
            Some((seq, serde_json::from_slice(json).ok()?))
        })
        .collect();
    entries.sort_by_key(|(seq, _)| *seq);
    let Some((newest, last)) = entries.last_mut() else {
        return (
            Found::Unreadable("the ring has no whole entry".into()),
            Newest::default(),
        );
    };
    let newest = *newest;
    let Some(mut commit) = last.commit.take() else {
        return (
            Found::Unreadable(format!(
                "the ring's newest entry ({newest}) records no commit"
            )),
            Newest::default(),
        );
    };
    let mut records = Records::default();
    for (_, entry) in entries {
        if let Some(record) = entry.transaction {
            records.insert(record.key, record.request_digest, record.outcome);
        }
    }
    commit.transactions = Some(records);
    (Found::Ring(commit), Newest(Some(newest)))
}

/// The writer's side of the ring.
#[derive(Debug, Default)]
pub(crate) struct Ring {
    newest: Newest,
    /// The ring file, open for writing in place; opened on first use and
    /// again after the ring was replaced whole.
    file: Option<InPlace>,
    /// A commit failed after (or while) writing its entry: the next commit
    /// writes the ring whole.
    diverged: bool,
}

impl Ring {
    /// The writer of the ring whose newest whole entry is `newest`.
    pub(crate) fn after(newest: Newest) -> Ring {
        Ring {
            newest,
            file: None,
            diverged: false,
        }
    }

    /// Commits `commit` (which carries no records) with `records`, the
    /// project's records after the commit. When the only new one among
    /// them is `added`, that is one entry, written in place and synced;
    /// anything else writes the ring whole. Until this returns `Ok`, the
    /// newest whole commit record on disk is the previous one.
    pub(crate) fn write(
        &mut self,
        layout: &Layout,
        commit: &CommitRecord,
        records: &Records<TransactionOutcome>,
        added: Option<&Record<TransactionOutcome>>,
    ) -> Result<(), DurableError> {
        let result = match (added, self.newest.0) {
            (Some(record), Some(newest)) if !self.diverged => {
                self.append(layout, newest + 1, commit, record)
            }
            _ => self.rewrite(layout, commit, records),
        };
        self.diverged = result.is_err();
        result
    }

    /// Marks the ring as holding what the project does not (its commit's
    /// graph was never published), so the next commit writes it whole.
    pub(crate) fn diverge(&mut self) {
        self.diverged = true;
    }

    fn append(
        &mut self,
        layout: &Layout,
        seq: u64,
        commit: &CommitRecord,
        record: &Record<TransactionOutcome>,
    ) -> Result<(), DurableError> {
        let entry = encode_entry(layout, seq, Some(commit), Some(record))?;
        let file = match &mut self.file {
            Some(file) => file,
            empty => empty.insert(InPlace::open(&layout.input_origin_ring())?),
        };
        file.write_at((seq % ENTRIES) * ENTRY_BYTES as u64, &entry)?;
        self.newest = Newest(Some(seq));
        Ok(())
    }

    /// Publishes a new ring holding `records`, oldest first, with `commit`
    /// in the newest entry.
    fn rewrite(
        &mut self,
        layout: &Layout,
        commit: &CommitRecord,
        records: &Records<TransactionOutcome>,
    ) -> Result<(), DurableError> {
        let records: Vec<_> = records.shared().collect();
        // Only records read from an older format, written by hand, can be
        // more than the ring holds: the newest are kept, as an insert would.
        let records = &records[records.len().saturating_sub(MAX_RECORDS)..];
        let entries = records.len().max(1);
        let first = self.newest.0.unwrap_or(0) + 1;
        let mut ring = vec![0; RING_BYTES];
        for i in 0..entries {
            let seq = first + i as u64;
            let newest = i + 1 == entries;
            let entry = encode_entry(
                layout,
                seq,
                newest.then_some(commit),
                records.get(i).map(|r| &***r),
            )?;
            let at = (seq % ENTRIES) as usize * ENTRY_BYTES;
            ring[at..at + ENTRY_BYTES].copy_from_slice(&entry);
        }
        // The open file is the ring being replaced.
        self.file = None;
        durable::publish(&layout.input_origin_ring(), &ring)?;
        self.newest = Newest(Some(first + entries as u64 - 1));
        Ok(())
    }
}

/// One entry, padded to [`ENTRY_BYTES`].
fn encode_entry(
    layout: &Layout,
    seq: u64,
    commit: Option<&CommitRecord>,
    record: Option<&Record<TransactionOutcome>>,
) -> Result<Vec<u8>, DurableError> {
    let mut json = Vec::with_capacity(1024);
    json.push(b'{');
    if let Some(commit) = commit {
        debug_assert!(commit.transactions.is_none(), "records go beside it");
        json.extend_from_slice(b"\"commit\":");
        serde_json::to_writer(&mut json, commit).expect("commit records serialize");
    }
    if let Some(record) = record {
        if commit.is_some() {
            json.push(b',');
        }
        json.extend_from_slice(b"\"transaction\":");
        serde_json::to_writer(&mut json, record).expect("records serialize");
    }
    json.push(b'}');
    let mut entry = frame(seq, &json, RING_MAGIC);
    // Only records read from an older format, changed by hand, can be this
    // large: the transaction envelope keeps an edit's well below.
    if entry.len() > ENTRY_BYTES {
        return Err(DurableError::TooLarge {
            path: layout.input_origin_ring(),
            limit: ENTRY_BYTES as u64,
            actual: entry.len() as u64,
        });
    }
    entry.resize(ENTRY_BYTES, 0);
    Ok(entry)
}

/// The CRC-32 covers the sequence number too, so a header and a body from
/// two different writes never pass for a whole entry.
fn checksum(seq: u64, json: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&seq.to_le_bytes());
    hasher.update(json);
    hasher.finalize()
}

/// A header line, then `json` and a newline.
fn frame(seq: u64, json: &[u8], magic: &str) -> Vec<u8> {
    let header = format!(
        "{magic} seq={seq} len={} crc32={:08x}\n",
        json.len(),
        checksum(seq, json)
    );
    let mut bytes = Vec::with_capacity(header.len() + json.len() + 1);
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(json);
    bytes.push(b'\n');
    bytes
}

/// The sequence number and JSON of a whole frame; none for anything else.
/// What follows the frame (a ring entry's padding) is not looked at.
fn decode_framed<'b>(bytes: &'b [u8], magic: &str) -> Option<(u64, &'b [u8])> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..end]).ok()?;
    let rest = header.strip_prefix(magic)?.strip_prefix(' ')?;
    let mut fields = rest.split(' ');
    let seq: u64 = fields.next()?.strip_prefix("seq=")?.parse().ok()?;
    let len: usize = fields.next()?.strip_prefix("len=")?.parse().ok()?;
    let crc = u32::from_str_radix(fields.next()?.strip_prefix("crc32=")?, 16).ok()?;
    if fields.next().is_some() {
        return None;
    }
    let body = &bytes[end + 1..];
    if body.len() < len + 1 || body[len] != b'\n' {
        return None;
    }
    let json = &body[..len];
    (checksum(seq, json) == crc).then_some((seq, json))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(digest: &str) -> CommitRecord {
        CommitRecord {
            location: ".somite/web.somite.json".into(),
            document_digest: digest.into(),
            state_revision: "blake3:s".into(),
            graph_revision: "blake3:g".into(),
            replaces: None,
            transactions: None,
        }
    }

    fn outcome(summary: String) -> TransactionOutcome {
        TransactionOutcome {
            previous_state_revision: format!("blake3:{}", "a".repeat(64)),
            state_revision: format!("blake3:{}", "b".repeat(64)),
            graph_revision: format!("blake3:{}", "c".repeat(64)),
            summary,
            operations: 64,
            replayed: false,
        }
    }

    fn found(layout: &Layout) -> (CommitRecord, Vec<String>) {
        match read(layout).unwrap().found {
            Found::Ring(mut record) => {
                let keys = record
                    .transactions
                    .take()
                    .unwrap()
                    .shared()
                    .map(|r| r.key.clone())
                    .collect();
                (record, keys)
            }
            other => panic!("{other:?}"),
        }
    }

    /// Commits edit `i` as an edit does: its record joins `records`, and
    /// the ring gets the entry.
    fn edit(ring: &mut Ring, layout: &Layout, records: &mut Records<TransactionOutcome>, i: usize) {
        records.insert(
            format!("key-{i:08}"),
            format!("blake3:r{i}"),
            outcome(format!("edit {i}")),
        );
        let added = records.shared().last().unwrap().clone();
        ring.write(
            layout,
            &commit(&format!("blake3:{i}")),
            records,
            Some(&added),
        )
        .unwrap();
    }

    #[test]
    fn a_whole_entry_decodes_and_any_torn_or_altered_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let record = Record {
            key: "key-00000001".into(),
            request_digest: "blake3:r".into(),
            outcome: outcome("one".into()),
        };
        let entry = encode_entry(&layout, 7, Some(&commit("blake3:a")), Some(&record)).unwrap();
        assert_eq!(entry.len(), ENTRY_BYTES);
        let (seq, json) = decode_framed(&entry, RING_MAGIC).unwrap();
        assert_eq!(seq, 7);
        let decoded: Entry = serde_json::from_slice(json).unwrap();
        assert_eq!(decoded.commit.unwrap().document_digest, "blake3:a");
        assert_eq!(decoded.transaction.unwrap(), record);
        // Every prefix of the frame, over the zeros of an unused place, is
        // what a write torn at that byte leaves.
        let framed = entry.iter().rposition(|&b| b != 0).unwrap() + 1;
        for cut in 0..framed {
            let mut torn = entry[..cut].to_vec();
            torn.resize(ENTRY_BYTES, 0);
            assert!(decode_framed(&torn, RING_MAGIC).is_none(), "cut at {cut}");
        }
        // A new header over an older body, a flipped byte, the other format.
        let older = encode_entry(&layout, 6, Some(&commit("blake3:b")), None).unwrap();
        let header_end = entry.iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut mixed = entry[..header_end].to_vec();
        mixed.extend_from_slice(&older[older.iter().position(|&b| b == b'\n').unwrap() + 1..]);
        assert!(decode_framed(&mixed, RING_MAGIC).is_none());
        let mut flipped = entry.clone();
        flipped[header_end + 5] ^= 1;
        assert!(decode_framed(&flipped, RING_MAGIC).is_none());
        assert!(decode_framed(&entry, SLOT_MAGIC).is_none());
        assert!(decode_framed(b"{}", RING_MAGIC).is_none());
    }

    #[test]
    fn the_largest_entry_an_edit_can_make_fits_and_a_larger_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let longest_key = "k".repeat(*somite_workflow::limits::IDEMPOTENCY_KEY_CHARS.end());
        let mut record = Record {
            key: longest_key.clone(),
            request_digest: format!("blake3:{}", "d".repeat(64)),
            // Every character escapes to six bytes.
            outcome: outcome("\u{1}".repeat(somite_workflow::limits::MAX_SUMMARY_CHARS)),
        };
        let mut head = commit(&format!("blake3:{}", "e".repeat(64)));
        head.replaces = Some(Replaced {
            document_digest: Some(format!("blake3:{}", "f".repeat(64))),
            idempotency_key: Some(longest_key),
        });
        encode_entry(&layout, u64::MAX, Some(&head), Some(&record)).unwrap();

        record.outcome.summary = "x".repeat(ENTRY_BYTES);
        let err = encode_entry(&layout, 1, Some(&head), Some(&record)).unwrap_err();
        assert!(matches!(err, DurableError::TooLarge { limit, .. } if limit == ENTRY_BYTES as u64));
    }

    #[test]
    fn an_edit_writes_one_entry_in_place_and_the_ring_remembers_the_newest_records() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let mut ring = Ring::default();
        let mut records = Records::default();
        edit(&mut ring, &layout, &mut records, 0);
        assert_eq!(
            std::fs::metadata(layout.input_origin_ring()).unwrap().len(),
            RING_BYTES as u64,
            "the first commit publishes the whole ring"
        );
        for i in 1..MAX_RECORDS + 40 {
            let before = std::fs::read(layout.input_origin_ring()).unwrap();
            edit(&mut ring, &layout, &mut records, i);
            let after = std::fs::read(layout.input_origin_ring()).unwrap();
            let changed: Vec<_> = (0..MAX_RECORDS)
                .filter(|e| {
                    let place = e * ENTRY_BYTES..(e + 1) * ENTRY_BYTES;
                    before[place.clone()] != after[place]
                })
                .collect();
            assert_eq!(changed, [(i + 1) % MAX_RECORDS], "edit {i} wrote one entry");
        }
        let (newest, keys) = found(&layout);
        assert_eq!(
            newest.document_digest,
            format!("blake3:{}", MAX_RECORDS + 39)
        );
        let expected: Vec<_> = records.shared().map(|r| r.key.clone()).collect();
        assert_eq!(keys, expected);
        assert_eq!(keys.len(), MAX_RECORDS);
        assert_eq!(keys[0], "key-00000040", "the oldest are forgotten");

        // A commit without a new record writes the ring whole, with the
        // same records.
        ring.write(&layout, &commit("blake3:import"), &records, None)
            .unwrap();
        let (newest, again) = found(&layout);
        assert_eq!(newest.document_digest, "blake3:import");
        assert_eq!(again, keys);
        edit(&mut ring, &layout, &mut records, 1000);
        let (newest, keys) = found(&layout);
        assert_eq!(newest.document_digest, "blake3:1000");
        assert_eq!(keys.last().unwrap(), "key-00001000");
        assert_eq!(keys[0], "key-00000041");
    }

    #[test]
    fn after_a_commit_that_failed_the_ring_is_written_whole_without_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let mut ring = Ring::default();
        let mut records = Records::default();
        for i in 0..3 {
            edit(&mut ring, &layout, &mut records, i);
        }
        // Edit 3's entry is written, and then its graph fails to publish:
        // the project never takes its record.
        let mut failed = records.clone();
        edit(&mut ring, &layout, &mut failed, 3);
        ring.diverge();
        edit(&mut ring, &layout, &mut records, 4);
        let (_, keys) = found(&layout);
        assert_eq!(
            keys,
            [
                "key-00000000",
                "key-00000001",
                "key-00000002",
                "key-00000004"
            ]
        );
    }

    #[test]
    fn a_ring_without_a_whole_newest_commit_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(layout.input_origin_ring().parent().unwrap()).unwrap();
        std::fs::write(layout.input_origin_ring(), b"{}").unwrap();
        assert!(matches!(read(&layout).unwrap().found, Found::Unreadable(_)));
        // An entry with only a record, newest: no commit binds the graph.
        let record = Record {
            key: "key-00000001".into(),
            request_digest: "blake3:r".into(),
            outcome: outcome("one".into()),
        };
        let mut ring = encode_entry(&layout, 1, Some(&commit("blake3:a")), None).unwrap();
        ring.extend(encode_entry(&layout, 2, None, Some(&record)).unwrap());
        std::fs::write(layout.input_origin_ring(), &ring).unwrap();
        assert!(matches!(read(&layout).unwrap().found, Found::Unreadable(_)));
        std::fs::write(layout.input_origin_ring(), vec![0; RING_BYTES + 1]).unwrap();
        assert!(matches!(read(&layout).unwrap().found, Found::Unreadable(_)));
    }

    #[test]
    fn without_a_ring_the_older_formats_are_read_newest_whole_slot_first() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        assert!(matches!(read(&layout).unwrap().found, Found::Missing));
        let slot = |seq, digest: &str| {
            let mut record = commit(digest);
            record.transactions = Some(Records::default());
            frame(seq, &serde_json::to_vec(&record).unwrap(), SLOT_MAGIC)
        };
        let digest = |read: Read| match read.found {
            Found::Older(record) => record.document_digest,
            other => panic!("{other:?}"),
        };
        let [first, second] = layout.legacy_input_origin_slots();
        let legacy = layout.legacy_input_origin();
        std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        std::fs::write(
            &legacy,
            serde_json::to_vec(&commit("blake3:single")).unwrap(),
        )
        .unwrap();
        assert_eq!(digest(read(&layout).unwrap()), "blake3:single");
        std::fs::write(&first, slot(4, "blake3:4")).unwrap();
        let newer = slot(5, "blake3:5");
        std::fs::write(&second, &newer[..newer.len() / 2]).unwrap();
        let found = read(&layout).unwrap();
        assert!(found.legacy_leftover);
        assert_eq!(digest(found), "blake3:4", "a torn slot is ignored");
        std::fs::write(&second, &newer).unwrap();
        assert_eq!(digest(read(&layout).unwrap()), "blake3:5");

        std::fs::remove_file(&first).unwrap();
        std::fs::remove_file(&second).unwrap();
        std::fs::write(&legacy, b"{not json").unwrap();
        assert!(matches!(read(&layout).unwrap().found, Found::Unreadable(_)));
    }
}
