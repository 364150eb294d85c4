//! A STAND-IN for `pixi` (and the Nextflow run it starts), for tests only.
//!
//! The machines Somite's tests run on have neither Pixi nor Nextflow, so
//! the supervisor is tested against this program, which follows the
//! documented process contract of the three Pixi commands Somite uses and
//! of the Nextflow run behind the compiled package's `run` task. It is not
//! a pipeline engine: it runs no tool, it only behaves like one from the
//! outside.
//!
//! - `lock --manifest-path M`: writes a version 7 `pixi.lock` beside `M`.
//! - `workspace export conda-explicit-spec DIR ... --environment E ...
//!   --platform P`: writes `DIR/E_P_conda_spec.txt` for each environment.
//! - `run --frozen --manifest-path M run [PROFILE]`: refuses without
//!   `pixi.lock` (as `--frozen` does), then, in `M`'s folder, acts like
//!   `nextflow run main.nf -params-file params.json`: checks every input in
//!   `params.json` exists, writes the trace `nextflow.config` declares (a
//!   header, then SUBMITTED, RUNNING and COMPLETED, CACHED or FAILED rows
//!   per task, flushed as they happen), writes each node's declared outputs
//!   under `<outdir>/<node>/`, and exits 0, or 1 with Nextflow's error
//!   lines on stderr. On SIGTERM it writes ABORTED rows and exits 143.
//! - `run --frozen --manifest-path M preview` (a source package's task):
//!   refuses without `pixi.lock` or a `preview` task in `M`, then acts like
//!   `nextflow run pipeline -preview`, which compiles the script and
//!   resolves its DAG but runs no process: it needs `pipeline/main.nf`,
//!   checks each parameter the pipeline's `nextflow_schema.json` marks
//!   `exists: true` the way nf-schema does (relative to the launch folder),
//!   and exits 0 without writing a trace row, a `work/` task or an output.
//!
//! Behaviour is chosen through the environment (the supervisor passes it
//! on through `RunnerToolchain::with_env`):
//!
//! - `SOMITE_STANDIN_LOG=FILE`: append one JSON line `{argv, cwd}` per
//!   invocation, so a test can tell whether it was started at all;
//! - `SOMITE_STANDIN_STEP_MS=N`: the pause between trace rows (default 30);
//! - `SOMITE_STANDIN_FAIL_NODE=ID`: that node's task fails with exit 1;
//! - `SOMITE_STANDIN_CACHED=1`: every task is reported CACHED;
//! - `SOMITE_STANDIN_SCRIPT_ERROR=1`: the pipeline does not compile, so a
//!   preview exits 1 with Nextflow's compilation error;
//! - `SOMITE_STANDIN_HANG=1`: the first task keeps running until a signal;
//! - `SOMITE_STANDIN_GRANDCHILD_PID_FILE=FILE`: start a grandchild in the
//!   same process group that ignores SIGTERM and writes its pid to FILE, to
//!   prove that cancellation leaves no orphan.

use serde_json::{Value, json};
use somite_api::EnvVars;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;
use tokio::signal::unix::{Signal, SignalKind, signal};

const GRANDCHILD_FLAG: &str = "--standin-grandchild";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    log_invocation(&args);
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [GRANDCHILD_FLAG, pid_file] => grandchild(Path::new(pid_file)).await,
        ["lock", rest @ ..] => lock(rest),
        ["workspace", "export", "conda-explicit-spec", dir, rest @ ..] => {
            export_specs(Path::new(dir), rest)
        }
        ["run", rest @ ..] => run(rest).await,
        _ => fail(2, &format!("stand-in: unsupported arguments {args:?}")),
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(code)
}

fn log_invocation(args: &[String]) {
    let Some(path) = std::env::var_os(EnvVars::SOMITE_STANDIN_LOG) else {
        return;
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let line = json!({"argv": args, "cwd": cwd.display().to_string()});
    if let Ok(mut file) = OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(file, "{line}");
    }
}

/// The value after `flag`, if any.
fn option<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| *a == flag)
        .and_then(|i| args.get(i + 1))
        .copied()
}

fn lock(args: &[&str]) -> ExitCode {
    let Some(manifest) = option(args, "--manifest-path") else {
        return fail(2, "stand-in: lock needs --manifest-path");
    };
    let dir = Path::new(manifest).parent().unwrap_or(Path::new("."));
    match fs::write(
        dir.join("pixi.lock"),
        "version: 7\nplatforms: []\nenvironments: {}\n",
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, &format!("stand-in: cannot write pixi.lock: {e}")),
    }
}

