//! Reviewed providers: the files under `resources/`, parsed strictly.
//!
//! A provider is reviewed like an operator contract: every value in it is
//! cited from its publisher (`source`). A value that cannot be cited stays
//! out of the file, and a provider without a checksum or exact sizes is
//! listed (so the user sees it exists) but refuses to install with
//! `resource_unverified`: Somite never downloads what it cannot verify.
//!
//! The reviewed files are embedded in the binary. Tests and journeys add
//! providers from `SOMITE_RESOURCE_PROVIDERS_DIR`; each such file must say
//! `test_only = true`, and only those may use plain HTTP, and only to a
//! loopback host.

use crate::error::ResourceError;
use crate::model::{Checksum, ChecksumAlgorithm, ProviderView};
use serde::Deserialize;
use std::path::Path;

/// The reviewed provider files, by their path in the repository.
const REVIEWED: &[(&str, &str)] = &[
    (
        "resources/k2_standard_08gb.toml",
        include_str!("../../../resources/k2_standard_08gb.toml"),
    ),
    (
        "resources/k2_standard.toml",
        include_str!("../../../resources/k2_standard.toml"),
    ),
];

/// A resource profile: what a published tree must contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    /// Files that must be regular files at the tree's top.
    pub required_files: &'static [&'static str],
}

/// The profiles Somite knows.
pub const PROFILES: &[Profile] = &[Profile {
    name: "kraken2-database",
    required_files: &["hash.k2d", "opts.k2d", "taxo.k2d"],
}];

/// The profile named `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// A provider file as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    pub id: String,
    pub profile: String,
    pub title: String,
    pub release: String,
    pub url: String,
    #[serde(default)]
    pub checksum: Option<Checksum>,
    /// Where the publisher lists its checksum, when it is not an archive
    /// checksum Somite can verify (kept for the reviewer and the user).
    #[serde(default)]
    pub checksum_note: Option<String>,
    #[serde(default)]
    pub download_bytes: Option<u64>,
    #[serde(default)]
    pub stored_bytes: Option<u64>,
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    pub scientific_effect: String,
    #[serde(default)]
    pub recommended: bool,
    pub licence: String,
    pub citation: String,
    /// The publisher's page every value above is cited from.
    pub source: String,
    #[serde(default)]
    pub test_only: bool,
}

/// `blake3:<hex>` of an effect text: what a consent must repeat.
pub fn effect_digest(effect: &str) -> String {
    format!("blake3:{}", blake3::hash(effect.as_bytes()).to_hex())
}

/// Provider ids: lower-case ASCII letters, digits and `_`, 1–64 long.
pub fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Releases: ASCII letters, digits, `.`, `-`, `_`, 1–64 long, not starting with `.`.
pub fn valid_release(release: &str) -> bool {
    (1..=64).contains(&release.len())
        && !release.starts_with('.')
        && release
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

impl Provider {
    fn parse(origin: &str, text: &str, from_test_dir: bool) -> Result<Provider, ResourceError> {
        let invalid = |detail: String| ResourceError::InvalidProvider {
            origin: origin.to_owned(),
            detail,
        };
        let provider: Provider = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if !valid_id(&provider.id) {
            return Err(invalid(format!(
                "id `{}` is not [a-z0-9_]{{1,64}}",
                provider.id
            )));
        }
        if !valid_release(&provider.release) {
            return Err(invalid(format!(
                "release `{}` is not valid",
                provider.release
            )));
        }
        if profile(&provider.profile).is_none() {
            return Err(invalid(format!("unknown profile `{}`", provider.profile)));
        }
        if provider.test_only != from_test_dir {
            return Err(invalid(if from_test_dir {
                "a provider from SOMITE_RESOURCE_PROVIDERS_DIR must say test_only = true".into()
            } else {
                "a reviewed provider cannot be test_only".into()
            }));
        }
        if let Some(checksum) = &provider.checksum {
            let ChecksumAlgorithm::Sha256 = checksum.algorithm;
            if checksum.value.len() != 64
                || !checksum
                    .value
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(invalid(
                    "a sha256 checksum is 64 lower-case hex digits".into(),
                ));
            }
        }
        check_url(&provider.url, provider.test_only).map_err(invalid)?;
        Ok(provider)
    }

    /// Why the provider refuses to install, or `None`.
    pub fn unverified_reason(&self) -> Option<String> {
        let mut missing = Vec::new();
        if self.checksum.is_none() {
            missing.push("an archive checksum");
        }
        if self.download_bytes.is_none() {
            missing.push("the exact download size");
        }
        if self.stored_bytes.is_none() {
            missing.push("the unpacked size");
        }
        if missing.is_empty() {
            return None;
        }
        let mut reason = format!(
            "the publisher's listing ({}) gives no {} Somite can cite",
            self.source,
            missing.join(", no ")
        );
        if let Some(note) = &self.checksum_note {
            reason.push_str("; ");
            reason.push_str(note);
        }
        Some(reason)
    }

    /// The surfaces' view.
    pub fn view(&self) -> ProviderView {
        let unverified_reason = self.unverified_reason();
        ProviderView {
            id: self.id.clone(),
            profile: self.profile.clone(),
            title: self.title.clone(),
            release: self.release.clone(),
            url: self.url.clone(),
            checksum: self.checksum.clone(),
            download_bytes: self.download_bytes,
            stored_bytes: self.stored_bytes,
            memory_bytes: self.memory_bytes,
            scientific_effect: self.scientific_effect.clone(),
            effect_digest: effect_digest(&self.scientific_effect),
            recommended: self.recommended,
            licence: self.licence.clone(),
            citation: self.citation.clone(),
            source: self.source.clone(),
            test_only: self.test_only,
            installable: unverified_reason.is_none(),
            unverified_reason,
        }
    }
}

