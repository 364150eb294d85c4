//! Install jobs: one per provider, consent-checked, resumable, verified.
//!
//! An install is accepted only when the provider is verified (checksum and
//! sizes cited), the consent repeats its exact sizes and effect digest, no
//! other job of the provider runs and the disk has room for the rest of the
//! download, the unpacked tree and [`DISK_MARGIN_BYTES`]. The accepted
//! consent is written next to the partial download, so a restarted runtime
//! resumes the job ([`ResourceManager::resume_interrupted`]) with an HTTP
//! Range request from the bytes already on disk.
//!
//! The archive is hashed as it streams (bytes already on disk are hashed
//! first on a resume); a mismatch publishes nothing and removes the
//! download. The tree is extracted into `.partial`, checked against the
//! profile, given its record and renamed into place in one step.

use crate::error::ResourceError;
use crate::extract::{self, ExtractLimits};
use crate::model::{
    ChecksumAlgorithm, Consent, DirectoryCheck, DirectoryCheckRequest, JobState, JobStatus,
    Resolution, Resolutions, ResourceInspect, ResourceOverview,
};
use crate::provider::{self, Provider};
use crate::store::{self, Record, Store};
use serde::{Deserialize, Serialize};
use sha2::Digest as _;
use somite_api::EnvVars;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

/// Room kept free beyond the download and the unpacked tree, so an install
/// never fills the disk the user's other work lives on.
pub const DISK_MARGIN_BYTES: u64 = 64 * 1024 * 1024;
/// The longest gap between progress events while bytes move.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);
/// Entries a resource archive may hold.
const MAX_ARCHIVE_ENTRIES: u64 = 100_000;

/// Where the store is and what the environment changes.
#[derive(Debug, Clone)]
pub struct ResourceConfig {
    pub store_dir: PathBuf,
    /// Extra, test-only provider files (`SOMITE_RESOURCE_PROVIDERS_DIR`).
    pub providers_dir: Option<PathBuf>,
    /// Replaces reviewed providers' scheme and host (`SOMITE_RESOURCE_BASE_URL`).
    pub base_url: Option<String>,
    /// Caps the free disk Somite believes it has (`SOMITE_RESOURCE_FREE_DISK_LIMIT`).
    pub free_disk_limit: Option<u64>,
    pub connect_timeout: Duration,
    /// A stalled transfer fails after this long without a byte.
    pub read_timeout: Duration,
}

impl ResourceConfig {
    /// The configuration the environment describes.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<ResourceConfig, ResourceError> {
        let store_dir = store::default_store_dir(&env).ok_or_else(|| ResourceError::Io {
            context: "locating the resource store".into(),
            source: std::io::Error::other(format!(
                "set {} or HOME to an absolute folder",
                EnvVars::SOMITE_RESOURCE_DIR
            )),
        })?;
        let free_disk_limit = match env(EnvVars::SOMITE_RESOURCE_FREE_DISK_LIMIT) {
            Some(text) => {
                Some(
                    text.trim()
                        .parse()
                        .map_err(|_| ResourceError::InvalidProvider {
                            origin: EnvVars::SOMITE_RESOURCE_FREE_DISK_LIMIT.into(),
                            detail: format!("`{text}` is not a number of bytes"),
                        })?,
                )
            }
            None => None,
        };
        Ok(ResourceConfig {
            store_dir,
            providers_dir: env(EnvVars::SOMITE_RESOURCE_PROVIDERS_DIR)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
            base_url: env(EnvVars::SOMITE_RESOURCE_BASE_URL).filter(|u| !u.is_empty()),
            free_disk_limit,
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs(60),
        })
    }
}

/// The consent accepted for a job, kept beside its partial download.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JobRecord {
    provider_id: String,
    release: String,
    consent: Consent,
}

struct Job {
    status: watch::Receiver<JobStatus>,
    cancel: CancellationToken,
    keep_partial: Arc<AtomicBool>,
    /// Set by [`ResourceManager::shutdown`]: stop, keep everything, resume later.
    interrupted: Arc<AtomicBool>,
}

struct Inner {
    config: ResourceConfig,
    store: Store,
    providers: Vec<Provider>,
    client: reqwest::Client,
    jobs: Mutex<BTreeMap<String, Job>>,
    events: broadcast::Sender<JobStatus>,
}

