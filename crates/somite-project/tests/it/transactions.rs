//! The project store: compare-and-swap, idempotent replay across restarts,
//! and input-origin recovery.

use serde_json::{Value, json};
use somite_project::{Project, Seed};
use somite_workflow::ErrorCode;
use somite_workflow::assessment::ItemKind;
use somite_workflow::canonical::digest_bytes;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::GraphTransaction;

fn txn(base: &str, key: &str, operations: Value) -> GraphTransaction {
    serde_json::from_value(json!({
        "base_state_revision": base,
        "idempotency_key": key,
        "summary": "edit",
        "operations": operations,
    }))
    .unwrap()
}

fn add_reads() -> Value {
    json!([{"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "params": {"path": "reads.fastq"}, "x": 80, "y": 120}])
}

#[test]
fn a_transaction_is_published_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let outcome = project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    assert_eq!(outcome.previous_state_revision, base);
    assert!(!outcome.replayed);
    let reopened = Project::read(dir.path(), Seed::Empty).unwrap();
    assert_eq!(reopened.state_revision(), &outcome.state_revision);
    assert_eq!(reopened.graph_revision(), outcome.graph_revision);
    assert!(reopened.document().node("reads").is_some());
    reopened.ensure_bound().unwrap();
}

#[test]
fn a_stale_base_is_refused_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let first = project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    let err = project
        .apply_transaction(&txn(
            &base,
            "edit-00000002",
            json!([{"op": "set_title", "title": "other"}]),
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::StaleRevision);
    assert_eq!(
        err.details.unwrap()["current_state_revision"],
        json!(first.state_revision)
    );
    assert_eq!(project.state_revision(), &first.state_revision);
    assert_eq!(
        Project::read(dir.path(), Seed::Empty)
            .unwrap()
            .state_revision(),
        &first.state_revision
    );
}

#[test]
fn a_retry_replays_even_after_a_restart_and_a_changed_key_use_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let edit = txn(&base, "edit-00000001", add_reads());
    let original = project.apply_transaction(&edit).unwrap();
    drop(project);

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let replay = project.apply_transaction(&edit).unwrap();
    assert!(replay.replayed);
    assert_eq!(replay.state_revision, original.state_revision);
    assert_eq!(
        project.document().nodes.len(),
        1,
        "a replay applies nothing"
    );

    let mut different = edit.clone();
    different.summary = "another edit".into();
    let err = project.apply_transaction(&different).unwrap_err();
    assert_eq!(err.code, ErrorCode::IdempotencyConflict);
}

#[test]
fn a_rejected_transaction_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let err = project
        .apply_transaction(&txn(&base, "edit-00000001", json!([{"op": "add_operator", "node_id": "x", "operator_id": "nope.nope", "x": 0, "y": 0}])))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownOperator);
    assert!(!project.layout().graph().exists());
    // The key was not consumed by the failure.
    project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
}

#[test]
fn a_graph_that_does_not_match_its_sidecar_requires_an_explicit_rebind() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    let graph = project.layout().graph();
    let recorded = digest_bytes(&std::fs::read(&graph).unwrap());
    drop(project);

    // What a crash between the graph and the sidecar publication leaves.
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&graph).unwrap()).unwrap();
    doc["title"] = json!("recovered");
    let changed = serde_json::to_vec(&doc).unwrap();
    std::fs::write(&graph, &changed).unwrap();

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    assert!(project.recovery_needed().is_some());
    // The assessment leads with it, naming the file and both digests.
    let assessment = project.assess_graph();
    let item = &assessment.items[0];
    assert_eq!(item.kind, ItemKind::InputOrigin);
    assert!(item.required);
    assert_eq!(assessment.next_requirement.as_ref(), Some(&item.id));
    let file = item.evidence.file.as_ref().unwrap();
    assert_eq!(file.path, project.layout().graph_location());
    assert!(file.found);
    assert_eq!(file.recorded_digest.as_ref(), Some(&recorded));
    assert_eq!(file.found_digest.as_ref(), Some(&digest_bytes(&changed)));
    assert_eq!(file.recorded_location, None, "the location itself matches");
    assert_eq!(
        project.ensure_bound().unwrap_err().code,
        ErrorCode::InputOriginRecoveryRequired
    );
    let base = project.state_revision().clone();
    let err = project
        .apply_transaction(&txn(
            &base,
            "edit-00000002",
            json!([{"op": "set_title", "title": "x"}]),
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InputOriginRecoveryRequired);

    project.rebind().unwrap();
    assert_eq!(project.document().title, "recovered");
    assert!(
        project
            .assess_graph()
            .items
            .iter()
            .all(|i| i.kind != ItemKind::InputOrigin)
    );
    let base = project.state_revision().clone();
    project
        .apply_transaction(&txn(
            &base,
            "edit-00000002",
            json!([{"op": "set_title", "title": "x"}]),
        ))
        .unwrap();
    assert!(
        Project::read(dir.path(), Seed::Empty)
            .unwrap()
            .recovery_needed()
            .is_none()
    );
}

