//! Malformed and hostile input: opaque steps and diagnostics, never a panic;
//! limits that bound what a tree can make the outline read.

use crate::common::{tree, write};
use proptest::prelude::*;
use somite_api::{DomainCode, SourceCode};
use somite_outline::{
    DiagnosticCode, Limits, MAX_SOURCES, OutlineError, lexer, outline, outline_with,
};

#[test]
fn unknown_constructs_are_opaque_steps_with_their_location() {
    let main = "workflow.onComplete {\n  log.info 'done'\n}\nenum Colour { RED }\nworkflow {\n  take:\n  x\n  main:\n  println x\n  publish:\n  x >> 'out'\n}\n";
    let dir = tree(&[("main.nf", main.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let opaque: Vec<(&str, u32)> = outline
        .opaque
        .iter()
        .map(|o| (o.kind.as_str(), o.location.line))
        .collect();
    assert_eq!(opaque, vec![("workflow.onComplete", 1), ("enum", 4)]);
    let workflow = &outline.workflows[0];
    assert_eq!(workflow.opaque[0].kind, "publish");
    assert_eq!(workflow.opaque[0].location.line, 10);
}

#[test]
fn a_process_without_labels_runs_its_last_string_and_keeps_the_rest() {
    let main = "process OLD {\n  cpus 2\n  'stray'\n  \"\"\"\n  echo }\n  \"\"\"\n}\n";
    let dir = tree(&[("main.nf", main.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let process = &outline.processes[0];
    assert_eq!(process.body.as_deref(), Some("script"));
    let directives: Vec<(&str, &str)> = process
        .directives
        .iter()
        .map(|d| (d.name.as_str(), d.text.as_str()))
        .collect();
    assert_eq!(directives, vec![("cpus", "2")]);
    let opaque: Vec<(&str, &str, u32)> = process
        .opaque
        .iter()
        .map(|o| (o.kind.as_str(), o.excerpt.as_str(), o.location.line))
        .collect();
    assert_eq!(opaque, vec![("statement", "'stray'", 3)]);
}

#[test]
fn an_unbalanced_process_is_opaque_and_the_rest_is_still_read() {
    let main = "process BROKEN {\n  input:\n  val x\n  script:\n  ( ]\n}\nprocess FINE {\n  script:\n  'x'\n}\n";
    let dir = tree(&[("main.nf", main.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let names: Vec<&str> = outline.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["FINE"]);
    assert_eq!(outline.opaque[0].kind, "process");
    assert_eq!(outline.opaque[0].location.line, 1);
    assert_eq!(outline.diagnostics[0].code, DiagnosticCode::Unbalanced);
}

#[test]
fn nesting_past_the_limit_is_opaque_not_a_stack_overflow() {
    let deep = format!("workflow {{\n{}\n}}\n", "if (x) {\n".repeat(50_000));
    let brackets = format!("workflow W {{ A({}) }}\n", "(".repeat(200_000));
    let interpolations = format!("x = {}\n", "\"${".repeat(100_000));
    for src in [deep, brackets, interpolations] {
        let dir = tree(&[("main.nf", src.as_bytes())]);
        let outline = outline(dir.path()).unwrap();
        assert!(!outline.diagnostics.is_empty());
    }
}

#[test]
fn channel_sources_of_one_value_are_cut_at_the_limit() {
    let mut main =
        String::from("process P {\n  exec:\n  1\n}\nworkflow {\n  ch = Channel.empty()\n");
    for i in 0..(MAX_SOURCES + 100) {
        main.push_str(&format!("  ch = ch.mix(P.out[{i}])\n"));
    }
    main.push_str("  P(ch)\n}\n");
    let dir = tree(&[("main.nf", main.as_bytes())]);
    let outline = outline(dir.path()).unwrap();
    let call = &outline.workflows[0].calls[0];
    assert_eq!(call.arguments[0].sources.len(), MAX_SOURCES);
    assert_eq!(outline.diagnostics[0].code, DiagnosticCode::Truncated);
}

#[test]
fn a_tree_without_its_entry_script_is_refused() {
    let dir = tree(&[("README.md", b"not a pipeline")]);
    let error = outline(dir.path()).unwrap_err();
    assert_eq!(error.code(), SourceCode::NotANextflowRepository);
    assert!(error.recovery().contains("main.nf"));
}

#[test]
fn a_missing_root_is_an_io_error() {
    let dir = tree(&[]);
    let error = outline(&dir.path().join("gone")).unwrap_err();
    assert!(matches!(error, OutlineError::Io { .. }));
    assert_eq!(error.code(), DomainCode::Io);
}

#[test]
fn more_included_files_than_the_limit_are_refused() {
    let dir = tree(&[]);
    let mut main = String::new();
    for i in 0..10 {
        main.push_str(&format!("include {{ P{i} }} from './m{i}'\n"));
        write(dir.path(), &format!("m{i}.nf"), b"");
    }
    write(dir.path(), "main.nf", main.as_bytes());
    let limits = Limits {
        max_files: 5,
        ..Limits::default()
    };
    let error = outline_with(dir.path(), &limits).unwrap_err();
    assert_eq!(error.code(), SourceCode::OutlineLimitExceeded);
    assert!(matches!(
        error,
        OutlineError::LimitExceeded {
            what: "files",
            limit: 5
        }
    ));
}

#[test]
fn more_bytes_than_the_limit_are_refused() {
    let big = vec![b'\n'; 600];
    let dir = tree(&[("main.nf", b"include { A } from './a'\n"), ("a.nf", &big)]);
    let limits = Limits {
        max_total_bytes: 500,
        ..Limits::default()
    };
    let error = outline_with(dir.path(), &limits).unwrap_err();
    assert_eq!(error.code(), SourceCode::OutlineLimitExceeded);
}

#[test]
fn a_file_over_the_size_limit_is_skipped_with_a_diagnostic() {
    let big = format!("process BIG {{ script: 'x' }}\n{}", " ".repeat(2000));
    let dir = tree(&[
        (
            "main.nf",
            b"include { BIG } from './big'\nworkflow { BIG() }\n",
        ),
        ("big.nf", big.as_bytes()),
    ]);
    let limits = Limits {
        max_file_bytes: 1000,
        ..Limits::default()
    };
    let outline = outline_with(dir.path(), &limits).unwrap();
    assert!(outline.processes.is_empty());
    let codes: Vec<(DiagnosticCode, &str)> = outline
        .diagnostics
        .iter()
        .map(|d| (d.code, d.file.as_str()))
        .collect();
    assert_eq!(codes, vec![(DiagnosticCode::FileTooLarge, "big.nf")]);
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_tree_is_not_followed() {
    let outside = tree(&[("secret.nf", b"process SECRET { script: 'x' }\n")]);
    let dir = tree(&[("main.nf", b"include { SECRET } from './linked'\n")]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.nf"),
        dir.path().join("linked.nf"),
    )
    .unwrap();
    let outline = outline(dir.path()).unwrap();
    assert!(outline.processes.is_empty());
    assert_eq!(outline.includes[0].resolved, None);
    assert_eq!(
        outline.diagnostics[0].code,
        DiagnosticCode::UnresolvedInclude
    );
}

#[cfg(unix)]
#[test]
fn a_folder_linked_out_of_the_tree_is_not_followed() {
    let outside = tree(&[("secret.nf", b"process SECRET { script: 'x' }\n")]);
    let dir = tree(&[("main.nf", b"include { SECRET } from './modules/secret'\n")]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("modules")).unwrap();
    let outline = outline(dir.path()).unwrap();
    assert!(outline.processes.is_empty());
    assert_eq!(outline.includes[0].resolved, None);
}

#[cfg(unix)]
#[test]
fn a_link_inside_the_tree_is_followed() {
    let dir = tree(&[
        ("main.nf", b"include { P } from './alias'\n"),
        ("real/p.nf", b"process P { script: 'x' }\n"),
    ]);
    std::os::unix::fs::symlink(dir.path().join("real/p.nf"), dir.path().join("alias.nf")).unwrap();
    let outline = outline(dir.path()).unwrap();
    assert_eq!(outline.processes[0].name, "P");
}

#[test]
fn malformed_documents_are_diagnostics() {
    let dir = tree(&[
        (
            "main.nf",
            b"process P {\n conda \"${moduleDir}/environment.yml\"\n script:\n 'x'\n}\n",
        ),
        ("environment.yml", b"a: &a [*a, *a\n"),
        ("nextflow_schema.json", b"{\"$defs\": "),
    ]);
    let outline = outline(dir.path()).unwrap();
    let codes: Vec<(DiagnosticCode, &str)> = outline
        .diagnostics
        .iter()
        .map(|d| (d.code, d.file.as_str()))
        .collect();
    assert_eq!(
        codes,
        vec![
            (DiagnosticCode::InvalidDocument, "environment.yml"),
            (DiagnosticCode::InvalidDocument, "nextflow_schema.json"),
        ]
    );
    assert!(
        outline.processes[0]
            .conda
            .as_ref()
            .unwrap()
            .environment
            .is_none()
    );
}

/// Nine levels of nine aliases would expand to 387 million strings.
#[test]
fn an_alias_bomb_environment_is_refused_not_expanded() {
    let mut yaml = String::from("name: bomb\nx0: &x0 ['lol']\n");
    for level in 1..=9 {
        let previous = format!("*x{}", level - 1);
        let row = [previous.as_str(); 9].join(", ");
        yaml.push_str(&format!("x{level}: &x{level} [{row}]\n"));
    }
    yaml.push_str("dependencies: *x9\n");
    let dir = tree(&[
        ("main.nf", b"process P {\n exec:\n 1\n}\n"),
        ("environment.yml", yaml.as_bytes()),
    ]);
    let outline = outline(dir.path()).unwrap();
    assert_eq!(outline.diagnostics[0].code, DiagnosticCode::InvalidDocument);
    assert!(
        outline.processes[0]
            .conda
            .as_ref()
            .unwrap()
            .environment
            .is_none()
    );
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_tokenizer(src in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let lexed = lexer::lex(&src, 16);
        for token in &lexed.tokens {
            prop_assert!(token.start <= token.end && token.end <= src.len());
        }
    }

    #[test]
    fn arbitrary_bytes_as_a_script_never_panic(src in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let dir = tree(&[("main.nf", &src), ("nextflow.config", &src)]);
        prop_assert!(outline(dir.path()).is_ok());
    }

    /// Groovy's punctuation in random order reaches the parser's corners far
    /// more often than uniform bytes do.
    #[test]
    fn groovy_shaped_noise_never_panics(src in "(workflow|process|include|main:|emit:|take:|input:|output:|if|else|set|out|[A-Z]|[a-z]|[{}()\\[\\]'\"/$\\\\.,:=?|*\n ]){0,300}") {
        let dir = tree(&[("main.nf", src.as_bytes())]);
        prop_assert!(outline(dir.path()).is_ok());
    }
}
