//! Runs one compiled task the way Nextflow 26.04 runs it on the local
//! executor, with bash and stub tools, to show what reaches a tool.
//!
//! Nextflow writes `.command.run` itself, so this module rebuilds the parts
//! of it that decide how a value travels, as Nextflow 26.04.6's sources
//! write them:
//! - the task environment (`TaskProcessor.bashEnvironmentScript` with
//!   `escape=false`, the non-container path): `export NAME="value"` with the
//!   value as is, or `export NAME=''` when it is empty, for the config's
//!   `env` scope and every `env` input;
//! - staging (`SimpleFileCopyStrategy`): `rm -f TARGET`, then
//!   `mkdir -p DIR && ln -s SOURCE TARGET`, each path passed through
//!   `Escape.path`, which puts a backslash before `'"␣()\!&|<>`:;` only;
//! - the launch: the script block as Groovy evaluates the GString (`\$` is
//!   `$`, `\\` is `\`, `\"` is `"`, `${task.cpus}` is the cpus directive)
//!   once Nextflow has stripped its common indentation, run by
//!   `/bin/bash -ue .command.sh`.
//!
//! The workflow's call arguments and the config's `env` values are evaluated
//! for exactly the expression shapes the compiler writes; any other shape
//! panics, so a change to what is generated cannot slip past these tests.

use base64::Engine as _;
use serde_json::Value;
use somite_workflow::Catalog;
use somite_workflow::catalog::CatalogEntry;
use somite_workflow::compile::{CompiledPackage, NodeMap, compile};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::operator::{ArgPart, OperatorKind, ParamType, PortSpec};
use somite_workflow::transaction::{Operation, apply_operations};
use somite_workflow::types::PortType;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file the tests' hostile values try to create; a run must never leave one.
const CANARY: &str = "pwned";

/// The node id of the operator under test in [`graph_around`].
pub const TARGET: &str = "target";

/// The config value that carries the Pixi manifest path.
const MANIFEST_EXPRESSION: &str = "java.util.Base64.getEncoder().encodeToString(projectDir.resolve('pixi.toml').toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))";

/// The body of main.nf's encoding function, which [`base64`] mirrors.
const ENCODE_FUNCTION: &str = "def somiteBase64(value) {\n    java.util.Base64.getEncoder().encodeToString(value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))\n}\n";

/// What one task run left behind.
pub struct TaskRun {
    /// The arguments the tool received (after its own name).
    pub tool_args: Vec<Vec<u8>>,
    /// The arguments `pixi` received, if the script activated an environment.
    pub pixi_args: Option<Vec<Vec<u8>>>,
    /// Stage name -> where Nextflow's `ln -s` pointed it.
    pub staged: BTreeMap<String, PathBuf>,
    /// The task directory, as bash's `$PWD`.
    pub work: PathBuf,
    /// The cpus directive (`task.cpus`), 1 without one.
    pub cpus: u32,
    /// Whether a file named [`CANARY`] appeared anywhere in the sandbox.
    pub canary: bool,
    /// Standard error of the run, for failure messages.
    pub stderr: String,
}

/// A graph around catalog operator `target_operator` (node [`TARGET`],
/// with `params`): every input of it that something in the catalog can feed
/// is connected, from a graph input where one fits (those in `prefer`
/// first), else from a tool whose own required inputs can be met the same
/// way. `import_path(node, param, port)` chooses (and creates) each file a
/// graph input imports.
pub fn graph_around(
    catalog: &Catalog,
    target_operator: &str,
    params: BTreeMap<String, Value>,
    prefer: &[&str],
    import_path: &mut dyn FnMut(&str, &str, &PortSpec) -> String,
) -> WorkflowDocument {
    let mut builder = GraphBuilder {
        catalog,
        prefer,
        import_path,
        operations: Vec::new(),
        next_id: 0,
    };
    let entry = catalog.get(target_operator).expect("a catalog operator");
    let mut all = required_params(entry);
    all.extend(params);
    builder.add(TARGET, entry, all);
    builder.feed(TARGET, entry, true, 3);
    apply_operations(
        &WorkflowDocument::empty("Task test"),
        catalog,
        &builder.operations,
    )
    .unwrap_or_else(|e| panic!("the graph around {target_operator} is valid: {e:?}"))
}

