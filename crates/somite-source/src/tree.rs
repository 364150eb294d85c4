//! The tree digest: one BLAKE3 over the sorted inventory of a source tree.
//!
//! The inventory lists every entry under the root, sorted by its
//! `/`-separated relative path (bytes), as `kind NUL path NUL payload LF`
//! after the header line `somite-source-tree/1`:
//!
//! | kind | payload |
//! |---|---|
//! | `dir` | empty |
//! | `file` | BLAKE3 hex of the content (no execute bit) |
//! | `exec` | BLAKE3 hex of the content (any execute bit) |
//! | `link` | the symbolic link's target, verbatim |
//!
//! Git records only "executable or not" for a file, so that is all the
//! mode contributes; anything else on disk (a FIFO, a device, a socket, a
//! name that is not UTF-8, a link whose target would leave the tree) is not
//! a source tree at all. The same walk digests a freshly extracted tree and
//! re-checks a stored one, so the two can only disagree when the disk did.

use crate::ids::TreeDigest;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

const HEADER: &[u8] = b"somite-source-tree/1\n";

/// What a walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeSummary {
    pub digest: TreeDigest,
    /// Regular files (executable or not).
    pub files: u64,
    /// Their total size.
    pub bytes: u64,
}

#[derive(Debug)]
pub(crate) enum TreeError {
    Io(PathBuf, std::io::Error),
    /// An entry no source tree may hold.
    Unexpected(String),
}

/// Digests the tree under `root` (see the module documentation).
pub(crate) fn digest_tree(root: &Path) -> Result<TreeSummary, TreeError> {
    let mut entries: Vec<(String, &'static str, String)> = Vec::new();
    let mut summary = (0u64, 0u64);
    walk(root, "", &mut entries, &mut summary)?;
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut hasher = blake3::Hasher::new();
    hasher.update(HEADER);
    for (path, kind, payload) in &entries {
        for part in [
            kind.as_bytes(),
            b"\0",
            path.as_bytes(),
            b"\0",
            payload.as_bytes(),
            b"\n",
        ] {
            hasher.update(part);
        }
    }
    Ok(TreeSummary {
        digest: TreeDigest::from_hash(hasher.finalize()),
        files: summary.0,
        bytes: summary.1,
    })
}

fn walk(
    dir: &Path,
    prefix: &str,
    entries: &mut Vec<(String, &'static str, String)>,
    summary: &mut (u64, u64),
) -> Result<(), TreeError> {
    let io = |path: &Path, e| TreeError::Io(path.to_owned(), e);
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_str().ok_or_else(|| {
            TreeError::Unexpected(format!("{}: a name that is not UTF-8", path.display()))
        })?;
        let relative = if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}/{name}")
        };
        // Never follows a link: the entry itself is what is recorded.
        let meta = fs::symlink_metadata(&path).map_err(|e| io(&path, e))?;
        let kind = meta.file_type();
        if kind.is_dir() {
            walk(&path, &relative, entries, summary)?;
            entries.push((relative, "dir", String::new()));
        } else if kind.is_file() {
            let mut hasher = blake3::Hasher::new();
            let file = fs::File::open(&path).map_err(|e| io(&path, e))?;
            hasher.update_reader(file).map_err(|e| io(&path, e))?;
            let exec = meta.permissions().mode() & 0o111 != 0;
            summary.0 += 1;
            summary.1 += meta.len();
            entries.push((
                relative,
                if exec { "exec" } else { "file" },
                hasher.finalize().to_hex().to_string(),
            ));
        } else if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(|e| io(&path, e))?;
            let target = target
                .to_str()
                .ok_or_else(|| {
                    TreeError::Unexpected(format!("{relative}: a link target that is not UTF-8"))
                })?
                .to_owned();
            if !link_stays_inside(&relative, &target) {
                return Err(TreeError::Unexpected(format!(
                    "{relative}: a link to `{target}` leaves the tree"
                )));
            }
            entries.push((relative, "link", target));
        } else {
            return Err(TreeError::Unexpected(format!(
                "{relative}: not a file, folder or link"
            )));
        }
    }
    Ok(())
}

/// Whether a symbolic link at `link` (a relative `/`-separated path inside
/// the tree whose folders are real folders) pointing at `target` resolves
/// inside the tree.
///
/// Only targets of the form `../../name/name` are accepted: a relative
/// path whose `..` steps all come first and do not climb above the root.
/// `..` after a name is refused because the name may itself be a link, and
/// lexical `a/..` is then not where the system would go; with `..` only
/// first, every step after them descends, so even through other accepted
/// links the walk stays inside.
pub(crate) fn link_stays_inside(link: &str, target: &str) -> bool {
    if target.is_empty() || target.starts_with('/') || target.contains('\0') {
        return false;
    }
    let depth = link.split('/').count() - 1;
    let mut ups = 0;
    let mut seen_name = false;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." if seen_name => return false,
            ".." => ups += 1,
            _ => seen_name = true,
        }
    }
    ups <= depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_may_only_point_inside() {
        assert!(link_stays_inside("docs/README.md", "../README.md"));
        assert!(link_stays_inside("a/b/c", "../../x/y"));
        assert!(link_stays_inside("bin", "modules/local/bin"));
        assert!(link_stays_inside("a/l", ".."));
        assert!(!link_stays_inside("README.md", "../outside"));
        assert!(!link_stays_inside("a/l", "../../x"));
        assert!(!link_stays_inside("x", "/etc/passwd"));
        assert!(!link_stays_inside("x", "d/l/../.."));
        assert!(!link_stays_inside("x", ""));
    }

    #[test]
    fn the_digest_covers_content_mode_names_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("bin")).unwrap();
        fs::write(root.join("main.nf"), "workflow {}\n").unwrap();
        fs::write(root.join("bin/tool.py"), "print(1)\n").unwrap();
        let first = digest_tree(root).unwrap();
        assert_eq!((first.files, first.bytes), (2, 21));
        assert_eq!(digest_tree(root).unwrap(), first, "stable");

        fs::set_permissions(root.join("bin/tool.py"), fs::Permissions::from_mode(0o755)).unwrap();
        let exec = digest_tree(root).unwrap();
        assert_ne!(exec.digest, first.digest);

        std::os::unix::fs::symlink("main.nf", root.join("alias.nf")).unwrap();
        let linked = digest_tree(root).unwrap();
        assert_ne!(linked.digest, exec.digest);
        assert_eq!(linked.files, 2, "a link is not a file");

        std::os::unix::fs::symlink("../../etc", root.join("bin/escape")).unwrap();
        assert!(matches!(digest_tree(root), Err(TreeError::Unexpected(_))));
    }
}