#[test]
fn a_missing_sidecar_also_requires_a_rebind() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    std::fs::remove_file(project.layout().input_origin_ring()).unwrap();
    let project = Project::read(dir.path(), Seed::Empty).unwrap();
    assert_eq!(
        project.ensure_bound().unwrap_err().code,
        ErrorCode::InputOriginRecoveryRequired
    );
}

#[test]
fn an_oversized_document_is_refused_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let layout = somite_project::Layout::new(dir.path());
    let graph = layout.graph();
    std::fs::create_dir_all(graph.parent().unwrap()).unwrap();
    let file = std::fs::File::create(&graph).unwrap();
    file.set_len(somite_workflow::limits::MAX_DOCUMENT_BYTES + 1)
        .unwrap();
    let err = Project::open(dir.path(), Seed::Empty).unwrap_err();
    assert_eq!(err.code, ErrorCode::PayloadTooLarge);
}

#[test]
fn a_corrupt_document_is_refused_with_a_structured_error() {
    let dir = tempfile::tempdir().unwrap();
    let layout = somite_project::Layout::new(dir.path());
    let graph = layout.graph();
    std::fs::create_dir_all(graph.parent().unwrap()).unwrap();
    std::fs::write(&graph, b"{not json").unwrap();
    let err = Project::open(dir.path(), Seed::Empty).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidDocument);
    assert_eq!(
        std::fs::read(&graph).unwrap(),
        b"{not json",
        "nothing is overwritten"
    );
}

#[test]
fn the_example_seed_is_a_valid_graph_needing_input_files() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Example).unwrap();
    assert!(project.document().nodes.len() >= 3);
    let assessment = project.assess(&somite_project::compiled::Toolchain::without_pixi());
    assert!(assessment.required_count > 0);
    assert!(!project.layout().graph().exists(), "opening writes nothing");
}

#[test]
fn a_portable_document_saves_and_imports_with_cas() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Example).unwrap();
    let file = dir.path().join("exported.somite.json");
    project.save_document(&file).unwrap();
    let saved_graph = project.graph_revision();

    let other = tempfile::tempdir().unwrap();
    let mut target = Project::open(other.path(), Seed::Empty).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let err = target.import_document(&bytes, "blake3:stale").unwrap_err();
    assert_eq!(err.code, ErrorCode::StaleRevision);
    let base = target.state_revision().clone();
    let outcome = target.import_document(&bytes, &base).unwrap();
    assert_eq!(
        outcome.graph_revision, saved_graph,
        "the semantic identity travels with the document"
    );
    assert!(
        Project::read(other.path(), Seed::Empty)
            .unwrap()
            .recovery_needed()
            .is_none()
    );

    let base = target.state_revision().clone();
    let err = target
        .import_document(b"{\"schema_version\": 9}", &base)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidDocument);
    let huge = vec![b' '; somite_workflow::limits::MAX_DOCUMENT_BYTES as usize + 1];
    assert_eq!(
        target.import_document(&huge, &base).unwrap_err().code,
        ErrorCode::PayloadTooLarge
    );
    assert_eq!(
        target.state_revision(),
        &base,
        "a refused import changes nothing"
    );
}

