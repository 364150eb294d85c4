//! The package manifest: every file's path, mode, size and BLAKE3 digest.
//!
//! The package digest is the revision of this manifest, so it names the
//! exact bytes and modes of every file and nothing else: two packages with
//! the same digest are interchangeable, and a verifier that holds the
//! manifest can check a copy file by file without trusting the copy.

use crate::canonical::{Revision, digest_bytes, revision_of};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageManifest {
    /// Every file, sorted by path.
    pub files: Vec<ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// Relative, `/`-separated, without `.` or `..` segments.
    pub path: String,
    /// Unix permission bits.
    pub mode: u32,
    pub size: u64,
    pub blake3: Revision,
}

impl PackageManifest {
    /// The manifest of `(path, mode, bytes)` files.
    pub fn of<'a>(files: impl IntoIterator<Item = (&'a str, u32, &'a [u8])>) -> PackageManifest {
        let mut files: Vec<ManifestEntry> = files
            .into_iter()
            .map(|(path, mode, bytes)| ManifestEntry {
                path: path.to_owned(),
                mode,
                size: bytes.len() as u64,
                blake3: digest_bytes(bytes),
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        PackageManifest { files }
    }

    /// The package digest: the revision of the canonical manifest.
    pub fn digest(&self) -> Revision {
        revision_of(self)
    }

    pub fn entry(&self, path: &str) -> Option<&ManifestEntry> {
        self.files
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }

    /// The sum of all file sizes.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|e| e.size).sum()
    }
}
