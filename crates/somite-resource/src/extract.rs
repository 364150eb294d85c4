//! Safe extraction of a resource archive (`.tar.gz`) into an empty folder.
//!
//! Entries are written here, never by `tar`'s `unpack`, so each rule is
//! visible: every path is relative UTF-8 without `..`; only folders and
//! regular files are accepted — a resource database has no reason to hold
//! links, devices or FIFOs, so one is refused outright; a path listed twice
//! is refused; the decompressed stream and the entry count are capped, so a
//! decompression bomb stops early. Files are written `0644` without owners
//! or times. A failure leaves a half-written folder the caller removes.

use crate::error::ResourceError;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Component, Path, PathBuf};
use tar::EntryType;

/// Bounds of one extraction.
#[derive(Debug, Clone, Copy)]
pub struct ExtractLimits {
    pub max_unpacked_bytes: u64,
    pub max_entries: u64,
}

/// Extracts the gzip tarball read from `archive` into `dest` (existing, empty).
pub fn extract(
    archive: impl Read,
    dest: &Path,
    limits: ExtractLimits,
) -> Result<(), ResourceError> {
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let mut seen = std::collections::BTreeSet::new();
    let mut unpacked = 0u64;
    let entries = tar
        .entries()
        .map_err(|e| ResourceError::io("reading the archive", e))?;
    for (index, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| ResourceError::io("reading the archive", e))?;
        if index as u64 >= limits.max_entries {
            return Err(unsafe_entry(
                "",
                "the archive has more entries than Somite accepts",
            ));
        }
        let raw = entry.path_bytes().into_owned();
        let name = String::from_utf8(raw)
            .map_err(|_| unsafe_entry("<non-UTF-8>", "the path is not UTF-8"))?;
        let relative = confined(&name)?;
        let kind = entry.header().entry_type();
        match kind {
            EntryType::Directory => {
                if relative.as_os_str().is_empty() {
                    continue;
                }
                if !seen.insert(relative.clone()) {
                    return Err(unsafe_entry(&name, "the path is listed twice"));
                }
                std::fs::create_dir_all(dest.join(&relative))
                    .map_err(|e| ResourceError::io(format!("creating {name}"), e))?;
            }
            EntryType::Regular | EntryType::Continuous => {
                if relative.as_os_str().is_empty() || !seen.insert(relative.clone()) {
                    return Err(unsafe_entry(&name, "the path is empty or listed twice"));
                }
                let size = entry.header().size().unwrap_or(u64::MAX);
                unpacked = unpacked.saturating_add(size);
                if unpacked > limits.max_unpacked_bytes {
                    return Err(unsafe_entry(
                        &name,
                        "the archive unpacks to more than the provider's stored size allows",
                    ));
                }
                let target = dest.join(&relative);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| ResourceError::io(format!("creating {name}"), e))?;
                }
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .open(&target)
                    .map_err(|e| ResourceError::io(format!("writing {name}"), e))?;
                let copied = std::io::copy(&mut (&mut entry).take(size), &mut file)
                    .map_err(|e| ResourceError::io(format!("writing {name}"), e))?;
                if copied != size {
                    return Err(ResourceError::io(
                        format!("writing {name}"),
                        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
                    ));
                }
                file.sync_all()
                    .map_err(|e| ResourceError::io(format!("writing {name}"), e))?;
            }
            // Metadata records of pax and GNU tar carry no file.
            EntryType::XGlobalHeader | EntryType::XHeader => {}
            other => {
                return Err(unsafe_entry(
                    &name,
                    &format!("{other:?} entries (links, devices, FIFOs) are refused"),
                ));
            }
        }
    }
    Ok(())
}

/// The folder holding the resource inside an extraction: `dest` itself, or
/// its only entry when that is a folder (archives often wrap their files).
pub fn content_root(dest: &Path) -> Result<PathBuf, ResourceError> {
    let entries: Vec<_> = std::fs::read_dir(dest)
        .map_err(|e| ResourceError::io(format!("reading {}", dest.display()), e))?
        .filter_map(Result::ok)
        .collect();
    match entries.as_slice() {
        [only] if only.file_type().is_ok_and(|t| t.is_dir()) => Ok(only.path()),
        _ => Ok(dest.to_owned()),
    }
}

fn confined(name: &str) -> Result<PathBuf, ResourceError> {
    let mut relative = PathBuf::new();
    for component in Path::new(name).components() {
        match component {
            Component::Normal(part) => relative.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(unsafe_entry(name, "the path leaves the tree"));
            }
        }
    }
    Ok(relative)
}

fn unsafe_entry(entry: &str, detail: &str) -> ResourceError {
    ResourceError::UnsafeArchive {
        entry: entry.to_owned(),
        detail: detail.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        build(&mut builder);
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        gz.finish().unwrap()
    }

    fn file(builder: &mut tar::Builder<Vec<u8>>, path: &str, bytes: &[u8]) {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(EntryType::Regular);
        // `append_data` refuses `..`; write the name raw, as a hostile archive would.
        let name = &mut header.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_cksum();
        builder.append(&header, bytes).unwrap();
    }

    const LIMITS: ExtractLimits = ExtractLimits {
        max_unpacked_bytes: 1 << 20,
        max_entries: 100,
    };

    #[test]
    fn a_wrapped_database_extracts_and_its_root_is_found() {
        let bytes = archive(|b| {
            file(b, "db/hash.k2d", b"h");
            file(b, "db/opts.k2d", b"o");
        });
        let dest = tempfile::tempdir().unwrap();
        extract(bytes.as_slice(), dest.path(), LIMITS).unwrap();
        assert_eq!(content_root(dest.path()).unwrap(), dest.path().join("db"));
        assert_eq!(
            std::fs::read(dest.path().join("db/hash.k2d")).unwrap(),
            b"h"
        );
    }

    #[test]
    fn escaping_paths_links_and_bombs_are_refused() {
        let dest = tempfile::tempdir().unwrap();
        let escaping = archive(|b| file(b, "../evil", b"x"));
        let err = extract(escaping.as_slice(), dest.path(), LIMITS).unwrap_err();
        assert!(matches!(err, ResourceError::UnsafeArchive { .. }), "{err}");
        assert!(!dest.path().parent().unwrap().join("evil").exists());

        let link = archive(|b| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(EntryType::Symlink);
            header.set_size(0);
            b.append_link(&mut header, "hash.k2d", "/etc/passwd")
                .unwrap();
        });
        let dest = tempfile::tempdir().unwrap();
        let err = extract(link.as_slice(), dest.path(), LIMITS).unwrap_err();
        assert!(matches!(err, ResourceError::UnsafeArchive { .. }), "{err}");

        let big = archive(|b| file(b, "hash.k2d", &[0; 2048]));
        let dest = tempfile::tempdir().unwrap();
        let small = ExtractLimits {
            max_unpacked_bytes: 1024,
            max_entries: 100,
        };
        let err = extract(big.as_slice(), dest.path(), small).unwrap_err();
        assert!(matches!(err, ResourceError::UnsafeArchive { .. }), "{err}");
    }
}