#[test]
fn an_edit_whose_graph_never_landed_is_forgotten_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let first = project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    let graph = project.layout().graph();
    let committed = std::fs::read(&graph).unwrap();
    let second = txn(
        &first.state_revision,
        "edit-00000002",
        json!([{"op": "set_title", "title": "second"}]),
    );
    project.apply_transaction(&second).unwrap();
    drop(project);
    // What a crash after the sidecar's publication and before the graph's
    // leaves: the commit record of edit 2 beside the graph of edit 1.
    std::fs::write(&graph, &committed).unwrap();

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    assert!(project.recovery_needed().is_none(), "recovered by itself");
    assert_eq!(project.state_revision(), &first.state_revision);
    let retried = project.apply_transaction(&second).unwrap();
    assert!(
        !retried.replayed,
        "the key of an edit that never landed does not claim it did"
    );
    assert_eq!(project.document().title, "second");
    let replayed = project
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();
    assert!(replayed.replayed, "the landed edit's key still replays");
}

#[test]
fn an_older_project_keeps_its_idempotency_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let edit = txn(&base, "edit-00000001", add_reads());
    let original = project.apply_transaction(&edit).unwrap();
    let layout = project.layout().clone();
    drop(project);
    // The layout before the records joined the sidecar: a single-file
    // sidecar without them, and the records in a file of their own.
    let mut sidecar = newest_record(&layout);
    let records = sidecar
        .as_object_mut()
        .unwrap()
        .remove("transactions")
        .unwrap();
    sidecar.as_object_mut().unwrap().remove("replaces");
    write_legacy_sidecar(&layout, &sidecar);
    let legacy = layout.legacy_transaction_records();
    std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
    std::fs::write(&legacy, serde_json::to_vec(&records).unwrap()).unwrap();

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    project.ensure_bound().unwrap();
    assert!(!legacy.exists(), "the records moved into the sidecar");
    assert!(!layout.legacy_input_origin().exists());
    assert_eq!(newest_record(&layout)["transactions"], records);
    let replay = project.apply_transaction(&edit).unwrap();
    assert!(replay.replayed);
    assert_eq!(replay.state_revision, original.state_revision);
}

#[test]
fn one_writer_per_project_and_readers_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = writer.state_revision().clone();
    let outcome = writer
        .apply_transaction(&txn(&base, "edit-00000001", add_reads()))
        .unwrap();

    // Another process's publication in progress must survive any reader.
    let data = writer.layout().data();
    let in_progress = data.join(".web.somite.json.4194304.0.tmp");
    std::fs::write(&in_progress, b"half").unwrap();
    let listing = || {
        let mut entries: Vec<_> = walk(&data)
            .into_iter()
            .map(|p| {
                let meta = std::fs::metadata(&p).unwrap();
                (p, meta.len(), meta.modified().unwrap())
            })
            .collect();
        entries.sort();
        entries
    };
    // The writer's autosave copy is written after the answer; let it land
    // so the listing only sees what the reader might do.
    writer.flush_autosave();
    let before = listing();
    let reader = Project::read(dir.path(), Seed::Empty).unwrap();
    assert_eq!(reader.state_revision(), &outcome.state_revision);
    reader.ensure_bound().unwrap();
    assert_eq!(listing(), before, "reading changes nothing on disk");

    let mut reader = reader;
    let err = reader
        .apply_transaction(&txn(
            &outcome.state_revision,
            "edit-00000002",
            json!([{"op": "set_title", "title": "x"}]),
        ))
        .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::ProjectInUse,
        "a read-only view never writes"
    );

    let started = std::time::Instant::now();
    let err = Project::open(dir.path(), Seed::Empty).unwrap_err();
    assert_eq!(err.code, ErrorCode::ProjectInUse);
    assert!(
        started.elapsed() >= somite_project::lock::LOCK_WAIT,
        "a second writer waited for the first"
    );

    drop(writer);
    let reopened = Project::open(dir.path(), Seed::Empty).unwrap();
    assert_eq!(reopened.state_revision(), &outcome.state_revision);
    assert!(
        !in_progress.exists(),
        "the writer, under the lock, removes strays"
    );
}

/// The autosave copy as written: the state it was taken at and the document.
fn read_autosave(layout: &somite_project::Layout) -> (String, WorkflowDocument) {
    let copy: Value = serde_json::from_slice(&std::fs::read(layout.autosave()).unwrap()).unwrap();
    let document = serde_json::to_vec(&copy["document"]).unwrap();
    (
        copy["state_revision"].as_str().unwrap().to_owned(),
        WorkflowDocument::from_json(&document).unwrap(),
    )
}