/// The managed resources of this machine.
#[derive(Clone)]
pub struct ResourceManager {
    inner: Arc<Inner>,
}

impl ResourceManager {
    /// Loads the providers and opens the store (created on first install).
    pub fn open(config: ResourceConfig) -> Result<ResourceManager, ResourceError> {
        let mut providers = provider::load(config.providers_dir.as_deref())?;
        if let Some(base) = &config.base_url {
            for provider in providers.iter_mut().filter(|p| !p.test_only) {
                provider.url = provider::rebase(&provider.url, base)?;
            }
        }
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.read_timeout)
            .user_agent(concat!("somite/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ResourceError::Download(e.to_string()))?;
        let (events, _) = broadcast::channel(256);
        Ok(ResourceManager {
            inner: Arc::new(Inner {
                store: Store::new(config.store_dir.clone()),
                config,
                providers,
                client,
                jobs: Mutex::new(BTreeMap::new()),
                events,
            }),
        })
    }

    /// Every job status change, for the activity feed.
    pub fn subscribe(&self) -> broadcast::Receiver<JobStatus> {
        self.inner.events.subscribe()
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    fn provider(&self, id: &str) -> Result<&Provider, ResourceError> {
        self.inner
            .providers
            .iter()
            .find(|p| p.id == id)
            .ok_or_else(|| ResourceError::UnknownProvider(id.to_owned()))
    }

    fn free_disk(&self) -> Option<u64> {
        store::free_disk_bytes(self.inner.store.root(), self.inner.config.free_disk_limit)
    }

    fn job_status(&self, id: &str) -> Option<JobStatus> {
        let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.get(id).map(|job| job.status.borrow().clone())
    }

    /// Every provider, installed resource and job.
    pub fn overview(&self) -> ResourceOverview {
        let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
        ResourceOverview {
            store_dir: self.inner.store.root().display().to_string(),
            free_disk_bytes: self.free_disk(),
            memory_bytes: store::memory_bytes(),
            providers: self.inner.providers.iter().map(Provider::view).collect(),
            installed: self.inner.store.list_installed(),
            jobs: jobs
                .values()
                .map(|job| job.status.borrow().clone())
                .collect(),
        }
    }

    /// One provider: its install, its job and its kept partial download.
    pub fn inspect(&self, id: &str) -> Result<ResourceInspect, ResourceError> {
        let provider = self.provider(id)?;
        Ok(ResourceInspect {
            provider: provider.view(),
            installed: self.inner.store.installed(&provider.id, &provider.release),
            job: self.job_status(id),
            partial_bytes: self
                .inner
                .store
                .partial_bytes(&provider.id, &provider.release),
        })
    }

    /// Starts (or resumes) the install of `id` after checking the consent.
    pub fn install(&self, id: &str, consent: &Consent) -> Result<JobStatus, ResourceError> {
        let provider = self.provider(id)?.clone();
        let (download_bytes, stored_bytes) = verified_sizes(&provider)?;
        let digest = provider::effect_digest(&provider.scientific_effect);
        let mut differences = Vec::new();
        if consent.download_bytes != download_bytes {
            differences.push(format!(
                "download_bytes {} ≠ {download_bytes}",
                consent.download_bytes
            ));
        }
        if consent.stored_bytes != stored_bytes {
            differences.push(format!(
                "stored_bytes {} ≠ {stored_bytes}",
                consent.stored_bytes
            ));
        }
        if consent.effect_digest != digest {
            differences.push("the scientific effect changed".into());
        }
        if !differences.is_empty() {
            return Err(ResourceError::ConsentMismatch {
                provider: provider.id.clone(),
                detail: differences.join("; "),
            });
        }
        self.start(provider, consent.clone())
    }

    fn start(&self, provider: Provider, consent: Consent) -> Result<JobStatus, ResourceError> {
        let (download_bytes, stored_bytes) = verified_sizes(&provider)?;
        let mut jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if jobs
            .get(&provider.id)
            .is_some_and(|job| !job.status.borrow().state.is_finished())
        {
            return Err(ResourceError::JobRunning(provider.id.clone()));
        }
        let store = &self.inner.store;
        // Every byte, not just the sizes: a tree changed in place is
        // installed again rather than reported as installed.
        if let Some(installed) = store
            .installed_with(
                &provider.id,
                &provider.release,
                somite_workflow::resource::Verification::Digest,
            )
            .filter(|i| i.verified)
        {
            let status = JobStatus {
                state: JobState::Installed,
                bytes_done: download_bytes,
                bytes_total: Some(download_bytes),
                ..fresh_status(&provider, 0)
            };
            tracing::debug!(reference = %installed.reference, "already installed");
            return Ok(status);
        }
        let partial = store.partial_bytes(&provider.id, &provider.release);
        let needed = download_bytes.saturating_sub(partial) + stored_bytes + DISK_MARGIN_BYTES;
        if let Some(free) = self.free_disk()
            && free < needed
        {
            return Err(ResourceError::InsufficientDisk { needed, free });
        }
        std::fs::create_dir_all(store.downloads()).map_err(|e| {
            ResourceError::io(format!("creating {}", store.downloads().display()), e)
        })?;
        let record = JobRecord {
            provider_id: provider.id.clone(),
            release: provider.release.clone(),
            consent,
        };
        somite_project::durable::publish(
            &store.job_record(&provider.id, &provider.release),
            &serde_json::to_vec(&record).expect("job records serialize"),
        )
        .map_err(|e| ResourceError::io("recording the install", std::io::Error::other(e)))?;

        let initial = fresh_status(&provider, partial);
        let (status_tx, status_rx) = watch::channel(initial.clone());
        let job = Job {
            status: status_rx,
            cancel: CancellationToken::new(),
            keep_partial: Arc::new(AtomicBool::new(true)),
            interrupted: Arc::new(AtomicBool::new(false)),
        };
        let run = JobRun {
            inner: self.inner.clone(),
            provider,
            status: status_tx,
            cancel: job.cancel.clone(),
            keep_partial: job.keep_partial.clone(),
            interrupted: job.interrupted.clone(),
        };
        jobs.insert(run.provider.id.clone(), job);
        drop(jobs);
        let _ = self.inner.events.send(initial.clone());
        tokio::spawn(run.run());
        Ok(initial)
    }

    /// Stops the install of `id`, keeping or removing its partial download.
    pub async fn cancel(&self, id: &str, keep_partial: bool) -> Result<JobStatus, ResourceError> {
        self.provider(id)?;
        let mut status = {
            let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
            let job = jobs
                .get(id)
                .filter(|job| !job.status.borrow().state.is_finished())
                .ok_or_else(|| ResourceError::NoJob(id.to_owned()))?;
            job.keep_partial.store(keep_partial, Ordering::SeqCst);
            job.cancel.cancel();
            job.status.clone()
        };
        let finished = status
            .wait_for(|s| s.state.is_finished())
            .await
            .map(|s| s.clone());
        finished.map_err(|_| ResourceError::NoJob(id.to_owned()))
    }

    /// Discards an install no process is running (one a stopped runtime
    /// left to resume): its accepted consent goes, so nothing resumes it,
    /// and its partial download goes unless `keep_partial`.
    pub fn discard_interrupted(&self, id: &str, keep_partial: bool) -> Result<u64, ResourceError> {
        let provider = self.provider(id)?;
        let store = &self.inner.store;
        let record = store.job_record(&provider.id, &provider.release);
        let part = store.download_part(&provider.id, &provider.release);
        if !record.exists() && !part.exists() {
            return Err(ResourceError::NoJob(id.to_owned()));
        }
        let _ = std::fs::remove_file(&record);
        if !keep_partial {
            let _ = std::fs::remove_file(&part);
        }
        Ok(store.partial_bytes(&provider.id, &provider.release))
    }

    /// Waits until the job of `id` finishes and returns its last status.
    pub async fn wait(&self, id: &str) -> Result<JobStatus, ResourceError> {
        let mut status = {
            let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
            jobs.get(id)
                .ok_or_else(|| ResourceError::NoJob(id.to_owned()))?
                .status
                .clone()
        };
        let finished = status
            .wait_for(|s| s.state.is_finished())
            .await
            .map(|s| s.clone());
        finished.map_err(|_| ResourceError::NoJob(id.to_owned()))
    }

    /// Resumes the installs a previous runtime accepted but did not finish.
    pub fn resume_interrupted(&self) -> Vec<Result<JobStatus, ResourceError>> {
        let Ok(entries) = std::fs::read_dir(self.inner.store.downloads()) else {
            return Vec::new();
        };
        let mut records: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".job.json"))
            .collect();
        records.sort();
        records
            .into_iter()
            .filter_map(|path| {
                let record: JobRecord = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
                let provider = self.provider(&record.provider_id).ok()?;
                if provider.release != record.release {
                    // The reviewed provider moved on: the consent was for another release.
                    let _ = std::fs::remove_file(&path);
                    return None;
                }
                Some(self.install(&record.provider_id, &record.consent))
            })
            .collect()
    }

