//! Outlines of real nf-core pipelines (see `tests/data/README.md`),
//! snapshotted, and the outline's JSON Schema.

use crate::common::data;
use somite_outline::{Outline, outline};

fn snapshot(name: &str) {
    let outline = outline(&data(name)).expect("outline");
    insta::assert_json_snapshot!(name, outline);
}

#[test]
fn nf_core_demo_1_0_0() {
    snapshot("nf-core-demo-1.0.0");
}

#[test]
fn nf_core_demo_1_0_1() {
    snapshot("nf-core-demo-1.0.1");
}

#[test]
fn nf_core_fetchngs_1_12_0() {
    snapshot("nf-core-fetchngs-1.12.0");
}

#[test]
fn outline_json_schema() {
    // Sorted: serde_json's key order depends on whether another crate in
    // the build turned on its `preserve_order` feature.
    insta::with_settings!({ sort_maps => true }, {
        insta::assert_json_snapshot!("outline-schema", schemars::schema_for!(Outline));
    });
}

#[test]
fn outlining_twice_gives_the_same_bytes() {
    let dir = data("nf-core-fetchngs-1.12.0");
    let first = serde_json::to_string(&outline(&dir).unwrap()).unwrap();
    let second = serde_json::to_string(&outline(&dir).unwrap()).unwrap();
    assert_eq!(first, second);
}

/// 2020-12 `$defs` (demo 1.0.1) and draft-07 `definitions` (demo 1.0.0)
/// give the same typed parameters.
#[test]
fn both_schema_dialects_give_groups_and_typed_params() {
    for name in ["nf-core-demo-1.0.0", "nf-core-demo-1.0.1"] {
        let outline = outline(&data(name)).unwrap();
        assert_eq!(outline.param_groups[0].id, "input_output_options", "{name}");
        let input = outline.params.iter().find(|p| p.name == "input").unwrap();
        assert!(input.required, "{name}");
        assert_eq!(input.format.as_deref(), Some("file-path"), "{name}");
        assert_eq!(input.exists, Some(true), "{name}");
        assert_eq!(input.group.as_deref(), Some("input_output_options"));
        let outdir = outline.params.iter().find(|p| p.name == "outdir").unwrap();
        assert_eq!(outdir.format.as_deref(), Some("directory-path"), "{name}");
    }
}