fn export_specs(dir: &Path, args: &[&str]) -> ExitCode {
    let platform = option(args, "--platform").unwrap_or("linux-64");
    if let Err(e) = fs::create_dir_all(dir) {
        return fail(1, &format!("stand-in: {e}"));
    }
    for (i, arg) in args.iter().enumerate() {
        if *arg == "--environment"
            && let Some(environment) = args.get(i + 1)
        {
            let path = dir.join(format!("{environment}_{platform}_conda_spec.txt"));
            if let Err(e) = fs::write(path, "@EXPLICIT\n") {
                return fail(1, &format!("stand-in: {e}"));
            }
        }
    }
    ExitCode::SUCCESS
}

/// A grandchild that outlives its parent unless its process group is
/// killed: SIGTERM is caught and ignored.
async fn grandchild(pid_file: &Path) -> ExitCode {
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        return ExitCode::FAILURE;
    };
    let temp = pid_file.with_extension("partial");
    if fs::write(&temp, format!("{}\n", std::process::id())).is_err()
        || fs::rename(&temp, pid_file).is_err()
    {
        return ExitCode::FAILURE;
    }
    let deadline = tokio::time::sleep(Duration::from_secs(120));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            () = &mut deadline => return ExitCode::SUCCESS,
            _ = term.recv() => {}
        }
    }
}

/// One task of the simulated pipeline.
struct Task {
    id: usize,
    node_id: String,
    process: String,
    operator_id: String,
    publish_dir: String,
}

impl Task {
    fn name(&self) -> String {
        format!("{} ({})", self.process, self.node_id)
    }
}

/// The trace file, written the way Nextflow writes it.
struct Trace {
    path: PathBuf,
    fields: Vec<String>,
}

impl Trace {
    fn header(&self) -> std::io::Result<()> {
        fs::write(&self.path, format!("{}\n", self.fields.join("\t")))
    }

