//! `export`: a deterministic, readable ZIP of the compiled package and the
//! evidence recorded for its graph revision.

use crate::compile_fixture::*;
use somite_project::compiled::Toolchain;
use somite_project::export::export;
use somite_workflow::ErrorCode;
use std::fs;

/// The entries of a stored (uncompressed) ZIP, read from its local headers,
/// with each CRC checked.
fn read_zip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let mut entries = Vec::new();
    let mut at = 0;
    while u32_at(at) == 0x0403_4b50 {
        assert_eq!(u16_at(at + 8), 0, "stored, not compressed");
        assert_eq!(
            (u16_at(at + 10), u16_at(at + 12)),
            (0, 0x21),
            "fixed timestamp"
        );
        let crc = u32_at(at + 14);
        let size = u32_at(at + 18) as usize;
        let name_len = u16_at(at + 26);
        assert_eq!(u16_at(at + 28), 0, "no extra field");
        let name = String::from_utf8(bytes[at + 30..at + 30 + name_len].to_vec()).unwrap();
        let data = bytes[at + 30 + name_len..at + 30 + name_len + size].to_vec();
        assert_eq!(crc32fast::hash(&data), crc, "{name}");
        entries.push((name, data));
        at += 30 + name_len + size;
    }
    assert_eq!(u32_at(at), 0x0201_4b50, "the central directory follows");
    entries
}

#[test]
fn exporting_twice_gives_identical_bytes_in_the_documented_layout() {
    let fixture = ready_project();
    let receipts = fixture.project.layout().evidence().join("receipts");
    fs::create_dir_all(&receipts).unwrap();
    let graph_revision = fixture.project.graph_revision();
    fs::write(
        receipts.join("a-passed.json"),
        format!(r#"{{"subject_graph_revision": "{graph_revision}", "result": "passed"}}"#),
    )
    .unwrap();
    fs::write(
        receipts.join("b-other.json"),
        r#"{"subject_graph_revision": "blake3:other", "result": "failed"}"#,
    )
    .unwrap();

    let out = fixture.root().join("export.zip");
    let first = export(&fixture.project, &Toolchain::without_pixi(), &out).unwrap();
    let bytes = fs::read(&out).unwrap();
    let again = export(&fixture.project, &Toolchain::without_pixi(), &out).unwrap();
    assert_eq!(fs::read(&out).unwrap(), bytes);
    assert_eq!(first.archive_digest, again.archive_digest);
    assert_eq!(first.receipts, 1);

    let entries = read_zip(&bytes);
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for expected in [
        "main.nf",
        "nextflow.config",
        "params.json",
        "node-map.json",
        "pixi.toml",
        "workflow.somite.json",
        "assessment.json",
        "operators/qc.fastp.json",
        "run-closure.json",
        "README.md",
        "evidence/index.json",
        "evidence/receipts/a-passed.json",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    assert!(!names.contains(&"evidence/receipts/b-other.json"));
    assert!(!names.contains(&"pixi.lock"), "no lock without Pixi");
    let main = &entries.iter().find(|(n, _)| n == "main.nf").unwrap().1;
    assert_eq!(main, &first.compile.package.file("main.nf").unwrap().bytes);
    let index: serde_json::Value = serde_json::from_slice(
        &entries
            .iter()
            .find(|(n, _)| n == "evidence/index.json")
            .unwrap()
            .1,
    )
    .unwrap();
    assert_eq!(
        index["receipts"][0]["path"],
        "evidence/receipts/a-passed.json"
    );

    if let Ok(listing) = std::process::Command::new("unzip")
        .arg("-tq")
        .arg(&out)
        .output()
    {
        assert!(
            listing.status.success(),
            "{}",
            String::from_utf8_lossy(&listing.stdout)
        );
    }
}

#[test]
fn a_blocked_graph_is_not_exported() {
    let fixture = ready_project();
    fs::remove_file(fixture.root().join("data/R1.fastq")).unwrap();
    let out = fixture.root().join("export.zip");
    let err = export(&fixture.project, &Toolchain::without_pixi(), &out).unwrap_err();
    assert_eq!(err.code, ErrorCode::WorkflowNotReady);
    assert!(!out.exists());
}
