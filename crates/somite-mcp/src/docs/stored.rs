//! The built manual kept in the documentation cache, so a process opens it
//! instead of building it.
//!
//! Normalising a manual's pages and indexing them cost 100–170 ms, nearly
//! all of a `somite docs search` process; opening what an earlier process
//! built costs a few milliseconds. `search-index.bin`, beside the manual's
//! `catalog.json`, holds the normalised pages and the index's files in one
//! file: an 8-byte magic, a little-endian `u32` header length, the JSON
//! header (format, key, each page's path, title, headings and Markdown
//! length, each index file's name and length), the pages' Markdown and the
//! index files back to back, and a BLAKE3 checksum of everything before it.
//!
//! The file is trusted only when all of it checks: the checksum (tantivy may
//! panic on a damaged segment rather than fail), the format, and the key —
//! a digest of the manual's pages as imported ([`super::cache::digest`]),
//! the manual's identity, tantivy's version and index format, and the
//! source of the code that normalises and indexes, so a manual re-imported
//! or a Somite whose normaliser changed never reads an index built from
//! something else. Anything else is rebuilt and the file replaced, durably
//! (temporary file, fsync, rename, directory fsync).

use super::ManualSpec;
use super::cache::{CacheError, write_atomically};
use super::catalog::{Catalog, Page};
use super::index::DocsIndex;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the manual's cache directory.
pub const FILE: &str = "search-index.bin";
const MAGIC: &[u8; 8] = b"SMDOCIX\n";
/// Bumped when the layout of the file changes.
const FORMAT: u32 = 1;
const CHECKSUM_BYTES: usize = 32;

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    key: String,
    pages: Vec<StoredPage>,
    files: Vec<StoredFile>,
}

#[derive(Serialize, Deserialize)]
struct StoredPage {
    path: String,
    title: String,
    headings: Vec<String>,
    bytes: usize,
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    name: String,
    bytes: usize,
}

/// What the stored file must have been built from: the manual `spec` whose
/// imported pages have `digest`, by this build's normaliser and index.
pub fn key(spec: &ManualSpec, digest: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in [
        &FORMAT.to_le_bytes()[..],
        spec.repository.as_bytes(),
        spec.tag.as_bytes(),
        spec.folder.as_bytes(),
        digest.as_bytes(),
        tantivy::version_string().as_bytes(),
        include_str!("normalize.rs").as_bytes(),
        include_str!("catalog.rs").as_bytes(),
        include_str!("index.rs").as_bytes(),
    ] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    format!("blake3:{}", hasher.finalize().to_hex())
}

/// The manual stored at `path` under `key`; `Ok(None)` when there is no
/// file, `Err` with the reason it cannot be trusted.
pub fn load(
    path: &Path,
    spec: &'static ManualSpec,
    key: &str,
) -> Result<Option<(Catalog, DocsIndex)>, String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("cannot read it: {error}")),
    };
    decode(&bytes, spec, key).map(Some)
}

fn decode(
    bytes: &[u8],
    spec: &'static ManualSpec,
    key: &str,
) -> Result<(Catalog, DocsIndex), String> {
    let damaged = |what: &str| format!("it is damaged ({what})");
    let body_end = bytes
        .len()
        .checked_sub(CHECKSUM_BYTES)
        .filter(|&end| end >= MAGIC.len() + 4)
        .ok_or_else(|| damaged("too short"))?;
    if blake3::hash(&bytes[..body_end]).as_bytes()[..] != bytes[body_end..] {
        return Err(damaged("checksum"));
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(damaged("not a search index"));
    }
    let mut cursor = MAGIC.len();
    let header_len = u32::from_le_bytes(
        bytes[cursor..cursor + 4]
            .try_into()
            .map_err(|_| damaged("header length"))?,
    ) as usize;
    cursor += 4;
    let header_bytes =
        take(bytes, &mut cursor, header_len, body_end).ok_or_else(|| damaged("header"))?;
    let header: Header =
        serde_json::from_slice(header_bytes).map_err(|error| damaged(&error.to_string()))?;
    if header.format != FORMAT || header.key != key {
        return Err("it was built from another manual, format or Somite".into());
    }
    let mut pages = Vec::with_capacity(header.pages.len());
    for page in header.pages {
        let markdown = take(bytes, &mut cursor, page.bytes, body_end)
            .and_then(|text| std::str::from_utf8(text).ok())
            .ok_or_else(|| damaged("page text"))?;
        pages.push(Page {
            path: page.path,
            title: page.title,
            markdown: markdown.to_owned(),
            headings: page.headings,
        });
    }
    let mut files = Vec::with_capacity(header.files.len());
    for file in header.files {
        let content =
            take(bytes, &mut cursor, file.bytes, body_end).ok_or_else(|| damaged("index file"))?;
        files.push((file.name, content.to_vec()));
    }
    if cursor != body_end {
        return Err(damaged("trailing bytes"));
    }
    let catalog = Catalog::from_pages(spec, pages);
    let index = DocsIndex::from_files(&catalog, files).map_err(|error| error.to_string())?;
    Ok((catalog, index))
}

