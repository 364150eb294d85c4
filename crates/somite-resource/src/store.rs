//! The user-owned store of installed resources, and the machine's room.
//!
//! Layout under the store folder (platform data folder, or
//! `SOMITE_RESOURCE_DIR`):
//!
//! ```text
//! <provider>/<release>/                 a published tree (read-only by convention)
//! <provider>/<release>/.somite-resource.json   its record (identity, checksum, tree digest)
//! <provider>/.<release>.partial/        an extraction in progress
//! .downloads/<provider>@<release>.part  a download in progress (resumed with Range)
//! .downloads/<provider>@<release>.job.json     an accepted install, resumed after a restart
//! ```
//!
//! A tree is published by renaming its `.partial` folder, record inside, to
//! its final name: a reader sees the whole resource or none of it. The store
//! is never under `.pixi` (environments are disposable) nor `/tmp` (cleared
//! at boot): its default is the user's data folder.

use crate::error::ResourceError;
use crate::model::{Checksum, InstalledResource, Reference};
use crate::provider::Profile;
use serde::{Deserialize, Serialize};
use somite_api::EnvVars;
use somite_workflow::resource::{
    ResolvedResource, ResourceFinding, ResourceResolver, Verification,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record file inside a published tree; not part of its digest.
pub const RECORD_FILE: &str = ".somite-resource.json";

/// The record kept inside a published tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub provider_id: String,
    pub release: String,
    pub profile: String,
    pub checksum: Checksum,
    pub tree_digest: String,
    pub stored_bytes: u64,
    pub installed_at: String,
    /// Every file's size by relative path: what a listing checks instead
    /// of re-hashing gigabytes (records written before it have none and
    /// are checked by their total size).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, u64>,
}

/// The store folder Somite uses when `SOMITE_RESOURCE_DIR` is unset.
pub fn default_store_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = env(EnvVars::SOMITE_RESOURCE_DIR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let home = env(EnvVars::HOME).filter(|h| h.starts_with('/'))?;
    if cfg!(target_os = "macos") {
        return Some(PathBuf::from(home).join("Library/Application Support/Somite/resources"));
    }
    let data = env(EnvVars::XDG_DATA_HOME)
        .filter(|d| d.starts_with('/'))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(home).join(".local/share"));
    Some(data.join("somite/resources"))
}