#[test]
fn the_autosave_copy_catches_up_with_the_newest_state_after_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let mut outcome = project
        .apply_transaction(&txn(project.state_revision(), "edit-00000001", add_reads()))
        .unwrap();
    for i in 2..=5 {
        outcome = project
            .apply_transaction(&txn(
                &outcome.state_revision,
                &format!("edit-{i:08}"),
                json!([{"op": "set_title", "title": format!("title {i}")}]),
            ))
            .unwrap();
    }
    project.flush_autosave();
    let (revision, document) = read_autosave(project.layout());
    assert_eq!(revision, outcome.state_revision);
    assert_eq!(&document, project.document());

    // Closing the project writes the state still pending.
    let last = project
        .apply_transaction(&txn(
            &outcome.state_revision,
            "edit-00000006",
            json!([{"op": "set_title", "title": "last"}]),
        ))
        .unwrap();
    let layout = project.layout().clone();
    drop(project);
    let (revision, document) = read_autosave(&layout);
    assert_eq!(revision, last.state_revision);
    assert_eq!(document.title, "last");
}

#[test]
fn an_autosave_that_cannot_be_written_never_fails_the_edit() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    // A folder where the copy belongs: no file can be renamed over it.
    let autosave = project.layout().autosave();
    std::fs::create_dir_all(autosave.join("occupied")).unwrap();
    let first = project
        .apply_transaction(&txn(project.state_revision(), "edit-00000001", add_reads()))
        .unwrap();
    project.flush_autosave();
    assert!(autosave.is_dir(), "the copy was not written");
    let reopened = Project::read(dir.path(), Seed::Empty).unwrap();
    assert_eq!(reopened.state_revision(), &first.state_revision);
    reopened.ensure_bound().unwrap();

    // The next edit's copy is written once the way is clear.
    std::fs::remove_dir_all(&autosave).unwrap();
    let second = project
        .apply_transaction(&txn(
            &first.state_revision,
            "edit-00000002",
            json!([{"op": "set_title", "title": "second"}]),
        ))
        .unwrap();
    project.flush_autosave();
    assert_eq!(read_autosave(project.layout()).0, second.state_revision);
}

#[test]
fn the_graph_file_is_exactly_the_states_canonical_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    project
        .apply_transaction(&txn(project.state_revision(), "edit-00000001", add_reads()))
        .unwrap();
    let file = std::fs::read(project.layout().graph()).unwrap();
    assert_eq!(file, project.snapshot().json()[..].to_vec());
    let document = WorkflowDocument::from_json(&file).unwrap();
    assert_eq!(document.canonical_json(), file, "one serialization, kept");
    // The autosave copy carries the same bytes as its document.
    project.flush_autosave();
    let copy = std::fs::read(project.layout().autosave()).unwrap();
    assert!(copy.windows(file.len()).any(|w| w == file));
}

#[test]
fn a_project_in_the_single_file_sidecar_format_with_an_indented_graph_opens_bound_and_migrates() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let edit = txn(&base, "edit-00000001", add_reads());
    let first = project.apply_transaction(&edit).unwrap();
    let layout = project.layout().clone();
    drop(project);
    // What the previous version wrote: the graph indented, and its sidecar
    // (records included) as one file binding those bytes.
    let compact = std::fs::read(layout.graph()).unwrap();
    let document = WorkflowDocument::from_json(&compact).unwrap();
    let pretty = serde_json::to_vec_pretty(&document).unwrap();
    assert_ne!(pretty, compact);
    std::fs::write(layout.graph(), &pretty).unwrap();
    let mut sidecar = newest_record(&layout);
    sidecar["document_digest"] = json!(digest_bytes(&pretty));
    write_legacy_sidecar(&layout, &sidecar);

    // A reader sees it bound and changes nothing.
    let reader = Project::read(dir.path(), Seed::Empty).unwrap();
    reader.ensure_bound().unwrap();
    assert_eq!(reader.state_revision(), &first.state_revision);
    assert!(layout.legacy_input_origin().exists());

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    project.ensure_bound().unwrap();
    assert_eq!(project.state_revision(), &first.state_revision);
    assert!(
        !layout.legacy_input_origin().exists(),
        "moved into the ring"
    );
    assert_eq!(
        newest_record(&layout)["document_digest"],
        json!(digest_bytes(&pretty))
    );
    assert_eq!(
        std::fs::read(layout.graph()).unwrap(),
        pretty,
        "the graph is untouched until an edit"
    );
    assert!(project.apply_transaction(&edit).unwrap().replayed);
    let second = project
        .apply_transaction(&txn(
            &first.state_revision,
            "edit-00000002",
            json!([{"op": "set_title", "title": "second"}]),
        ))
        .unwrap();
    drop(project);
    let reopened = Project::read(dir.path(), Seed::Empty).unwrap();
    reopened.ensure_bound().unwrap();
    assert_eq!(reopened.state_revision(), &second.state_revision);
    assert_eq!(
        std::fs::read(layout.graph()).unwrap(),
        reopened.snapshot().json()[..].to_vec()
    );
}