struct GraphBuilder<'c, 'f> {
    catalog: &'c Catalog,
    prefer: &'f [&'f str],
    import_path: &'f mut dyn FnMut(&str, &str, &PortSpec) -> String,
    operations: Vec<Operation>,
    next_id: usize,
}

impl<'c> GraphBuilder<'c, '_> {
    fn add(&mut self, id: &str, entry: &CatalogEntry, mut params: BTreeMap<String, Value>) {
        for port in &entry.contract.ports.outputs {
            if let Some(param) = &port.import_param {
                let path = (self.import_path)(id, param, port);
                params.insert(param.clone(), Value::String(path));
            }
        }
        self.operations.push(Operation::AddOperator {
            node_id: id.into(),
            operator_id: entry.contract.id.clone(),
            params,
            x: 0.0,
            y: 0.0,
        });
    }

    /// Connects the inputs of node `id`: all it can when `all`, else the
    /// required ones, through at most `depth` tools.
    fn feed(&mut self, id: &str, entry: &CatalogEntry, all: bool, depth: usize) {
        for port in &entry.contract.ports.inputs {
            if !all && port.optional {
                continue;
            }
            let Some((provider, output)) = provider(self.catalog, self.prefer, port, depth) else {
                assert!(
                    port.optional,
                    "nothing in the catalog feeds {id}.{}",
                    port.name
                );
                continue;
            };
            self.next_id += 1;
            let from = format!("n{}", self.next_id);
            self.add(&from, provider, required_params(provider));
            self.feed(&from, provider, false, depth.saturating_sub(1));
            self.operations.push(Operation::Connect {
                edge_id: format!("{from}-{id}-{}", port.name),
                from_node: from.clone(),
                from_port: output.name.clone(),
                to_node: id.into(),
                to_port: port.name.clone(),
            });
        }
    }
}

/// An operator output `port` accepts whose node can itself be fed within
/// `depth` levels.
fn provider<'c>(
    catalog: &'c Catalog,
    prefer: &[&str],
    port: &PortSpec,
    depth: usize,
) -> Option<(&'c CatalogEntry, &'c PortSpec)> {
    let fits = |entry: &'c CatalogEntry| {
        entry
            .contract
            .ports
            .outputs
            .iter()
            .find(|output| port.accepts(output))
            .map(|output| (entry, output))
    };
    let inputs = || {
        catalog.entries().filter(|e| {
            matches!(
                e.contract.kind,
                OperatorKind::Source | OperatorKind::Reference
            )
        })
    };
    let preferred = inputs().filter(|e| prefer.contains(&e.contract.id.as_str()));
    if let Some(found) = preferred.chain(inputs()).find_map(fits) {
        return Some(found);
    }
    if depth == 0 {
        return None;
    }
    catalog
        .entries()
        .filter(|e| e.contract.kind == OperatorKind::External)
        .filter(|e| {
            e.contract
                .ports
                .inputs
                .iter()
                .filter(|p| !p.optional)
                .all(|p| provider(catalog, prefer, p, depth - 1).is_some())
        })
        .find_map(fits)
}

/// Values for the required parameters that have no default and import nothing.
fn required_params(entry: &CatalogEntry) -> BTreeMap<String, Value> {
    let contract = &entry.contract;
    contract
        .params
        .iter()
        .filter(|p| p.required && p.default.is_none() && !contract.ports.imports(&p.name))
        .map(|p| {
            let value = match p.ty {
                ParamType::Bool => Value::Bool(false),
                ParamType::Int => Value::from(p.min.unwrap_or(1.0) as i64),
                ParamType::Float => Value::from(p.min.unwrap_or(1.0)),
                ParamType::String => Value::from(p.choices.as_ref().map_or("x", |c| c[0].as_str())),
            };
            (p.name.clone(), value)
        })
        .collect()
}

/// Compiles `doc`, which must be ready once every input file exists.
pub fn compiled(doc: &WorkflowDocument, catalog: &Catalog) -> CompiledPackage {
    let assessment = somite_workflow::assessment::assess(doc, catalog, &|_: &str| true);
    compile(doc, catalog, &assessment).unwrap_or_else(|e| panic!("the graph compiles: {e:?}"))
}