/// The store.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    pub fn new(root: PathBuf) -> Store {
        Store { root }
    }

    /// The store the environment names (`SOMITE_RESOURCE_DIR`, else the
    /// platform data folder), for the verbs that only resolve references.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Option<Store> {
        default_store_dir(env).map(Store::new)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn tree(&self, provider: &str, release: &str) -> PathBuf {
        self.root.join(provider).join(release)
    }

    pub fn partial_tree(&self, provider: &str, release: &str) -> PathBuf {
        self.root.join(provider).join(format!(".{release}.partial"))
    }

    pub fn downloads(&self) -> PathBuf {
        self.root.join(".downloads")
    }

    pub fn download_part(&self, provider: &str, release: &str) -> PathBuf {
        self.downloads().join(format!("{provider}@{release}.part"))
    }

    pub fn job_record(&self, provider: &str, release: &str) -> PathBuf {
        self.downloads()
            .join(format!("{provider}@{release}.job.json"))
    }

    /// Bytes of a kept partial download.
    pub fn partial_bytes(&self, provider: &str, release: &str) -> u64 {
        std::fs::metadata(self.download_part(provider, release)).map_or(0, |m| m.len())
    }

    /// The installed resource, its files checked against the record by
    /// size (cheap: nothing is read), as listings and inspect show it.
    pub fn installed(&self, provider: &str, release: &str) -> Option<InstalledResource> {
        self.installed_with(provider, release, Verification::Sizes)
    }

    /// The installed resource, checked as `verification` says.
    pub fn installed_with(
        &self,
        provider: &str,
        release: &str,
        verification: Verification,
    ) -> Option<InstalledResource> {
        let tree = self.tree(provider, release);
        let bytes = std::fs::read(tree.join(RECORD_FILE)).ok()?;
        let record: Record = serde_json::from_slice(&bytes).ok()?;
        if record.provider_id != provider || record.release != release {
            return None;
        }
        let verified = match verification {
            Verification::Sizes => sizes_match(&tree, &record),
            Verification::Digest => {
                tree_digest(&tree).is_ok_and(|(digest, _)| digest == record.tree_digest)
            }
        };
        Some(InstalledResource {
            reference: Reference::render(provider, release),
            path: tree.display().to_string(),
            provider_id: record.provider_id,
            release: record.release,
            profile: record.profile,
            checksum: record.checksum,
            tree_digest: record.tree_digest,
            stored_bytes: record.stored_bytes,
            installed_at: record.installed_at,
            verified,
        })
    }

    /// Every installed resource, by provider then release.
    pub fn list_installed(&self) -> Vec<InstalledResource> {
        let mut found = Vec::new();
        let Ok(providers) = std::fs::read_dir(&self.root) else {
            return found;
        };
        let mut names: Vec<String> = providers
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| crate::provider::valid_id(n))
            .collect();
        names.sort();
        for provider in names {
            let Ok(releases) = std::fs::read_dir(self.root.join(&provider)) else {
                continue;
            };
            let mut releases: Vec<String> = releases
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| crate::provider::valid_release(n))
                .collect();
            releases.sort();
            found.extend(
                releases
                    .iter()
                    .filter_map(|release| self.installed(&provider, release)),
            );
        }
        found
    }

    /// Resolves a `somite-resource:` reference to its tree, every byte
    /// re-hashed against the digest recorded at install.
    pub fn resolve(&self, reference: &str) -> Result<InstalledResource, ResourceError> {
        self.resolve_with(reference, Verification::Digest)
    }

    /// Resolves a reference, checking the tree as `verification` says.
    pub fn resolve_with(
        &self,
        reference: &str,
        verification: Verification,
    ) -> Result<InstalledResource, ResourceError> {
        let invalid = |detail: &str| ResourceError::Reference {
            reference: reference.to_owned(),
            detail: detail.to_owned(),
        };
        let parsed = Reference::parse(reference)
            .ok_or_else(|| invalid("expected somite-resource:<provider>@<release>"))?;
        let installed = self
            .installed_with(&parsed.provider_id, &parsed.release, verification)
            .ok_or_else(|| invalid("it is not in the store"))?;
        if !installed.verified {
            return Err(invalid(TAMPERED));
        }
        Ok(installed)
    }
}

/// Why a resolved tree is refused when its files changed.
const TAMPERED: &str = "its files no longer match the record made when it was installed";

/// The store answers the domain's questions about references: readiness
/// asks with [`Verification::Sizes`], a compile with [`Verification::Digest`].
impl ResourceResolver for Store {
    fn resolve(&self, reference: &str, verification: Verification) -> ResourceFinding {
        match self.resolve_with(reference, verification) {
            Ok(installed) => ResourceFinding::Verified(ResolvedResource {
                reference: installed.reference,
                provider_id: installed.provider_id,
                release: installed.release,
                profile: installed.profile,
                path: installed.path,
                checksum: format!(
                    "{}:{}",
                    installed.checksum.algorithm.as_str(),
                    installed.checksum.value
                ),
                tree_digest: installed.tree_digest,
            }),
            Err(error) => {
                let tampered = matches!(
                    &error,
                    ResourceError::Reference { detail, .. } if detail == TAMPERED
                );
                let envelope = somite_api::Error::from(error);
                let (code, detail) = (envelope.code.as_str().to_owned(), envelope.message);
                if tampered {
                    ResourceFinding::Tampered { code, detail }
                } else {
                    ResourceFinding::Missing { code, detail }
                }
            }
        }
    }
}

/// Whether every file of the record is there with its recorded size and
/// nothing else is (or, for a record without sizes, the total matches).
fn sizes_match(tree: &Path, record: &Record) -> bool {
    let Ok(found) = tree_sizes(tree) else {
        return false;
    };
    if record.files.is_empty() {
        found.values().sum::<u64>() == record.stored_bytes
    } else {
        found == record.files
    }
}

/// Every regular file's size under `root` (the record file excluded).
pub fn tree_sizes(root: &Path) -> Result<BTreeMap<String, u64>, ResourceError> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files
        .into_iter()
        .map(|relative| {
            let path = root.join(&relative);
            std::fs::symlink_metadata(&path)
                .map(|m| (relative, m.len()))
                .map_err(|e| ResourceError::io(format!("reading {}", path.display()), e))
        })
        .collect()
}