    /// Stops every job as a runtime shutdown does: partial downloads and
    /// accepted consents stay, so the next runtime resumes them.
    pub async fn shutdown(&self) {
        let receivers: Vec<_> = {
            let jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
            jobs.values()
                .filter(|job| !job.status.borrow().state.is_finished())
                .map(|job| {
                    job.interrupted.store(true, Ordering::SeqCst);
                    job.cancel.cancel();
                    job.status.clone()
                })
                .collect()
        };
        for mut status in receivers {
            let _ = status.wait_for(|s| s.state.is_finished()).await;
        }
    }

    /// The ways to satisfy a `profile` requirement, best first: installed
    /// resources, then reviewed providers (recommended first, then those
    /// that fit this machine's disk and memory, then smaller), then a local
    /// folder, then leaving the requirement.
    pub fn resolutions(&self, profile_name: &str) -> Result<Resolutions, ResourceError> {
        let profile = provider::profile(profile_name).ok_or_else(|| ResourceError::Reference {
            reference: profile_name.to_owned(),
            detail: "no such resource profile".into(),
        })?;
        let free = self.free_disk();
        let memory = store::memory_bytes();
        let mut resolutions: Vec<Resolution> = self
            .inner
            .store
            .list_installed()
            .into_iter()
            .filter(|i| i.profile == profile.name && i.verified)
            .map(|installed| {
                let provider = self.provider(&installed.provider_id).ok();
                Resolution::Installed {
                    title: provider
                        .map_or_else(|| installed.provider_id.clone(), |p| p.title.clone()),
                    scientific_effect: provider
                        .map(|p| p.scientific_effect.clone())
                        .unwrap_or_default(),
                    memory_bytes: provider.and_then(|p| p.memory_bytes),
                    reference: installed.reference,
                    provider_id: installed.provider_id,
                    release: installed.release,
                    stored_bytes: installed.stored_bytes,
                }
            })
            .collect();
        let mut installs: Vec<(Provider, Option<bool>, Option<bool>)> = self
            .inner
            .providers
            .iter()
            .filter(|p| p.profile == profile.name)
            .filter(|p| {
                self.inner
                    .store
                    .installed(&p.id, &p.release)
                    .is_none_or(|i| !i.verified)
            })
            .map(|p| {
                let fits_disk = free.zip(p.stored_bytes).map(|(f, s)| f >= s);
                let fits_memory = memory.zip(p.memory_bytes).map(|(m, need)| m >= need);
                (p.clone(), fits_disk, fits_memory)
            })
            .collect();
        installs.sort_by_key(|(p, disk, mem)| {
            (
                !p.recommended,
                *disk == Some(false) || *mem == Some(false),
                !p.view().installable,
                p.stored_bytes.unwrap_or(u64::MAX),
            )
        });
        resolutions.extend(installs.into_iter().map(|(p, fits_disk, fits_memory)| {
            Resolution::Install {
                disk_left_after_bytes: free.zip(p.stored_bytes).map(|(f, s)| {
                    i64::try_from(f).unwrap_or(i64::MAX) - i64::try_from(s).unwrap_or(i64::MAX)
                }),
                provider: Box::new(p.view()),
                fits_disk,
                fits_memory,
            }
        }));
        resolutions.push(Resolution::UseExisting {
            title: "Use a database folder already on this machine".into(),
            required_files: profile
                .required_files
                .iter()
                .map(|f| (*f).to_owned())
                .collect(),
        });
        resolutions.push(Resolution::Requirement {
            title: "Leave the database as an explicit requirement".into(),
        });
        Ok(Resolutions {
            profile: profile.name.to_owned(),
            free_disk_bytes: free,
            memory_bytes: memory,
            resolutions,
        })
    }

