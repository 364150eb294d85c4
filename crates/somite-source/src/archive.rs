//! Safe extraction of a GitHub tarball into an empty folder.
//!
//! Entries are written by this module, never by `tar`'s own `unpack`, so
//! every rule is ours and visible here:
//!
//! - every path is relative, UTF-8, free of `..`, and under one shared top
//!   folder (GitHub's `{owner}-{repo}-{sha7}/`), which is stripped;
//! - only folders, regular files and symbolic links are accepted. Hard
//!   links, devices, FIFOs and sparse files are refused: `git archive` never
//!   writes them, so one can only come from a hostile or foreign archive;
//! - a symbolic link is accepted when it is relative and resolves inside
//!   the tree (`tree::link_stays_inside`). Git repositories do hold
//!   such links (a `README.md` pointing into `docs/`), and refusing them
//!   would refuse real pipelines; links are created only after every file,
//!   and no entry may lie beneath a link, so nothing is ever written through
//!   one;
//! - a path listed twice, a file over a folder, more than
//!   [`max_archive_entries`](crate::config::Limits::max_archive_entries)
//!   entries or more than
//!   [`max_unpacked_bytes`](crate::config::Limits::max_unpacked_bytes) of
//!   decompressed tar stream (headers included) all stop the extraction;
//! - files are written `0644`, or `0755` when the archive marks any
//!   execute bit (Git's only mode distinction); ownership and times are
//!   not restored.
//!
//! A failure leaves a half-written folder behind; the caller extracts into
//! a temporary folder and deletes it (see [`crate::store`]). GitHub's
//! archives carry the commit in a pax global header (`comment`); when it is
//! there it must be the commit that was asked for.

use crate::config::Limits;
use crate::error::{Provider, Result, SourceError};
use crate::ids::CommitSha;
use crate::tree::link_stays_inside;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;
use std::rc::Rc;
use tar::EntryType;

/// The largest pax or GNU long-name record read: real paths are at most a
/// few hundred bytes (Linux's `PATH_MAX` is 4 KiB).
const MAX_NAME_RECORD_BYTES: u64 = 64 << 10;

/// Extracts the gzip tarball `archive` into `dest`, an existing empty folder.
pub(crate) fn extract(
    archive: impl Read,
    dest: &Path,
    commit: &CommitSha,
    limits: &Limits,
) -> Result<()> {
    let exceeded = Rc::new(Cell::new(false));
    let capped = Capped {
        inner: flate2::read::GzDecoder::new(archive),
        left: limits.max_unpacked_bytes,
        exceeded: exceeded.clone(),
    };
    match extract_tar(capped, dest, commit, limits) {
        // Whatever error the cut-off stream surfaced as, the cause is size.
        Err(_) if exceeded.get() => Err(SourceError::ArchiveTooLarge {
            detail: format!(
                "it unpacks to more than {} bytes",
                limits.max_unpacked_bytes
            ),
        }),
        result => result,
    }
}