/// The files of `profile` that `dir` lacks (empty: the structure is right).
pub fn missing_files(dir: &Path, profile: &Profile) -> Vec<String> {
    profile
        .required_files
        .iter()
        .filter(|name| {
            !std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.file_type().is_file())
        })
        .map(|name| (*name).to_owned())
        .collect()
}

/// Checks `dir` holds the profile's files.
pub fn check_structure(dir: &Path, profile: &Profile) -> Result<(), ResourceError> {
    let missing = missing_files(dir, profile);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ResourceError::Structure {
            detail: format!(
                "{} is not a {} (missing {})",
                dir.display(),
                profile.name,
                missing.join(", ")
            ),
            missing,
        })
    }
}

/// `blake3:<hex>` over the tree's regular files (relative path, size and
/// content digest, in path order; the record file excluded), and the bytes.
pub fn tree_digest(root: &Path) -> Result<(String, u64), ResourceError> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let mut hasher = blake3::Hasher::new();
    let mut total = 0u64;
    for relative in files {
        let path = root.join(&relative);
        let mut file_hasher = blake3::Hasher::new();
        let mut file = std::fs::File::open(&path)
            .map_err(|e| ResourceError::io(format!("reading {}", path.display()), e))?;
        let size = std::io::copy(&mut file, &mut file_hasher)
            .map_err(|e| ResourceError::io(format!("reading {}", path.display()), e))?;
        total += size;
        hasher.update(relative.as_bytes());
        hasher.update(b"\0");
        hasher.update(size.to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(file_hasher.finalize().to_hex().as_bytes());
        hasher.update(b"\n");
    }
    Ok((format!("blake3:{}", hasher.finalize().to_hex()), total))
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) -> Result<(), ResourceError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| ResourceError::io(format!("reading {}", dir.display()), e))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| ResourceError::io(format!("reading {}", dir.display()), e))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| ResourceError::io(format!("reading {}", path.display()), e))?;
        if kind.is_dir() {
            collect(root, &path, files)?;
        } else if kind.is_file() {
            let relative = path
                .strip_prefix(root)
                .expect("entries lie under the root")
                .to_string_lossy()
                .into_owned();
            if relative != RECORD_FILE {
                files.push(relative);
            }
        }
    }
    Ok(())
}

/// Free bytes for an unprivileged user on the file system holding `dir`
/// (its nearest existing ancestor), capped by `SOMITE_RESOURCE_FREE_DISK_LIMIT`.
pub fn free_disk_bytes(dir: &Path, limit: Option<u64>) -> Option<u64> {
    let mut probe = dir;
    while !probe.exists() {
        probe = probe.parent()?;
    }
    let stats = rustix::fs::statvfs(probe).ok()?;
    let free = stats.f_bavail.saturating_mul(stats.f_frsize);
    Some(limit.map_or(free, |limit| free.min(limit)))
}

/// This machine's total memory (Linux `/proc/meminfo`), or `None`.
pub fn memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Flushes a folder's entries (a rename or a removal in it) to disk.
pub fn sync_dir(dir: &Path) -> Result<(), ResourceError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| ResourceError::io(format!("syncing {}", dir.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_store_is_the_user_data_folder_and_the_override_wins() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let home = default_store_dir(env(&[("HOME", "/home/u")])).unwrap();
        if !cfg!(target_os = "macos") {
            assert_eq!(home, PathBuf::from("/home/u/.local/share/somite/resources"));
            let xdg = default_store_dir(env(&[("HOME", "/home/u"), ("XDG_DATA_HOME", "/d")]));
            assert_eq!(xdg.unwrap(), PathBuf::from("/d/somite/resources"));
        }
        let over = default_store_dir(env(&[("HOME", "/home/u"), ("SOMITE_RESOURCE_DIR", "/s")]));
        assert_eq!(over.unwrap(), PathBuf::from("/s"));
        assert_eq!(default_store_dir(env(&[])), None);
    }

    #[test]
    fn the_free_disk_limit_caps_what_the_disk_reports() {
        let dir = std::env::temp_dir();
        let free = free_disk_bytes(&dir, None).unwrap();
        assert_eq!(free_disk_bytes(&dir, Some(10)), Some(free.min(10)));
        assert!(free_disk_bytes(&dir.join("not/yet/there"), None).is_some());
    }
}