#[test]
fn a_project_in_the_two_slot_sidecar_format_opens_bound_and_moves_into_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let first_edit = txn(project.state_revision(), "edit-00000001", add_reads());
    let first = project.apply_transaction(&first_edit).unwrap();
    let second_edit = txn(
        &first.state_revision,
        "edit-00000002",
        json!([{"op": "set_title", "title": "second"}]),
    );
    let second = project.apply_transaction(&second_edit).unwrap();
    let layout = project.layout().clone();
    drop(project);
    // What the previous version wrote: two slots, each a whole commit
    // record with every idempotency record. The one with the higher
    // sequence number was torn by a crash (and binds some other graph), so
    // the whole one, which binds the second edit's graph, is the record.
    let newest = newest_record(&layout);
    let mut unfinished = newest.clone();
    unfinished["document_digest"] = json!("blake3:0000");
    unfinished["transactions"].as_array_mut().unwrap().pop();
    std::fs::remove_file(layout.input_origin_ring()).unwrap();
    let [slot0, slot1] = layout.legacy_input_origin_slots();
    std::fs::write(&slot0, v1_slot(7, &newest)).unwrap();
    let torn = v1_slot(8, &unfinished);
    std::fs::write(&slot1, &torn[..torn.len() - 3]).unwrap();

    let reader = Project::read(dir.path(), Seed::Empty).unwrap();
    reader.ensure_bound().unwrap();
    assert_eq!(reader.state_revision(), &second.state_revision);
    assert!(slot0.exists(), "a reader writes nothing");

    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    project.ensure_bound().unwrap();
    assert!(!slot0.exists() && !slot1.exists(), "moved into the ring");
    assert_eq!(
        newest_record(&layout)["transactions"],
        newest["transactions"]
    );
    assert!(project.apply_transaction(&first_edit).unwrap().replayed);
    assert!(project.apply_transaction(&second_edit).unwrap().replayed);
    let third = project
        .apply_transaction(&txn(
            &second.state_revision,
            "edit-00000003",
            json!([{"op": "set_title", "title": "third"}]),
        ))
        .unwrap();
    drop(project);
    let reopened = Project::read(dir.path(), Seed::Empty).unwrap();
    reopened.ensure_bound().unwrap();
    assert_eq!(reopened.state_revision(), &third.state_revision);
}

#[test]
fn a_migration_interrupted_after_the_ring_was_written_finishes_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let edit = txn(project.state_revision(), "edit-00000001", add_reads());
    let first = project.apply_transaction(&edit).unwrap();
    let layout = project.layout().clone();
    drop(project);
    // A whole ring, and beside it stale sidecars of both older formats that
    // bind some other graph: the ring wins, the old files go.
    let mut stale = newest_record(&layout);
    stale["document_digest"] = json!("blake3:0000");
    std::fs::write(
        layout.legacy_input_origin(),
        serde_json::to_vec(&stale).unwrap(),
    )
    .unwrap();
    std::fs::write(&layout.legacy_input_origin_slots()[1], v1_slot(9, &stale)).unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    project.ensure_bound().unwrap();
    assert_eq!(project.state_revision(), &first.state_revision);
    assert!(!layout.legacy_input_origin().exists());
    assert!(!layout.legacy_input_origin_slots()[1].exists());
}

