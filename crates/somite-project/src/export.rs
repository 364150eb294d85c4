//! `somite export OUT.zip`: the compiled package and its evidence as one
//! deterministic ZIP archive.
//!
//! Exporting the same package twice gives the same bytes, so an archive can
//! itself be checked by digest: entries are sorted by path, stored without
//! compression (nothing to vary between zlib versions), stamped with the
//! fixed DOS epoch (1980-01-01 00:00), marked as Unix `0644` files, and
//! carry no extra fields, comments or data descriptors. The layout is
//! the package files at the top level, plus `evidence/` with
//! the receipts recorded for the package's graph revision and an index of
//! them.

use crate::compiled::{CompileOutcome, Toolchain, compile};
use crate::durable::{self, DurableError};
use crate::project::Project;
use serde::Serialize;
use somite_workflow::canonical::digest_bytes;
use somite_workflow::compile::{FILE_MODE, MAX_PACKAGE_BYTES};
use somite_workflow::{ErrorCode, Revision, SomiteError};
use std::fs;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, SomiteError>;

/// One evidence receipt that can be exported.
pub const MAX_RECEIPT_BYTES: u64 = 16 * 1024 * 1024;
/// All receipts of one export together.
pub const MAX_EVIDENCE_BYTES: u64 = 64 * 1024 * 1024;
/// The receipt field naming the graph revision it is evidence for.
const RECEIPT_SUBJECT_FIELD: &str = "subject_graph_revision";

/// A written archive.
#[derive(Debug, Clone)]
pub struct ExportOutcome {
    pub path: PathBuf,
    /// `blake3:<hex>` of the archive's bytes.
    pub archive_digest: Revision,
    pub bytes: u64,
    pub entries: usize,
    pub receipts: usize,
    pub compile: CompileOutcome,
}

/// `evidence/index.json`.
#[derive(Debug, Serialize)]
struct EvidenceIndex<'a> {
    graph_revision: &'a str,
    receipts: Vec<EvidenceEntry>,
}

#[derive(Debug, Serialize)]
struct EvidenceEntry {
    path: String,
    blake3: Revision,
}

/// Compiles the project's graph (through the same gates as `compile`) and
/// writes the archive to `out` atomically.
pub fn export(project: &Project, toolchain: &Toolchain, out: &Path) -> Result<ExportOutcome> {
    let compiled = compile(project, toolchain)?;
    let mut entries: Vec<(String, Vec<u8>)> = compiled
        .package
        .files()
        .map(|f| (f.path.clone(), f.bytes.clone()))
        .collect();
    let graph_revision = compiled.package.run_closure().graph_revision.clone();
    let receipts = receipts_for(
        &project.layout().evidence().join("receipts"),
        &graph_revision,
    )?;
    let index = EvidenceIndex {
        graph_revision: &graph_revision,
        receipts: receipts
            .iter()
            .map(|(path, bytes)| EvidenceEntry {
                path: path.clone(),
                blake3: digest_bytes(bytes),
            })
            .collect(),
    };
    let mut index_bytes = serde_json::to_vec_pretty(&index).expect("the index serializes");
    index_bytes.push(b'\n');
    let receipt_count = receipts.len();
    entries.push(("evidence/index.json".into(), index_bytes));
    entries.extend(receipts);
    entries.sort_by(|a, b| a.0.cmp(&b.0));

    let archive = stored_zip(&entries)?;
    durable::publish(out, &archive).map_err(|e: DurableError| {
        SomiteError::new(
            ErrorCode::Io,
            e.to_string(),
            "choose a writable location for the archive",
        )
    })?;
    Ok(ExportOutcome {
        path: out.to_owned(),
        archive_digest: digest_bytes(&archive),
        bytes: archive.len() as u64,
        entries: entries.len(),
        receipts: receipt_count,
        compile: compiled,
    })
}

/// The receipts under `dir` whose subject is `graph_revision`, as
/// `evidence/receipts/<file>` entries, in name order.
fn receipts_for(dir: &Path, graph_revision: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SomiteError::io(dir, &e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".json") && !name.starts_with('.'))
        .collect();
    names.sort();
    let mut receipts = Vec::new();
    let mut total = 0u64;
    for name in names {
        let path = dir.join(&name);
        let bytes = durable::read_capped(&path, MAX_RECEIPT_BYTES).map_err(|e| {
            SomiteError::new(
                ErrorCode::PayloadTooLarge,
                e.to_string(),
                "remove or archive the oversized receipt, then export again",
            )
        })?;
        let subject = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get(RECEIPT_SUBJECT_FIELD)?.as_str().map(str::to_owned));
        if subject.as_deref() != Some(graph_revision) {
            continue;
        }
        total += bytes.len() as u64;
        if total > MAX_EVIDENCE_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("the receipts for this graph exceed {MAX_EVIDENCE_BYTES} bytes"),
                "archive older receipts, then export again",
            ));
        }
        receipts.push((format!("evidence/receipts/{name}"), bytes));
    }
    Ok(receipts)
}