/// The `length` bytes at `cursor`, if they end by `end`; advances `cursor`.
fn take<'a>(bytes: &'a [u8], cursor: &mut usize, length: usize, end: usize) -> Option<&'a [u8]> {
    let stop = cursor.checked_add(length).filter(|&stop| stop <= end)?;
    let slice = &bytes[*cursor..stop];
    *cursor = stop;
    Some(slice)
}

/// Stores `catalog` and its `index` at `path` under `key`, durably.
pub fn save(
    path: &Path,
    key: &str,
    catalog: &Catalog,
    index: &DocsIndex,
) -> Result<(), CacheError> {
    let files = index.files().map_err(|error| CacheError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(error.to_string()),
    })?;
    let header = Header {
        format: FORMAT,
        key: key.to_owned(),
        pages: catalog
            .pages()
            .iter()
            .map(|page| StoredPage {
                path: page.path.clone(),
                title: page.title.clone(),
                headings: page.headings.clone(),
                bytes: page.markdown.len(),
            })
            .collect(),
        files: files
            .iter()
            .map(|(name, bytes)| StoredFile {
                name: name.clone(),
                bytes: bytes.len(),
            })
            .collect(),
    };
    let header = serde_json::to_vec(&header).map_err(|error| CacheError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(error),
    })?;
    let header_len = u32::try_from(header.len()).map_err(|_| CacheError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other("the header exceeds 4 GiB"),
    })?;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&header);
    for page in catalog.pages() {
        out.extend_from_slice(page.markdown.as_bytes());
    }
    for (_, bytes) in &files {
        out.extend_from_slice(bytes);
    }
    let checksum = blake3::hash(&out);
    out.extend_from_slice(checksum.as_bytes());
    write_atomically(path, &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::{DocsCache, Manual, PIXI_MANUAL};

    const QUERIES: [&str; 4] = ["lock file", "task dependencies", "depends", "zebra"];

    fn source() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(docs.join("workspace")).expect("mkdir");
        std::fs::write(docs.join("index.md"), "# Pixi\n\nA package manager.\n").expect("write");
        std::fs::write(
            docs.join("workspace/lock_file.md"),
            "# Lock file\n\nA lock file records exact versions.\n\n## Updating\n\nRun the update.\n",
        )
        .expect("write");
        std::fs::write(
            docs.join("workspace/advanced_tasks.md"),
            "# Tasks\n\n## Depends on\n\nTasks can depend on other tasks.\n",
        )
        .expect("write");
        dir
    }

    type Shown = Vec<(String, String, String, Vec<String>)>;

    fn pages(manual: &Manual) -> Shown {
        manual
            .catalog()
            .pages()
            .iter()
            .map(|p| {
                (
                    p.path.clone(),
                    p.title.clone(),
                    p.markdown.clone(),
                    p.headings.clone(),
                )
            })
            .collect()
    }

    fn results(manual: &Manual) -> Vec<Vec<crate::docs::SearchHit>> {
        QUERIES
            .iter()
            .map(|query| {
                manual
                    .index()
                    .expect("index")
                    .search(query, 8)
                    .expect("search")
            })
            .collect()
    }

    /// What a load without any stored index shows: the ground truth.
    fn uncached(cache: &DocsCache) -> Manual {
        let raw = cache.load(&PIXI_MANUAL).expect("load").expect("imported");
        Manual::from_catalog(Catalog::build(&PIXI_MANUAL, raw))
    }

    fn stored_file(cache: &DocsCache) -> std::path::PathBuf {
        cache.manual_dir(&PIXI_MANUAL).join(FILE)
    }

    #[test]
    fn a_later_load_opens_the_stored_manual_and_answers_as_a_fresh_build() {
        let source = source();
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        let first = Manual::load(&PIXI_MANUAL, &cache, Some(source.path())).expect("load");
        assert!(!first.from_store());
        assert!(
            !stored_file(&cache).exists(),
            "stored only once an index is built"
        );
        let built = results(&first);
        assert!(stored_file(&cache).is_file());

        let second = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
        assert!(second.from_store());
        let truth = uncached(&cache);
        assert_eq!(pages(&second), pages(&truth));
        assert_eq!(results(&second), results(&truth));
        assert_eq!(results(&second), built);
        assert_eq!(results(&second)[0][0].path, "workspace/lock_file.md");
    }

    #[test]
    fn a_reimported_manual_is_rebuilt_not_read_from_the_old_index() {
        let source = source();
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        results(&Manual::load(&PIXI_MANUAL, &cache, Some(source.path())).expect("load"));
        assert!(
            Manual::load(&PIXI_MANUAL, &cache, None)
                .expect("load")
                .from_store()
        );

        std::fs::write(source.path().join("docs/zebra.md"), "# Zebra\n\nStripes.\n")
            .expect("write");
        cache.import(&PIXI_MANUAL, source.path()).expect("reimport");
        let reloaded = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
        assert!(
            !reloaded.from_store(),
            "the stored index was keyed by the old pages"
        );
        assert_eq!(results(&reloaded)[3][0].path, "zebra.md");
        assert_eq!(results(&reloaded), results(&uncached(&cache)));
        let again = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
        assert!(
            again.from_store(),
            "the rebuilt index replaced the stale one"
        );
        assert_eq!(results(&again), results(&uncached(&cache)));
    }

    #[test]
    fn a_damaged_or_foreign_stored_index_is_rebuilt() {
        let source = source();
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        results(&Manual::load(&PIXI_MANUAL, &cache, Some(source.path())).expect("load"));
        let path = stored_file(&cache);
        let good = std::fs::read(&path).expect("stored");

        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x5a;
        let truncated = good[..good.len() - 7].to_vec();
        let truth = uncached(&cache);
        let foreign = {
            let other = tempfile::tempdir().expect("tempdir");
            let file = other.path().join(FILE);
            save(
                &file,
                "blake3:another",
                truth.catalog(),
                truth.index().expect("index"),
            )
            .expect("save");
            std::fs::read(file).expect("read")
        };
        for (what, bytes) in [
            ("a flipped byte", flipped),
            ("a truncated file", truncated),
            ("another key", foreign),
            ("an empty file", Vec::new()),
        ] {
            std::fs::write(&path, &bytes).expect("damage");
            let manual = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
            assert!(!manual.from_store(), "{what} was trusted");
            assert_eq!(pages(&manual), pages(&truth), "{what}");
            assert_eq!(results(&manual), results(&truth), "{what}");
            assert!(
                Manual::load(&PIXI_MANUAL, &cache, None)
                    .expect("load")
                    .from_store(),
                "{what} was not replaced by a sound index"
            );
        }
    }

    #[test]
    fn an_import_without_a_recorded_digest_is_still_loaded() {
        let source = source();
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        cache.import(&PIXI_MANUAL, source.path()).expect("import");
        // An import made before the digest was recorded.
        let record = cache.manual_dir(&PIXI_MANUAL).join("catalog.json");
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&record).expect("read")).expect("json");
        json.as_object_mut()
            .expect("object")
            .remove("digest")
            .expect("a digest");
        std::fs::write(&record, json.to_string()).expect("write");
        let manual = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
        results(&manual);
        let again = Manual::load(&PIXI_MANUAL, &cache, None).expect("load");
        assert!(
            !again.from_store(),
            "no recorded digest, nothing to key a lookup by"
        );
        assert_eq!(results(&again), results(&uncached(&cache)));
    }
}