/// The files of a project between two edits.
struct Files {
    graph: Vec<u8>,
    ring: Vec<u8>,
}

fn files(layout: &somite_project::Layout) -> Files {
    Files {
        graph: std::fs::read(layout.graph()).unwrap(),
        ring: std::fs::read(layout.input_origin_ring()).unwrap(),
    }
}

/// Three edits, with the project's files after the second; the third
/// wrote one entry of the ring in place and left the others alone.
fn three_edits(dir: &std::path::Path) -> (Files, [GraphTransaction; 3], [String; 3]) {
    let mut project = Project::open(dir, Seed::Empty).unwrap();
    let mut edits = Vec::new();
    let mut revisions = Vec::new();
    let mut after_second = None;
    for (i, ops) in [
        add_reads(),
        json!([{"op": "set_title", "title": "second"}]),
        json!([{"op": "set_title", "title": "third"}]),
    ]
    .into_iter()
    .enumerate()
    {
        let edit = txn(project.state_revision(), &format!("edit-{:08}", i + 1), ops);
        revisions.push(project.apply_transaction(&edit).unwrap().state_revision);
        edits.push(edit);
        if i == 1 {
            after_second = Some(files(project.layout()));
        }
    }
    let after_second = after_second.unwrap();
    let now = files(project.layout());
    let third = entry_at(&now.ring, newest_seq(&now.ring));
    assert_eq!(now.ring.len(), after_second.ring.len());
    for (i, (new, old)) in now.ring.iter().zip(&after_second.ring).enumerate() {
        assert!(
            new == old || third.contains(&i),
            "the third edit changed byte {i}, outside its entry"
        );
    }
    (
        after_second,
        edits.try_into().unwrap(),
        revisions.try_into().unwrap(),
    )
}

#[test]
fn an_entry_torn_by_a_crash_is_ignored_and_its_edit_never_happened() {
    let dir = tempfile::tempdir().unwrap();
    let (second, edits, revisions) = three_edits(dir.path());
    let layout = somite_project::Layout::new(dir.path());
    // A crash while the third edit overwrote its entry in place: the graph
    // is still the second's, and the entry a mix of the new bytes and what
    // it was replacing.
    let mut ring = std::fs::read(layout.input_origin_ring()).unwrap();
    let third = entry_at(&ring, newest_seq(&ring));
    let half = third.start + (third.end - third.start) / 2;
    ring[half..].copy_from_slice(&second.ring[half..]);
    std::fs::write(layout.input_origin_ring(), &ring).unwrap();
    std::fs::write(layout.graph(), &second.graph).unwrap();

    let reader = Project::read(dir.path(), Seed::Empty).unwrap();
    reader.ensure_bound().unwrap();
    assert_eq!(reader.state_revision(), &revisions[1]);
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    assert!(project.recovery_needed().is_none(), "recovered by itself");
    assert_eq!(project.state_revision(), &revisions[1]);
    assert!(project.apply_transaction(&edits[1]).unwrap().replayed);
    let retried = project.apply_transaction(&edits[2]).unwrap();
    assert!(!retried.replayed, "the torn entry's edit never happened");
    assert_eq!(project.document().title, "third");
    drop(project);
    let reopened = Project::open(dir.path(), Seed::Empty).unwrap();
    assert_eq!(reopened.document().title, "third");
    reopened.ensure_bound().unwrap();
}

#[test]
fn the_newest_whole_entry_decides_and_an_edit_whose_graph_never_landed_is_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let (second, edits, revisions) = three_edits(dir.path());
    let layout = somite_project::Layout::new(dir.path());
    // The third edit's entry is whole, its graph never renamed.
    std::fs::write(layout.graph(), &second.graph).unwrap();

    let reader = Project::read(dir.path(), Seed::Empty).unwrap();
    reader.ensure_bound().unwrap();
    assert_eq!(reader.state_revision(), &revisions[1]);
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    assert!(project.recovery_needed().is_none());
    assert_eq!(project.state_revision(), &revisions[1]);
    assert!(project.apply_transaction(&edits[0]).unwrap().replayed);
    assert!(project.apply_transaction(&edits[1]).unwrap().replayed);
    let retried = project.apply_transaction(&edits[2]).unwrap();
    assert!(!retried.replayed);
    assert_eq!(
        retried.state_revision, revisions[2],
        "the same edit, applied afresh"
    );
    drop(project);
    let keys: Vec<_> = newest_record(&layout)["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        keys,
        ["edit-00000001", "edit-00000002", "edit-00000003"],
        "the forgotten record is gone, and the retry's is there once"
    );
}