/// DOS date of 1980-01-01, the earliest a ZIP entry can carry; time 00:00.
const DOS_DATE: u16 = (1 << 5) | 1;
const DOS_TIME: u16 = 0;
/// ZIP 2.0, made on Unix (so the external attributes are a Unix mode).
const VERSION_MADE_BY: u16 = (3 << 8) | 20;
const VERSION_NEEDED: u16 = 20;
/// General purpose flag bit 11: names are UTF-8.
const UTF8_NAMES: u16 = 1 << 11;
const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;

/// A ZIP archive of `entries` (already in path order), stored uncompressed.
fn stored_zip(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let too_large = || {
        SomiteError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the export exceeds {} bytes",
                MAX_PACKAGE_BYTES + MAX_EVIDENCE_BYTES
            ),
            "archive older receipts or split the workflow",
        )
    };
    let payload: u64 = entries.iter().map(|(_, b)| b.len() as u64).sum();
    if payload > MAX_PACKAGE_BYTES + MAX_EVIDENCE_BYTES || entries.len() > usize::from(u16::MAX) {
        return Err(too_large());
    }
    let u32_of = |n: usize| u32::try_from(n).map_err(|_| too_large());
    let mut out = Vec::with_capacity(payload as usize + entries.len() * 128);
    let mut central = Vec::new();
    for (name, bytes) in entries {
        let offset = u32_of(out.len())?;
        let crc = crc32fast::hash(bytes);
        let size = u32_of(bytes.len())?;
        let name_len = u16::try_from(name.len()).map_err(|_| too_large())?;

        put32(&mut out, LOCAL_HEADER);
        put16(&mut out, VERSION_NEEDED);
        put16(&mut out, UTF8_NAMES);
        put16(&mut out, 0); // stored
        put16(&mut out, DOS_TIME);
        put16(&mut out, DOS_DATE);
        put32(&mut out, crc);
        put32(&mut out, size);
        put32(&mut out, size);
        put16(&mut out, name_len);
        put16(&mut out, 0); // no extra field
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);

        put32(&mut central, CENTRAL_HEADER);
        put16(&mut central, VERSION_MADE_BY);
        put16(&mut central, VERSION_NEEDED);
        put16(&mut central, UTF8_NAMES);
        put16(&mut central, 0);
        put16(&mut central, DOS_TIME);
        put16(&mut central, DOS_DATE);
        put32(&mut central, crc);
        put32(&mut central, size);
        put32(&mut central, size);
        put16(&mut central, name_len);
        put16(&mut central, 0); // extra
        put16(&mut central, 0); // comment
        put16(&mut central, 0); // disk
        put16(&mut central, 0); // internal attributes
        put32(&mut central, (0o100_000 | FILE_MODE) << 16);
        put32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = u32_of(out.len())?;
    let central_size = u32_of(central.len())?;
    let count = u16::try_from(entries.len()).map_err(|_| too_large())?;
    out.extend_from_slice(&central);
    put32(&mut out, END_OF_CENTRAL_DIRECTORY);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, count);
    put16(&mut out, count);
    put32(&mut out, central_size);
    put32(&mut out, central_offset);
    put16(&mut out, 0); // comment
    Ok(out)
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_zip_has_the_documented_layout() {
        let entries = vec![
            ("a.txt".to_owned(), b"hello".to_vec()),
            ("dir/b.txt".to_owned(), Vec::new()),
        ];
        let zip = stored_zip(&entries).unwrap();
        assert_eq!(&zip[..4], &LOCAL_HEADER.to_le_bytes());
        assert_eq!(&zip[14..18], &crc32fast::hash(b"hello").to_le_bytes());
        let end = zip.len() - 22;
        assert_eq!(&zip[end..end + 4], &END_OF_CENTRAL_DIRECTORY.to_le_bytes());
        assert_eq!(u16::from_le_bytes([zip[end + 10], zip[end + 11]]), 2);
        assert_eq!(stored_zip(&entries).unwrap(), zip);
    }
}