    /// Checks a local folder against a profile (`use_existing`).
    pub fn check_directory(
        &self,
        request: &DirectoryCheckRequest,
    ) -> Result<DirectoryCheck, ResourceError> {
        let profile =
            provider::profile(&request.profile).ok_or_else(|| ResourceError::Reference {
                reference: request.profile.clone(),
                detail: "no such resource profile".into(),
            })?;
        let path = Path::new(&request.path);
        if !path.is_absolute() {
            return Err(ResourceError::Structure {
                detail: format!("`{}` is not an absolute folder path", request.path),
                missing: Vec::new(),
            });
        }
        let missing = store::missing_files(path, profile);
        Ok(DirectoryCheck {
            path: request.path.clone(),
            ok: missing.is_empty(),
            missing,
        })
    }
}

fn verified_sizes(provider: &Provider) -> Result<(u64, u64), ResourceError> {
    match (
        provider.unverified_reason(),
        provider.download_bytes,
        provider.stored_bytes,
    ) {
        (None, Some(download), Some(stored)) => Ok((download, stored)),
        (reason, ..) => Err(ResourceError::Unverified {
            provider: provider.id.clone(),
            reason: reason.unwrap_or_default(),
        }),
    }
}

fn fresh_status(provider: &Provider, resumed_from: u64) -> JobStatus {
    JobStatus {
        provider_id: provider.id.clone(),
        release: provider.release.clone(),
        state: JobState::Queued,
        bytes_done: resumed_from,
        bytes_total: provider.download_bytes,
        rate_bytes_per_sec: None,
        eta_secs: None,
        resumed_from,
        partial_kept: None,
        error: None,
    }
}