/// Node `node_id`'s script block in `package`'s main.nf as Groovy evaluates
/// it, and the cpus directive it was evaluated with (1 without one).
pub fn evaluated_script(package: &CompiledPackage, node_id: &str) -> (String, u32) {
    let main = std::str::from_utf8(&package.file("main.nf").expect("main.nf").bytes)
        .expect("UTF-8")
        .to_owned();
    let node_map: NodeMap =
        serde_json::from_slice(&package.file("node-map.json").expect("node-map.json").bytes)
            .expect("node map");
    let process = node_map
        .processes
        .iter()
        .find_map(|(process, node)| (node == node_id).then_some(process.as_str()))
        .expect("the node runs a process");
    let block = process_block(&main, process);
    let cpus: u32 = block
        .iter()
        .find_map(|l| l.strip_prefix("    cpus "))
        .map_or(1, |n| n.parse().expect("a cpus number"));
    (script(&block, cpus), cpus)
}

/// Runs node `node_id`'s task of `package`, unpacked at `project_dir`, in a
/// task folder under `sandbox`, with stub tools that record their argv.
pub fn run_task(
    package: &CompiledPackage,
    node_id: &str,
    project_dir: &Path,
    sandbox: &Path,
) -> TaskRun {
    let text = |path: &str| {
        String::from_utf8(package.file(path).expect("in the package").bytes.clone()).expect("UTF-8")
    };
    let main = text("main.nf");
    let config = text("nextflow.config");
    let params: Value = serde_json::from_str(&text("params.json")).expect("params.json");
    let node_map: NodeMap = serde_json::from_str(&text("node-map.json")).expect("node map");
    let process = node_map
        .processes
        .iter()
        .find_map(|(process, node)| (node == node_id).then_some(process.as_str()))
        .expect("the node runs a process");
    assert!(
        main.contains(ENCODE_FUNCTION),
        "main.nf defines the encoding function this harness mirrors"
    );

    let block = process_block(&main, process);
    let cpus: u32 = block
        .iter()
        .find_map(|l| l.strip_prefix("    cpus "))
        .map_or(1, |n| n.parse().expect("a cpus number"));
    let inputs = input_declarations(&block);
    let arguments = call_arguments(&main, process);
    assert_eq!(
        inputs.len(),
        arguments.len(),
        "{process}: one argument per input"
    );

    std::fs::create_dir_all(project_dir).unwrap();
    let work = sandbox.join("work").join(process);
    std::fs::create_dir_all(&work).unwrap();
    let work = work.canonicalize().unwrap();
    let bin = sandbox.join("bin");
    let argv_dir = sandbox.join("argv");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&argv_dir).unwrap();

    // The task environment: the local profile's `env` scope, then the inputs.
    let mut environment: Vec<(String, String)> = local_env(&config)
        .into_iter()
        .map(|(name, expression)| {
            assert_eq!(expression, MANIFEST_EXPRESSION, "config env `{name}`");
            let manifest = project_dir.join("pixi.toml");
            (name, base64(manifest.as_os_str().as_bytes()))
        })
        .collect();
    let mut stage: Vec<(String, PathBuf)> = Vec::new();
    for (input, argument) in inputs.iter().zip(&arguments) {
        match input {
            Input::Env(name) => {
                let value = encoded_value(argument, &params);
                environment.push((name.clone(), value));
            }
            Input::Path(pattern) => {
                let source = channel_file(argument, &main, &params, sandbox);
                stage.push((stage_name(pattern, &source), source));
            }
            Input::Pair(first, second) => {
                let (left, right) = argument
                    .split_once(".combine(")
                    .and_then(|(l, r)| Some((l, r.strip_suffix(')')?)))
                    .unwrap_or_else(|| panic!("a pair is `a.combine(b)`: {argument}"));
                for (pattern, channel) in [(first, left), (second, right)] {
                    let source = channel_file(channel, &main, &params, sandbox);
                    stage.push((stage_name(pattern, &source), source));
                }
            }
        }
    }

    let mut run = String::from("#!/bin/bash\nset -e\nset -u\n");
    for (name, value) in &environment {
        if value.is_empty() {
            run.push_str(&format!("export {name}=''\n"));
        } else {
            run.push_str(&format!("export {name}=\"{value}\"\n"));
        }
    }
    for (name, _) in &stage {
        run.push_str(&format!("rm -f {}\n", escape_path(name)));
    }
    for (name, source) in &stage {
        if let Some((dir, _)) = name.rsplit_once('/') {
            run.push_str(&format!("mkdir -p {} && ", escape_path(dir)));
        }
        let source = source.to_str().expect("a UTF-8 path");
        run.push_str(&format!(
            "ln -s {} {}\n",
            escape_path(source),
            escape_path(name)
        ));
    }
    run.push_str("/bin/bash -ue .command.sh\n");
    std::fs::write(work.join(".command.run"), run).unwrap();
    std::fs::write(
        work.join(".command.sh"),
        format!("#!/bin/bash -ue\n{}", script(&block, cpus)),
    )
    .unwrap();

    let tool = block
        .iter()
        .skip_while(|l| !l.contains("somite_command=("))
        .nth(1)
        .and_then(|l| l.trim().strip_prefix('\''))
        .and_then(|l| l.strip_suffix('\''))
        .expect("the command starts with the quoted binary")
        .to_owned();
    for name in [tool.as_str(), "pixi"] {
        let stub = bin.join(name);
        std::fs::write(
            &stub,
            format!(
                "#!/bin/bash\nprintf '%s\\0' \"$@\" > '{}/{name}'\n",
                argv_dir.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = sandbox.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .arg(".command.run")
        .current_dir(&work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &home)
        .output()
        .expect("bash runs");

    let read_args = |name: &str| {
        std::fs::read(argv_dir.join(name)).ok().map(|bytes| {
            let mut args: Vec<Vec<u8>> = bytes.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
            assert_eq!(args.pop(), Some(Vec::new()), "NUL-terminated");
            args
        })
    };
    let tool_args = read_args(&tool).unwrap_or_else(|| {
        panic!(
            "{process}: the tool never ran\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let staged = stage
        .iter()
        .map(|(name, _)| {
            let target = std::fs::read_link(work.join(name))
                .unwrap_or_else(|e| panic!("{name} is staged: {e}"));
            (name.clone(), target)
        })
        .collect();
    TaskRun {
        tool_args,
        pixi_args: read_args("pixi"),
        staged,
        work,
        cpus,
        canary: holds_canary(sandbox),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// What a tool should receive from a node's argv templates: placeholders
/// replaced by the node's values, the staged input names and the task
/// folder, exactly, with no shell in between.
pub fn expected_args(
    catalog: &Catalog,
    doc: &WorkflowDocument,
    node_id: &str,
    run: &TaskRun,
) -> Vec<Vec<u8>> {
    let node = doc.node(node_id).expect("the node");
    let contract = &catalog
        .get(&node.operator_id)
        .expect("in the catalog")
        .contract;
    let bound = |port: &str| doc.edge_into(node_id, port).is_some();
    let threads = contract
        .resources
        .as_ref()
        .and_then(|r| r.threads_param.as_deref());
    let value = |name: &str| -> String {
        if threads == Some(name) && !node.params.contains_key(name) {
            return run.cpus.to_string();
        }
        let value = node
            .params
            .get(name)
            .or(contract.param(name).and_then(|p| p.default.as_ref()))
            .expect("a value");
        groovy_text(value)
    };
    let staged = |port: &str| -> String {
        if let Some(name) = &contract.input(port).expect("a port").stage_as {
            return name.clone();
        }
        let prefix = format!("in/{port}/");
        let names: Vec<&String> = run
            .staged
            .keys()
            .filter(|n| n.starts_with(&prefix))
            .collect();
        assert_eq!(names.len(), 1, "one file staged for {port}");
        names[0].clone()
    };
    let mut args = Vec::new();
    for template in contract.argv_templates().into_iter().skip(1) {
        if !template.applies(bound) {
            continue;
        }
        let mut word = String::new();
        let mut flag = false;
        for part in &template.parts {
            match part {
                ArgPart::Literal(text) => word.push_str(text),
                ArgPart::Param(name) => word.push_str(&value(name)),
                ArgPart::Flag(name) => {
                    flag = true;
                    if value(name) == "true" {
                        word.push_str(&format!("--{name}"));
                    }
                }
                ArgPart::Input(port) => word.push_str(&staged(port)),
                ArgPart::Work => word.push_str(run.work.to_str().expect("UTF-8")),
            }
        }
        if !(flag && word.is_empty()) {
            args.push(word.into_bytes());
        }
    }
    args
}

/// Creates what a graph input imports at `path`: a folder for a
/// `Directory` output, an empty file otherwise.
pub fn make_input(path: &Path, port: &PortSpec) -> String {
    if port.ty == PortType::Directory {
        std::fs::create_dir_all(path).unwrap();
    } else {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"").unwrap();
    }
    path.to_str().expect("a UTF-8 path").to_owned()
}

/// How Groovy's `toString()` writes a parameter value.
fn groovy_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        other => panic!("parameters are scalars, not {other}"),
    }
}

/// Standard base64, as `java.util.Base64.getEncoder()` writes it.
fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

enum Input {
    Path(String),
    Pair(String, String),
    Env(String),
}

/// The lines of `process NAME { ... }`.
fn process_block<'m>(main: &'m str, process: &str) -> Vec<&'m str> {
    let opening = format!("process {process} {{");
    main.lines()
        .skip_while(|l| *l != opening)
        .skip(1)
        .take_while(|l| *l != "}")
        .collect()
}

fn input_declarations(block: &[&str]) -> Vec<Input> {
    block
        .iter()
        .skip_while(|l| **l != "    input:")
        .skip(1)
        .take_while(|l| **l != "    output:")
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let l = l.trim();
            if let Some(name) = l.strip_prefix("env ") {
                Input::Env(groovy_literal(name))
            } else if let Some(pattern) = l.strip_prefix("path ") {
                Input::Path(groovy_literal(pattern))
            } else if let Some(pair) = l.strip_prefix("tuple path(") {
                let (first, second) = pair
                    .strip_suffix(')')
                    .and_then(|p| p.split_once("), path("))
                    .unwrap_or_else(|| panic!("a tuple of two paths: {l}"));
                Input::Pair(groovy_literal(first), groovy_literal(second))
            } else {
                panic!("an input declaration this harness does not know: {l}")
            }
        })
        .collect()
}