    fn row(&self, task: &Task, status: &str, exit: Option<i32>) {
        let hash = blake3::hash(task.node_id.as_bytes()).to_hex();
        let cells: Vec<String> = self
            .fields
            .iter()
            .map(|field| match field.as_str() {
                "task_id" => task.id.to_string(),
                "hash" => format!("{}/{}", &hash[..2], &hash[2..8]),
                "native_id" => (4000 + task.id).to_string(),
                "process" => task.process.clone(),
                "tag" => task.node_id.clone(),
                "name" => task.name(),
                "status" => status.to_owned(),
                "exit" => exit.map_or_else(|| "-".to_owned(), |e| e.to_string()),
                "cpus" => "1".to_owned(),
                _ => "-".to_owned(),
            })
            .collect();
        if let Ok(mut file) = OpenOptions::new().append(true).open(&self.path) {
            let _ = writeln!(file, "{}", cells.join("\t"));
            let _ = file.flush();
        }
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// `file = '...'` and `fields = '...'` of the `trace { }` block.
fn trace_settings(config: &str) -> Option<(String, Vec<String>)> {
    let block = &config[config.find("\ntrace {")?..];
    let block = &block[..block.find("\n}")?];
    let value = |key: &str| {
        block.lines().find_map(|line| {
            let rest = line.trim().strip_prefix(key)?.trim_start();
            let quoted = rest.strip_prefix('=')?.trim();
            Some(quoted.trim_matches(|c| c == '\'' || c == '"').to_owned())
        })
    };
    let fields = value("fields")?
        .split(',')
        .map(|f| f.trim().to_owned())
        .collect();
    Some((value("file")?, fields))
}

/// Process nodes in dependency order (ties by node id).
fn tasks_in_order(package: &Path) -> Result<Vec<Task>, String> {
    let node_map = read_json(&package.join("node-map.json"))?;
    let workflow = read_json(&package.join("workflow.somite.json"))?;
    let mut pending: BTreeMap<String, Task> = BTreeMap::new();
    for node in node_map["nodes"].as_array().into_iter().flatten() {
        let Some(process) = node["process"].as_str() else {
            continue;
        };
        let node_id = node["node_id"].as_str().unwrap_or_default().to_owned();
        pending.insert(
            node_id.clone(),
            Task {
                id: 0,
                node_id: node_id.clone(),
                process: process.to_owned(),
                operator_id: node["operator_id"].as_str().unwrap_or_default().to_owned(),
                publish_dir: node["publish_dir"].as_str().unwrap_or(&node_id).to_owned(),
            },
        );
    }
    let edges: Vec<(String, String)> = workflow["edges"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["from_node"].as_str().unwrap_or_default().to_owned(),
                e["to_node"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut ordered = Vec::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    while !pending.is_empty() {
        let ready = pending
            .keys()
            .find(|id| {
                edges
                    .iter()
                    .filter(|(_, to)| to == *id)
                    .all(|(from, _)| !pending.contains_key(from) || done.contains(from))
            })
            .cloned()
            .ok_or("the workflow has a cycle")?;
        let mut task = pending.remove(&ready).expect("listed");
        task.id = ordered.len() + 1;
        done.insert(ready);
        ordered.push(task);
    }
    Ok(ordered)
}

/// Each declared output of `task`, with `*` standing for `standin`.
fn write_outputs(package: &Path, outdir: &Path, task: &Task) -> Result<(), String> {
    let contract = read_json(&package.join(format!("operators/{}.json", task.operator_id)))?;
    let dir = outdir.join(&task.publish_dir);
    for output in contract["outputs"].as_object().into_iter().flatten() {
        let Some(glob) = output.1["glob"].as_str() else {
            continue;
        };
        let path = dir.join(glob.replace('*', "standin"));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        fs::write(
            &path,
            format!("stand-in output {} of {}\n", output.0, task.node_id),
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// What ended a pause.
enum Pause {
    Elapsed,
    Terminated,
}

async fn pause(term: &mut Signal, duration: Duration) -> Pause {
    tokio::select! {
        () = tokio::time::sleep(duration) => Pause::Elapsed,
        _ = term.recv() => Pause::Terminated,
    }
}

fn aborted(trace: &Trace, task: &Task) -> ExitCode {
    trace.row(task, "ABORTED", None);
    eprintln!("WARN: Killing running tasks (1)");
    eprintln!("Execution aborted");
    ExitCode::from(143)
}

async fn run(args: &[&str]) -> ExitCode {
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        return fail(1, "stand-in: cannot watch SIGTERM");
    };
    if !args.contains(&"--frozen") {
        return fail(2, "stand-in: Somite always runs packages with --frozen");
    }
    let Some(manifest) = option(args, "--manifest-path") else {
        return fail(2, "stand-in: run needs --manifest-path");
    };
    let after_manifest: Vec<&str> = args
        .iter()
        .skip_while(|a| **a != manifest)
        .skip(1)
        .copied()
        .collect();
    let preview = match after_manifest.as_slice() {
        ["preview"] => true,
        ["run"]
        | [
            "run",
            "local" | "slurm" | "awsbatch" | "google-batch" | "k8s",
        ] => false,
        other => return fail(2, &format!("stand-in: unsupported task {other:?}")),
    };
    let package = Path::new(manifest)
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    if !package.join("pixi.lock").is_file() {
        return fail(
            1,
            "Error:   × lock-file not found, cannot continue with --frozen",
        );
    }
    if preview {
        return preview_pipeline(&package);
    }
    if let Some(pid_file) = std::env::var_os(EnvVars::SOMITE_STANDIN_GRANDCHILD_PID_FILE) {
        let spawned = std::env::current_exe().and_then(|exe| {
            Command::new(exe)
                .arg(GRANDCHILD_FLAG)
                .arg(&pid_file)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
        });
        if let Err(e) = spawned {
            return fail(1, &format!("stand-in: cannot start the grandchild: {e}"));
        }
    }

    println!("N E X T F L O W  ~  version 26.04.6 (stand-in)");
    let config = fs::read_to_string(package.join("nextflow.config")).unwrap_or_default();
    let Some((trace_file, fields)) = trace_settings(&config) else {
        return fail(1, "ERROR ~ nextflow.config declares no trace");
    };
    let params = match read_json(&package.join("params.json")) {
        Ok(params) => params,
        Err(e) => return fail(1, &format!("ERROR ~ Cannot read params file: {e}")),
    };
    for paths in params["inputs"].as_object().into_iter().flatten() {
        for path in paths.1.as_object().into_iter().flatten() {
            let text = path.1.as_str().unwrap_or_default();
            if !package.join(text).exists() {
                return fail(1, &format!("ERROR ~ No such file or directory: {text}"));
            }
        }
    }
    let tasks = match tasks_in_order(&package) {
        Ok(tasks) => tasks,
        Err(e) => return fail(1, &format!("ERROR ~ {e}")),
    };
    let outdir = package.join(params["outdir"].as_str().unwrap_or("results"));
    let trace = Trace {
        path: package.join(trace_file),
        fields,
    };
    if let Err(e) = trace.header() {
        return fail(1, &format!("ERROR ~ cannot write the trace: {e}"));
    }

    let env_flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let step = Duration::from_millis(
        std::env::var(EnvVars::SOMITE_STANDIN_STEP_MS)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30),
    );
    let fail_node = std::env::var(EnvVars::SOMITE_STANDIN_FAIL_NODE).ok();
    for task in &tasks {
        trace.row(task, "SUBMITTED", None);
        if let Pause::Terminated = pause(&mut term, step).await {
            return aborted(&trace, task);
        }
        trace.row(task, "RUNNING", None);
        let running_for = if env_flag(EnvVars::SOMITE_STANDIN_HANG) {
            Duration::from_secs(600)
        } else {
            step
        };
        if let Pause::Terminated = pause(&mut term, running_for).await {
            return aborted(&trace, task);
        }
        if fail_node.as_deref() == Some(task.node_id.as_str()) {
            trace.row(task, "FAILED", Some(1));
            eprintln!("ERROR ~ Error executing process > '{}'", task.name());
            eprintln!();
            eprintln!("Caused by:");
            eprintln!(
                "  Process `{}` terminated with an error exit status (1)",
                task.name()
            );
            return ExitCode::FAILURE;
        }
        if let Err(e) = write_outputs(&package, &outdir, task) {
            return fail(1, &format!("ERROR ~ cannot publish outputs: {e}"));
        }
        let status = if env_flag(EnvVars::SOMITE_STANDIN_CACHED) {
            "CACHED"
        } else {
            "COMPLETED"
        };
        trace.row(task, status, Some(0));
    }
    println!("Completed tasks: {}", tasks.len());
    ExitCode::SUCCESS
}

/// `nextflow run pipeline -preview`: the script compiles, the parameters
/// validate, the DAG resolves, and no process runs.
fn preview_pipeline(package: &Path) -> ExitCode {
    let manifest = fs::read_to_string(package.join("pixi.toml")).unwrap_or_default();
    if !manifest.lines().any(|l| l.trim() == "[tasks.preview]") {
        return fail(1, "Error:   × could not find the task 'preview'");
    }
    println!("N E X T F L O W  ~  version 26.04.6 (stand-in)");
    let script = package.join("pipeline/main.nf");
    if !script.is_file() {
        return fail(1, "ERROR ~ Cannot find script file: pipeline/main.nf");
    }
    println!("Launching `pipeline/main.nf` [stand-in] DSL2 - revision: preview");
    if std::env::var(EnvVars::SOMITE_STANDIN_SCRIPT_ERROR).is_ok_and(|v| v == "1") {
        return fail(
            1,
            "ERROR ~ Script compilation failed\n\n-- Check script 'pipeline/main.nf' at line: 1",
        );
    }
    let params = match read_json(&package.join("params.json")) {
        Ok(params) => params,
        Err(e) => return fail(1, &format!("ERROR ~ Cannot read params file: {e}")),
    };
    let schema = read_json(&package.join("pipeline/nextflow_schema.json")).unwrap_or_default();
    let missing: Vec<String> = must_exist(&schema)
        .into_iter()
        .filter_map(|name| {
            let value = params[name.as_str()].as_str()?;
            (!package.join(value).exists()).then(|| {
                format!("* --{name} ({value}): the file or directory '{value}' does not exist")
            })
        })
        .collect();
    if !missing.is_empty() {
        return fail(
            1,
            &format!(
                "ERROR ~ Validation of pipeline parameters failed!\n\n{}",
                missing.join("\n")
            ),
        );
    }
    ExitCode::SUCCESS
}

/// The parameters `schema` marks `exists: true`, in its draft-07
/// `definitions` or 2020-12 `$defs` groups or at the top level.
fn must_exist(schema: &Value) -> Vec<String> {
    let groups = ["definitions", "$defs"]
        .iter()
        .filter_map(|key| schema[*key].as_object())
        .flat_map(|groups| groups.values())
        .chain(std::iter::once(schema));
    groups
        .filter_map(|group| group["properties"].as_object())
        .flatten()
        .filter(|(_, spec)| spec["exists"] == json!(true))
        .map(|(name, _)| name.clone())
        .collect()
}