/// One running install.
struct JobRun {
    inner: Arc<Inner>,
    provider: Provider,
    status: watch::Sender<JobStatus>,
    cancel: CancellationToken,
    keep_partial: Arc<AtomicBool>,
    interrupted: Arc<AtomicBool>,
}

impl JobRun {
    fn publish(&self, change: impl FnOnce(&mut JobStatus)) {
        self.status.send_modify(change);
        let _ = self.inner.events.send(self.status.borrow().clone());
    }

    async fn run(self) {
        let outcome = self.install().await;
        let store = &self.inner.store;
        let (id, release) = (self.provider.id.as_str(), self.provider.release.as_str());
        let _ = std::fs::remove_dir_all(store.partial_tree(id, release));
        match outcome {
            Ok(()) => {
                let _ = std::fs::remove_file(store.download_part(id, release));
                let _ = std::fs::remove_file(store.job_record(id, release));
                self.publish(|s| {
                    s.state = JobState::Installed;
                    s.eta_secs = Some(0);
                });
            }
            Err(ResourceError::Cancelled) if self.interrupted.load(Ordering::SeqCst) => {
                // A shutdown: everything stays for the next runtime.
                self.publish(|s| {
                    s.state = JobState::Cancelled;
                    s.partial_kept = Some(true);
                });
            }
            Err(ResourceError::Cancelled) => {
                let keep = self.keep_partial.load(Ordering::SeqCst);
                if !keep {
                    let _ = std::fs::remove_file(store.download_part(id, release));
                }
                let _ = std::fs::remove_file(store.job_record(id, release));
                self.publish(|s| {
                    s.state = JobState::Cancelled;
                    s.partial_kept = Some(keep);
                    s.rate_bytes_per_sec = None;
                    s.eta_secs = None;
                });
            }
            Err(error) => {
                // A transfer failure keeps what arrived for a resume; any
                // other failure means the bytes themselves are wrong.
                if !matches!(error, ResourceError::Download(_)) {
                    let _ = std::fs::remove_file(store.download_part(id, release));
                }
                let _ = std::fs::remove_file(store.job_record(id, release));
                let envelope = somite_api::Error::from(error);
                self.publish(|s| {
                    s.state = JobState::Failed;
                    s.rate_bytes_per_sec = None;
                    s.eta_secs = None;
                    s.error = Some(envelope);
                });
            }
        }
    }