/// The decompressed stream, cut off after `left` bytes. `tar` reads a pax
/// or long-name header into memory whole, so bounding only the files
/// written would still let a tiny archive claim gigabytes.
struct Capped<R> {
    inner: R,
    left: u64,
    exceeded: Rc<Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            if self.inner.read(&mut [0u8; 1])? == 0 {
                return Ok(0);
            }
            self.exceeded.set(true);
            return Err(io::Error::other("the archive unpacks past the size cap"));
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

fn extract_tar(archive: impl Read, dest: &Path, commit: &CommitSha, limits: &Limits) -> Result<()> {
    let unreadable = |e: io::Error| SourceError::ProviderResponseInvalid {
        provider: Provider::GitHub,
        detail: format!("the archive is not a readable gzip tar: {e}"),
    };
    let mut archive = tar::Archive::new(archive);
    let mut top: Option<String> = None;
    let mut paths: BTreeSet<String> = BTreeSet::new();
    let mut links: BTreeMap<String, String> = BTreeMap::new();
    let mut entries = 0u64;
    // What the pax and GNU records before an entry say of its name and
    // link (read here, bounded, rather than by `tar`, which holds a record
    // of any size in memory).
    let mut named: Option<Vec<u8>> = None;
    let mut linked: Option<Vec<u8>> = None;

    for entry in archive.entries().map_err(unreadable)?.raw(true) {
        let mut entry = entry.map_err(unreadable)?;
        entries += 1;
        if entries > limits.max_archive_entries {
            return Err(SourceError::ArchiveTooLarge {
                detail: format!("more than {} entries", limits.max_archive_entries),
            });
        }
        let kind = entry.header().entry_type();
        if matches!(
            kind,
            EntryType::XGlobalHeader
                | EntryType::XHeader
                | EntryType::GNULongName
                | EntryType::GNULongLink
        ) {
            let size = entry.header().size().map_err(unreadable)?;
            if size > MAX_NAME_RECORD_BYTES {
                return Err(SourceError::unsafe_archive(format!(
                    "a {} record of {size} bytes; no path in a source tree needs more than {MAX_NAME_RECORD_BYTES}",
                    describe(kind)
                )));
            }
        }
        match kind {
            EntryType::XGlobalHeader => {
                check_commit_header(&mut entry, commit)?;
                continue;
            }
            EntryType::XHeader => {
                let malformed =
                    |_| SourceError::unsafe_archive("a pax header does not parse as pax records");
                if let Some(extensions) = entry.pax_extensions().map_err(malformed)? {
                    for extension in extensions {
                        let extension = extension.map_err(malformed)?;
                        match extension.key() {
                            Ok("path") => named = Some(extension.value_bytes().to_vec()),
                            Ok("linkpath") => linked = Some(extension.value_bytes().to_vec()),
                            _ => {}
                        }
                    }
                }
                continue;
            }
            EntryType::GNULongName | EntryType::GNULongLink => {
                let mut value = Vec::new();
                entry.read_to_end(&mut value).map_err(unreadable)?;
                while value.last() == Some(&0) {
                    value.pop();
                }
                if kind == EntryType::GNULongName {
                    named = Some(value);
                } else {
                    linked = Some(value);
                }
                continue;
            }
            _ => {}
        }
        let raw = named
            .take()
            .unwrap_or_else(|| entry.path_bytes().into_owned());
        let link_name = linked
            .take()
            .or_else(|| entry.link_name_bytes().map(|l| l.into_owned()));
        let raw = std::str::from_utf8(&raw)
            .map_err(|_| SourceError::unsafe_archive("an entry name is not UTF-8"))?
            .to_owned();
        // A name with a line break or another control character could end
        // the line of a manifest or script that names it.
        if raw.chars().any(char::is_control) {
            return Err(SourceError::unsafe_archive(format!(
                "the entry name {raw:?} holds a control character"
            )));
        }
        let relative = strip_top(&raw, &mut top)?;
        if relative.is_empty() {
            if kind != EntryType::Directory {
                return Err(SourceError::unsafe_archive(format!(
                    "`{raw}` is not a folder, but the archive must hold one top folder"
                )));
            }
            continue;
        }
        let is_dir = kind == EntryType::Directory;
        if !paths.insert(relative.clone()) && !is_dir {
            return Err(SourceError::unsafe_archive(format!(
                "`{relative}` is listed twice"
            )));
        }
        let target = dest.join(&relative);
        match kind {
            EntryType::Directory => {
                fs::create_dir_all(&target).map_err(|e| write_error(&relative, &target, e))?
            }
            EntryType::Regular | EntryType::Continuous => {
                let size = entry.header().size().map_err(unreadable)?;
                let exec = entry.header().mode().map_err(unreadable)? & 0o111 != 0;
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(|e| write_error(&relative, parent, e))?;
                }
                let mut file = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(if exec { 0o755 } else { 0o644 })
                    .open(&target)
                    .map_err(|e| write_error(&relative, &target, e))?;
                // A read that fails is the archive's fault (truncated,
                // corrupt), not the disk's: said without any local path.
                let mut reading = ReadSide {
                    inner: (&mut entry).take(size),
                    failed: false,
                };
                if let Err(e) = io::copy(&mut reading, &mut file) {
                    return Err(if reading.failed {
                        unreadable(e)
                    } else {
                        write_error(&relative, &target, e)
                    });
                }
                // The mode given at creation is masked by the umask.
                fs::set_permissions(
                    &target,
                    fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }),
                )
                .map_err(|e| SourceError::io(&target, e))?;
            }
            EntryType::Symlink => {
                let link = link_name.ok_or_else(|| {
                    SourceError::unsafe_archive(format!("the link `{relative}` has no target"))
                })?;
                let link = std::str::from_utf8(&link)
                    .map_err(|_| {
                        SourceError::unsafe_archive(format!(
                            "the link `{relative}` has a target that is not UTF-8"
                        ))
                    })?
                    .to_owned();
                if link.chars().any(char::is_control) {
                    return Err(SourceError::unsafe_archive(format!(
                        "the link `{relative}` has a target holding a control character"
                    )));
                }
                if !link_stays_inside(&relative, &link) {
                    return Err(SourceError::unsafe_archive(format!(
                        "the link `{relative}` points at `{link}`, outside the source tree"
                    )));
                }
                links.insert(relative, link);
            }
            EntryType::Link => {
                return Err(SourceError::unsafe_archive(format!(
                    "`{relative}` is a hard link, which a Git archive never holds"
                )));
            }
            other => {
                return Err(SourceError::unsafe_archive(format!(
                    "`{relative}` is a {}, not a file, folder or link",
                    describe(other)
                )));
            }
        }
    }
    if top.is_none() {
        return Err(SourceError::unsafe_archive("the archive is empty"));
    }
    for path in &paths {
        let mut ancestor = path.as_str();
        while let Some((parent, _)) = ancestor.rsplit_once('/') {
            if links.contains_key(parent) {
                return Err(SourceError::unsafe_archive(format!(
                    "`{path}` lies beneath the link `{parent}`"
                )));
            }
            ancestor = parent;
        }
    }
    for (relative, link) in &links {
        let at = dest.join(relative);
        if let Some(parent) = at.parent() {
            fs::create_dir_all(parent).map_err(|e| write_error(relative, parent, e))?;
        }
        std::os::unix::fs::symlink(link, &at).map_err(|e| write_error(relative, &at, e))?;
    }
    Ok(())
}

