//! Names that validate on parse: a commit, a repository, a ref, a tree digest.
//!
//! Each type can only hold a valid value, so "parsed" means "valid" and no
//! caller repeats the check. They matter beyond tidiness: a [`CommitSha`]
//! names a folder of the store and a [`Repository`] and a [`GitRef`] become
//! URL path segments, so none of them may carry `/`, `..` or a query
//! character where the grammar does not allow it.

use crate::error::SourceError;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// A full Git commit id: 40 lower-case hex digits (SHA-1 repositories, which
/// is every repository GitHub serves today).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CommitSha(String);

impl CommitSha {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first seven hex digits, as GitHub names the tarball's top folder.
    pub fn short(&self) -> &str {
        &self.0[..7]
    }

    /// Whether `text` has the shape of a full commit id (any case).
    pub fn looks_like(text: &str) -> bool {
        text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
    }
}

impl FromStr for CommitSha {
    type Err = SourceError;

    fn from_str(text: &str) -> Result<Self, SourceError> {
        if CommitSha::looks_like(text) {
            Ok(CommitSha(text.to_ascii_lowercase()))
        } else {
            Err(SourceError::InvalidRequest {
                detail: format!("`{text}` is not a full 40-hex-digit commit id"),
            })
        }
    }
}

/// A GitHub repository, `owner/name`.
///
/// Owners are 1–39 of `A-Z a-z 0-9 -`; names 1–100 of `A-Z a-z 0-9 . _ -`
/// and never `.` or `..` (GitHub's own rules), so both are safe URL path
/// segments as they stand.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Repository {
    full: String,
    slash: usize,
}

impl Repository {
    pub fn owner(&self) -> &str {
        &self.full[..self.slash]
    }

    pub fn name(&self) -> &str {
        &self.full[self.slash + 1..]
    }

    pub fn as_str(&self) -> &str {
        &self.full
    }
}

impl FromStr for Repository {
    type Err = SourceError;

    fn from_str(text: &str) -> Result<Self, SourceError> {
        let invalid = || SourceError::InvalidRequest {
            detail: format!("`{text}` is not a GitHub repository of the form OWNER/NAME"),
        };
        let (owner, name) = text.split_once('/').ok_or_else(invalid)?;
        let owner_ok = (1..=39).contains(&owner.len())
            && owner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let name_ok = (1..=100).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            && name != "."
            && name != "..";
        if owner_ok && name_ok {
            Ok(Repository {
                full: text.to_owned(),
                slash: owner.len(),
            })
        } else {
            Err(invalid())
        }
    }
}

/// A branch, tag or commit name as a person types it.
///
/// The rules are the part of `git check-ref-format` that matters for a URL
/// path: 1–255 printable ASCII characters without space, `~ ^ : ? * [ \`,
/// no `..`, no `@{`, no empty, `.`-leading or `.lock` segment, no leading
/// `-` or `/`. Slashes stay (branches such as `feature/x`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GitRef(String);

impl GitRef {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for GitRef {
    type Err = SourceError;

    fn from_str(text: &str) -> Result<Self, SourceError> {
        let chars_ok = text
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"~^:?*[\\".contains(&b));
        let segments_ok = text
            .split('/')
            .all(|s| !s.is_empty() && !s.starts_with('.') && !s.ends_with(".lock"));
        if (1..=255).contains(&text.len())
            && chars_ok
            && segments_ok
            && !text.contains("..")
            && !text.contains("@{")
            && !text.starts_with('-')
        {
            Ok(GitRef(text.to_owned()))
        } else {
            Err(SourceError::InvalidRequest {
                detail: format!("`{text}` is not a valid Git branch, tag or commit name"),
            })
        }
    }
}

/// The digest of a stored source tree: `blake3:` and 64 lower-case hex
/// digits (see [`crate::tree`] for what it covers).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TreeDigest(String);

impl TreeDigest {
    pub(crate) fn from_hash(hash: blake3::Hash) -> TreeDigest {
        TreeDigest(format!("blake3:{}", hash.to_hex()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for TreeDigest {
    type Err = SourceError;

    fn from_str(text: &str) -> Result<Self, SourceError> {
        match text.strip_prefix("blake3:") {
            Some(hex)
                if hex.len() == 64
                    && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) =>
            {
                Ok(TreeDigest(text.to_owned()))
            }
            _ => Err(SourceError::InvalidRequest {
                detail: format!("`{text}` is not a tree digest (`blake3:` and 64 hex digits)"),
            }),
        }
    }
}

macro_rules! string_newtype {
    ($($ty:ident: $pattern:expr),*) => {$(
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({ "type": "string", "pattern": $pattern })
            }
        }
        impl TryFrom<String> for $ty {
            type Error = SourceError;
            fn try_from(text: String) -> Result<Self, SourceError> {
                text.parse()
            }
        }
        impl From<$ty> for String {
            fn from(value: $ty) -> String {
                value.as_str().to_owned()
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
string_newtype!(
    CommitSha: "^[0-9a-f]{40}$",
    Repository: "^[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}$",
    // The character rules; the segment rules are checked on parse.
    GitRef: r"^[!-~]{1,255}$",
    TreeDigest: "^blake3:[0-9a-f]{64}$"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_shas_are_normalised_and_checked() {
        let sha: CommitSha = "8EC2D934F9301C818D961B1E4FDF7FC79610BDC5".parse().unwrap();
        assert_eq!(sha.as_str(), "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5");
        assert_eq!(sha.short(), "8ec2d93");
        for bad in ["8ec2d93", "g".repeat(40).as_str(), ""] {
            assert!(bad.parse::<CommitSha>().is_err(), "{bad}");
        }
    }

    #[test]
    fn repositories_are_owner_slash_name() {
        let repo: Repository = "nf-core/fetchngs".parse().unwrap();
        assert_eq!((repo.owner(), repo.name()), ("nf-core", "fetchngs"));
        for bad in [
            "nf-core", "nf-core/", "/x", "a/b/c", "a/..", "a/.", "a b/c", "a/b?x",
        ] {
            assert!(bad.parse::<Repository>().is_err(), "{bad}");
        }
    }

    #[test]
    fn refs_follow_check_ref_format() {
        for good in ["master", "1.12.0", "feature/x", "v2.0-rc1"] {
            assert!(good.parse::<GitRef>().is_ok(), "{good}");
        }
        for bad in [
            "", "a..b", "-x", "/x", "x/", "a//b", ".x", "x.lock", "a b", "a?b", "a@{1}", "a~1",
            "a^", "a:b", "a\\b",
        ] {
            assert!(bad.parse::<GitRef>().is_err(), "{bad}");
        }
    }

    #[test]
    fn tree_digests_round_trip_through_serde() {
        let digest = TreeDigest::from_hash(blake3::hash(b"x"));
        let json = serde_json::to_string(&digest).unwrap();
        assert_eq!(serde_json::from_str::<TreeDigest>(&json).unwrap(), digest);
        assert!(serde_json::from_str::<TreeDigest>("\"blake3:XY\"").is_err());
    }
}