#[test]
fn a_newest_entry_damaged_by_hand_under_a_newer_graph_requires_a_rebind() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, revisions) = three_edits(dir.path());
    let layout = somite_project::Layout::new(dir.path());
    // The graph is the third edit's; only the second's entry is whole, and
    // it records neither that graph nor the one it replaced.
    let mut ring = std::fs::read(layout.input_origin_ring()).unwrap();
    let third = entry_at(&ring, newest_seq(&ring));
    ring[third.start + 100] ^= 1;
    std::fs::write(layout.input_origin_ring(), &ring).unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    assert_eq!(
        project.state_revision(),
        &revisions[2],
        "the graph on disk is shown"
    );
    assert_eq!(
        project.ensure_bound().unwrap_err().code,
        ErrorCode::InputOriginRecoveryRequired
    );
}

#[test]
fn a_reader_beside_a_committing_writer_only_ever_sees_committed_states_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Project::open(dir.path(), Seed::Empty).unwrap();
    let first = writer
        .apply_transaction(&txn(writer.state_revision(), "edit-00000000", add_reads()))
        .unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (root, done) = (dir.path().to_owned(), done.clone());
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) || seen.is_empty() {
                let project = Project::read(&root, Seed::Empty).unwrap();
                project.ensure_bound().unwrap();
                seen.push(project.state_revision().clone());
            }
            seen
        })
    };
    let mut committed = vec![first.state_revision];
    for i in 1..=60 {
        let outcome = writer
            .apply_transaction(&txn(
                committed.last().unwrap(),
                &format!("edit-{i:08}"),
                json!([{"op": "move", "node_id": "reads", "x": i, "y": 0}]),
            ))
            .unwrap();
        committed.push(outcome.state_revision);
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = reader.join().unwrap();
    for revision in &seen {
        assert!(
            committed.contains(revision),
            "{revision} was never committed"
        );
    }
}

const RING_MAGIC: &[u8] = b"somite-commit v2 ";

/// The ring's whole entries: where each lies, its sequence number and its
/// JSON. An entry is a header line, `somite-commit v2 seq=… len=… crc32=…`,
/// then its JSON on one line, then padding.
fn ring_entries(ring: &[u8]) -> Vec<(std::ops::Range<usize>, u64, Value)> {
    let mut entries = Vec::new();
    let mut at = 0;
    while let Some(found) = ring[at..]
        .windows(RING_MAGIC.len())
        .position(|w| w == RING_MAGIC)
    {
        let start = at + found;
        let header_end = start + ring[start..].iter().position(|&b| b == b'\n').unwrap();
        let header = std::str::from_utf8(&ring[start..header_end]).unwrap();
        let field = |name: &str| -> u64 {
            header
                .split(' ')
                .find_map(|f| f.strip_prefix(name))
                .unwrap()
                .parse()
                .unwrap()
        };
        let (seq, len) = (field("seq="), field("len=") as usize);
        let json = &ring[header_end + 1..header_end + 1 + len];
        if let Ok(value) = serde_json::from_slice(json) {
            entries.push((start..header_end + 2 + len, seq, value));
        }
        at = header_end;
    }
    entries
}

fn newest_seq(ring: &[u8]) -> u64 {
    ring_entries(ring)
        .iter()
        .map(|(_, seq, _)| *seq)
        .max()
        .unwrap()
}

/// Where the entry with sequence number `seq` lies in the ring.
fn entry_at(ring: &[u8], seq: u64) -> std::ops::Range<usize> {
    ring_entries(ring)
        .into_iter()
        .find(|(_, s, _)| *s == seq)
        .unwrap()
        .0
}

