//! What a pipeline's path parameter names: a file shipped inside the pinned
//! tree, a remote location Nextflow fetches itself, or a local path the run
//! stages.
//!
//! Real nf-core defaults are of all three kinds:
//! `"${projectDir}/assets/known_adapters.fa"` (smrnaseq) is part of the
//! pinned source tree, `https://data.broadinstitute.org/…` (rnafusion) and
//! `s3://ngi-igenomes/igenomes/` are staged by Nextflow's own file systems,
//! and a samplesheet is a local file. Readiness, compile and the closure
//! treat each for what it is (see `docs/source-workflows.md`); this module
//! only reads the value, purely.
//!
//! A URL that carries a user name or password is refused wherever it
//! appears, and its text is never repeated in the refusal: a credential in a
//! parameter would reach `params.json`, the closure and every log.

use url::Url;

/// The URL schemes Nextflow stages itself (its HTTP, FTP, S3, Google Cloud
/// Storage and Azure Blob file systems).
pub const REMOTE_SCHEMES: [&str; 6] = ["http", "https", "ftp", "s3", "gs", "az"];

/// How a value names the pipeline's own folder: `$projectDir` (and the
/// older `$baseDir`), with or without braces.
const PROJECT_DIR_PREFIXES: [&str; 5] = [
    "${projectDir}/",
    "$projectDir/",
    "${baseDir}/",
    "$baseDir/",
    "${workflow.projectDir}/",
];

/// What a path value names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathTarget<'a> {
    /// A file of the pinned tree, relative to its root (`assets/x.qmd`).
    Bundled(&'a str),
    /// A location Nextflow fetches when the run needs it.
    Remote(RemoteLocation<'a>),
    /// A local path, relative to the project folder or absolute.
    Local(&'a str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteLocation<'a> {
    pub url: &'a str,
    pub scheme: String,
    /// The host (an S3, GCS or Azure bucket for those schemes).
    pub host: String,
}

impl RemoteLocation<'_> {
    /// Whether Somite can download it once to pin it: an HTTP(S) file.
    /// Buckets need their providers' credentials and listing rules.
    pub fn pinnable(&self) -> bool {
        matches!(self.scheme.as_str(), "http" | "https")
    }
}

/// Why a path value cannot be used as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PathRefusal {
    #[error(
        "the URL carries a user name or password, which would reach params.json, the closure and the logs"
    )]
    Credentials,
    #[error("the URL does not parse")]
    InvalidUrl,
    #[error("the path inside the pipeline leaves its folder or is not a plain relative path")]
    UnsafeBundledPath,
}

/// Reads what `value` names.
pub fn path_target(value: &str) -> Result<PathTarget<'_>, PathRefusal> {
    if let Some(rest) = PROJECT_DIR_PREFIXES
        .iter()
        .find_map(|prefix| value.strip_prefix(prefix))
    {
        let safe = !rest.is_empty()
            && !rest.starts_with('/')
            && !rest.contains(['$', '\\', '\0'])
            && rest.split('/').all(|part| !matches!(part, "" | "." | ".."));
        return if safe {
            Ok(PathTarget::Bundled(rest))
        } else {
            Err(PathRefusal::UnsafeBundledPath)
        };
    }
    let Some((scheme, _)) = value.split_once("://") else {
        return Ok(PathTarget::Local(value));
    };
    let scheme = scheme.to_ascii_lowercase();
    if !REMOTE_SCHEMES.contains(&scheme.as_str()) {
        return Ok(PathTarget::Local(value));
    }
    let url = Url::parse(value).map_err(|_| PathRefusal::InvalidUrl)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(PathRefusal::Credentials);
    }
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or(PathRefusal::InvalidUrl)?
        .to_owned();
    Ok(PathTarget::Remote(RemoteLocation {
        url: value,
        scheme,
        host,
    }))
}

/// The value that names `path` of the pinned tree, as nf-core writes it.
pub fn bundled_value(path: &str) -> String {
    format!("{}{path}", PROJECT_DIR_PREFIXES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_bundled_remote_or_local_paths() {
        assert_eq!(
            path_target("${projectDir}/assets/known_adapters.fa"),
            Ok(PathTarget::Bundled("assets/known_adapters.fa"))
        );
        assert_eq!(
            path_target("$projectDir/assets/bamtools_filter_pe.json"),
            Ok(PathTarget::Bundled("assets/bamtools_filter_pe.json"))
        );
        assert_eq!(path_target("$baseDir/x"), Ok(PathTarget::Bundled("x")));
        let Ok(PathTarget::Remote(remote)) = path_target("s3://ngi-igenomes/igenomes/") else {
            panic!("an S3 prefix is remote");
        };
        assert_eq!(
            (remote.scheme.as_str(), remote.host.as_str()),
            ("s3", "ngi-igenomes")
        );
        assert!(!remote.pinnable());
        let Ok(PathTarget::Remote(remote)) =
            path_target("https://zenodo.org/records/7401545/files/checkm.tar.gz")
        else {
            panic!("an HTTPS file is remote");
        };
        assert!(remote.pinnable());
        assert_eq!(remote.host, "zenodo.org");
        assert_eq!(
            path_target("samplesheet.csv"),
            Ok(PathTarget::Local("samplesheet.csv"))
        );
        assert_eq!(
            path_target("/data/x.fa"),
            Ok(PathTarget::Local("/data/x.fa"))
        );
    }

    #[test]
    fn credentials_and_escapes_are_refused() {
        assert_eq!(
            path_target("https://user:secret@example.org/x.fa"),
            Err(PathRefusal::Credentials)
        );
        assert_eq!(
            path_target("ftp://anonymous@ftp.example.org/x"),
            Err(PathRefusal::Credentials)
        );
        let message = PathRefusal::Credentials.to_string();
        assert!(!message.contains("secret"));
        for escape in [
            "${projectDir}/../etc/passwd",
            "${projectDir}/",
            "${projectDir}//x",
            "${projectDir}/a/./b",
            "${projectDir}/${params.x}",
        ] {
            assert_eq!(
                path_target(escape),
                Err(PathRefusal::UnsafeBundledPath),
                "{escape}"
            );
        }
        assert_eq!(path_target("https://"), Err(PathRefusal::InvalidUrl));
    }
}