    async fn install(&self) -> Result<(), ResourceError> {
        let checksum = self
            .provider
            .checksum
            .clone()
            .expect("installs start only for verified providers");
        let (download_bytes, stored_bytes) = verified_sizes(&self.provider)?;
        let part = self
            .inner
            .store
            .download_part(&self.provider.id, &self.provider.release);
        let hasher = self.download(&part, download_bytes).await?;

        self.publish(|s| s.state = JobState::Verifying);
        let ChecksumAlgorithm::Sha256 = checksum.algorithm;
        let actual = hex(&hasher.finalize());
        if actual != checksum.value {
            return Err(ResourceError::ChecksumMismatch {
                algorithm: "sha256",
                expected: checksum.value,
                actual,
            });
        }

        self.publish(|s| s.state = JobState::Extracting);
        let store = self.inner.store.clone();
        let provider = self.provider.clone();
        let cancel = self.cancel.clone();
        let publishing = {
            let status = self.status.clone();
            let events = self.inner.events.clone();
            move || {
                status.send_modify(|s| s.state = JobState::Publishing);
                let _ = events.send(status.borrow().clone());
            }
        };
        tokio::task::spawn_blocking(move || {
            unpack_and_publish(
                &store,
                &provider,
                &part,
                checksum,
                stored_bytes,
                &cancel,
                publishing,
            )
        })
        .await
        .map_err(|e| ResourceError::io("unpacking", std::io::Error::other(e)))?
    }