/// The newest entry's commit record, with the records of every entry,
/// oldest first: the commit record as the older formats held it.
fn newest_record(layout: &somite_project::Layout) -> Value {
    let mut entries = ring_entries(&std::fs::read(layout.input_origin_ring()).unwrap());
    entries.sort_by_key(|(_, seq, _)| *seq);
    let records: Vec<Value> = entries
        .iter()
        .filter_map(|(_, _, entry)| entry.get("transaction").cloned())
        .collect();
    let mut record = entries.last().unwrap().2["commit"].clone();
    record["transactions"] = Value::Array(records);
    record
}

/// A slot of the two-slot format: a header line, then the whole commit
/// record (every idempotency record included) on one line.
fn v1_slot(seq: u64, record: &Value) -> Vec<u8> {
    let json = serde_json::to_vec(record).unwrap();
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&seq.to_le_bytes());
    hasher.update(&json);
    let mut slot = format!(
        "somite-commit v1 seq={seq} len={} crc32={:08x}\n",
        json.len(),
        hasher.finalize()
    )
    .into_bytes();
    slot.extend_from_slice(&json);
    slot.push(b'\n');
    slot
}

/// Puts the project's sidecar back in the single-file format of earlier
/// versions: `record` in `input-origins/web.json`, and no ring.
fn write_legacy_sidecar(layout: &somite_project::Layout, record: &Value) {
    std::fs::remove_file(layout.input_origin_ring()).unwrap();
    std::fs::write(
        layout.legacy_input_origin(),
        serde_json::to_vec_pretty(record).unwrap(),
    )
    .unwrap();
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Each edit's state is built from the previous state's bytes for what the
/// edit left alone; after edits of every native kind, its canonical JSON,
/// graph revision and state revision are those written from scratch, and
/// those a reopened project computes from the file.
#[test]
fn an_edit_state_built_from_the_previous_one_is_the_state_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Example).unwrap();
    let edits = [
        json!([{"op": "add_operator", "node_id": "r0", "operator_id": "files.import", "params": {"path": "reads.fastq"}, "x": 80, "y": 120}]),
        json!([
            {"op": "add_operator", "node_id": "q0", "operator_id": "qc.fastqc", "x": 1, "y": 2},
            {"op": "add_operator", "node_id": "t0", "operator_id": "qc.fastp", "params": {"threads": 2}, "x": 3, "y": 4},
            {"op": "connect", "edge_id": "e-qc", "from_node": "r0", "from_port": "file", "to_node": "q0", "to_port": "reads"},
        ]),
        json!([
            {"op": "set_param", "node_id": "q0", "param": "threads", "value": 3},
            {"op": "move", "node_id": "r0", "x": -5.25, "y": 1e-3},
            {"op": "add_note", "note_id": "n1", "text": "a \"quoted\" note\nü", "x": 0, "y": 0},
        ]),
        json!([
            {"op": "unset_param", "node_id": "q0", "param": "threads"},
            {"op": "edit_note", "note_id": "n1", "text": "edited"},
            {"op": "set_title", "title": "Renamed ✓"},
        ]),
        json!([{"op": "disconnect", "edge_id": "e-qc"}, {"op": "remove_note", "note_id": "n1"}]),
        json!([{"op": "remove_operator", "node_id": "t0"}]),
        json!([{"op": "remove_operator", "node_id": "r0"}, {"op": "move", "node_id": "q0", "x": 9, "y": 9}]),
    ];
    for (i, operations) in edits.into_iter().enumerate() {
        let base = project.state_revision().clone();
        let outcome = project
            .apply_transaction(&txn(&base, &format!("edit-{i:08}"), operations))
            .unwrap();
        let snapshot = project.snapshot();
        let document = snapshot.document();
        assert_eq!(
            &snapshot.json()[..],
            somite_workflow::canonical::to_canonical_json(document).as_bytes(),
            "edit {i}"
        );
        assert_eq!(snapshot.graph_revision(), &document.graph_revision());
        assert_eq!(outcome.graph_revision, document.graph_revision());
        let reopened = Project::read(dir.path(), Seed::Empty).unwrap();
        assert_eq!(
            reopened.state_revision(),
            &outcome.state_revision,
            "edit {i}"
        );
        assert_eq!(reopened.graph_revision(), outcome.graph_revision);
    }
}