/// The arguments of the workflow's call of `process`, one per input.
fn call_arguments(main: &str, process: &str) -> Vec<String> {
    let lines: Vec<&str> = main.lines().skip_while(|l| *l != "workflow {").collect();
    let open = format!("    {process}(");
    let start = lines
        .iter()
        .position(|l| l.starts_with(&open))
        .unwrap_or_else(|| panic!("the workflow calls {process}"));
    let first = &lines[start][open.len()..];
    if first.is_empty() {
        lines[start + 1..]
            .iter()
            .take_while(|l| **l != "    )")
            .map(|l| l.trim().trim_end_matches(',').to_owned())
            .collect()
    } else {
        let inner = first.strip_suffix(')').expect("a one-line call");
        if inner.is_empty() {
            Vec::new()
        } else {
            vec![inner.to_owned()]
        }
    }
}

/// `somiteBase64(params.values['node']['param'])`, evaluated.
fn encoded_value(argument: &str, params: &Value) -> String {
    let inner = argument
        .strip_prefix("somiteBase64(params.values[")
        .and_then(|a| a.strip_suffix("])"))
        .unwrap_or_else(|| panic!("a parameter argument this harness does not know: {argument}"));
    let (node, param) = inner
        .split_once("][")
        .unwrap_or_else(|| panic!("two keys: {argument}"));
    let value = &params["values"][groovy_literal(node)][groovy_literal(param)];
    base64(groovy_text(value).as_bytes())
}