/// The path below the single top folder; `top` is set by the first entry.
fn strip_top(raw: &str, top: &mut Option<String>) -> Result<String> {
    if raw.starts_with('/') {
        return Err(SourceError::unsafe_archive(format!(
            "`{raw}` is an absolute path"
        )));
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(SourceError::unsafe_archive(format!(
                    "`{raw}` climbs out with `..`"
                )));
            }
            name => parts.push(name),
        }
    }
    let Some((first, rest)) = parts.split_first() else {
        return Err(SourceError::unsafe_archive(format!(
            "`{raw}` names no file"
        )));
    };
    match top {
        None => *top = Some((*first).to_owned()),
        Some(top) if top == first => {}
        Some(top) => {
            return Err(SourceError::unsafe_archive(format!(
                "`{raw}` is outside the top folder `{top}`"
            )));
        }
    }
    Ok(rest.join("/"))
}

/// A conflict between entries is the archive's fault; anything else is the disk's.
/// A reader that remembers whether one of its reads failed.
struct ReadSide<R> {
    inner: R,
    failed: bool,
}

impl<R: Read> Read for ReadSide<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|_| self.failed = true)
    }
}

fn write_error(relative: &str, path: &Path, e: io::Error) -> SourceError {
    match e.kind() {
        io::ErrorKind::AlreadyExists
        | io::ErrorKind::NotADirectory
        | io::ErrorKind::IsADirectory => {
            SourceError::unsafe_archive(format!("`{relative}` conflicts with another entry"))
        }
        _ => SourceError::io(path, e),
    }
}

fn check_commit_header(entry: &mut tar::Entry<'_, impl Read>, commit: &CommitSha) -> Result<()> {
    let Some(extensions) = entry.pax_extensions().ok().flatten() else {
        return Ok(());
    };
    for extension in extensions.flatten() {
        if extension.key() == Ok("comment")
            && let Ok(value) = extension.value()
            && CommitSha::looks_like(value.trim())
            && !value.trim().eq_ignore_ascii_case(commit.as_str())
        {
            return Err(SourceError::ProviderResponseInvalid {
                provider: Provider::GitHub,
                detail: format!("the archive is of commit {}, not {commit}", value.trim()),
            });
        }
    }
    Ok(())
}

fn describe(kind: EntryType) -> &'static str {
    match kind {
        EntryType::Char => "character device",
        EntryType::Block => "block device",
        EntryType::Fifo => "FIFO",
        EntryType::GNUSparse => "sparse file",
        EntryType::XHeader | EntryType::XGlobalHeader => "pax header",
        EntryType::GNULongName | EntryType::GNULongLink => "GNU long-name",
        _ => "special entry",
    }
}