/// HTTPS anywhere; plain HTTP only for a test-only provider on loopback.
fn check_url(url: &str, test_only: bool) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("url `{url}`: {e}"))?;
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if test_only && is_loopback(&parsed) => Ok(()),
        _ => Err(format!(
            "url `{url}` must be https (plain http only for a test-only provider on loopback)"
        )),
    }
}

fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host_str() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

/// The providers Somite offers: the reviewed ones, then the test-only ones
/// of `extra_dir` (sorted by file name). Ids are unique.
pub fn load(extra_dir: Option<&Path>) -> Result<Vec<Provider>, ResourceError> {
    let mut providers = REVIEWED
        .iter()
        .map(|(origin, text)| Provider::parse(origin, text, false))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(dir) = extra_dir {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| ResourceError::io(format!("reading {}", dir.display()), e))?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ResourceError::io(format!("reading {}", path.display()), e))?;
            providers.push(Provider::parse(&path.display().to_string(), &text, true)?);
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for provider in &providers {
        if !seen.insert(provider.id.as_str()) {
            return Err(ResourceError::InvalidProvider {
                origin: provider.id.clone(),
                detail: "two providers have this id".into(),
            });
        }
    }
    Ok(providers)
}

/// Applies `SOMITE_RESOURCE_BASE_URL` to a reviewed provider's URL: the
/// scheme, host and port are replaced, the path kept.
pub fn rebase(url: &str, base: &str) -> Result<String, ResourceError> {
    let invalid = |detail: String| ResourceError::InvalidProvider {
        origin: somite_api::EnvVars::SOMITE_RESOURCE_BASE_URL.into(),
        detail,
    };
    let original = reqwest::Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    let base = reqwest::Url::parse(base).map_err(|e| invalid(e.to_string()))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(invalid("the base must be an http(s) URL".into()));
    }
    let prefix = base.as_str().trim_end_matches('/');
    Ok(format!("{prefix}{}", original.path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reviewed_providers_parse_and_refuse_what_they_cannot_cite() {
        let providers = load(None).unwrap();
        let ids: Vec<_> = providers.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["k2_standard_08gb", "k2_standard"]);
        for provider in &providers {
            assert!(
                provider
                    .url
                    .starts_with("https://genome-idx.s3.amazonaws.com/kraken/")
            );
            // The index zone lists per-file MD5s, not an archive checksum.
            assert!(provider.checksum.is_none());
            assert!(!provider.view().installable);
        }
        assert!(providers[0].recommended && !providers[1].recommended);
    }

    /// The download choices an operator contract describes for a profile
    /// name the reviewed providers by id; release, source and recommendation
    /// are the provider's, so the readiness panel and the installer agree.
    #[test]
    fn contract_downloads_name_the_reviewed_providers_release() {
        use somite_workflow::operator::ResolutionKind;
        let catalog = somite_workflow::Catalog::builtin().unwrap();
        let providers = load(None).unwrap();
        let mut checked = 0;
        for entry in catalog.entries() {
            for need in entry
                .contract
                .ports
                .inputs
                .iter()
                .filter_map(|p| p.resource.as_ref())
            {
                for provider in providers.iter().filter(|p| p.profile == need.profile) {
                    let r = need
                        .resolutions
                        .iter()
                        .find(|r| r.id == provider.id)
                        .unwrap_or_else(|| {
                            panic!("{} does not offer {}", entry.contract.id, provider.id)
                        });
                    let context = format!("{}: {}", entry.contract.id, r.id);
                    assert_eq!(r.kind, ResolutionKind::Download, "{context}");
                    assert_eq!(
                        r.version.as_deref(),
                        Some(provider.release.as_str()),
                        "{context}"
                    );
                    assert_eq!(
                        r.source_url.as_deref(),
                        Some(provider.source.as_str()),
                        "{context}"
                    );
                    assert_eq!(r.recommended, provider.recommended, "{context}");
                    checked += 1;
                }
            }
        }
        // class.kraken2 and class.bracken, each with both providers.
        assert_eq!(checked, 4);
    }

    #[test]
    fn a_test_provider_must_say_so_and_only_it_may_use_loopback_http() {
        let text = |test_only: bool, url: &str| {
            format!(
                "id = \"t\"\nprofile = \"kraken2-database\"\ntitle = \"t\"\nrelease = \"1\"\nurl = \"{url}\"\nscientific_effect = \"e\"\nlicence = \"l\"\ncitation = \"c\"\nsource = \"s\"\ntest_only = {test_only}\n"
            )
        };
        assert!(Provider::parse("x", &text(true, "http://127.0.0.1:1/a"), true).is_ok());
        assert!(Provider::parse("x", &text(false, "http://127.0.0.1:1/a"), true).is_err());
        assert!(Provider::parse("x", &text(true, "http://127.0.0.1:1/a"), false).is_err());
        assert!(Provider::parse("x", &text(true, "http://example.org/a"), true).is_err());
        assert!(Provider::parse("x", &text(false, "https://example.org/a"), false).is_ok());
    }

    #[test]
    fn rebase_keeps_the_path() {
        assert_eq!(
            rebase(
                "https://genome-idx.s3.amazonaws.com/kraken/k2.tar.gz",
                "http://127.0.0.1:9/"
            )
            .unwrap(),
            "http://127.0.0.1:9/kraken/k2.tar.gz"
        );
    }
}