/// The file a channel expression carries: a graph input's path from
/// params, or a stand-in output of an upstream process.
fn channel_file(expression: &str, main: &str, params: &Value, sandbox: &Path) -> PathBuf {
    if let Some((process, emit)) = expression.split_once(".out.") {
        let glob = process_block(main, process)
            .iter()
            .find_map(|l| {
                let l = l.trim().strip_prefix("path ")?;
                let (glob, rest) = l.split_once(", ")?;
                rest.ends_with(&format!("emit: {emit}"))
                    .then(|| groovy_literal(glob))
            })
            .unwrap_or_else(|| panic!("{process} emits {emit}"));
        let name = glob.rsplit('/').next().unwrap().replace('*', "upstream");
        let file = sandbox.join("upstream").join(process).join(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"").unwrap();
        return file;
    }
    let definition = format!("    {expression} = channel.value(file(params.inputs[");
    let keys = main
        .lines()
        .find_map(|l| l.strip_prefix(&definition))
        .and_then(|l| l.strip_suffix("], checkIfExists: true))"))
        .unwrap_or_else(|| panic!("a channel this harness does not know: {expression}"));
    let (node, param) = keys.split_once("][").expect("two keys");
    let path = params["inputs"][groovy_literal(node)][groovy_literal(param)]
        .as_str()
        .expect("a path");
    PathBuf::from(path)
}