    /// Downloads (or resumes) the archive into `part`, hashing every byte.
    async fn download(&self, part: &Path, total: u64) -> Result<sha2::Sha256, ResourceError> {
        let mut hasher = sha2::Sha256::new();
        let mut have = std::fs::metadata(part).map_or(0, |m| m.len());
        if have > total {
            std::fs::remove_file(part)
                .map_err(|e| ResourceError::io("resetting the download", e))?;
            have = 0;
        }
        if have > 0 {
            let path = part.to_owned();
            hasher = tokio::task::spawn_blocking(move || {
                let mut hasher = sha2::Sha256::new();
                let mut file = std::fs::File::open(&path)?;
                let mut buffer = vec![0; 1 << 20];
                loop {
                    let read = std::io::Read::read(&mut file, &mut buffer)?;
                    if read == 0 {
                        break;
                    }
                    hasher.update(&buffer[..read]);
                }
                Ok::<_, std::io::Error>(hasher)
            })
            .await
            .map_err(|e| {
                ResourceError::io("hashing the partial download", std::io::Error::other(e))
            })?
            .map_err(|e| ResourceError::io("hashing the partial download", e))?;
        }
        self.publish(|s| {
            s.state = JobState::Downloading;
            s.bytes_done = have;
            s.resumed_from = have;
        });
        if have == total {
            return Ok(hasher);
        }
        let mut request = self.inner.client.get(&self.provider.url);
        if have > 0 {
            request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
        }
        let mut response = tokio::select! {
            () = self.cancel.cancelled() => return Err(ResourceError::Cancelled),
            response = request.send() => response.map_err(|e| transport(&e))?,
        };
        let status = response.status();
        let append = if status == reqwest::StatusCode::PARTIAL_CONTENT {
            let range = response
                .headers()
                .get(reqwest::header::CONTENT_RANGE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            if !range.starts_with(&format!("bytes {have}-")) {
                return Err(ResourceError::Download(format!(
                    "the provider answered the range from {have} with `{range}`"
                )));
            }
            true
        } else if status.is_success() {
            // The provider ignored the range: start over.
            hasher = sha2::Sha256::new();
            have = 0;
            false
        } else {
            return Err(ResourceError::Download(format!(
                "the provider answered {status}"
            )));
        };
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(part)
            .await
            .map_err(|e| ResourceError::io(format!("writing {}", part.display()), e))?;
        let started = Instant::now();
        let resumed_from = have;
        let mut last_event = Instant::now();
        self.publish(|s| {
            s.bytes_done = have;
            s.resumed_from = have;
        });
        loop {
            let chunk = tokio::select! {
                () = self.cancel.cancelled() => {
                    let _ = file.flush().await;
                    return Err(ResourceError::Cancelled);
                }
                chunk = response.chunk() => chunk.map_err(|e| transport(&e))?,
            };
            let Some(chunk) = chunk else { break };
            if have + chunk.len() as u64 > total {
                let _ = std::fs::remove_file(part);
                return Err(ResourceError::ChecksumMismatch {
                    algorithm: "size",
                    expected: total.to_string(),
                    actual: format!("more than {total}"),
                });
            }
            file.write_all(&chunk)
                .await
                .map_err(|e| ResourceError::io(format!("writing {}", part.display()), e))?;
            hasher.update(&chunk);
            have += chunk.len() as u64;
            if last_event.elapsed() >= PROGRESS_INTERVAL {
                last_event = Instant::now();
                let elapsed = started.elapsed().as_secs_f64();
                let rate = (elapsed > 0.0).then(|| (have - resumed_from) as f64 / elapsed);
                self.publish(|s| {
                    s.bytes_done = have;
                    s.rate_bytes_per_sec = rate;
                    s.eta_secs = rate
                        .filter(|r| *r > 0.0)
                        .map(|r| ((total - have) as f64 / r).ceil() as u64);
                });
            }
        }
        file.sync_all()
            .await
            .map_err(|e| ResourceError::io(format!("writing {}", part.display()), e))?;
        let elapsed = started.elapsed().as_secs_f64();
        let rate = (elapsed > 0.0).then(|| (have - resumed_from) as f64 / elapsed);
        self.publish(|s| {
            s.bytes_done = have;
            s.rate_bytes_per_sec = rate;
        });
        if have != total {
            return Err(ResourceError::Download(format!(
                "the transfer ended after {have} of {total} bytes"
            )));
        }
        Ok(hasher)
    }
}

fn unpack_and_publish(
    store: &Store,
    provider: &Provider,
    part: &Path,
    checksum: crate::model::Checksum,
    stored_bytes: u64,
    cancel: &CancellationToken,
    publishing: impl FnOnce(),
) -> Result<(), ResourceError> {
    let (id, release) = (provider.id.as_str(), provider.release.as_str());
    let partial = store.partial_tree(id, release);
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial)
        .map_err(|e| ResourceError::io(format!("creating {}", partial.display()), e))?;
    let archive =
        std::fs::File::open(part).map_err(|e| ResourceError::io("reading the download", e))?;
    extract::extract(
        std::io::BufReader::new(archive),
        &partial,
        ExtractLimits {
            max_unpacked_bytes: stored_bytes,
            max_entries: MAX_ARCHIVE_ENTRIES,
        },
    )?;
    if cancel.is_cancelled() {
        return Err(ResourceError::Cancelled);
    }
    let root = extract::content_root(&partial)?;
    let profile = provider::profile(&provider.profile).expect("providers have known profiles");
    store::check_structure(&root, profile)?;
    let (tree_digest, bytes) = store::tree_digest(&root)?;
    let files = store::tree_sizes(&root)?;
    let record = Record {
        provider_id: id.to_owned(),
        release: release.to_owned(),
        profile: provider.profile.clone(),
        checksum,
        tree_digest,
        stored_bytes: bytes,
        installed_at: jiff::Timestamp::now().to_string(),
        files,
    };
    somite_project::durable::publish(
        &root.join(store::RECORD_FILE),
        &serde_json::to_vec_pretty(&record).expect("records serialize"),
    )
    .map_err(|e| ResourceError::io("writing the record", std::io::Error::other(e)))?;
    if cancel.is_cancelled() {
        return Err(ResourceError::Cancelled);
    }
    publishing();
    let target = store.tree(id, release);
    if target.exists() {
        // A tree that no longer matches its digest: replaced, never merged.
        let stale = store.root().join(id).join(format!(".{release}.stale"));
        let _ = std::fs::remove_dir_all(&stale);
        std::fs::rename(&target, &stale)
            .map_err(|e| ResourceError::io(format!("moving {}", target.display()), e))?;
        let _ = std::fs::remove_dir_all(&stale);
    }
    std::fs::rename(&root, &target)
        .map_err(|e| ResourceError::io(format!("publishing {}", target.display()), e))?;
    store::sync_dir(&store.root().join(id))?;
    Ok(())
}

fn transport(error: &reqwest::Error) -> ResourceError {
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    ResourceError::Download(detail)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