/// Nextflow's stage name for one file matched to an input pattern: a `*`
/// becomes the file's own name.
fn stage_name(pattern: &str, source: &Path) -> String {
    let name = source
        .file_name()
        .expect("a file name")
        .to_str()
        .expect("UTF-8");
    pattern.replace('*', name)
}

/// `Escape.path` of Nextflow 26.04.6.
fn escape_path(path: &str) -> String {
    const SPECIAL: &[char] = &[
        '\'', '"', ' ', '(', ')', '\\', '!', '&', '|', '<', '>', '`', ':', ';',
    ];
    let chars: Vec<char> = path.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        // A `!` right after an unescaped `[` is a glob complement and stays.
        let complement = *c == '!'
            && i > 0
            && chars[i - 1] == '['
            && (i == 1 || chars[i - 2] != '\\')
            && chars[i..].contains(&']');
        if SPECIAL.contains(c) && !complement {
            out.push('\\');
        }
        out.push(*c);
    }
    out
}

/// The `env.NAME = EXPRESSION` lines of the `local` profile.
fn local_env(config: &str) -> Vec<(String, String)> {
    config
        .lines()
        .skip_while(|l| *l != "    local {")
        .take_while(|l| *l != "    }")
        .filter_map(|l| l.trim().strip_prefix("env."))
        .map(|l| {
            let (name, expression) = l.split_once(" = ").expect("an assignment");
            (name.to_owned(), expression.to_owned())
        })
        .collect()
}

/// The script block as Groovy evaluates it, indentation stripped.
fn script(block: &[&str], cpus: u32) -> String {
    let body: Vec<&str> = block
        .iter()
        .skip_while(|l| **l != "    script:")
        .skip(2)
        .take_while(|l| **l != "    \"\"\"")
        .copied()
        .collect();
    let indent = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for line in body {
        out.push_str(&gstring(line.get(indent..).unwrap_or(""), cpus));
        out.push('\n');
    }
    out
}

/// One line of a `"""` GString, evaluated.
fn gstring(line: &str, cpus: u32) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        match c {
            '\\' => {
                let escaped = rest[1..].chars().next().expect("an escape");
                assert!(
                    matches!(escaped, '\\' | '$' | '"'),
                    "a GString escape this harness does not know: {line}"
                );
                out.push(escaped);
                rest = &rest[1 + escaped.len_utf8()..];
            }
            '$' => {
                let after = rest
                    .strip_prefix("${task.cpus}")
                    .unwrap_or_else(|| panic!("an interpolation other than task.cpus: {line}"));
                out.push_str(&cpus.to_string());
                rest = after;
            }
            c => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// A Groovy single-quoted string literal, unquoted.
fn groovy_literal(literal: &str) -> String {
    let inner = literal
        .strip_prefix('\'')
        .and_then(|l| l.strip_suffix('\''))
        .unwrap_or_else(|| panic!("a single-quoted literal: {literal}"));
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(e @ ('\\' | '\'')) => out.push(e),
                other => panic!("an escape this harness does not know: \\{other:?}"),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn holds_canary(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            let path = entry.path();
            entry.file_name() == CANARY
                || (entry.file_type().is_ok_and(|t| t.is_dir()) && holds_canary(&path))
        })
}
