//! The Operator Workshop over real HTTP: every draft rule refused with its
//! code and field, replay and limits, acceptance that reloads the live
//! catalog without touching pinned nodes, and acceptance absent from the
//! agent's router even with a live capability, and only after a passed
//! proof of that exact candidate (through the supervisor with the STAND-IN
//! for `pixi`, and the real `seqtk` that `scripts/setup` installs).

use crate::support::assert_envelope;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use somite_api::headers::CAPABILITY;
use somite_project::{Project, Seed};
use somite_server::RunningServer;
use somite_server::config::ServerConfig;

struct Harness {
    server: RunningServer,
    client: Client,
    _dir: tempfile::TempDir,
}

impl Harness {
    async fn start() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::open(dir.path(), Seed::Empty).unwrap();
        let config = ServerConfig {
            pixi: Some(pixi_standin()),
            ..ServerConfig::loopback(dir.path(), "somite").unwrap()
        };
        let server = somite_server::start(&config, project).await.unwrap();
        Harness {
            server,
            client: Client::new(),
            _dir: dir,
        }
    }

    /// Proves the candidate `digest` under `key` and waits for its end.
    async fn prove(&self, digest: &str, key: &str) -> Value {
        let (status, receipt) = self
            .post(
                &format!("/api/operator-candidates/{digest}/proofs"),
                &json!({"idempotency_key": key}),
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{receipt}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        loop {
            let (_, proof) = self
                .get(&format!("/api/operator-proofs/{key}?wait_ms=5000"))
                .await;
            if ["completed", "failed", "cancelled"]
                .contains(&proof["run"]["phase"].as_str().unwrap_or(""))
            {
                return proof;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the proof did not end: {proof}"
            );
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        (response.status(), response.json().await.unwrap())
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let response = self
            .client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap();
        (response.status(), response.json().await.unwrap())
    }
}

/// `seqtk seq -a` as a project operator (see seqtk's README).
fn draft() -> Value {
    json!({
        "contract": {
            "id": "project.fastq_to_fasta",
            "title": "seqtk seq -a: FASTQ to FASTA",
            "palette": "Project tools",
            "kind": "external",
            "cost": "trivial",
            "bin": "seqtk",
            "pixi": {"seqtk": "1.3"},
            "resources": {"cpus": 1, "memory_gb": 1},
            "stdout": "fasta",
            "argv": ["seqtk", "seq", "-a", "{input.reads}"],
            "ports": {
                "in": [{"name": "reads", "type": "Fastq", "union": ["FastqGz"]}],
                "out": [{"name": "fasta", "type": "Fasta"}]
            }
        },
        "evidence": {
            "documentation": "https://github.com/lh3/seqtk#seqtk-examples",
            "packages": ["seqtk==1.3"],
            "flags": [{"flag": "-a", "excerpt": "Convert FASTQ to FASTA:\n\n    seqtk seq -a in.fq.gz > out.fa"}]
        }
    })
}

/// `somite-pixi-standin`, the STAND-IN for Pixi and Nextflow the workspace
/// build puts beside this test binary's folder.
fn pixi_standin() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("somite-pixi-standin");
    assert!(
        path.is_file(),
        "{} is missing: build the workspace (`cargo build --workspace`)",
        path.display()
    );
    path
}

fn with(mut value: Value, pointer: &str, replacement: Value) -> Value {
    *value.pointer_mut(pointer).unwrap() = replacement;
    value
}

#[tokio::test]
async fn each_draft_rule_is_refused_with_its_code_and_field() {
    let h = Harness::start().await;
    let argv = |tokens: Value| with(draft(), "/contract/argv", tokens);
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "not under project.",
            with(draft(), "/contract/id", json!("seq.fastq_to_fasta")),
            "contract.id",
        ),
        (
            "an id longer than any operator's",
            with(
                draft(),
                "/contract/id",
                json!(format!("project.{}", "x".repeat(500))),
            ),
            "contract",
        ),
        (
            "shadows a reviewed id",
            with(draft(), "/contract/id", json!("project.fastp")),
            "contract.id",
        ),
        (
            "unknown field (the catalog's strict parse)",
            {
                let mut body = draft();
                body["contract"]["shell"] = json!(true);
                body
            },
            "contract",
        ),
        (
            "argv names an unknown input (the catalog's validator)",
            argv(json!(["seqtk", "seq", "-a", "{input.missing}"])),
            "contract",
        ),
        (
            "a shell",
            with(
                argv(json!(["bash", "-c", "seqtk seq -a {input.reads}"])),
                "/contract/bin",
                json!("bash"),
            ),
            "contract.bin",
        ),
        (
            "a Pixi call inside the argv",
            argv(json!(["seqtk", "pixi", "-a", "{input.reads}"])),
            "contract.argv[1]",
        ),
        (
            "a Docker binary",
            with(
                argv(json!(["docker", "run", "-a", "{input.reads}"])),
                "/contract/bin",
                json!("docker"),
            ),
            "contract.bin",
        ),
        (
            "a Nextflow pin",
            with(
                draft(),
                "/contract/pixi",
                json!({"seqtk": "1.3", "nextflow": "25.04.6"}),
            ),
            "contract.pixi.nextflow",
        ),
        (
            "not external",
            with(draft(), "/contract/kind", json!("inprocess")),
            "contract",
        ),
        (
            "no documentation",
            with(draft(), "/evidence/documentation", json!("see web")),
            "evidence.documentation",
        ),
        (
            "packages differ from the pins",
            with(draft(), "/evidence/packages", json!(["seqtk==1.4"])),
            "evidence.packages",
        ),
        (
            "a flag without its excerpt",
            with(draft(), "/evidence/flags", json!([])),
            "evidence.flags",
        ),
    ];
    for (why, body, field) in cases {
        let (status, refused) = h.post("/api/operator-candidates", &body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{why}: {refused}");
        assert_envelope(&refused, "invalid_candidate");
        assert_eq!(refused["details"]["field"], field, "{why}: {refused}");
    }
    // An interpreter given its program inline is a shell by another name.
    for (bin, tokens) in [
        (
            "python3",
            json!([
                "python3",
                "-c",
                "import sys; print(open(sys.argv[1]).read())",
                "{input.reads}"
            ]),
        ),
        ("perl", json!(["perl", "-ne", "print", "{input.reads}"])),
        ("awk", json!(["awk", "NR % 4 == 2", "{input.reads}"])),
    ] {
        let body = with(argv(tokens), "/contract/bin", json!(bin));
        let (status, refused) = h.post("/api/operator-candidates", &body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bin}: {refused}");
        assert_envelope(&refused, "inline_code");
        assert_eq!(refused["details"]["field"], "contract.argv", "{refused}");
    }
    let (_, listed) = h.get("/api/operator-candidates").await;
    assert_eq!(listed["candidates"], json!([]), "nothing refused was kept");

    let mut huge = draft();
    huge["evidence"]["flags"][0]["excerpt"] = json!(format!(
        "-a {}",
        "x".repeat(somite_api::limits::MAX_CANDIDATE_BYTES)
    ));
    let (status, refused) = h.post("/api/operator-candidates", &huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{refused}");
    assert_envelope(&refused, "candidate_limit");
}

#[tokio::test]
async fn a_draft_is_stored_once_replays_and_the_project_keeps_at_most_32() {
    let h = Harness::start().await;
    let (status, first) = h.post("/api/operator-candidates", &draft()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(first["replayed"], false);
    let digest = first["digest"].as_str().unwrap().to_owned();
    let (status, again) = h.post("/api/operator-candidates", &draft()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (again["replayed"].clone(), again["digest"].clone()),
        (json!(true), json!(digest))
    );
    // Never in the catalog.
    let (status, _) = h.get("/api/catalog/operators/project.fastq_to_fasta").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    for n in 1..somite_api::limits::MAX_CANDIDATES {
        let body = with(draft(), "/contract/title", json!(format!("version {n}")));
        let (status, answer) = h.post("/api/operator-candidates", &body).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
    }
    let over = with(draft(), "/contract/title", json!("one too many"));
    let (status, refused) = h.post("/api/operator-candidates", &over).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{refused}");
    assert_envelope(&refused, "candidate_limit");
    let (_, listed) = h.get("/api/operator-candidates").await;
    let candidates = listed["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), somite_api::limits::MAX_CANDIDATES);
    // Each later version names the earlier one for the panel's diff.
    assert_eq!(candidates[0]["previous_digest"], Value::Null);
    assert_eq!(candidates[1]["previous_digest"], json!(digest));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepting_reloads_the_catalog_and_never_replaces_a_pinned_revision() {
    let h = Harness::start().await;
    let (_, drafted) = h.post("/api/operator-candidates", &draft()).await;
    let digest = drafted["digest"].as_str().unwrap().to_owned();
    let (_, workflow) = h.get("/api/workflow").await;
    let catalog_before = workflow["catalog_revision"].clone();
    let accept = |digest: String| {
        let h = &h;
        async move {
            h.post(
                &format!("/api/operator-candidates/{digest}/accept"),
                &json!({}),
            )
            .await
        }
    };

    // Never proven: not acceptable.
    let (status, refused) = accept(digest.clone()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_envelope(&refused, "proof_required");
    let proof = h.prove(&digest, "proof-accept-0001").await;
    assert_eq!(proof["passed"], true, "{proof:#}");
    let script = proof["task_proof"]["proof"]["script"].as_str().unwrap();
    let lines: Vec<&str> = script.lines().map(str::trim).collect();
    assert!(
        lines.windows(3).any(|w| w == ["'seqtk'", "'seq'", "'-a'"]),
        "the exact command is shown: {script}"
    );
    let (_, listed) = h.get("/api/operator-candidates").await;
    assert_eq!(listed["candidates"][0]["acceptable"], true, "{listed:#}");
    assert_eq!(listed["candidates"][0]["proofs"][0]["passed"], true);

    let (status, accepted) = h
        .post(
            &format!("/api/operator-candidates/{digest}/accept"),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!(accepted["previous_catalog_revision"], catalog_before);
    assert_ne!(accepted["catalog_revision"], catalog_before);
    let (status, entry) = h.get("/api/catalog/operators/project.fastq_to_fasta").await;
    assert_eq!(status, StatusCode::OK, "{entry}");
    assert_eq!(entry["revision"], drafted["operator_revision"]);
    let (_, listed) = h.get("/api/operator-candidates").await;
    assert_eq!(
        listed["candidates"],
        json!([]),
        "an accepted candidate leaves the list"
    );

    // A node pins the accepted revision; a changed version cannot replace it.
    let (_, workflow) = h.get("/api/workflow").await;
    let edit = json!({
        "base_state_revision": workflow["state_revision"],
        "idempotency_key": "place-project-tool",
        "summary": "place the project tool",
        "operations": [{"op": "add_operator", "node_id": "fasta", "operator_id": "project.fastq_to_fasta", "x": 0, "y": 0}]
    });
    let (status, placed) = h.post("/api/transactions", &edit).await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    let changed = with(
        draft(),
        "/contract/argv",
        json!(["seqtk", "seq", "-a", "-C", "{input.reads}"]),
    );
    let changed = with(
        changed,
        "/evidence/flags",
        json!([{"flag": "-a", "excerpt": "seqtk seq -a in.fq.gz > out.fa"},
               {"flag": "-C", "excerpt": "-C        drop comments at the header lines"}]),
    );
    let (_, second) = h.post("/api/operator-candidates", &changed).await;
    let second = second["digest"].as_str().unwrap().to_owned();
    // The earlier version's proof does not prove this one.
    let (status, refused) = accept(second.clone()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_envelope(&refused, "proof_required");
    assert_eq!(h.prove(&second, "proof-accept-0002").await["passed"], true);
    let (status, refused) = h
        .post(
            &format!("/api/operator-candidates/{second}/accept"),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_envelope(&refused, "pinned_revision_conflict");
    let (_, entry_after) = h.get("/api/catalog/operators/project.fastq_to_fasta").await;
    assert_eq!(entry_after["revision"], entry["revision"]);
    let (_, workflow_after) = h.get("/api/workflow").await;
    assert_eq!(workflow_after["state_revision"], placed["state_revision"]);

    // Reject deletes.
    let (status, _) = h
        .post(
            &format!("/api/operator-candidates/{second}/reject"),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, listed) = h.get("/api/operator-candidates").await;
    assert_eq!(listed["candidates"], json!([]));
}

#[tokio::test]
async fn acceptance_is_rejected_on_the_agent_router() {
    let h = Harness::start().await;
    let (_, capability) = h.server.state.capabilities.issue();
    let agent = |path: &str| {
        h.client
            .post(h.url(&format!("/api/mcp{path}")))
            .header(CAPABILITY, capability.expose())
            .json(&json!({}))
    };
    let response = agent("/operator-candidates")
        .json(&draft())
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::CREATED,
        "the agent can draft"
    );
    let drafted: Value = response.json().await.unwrap();
    let digest = drafted["digest"].as_str().unwrap();
    for decision in ["accept", "reject"] {
        let response = agent(&format!("/operator-candidates/{digest}/{decision}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{decision}");
        assert_envelope(&response.json().await.unwrap(), "not_found");
    }
    let listing = h
        .client
        .get(h.url("/api/mcp/operator-candidates"))
        .header(CAPABILITY, capability.expose())
        .send()
        .await
        .unwrap();
    assert!(
        listing.status().is_client_error(),
        "the panel's list is not the agent's"
    );
    let (status, _) = h.get("/api/catalog/operators/project.fastq_to_fasta").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "still not in the catalog");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_proof_keeps_the_candidate_from_being_accepted() {
    let h = Harness::start().await;
    // `seqtk seq --fasta` is no seqtk flag: the real tool refuses it.
    let wrong = with(
        with(
            draft(),
            "/contract/argv",
            json!(["seqtk", "seq", "--fasta", "{input.reads}"]),
        ),
        "/evidence/flags",
        json!([{"flag": "--fasta", "excerpt": "--fasta  output FASTA"}]),
    );
    let (_, drafted) = h.post("/api/operator-candidates", &wrong).await;
    let digest = drafted["digest"].as_str().unwrap().to_owned();
    let proof = h.prove(&digest, "proof-failed-0001").await;
    assert_eq!(proof["passed"], false, "{proof:#}");
    assert_eq!(proof["task_proof"]["passed"], false, "{proof:#}");
    let (_, listed) = h.get("/api/operator-candidates").await;
    assert_eq!(listed["candidates"][0]["acceptable"], false);
    let (status, refused) = h
        .post(
            &format!("/api/operator-candidates/{digest}/accept"),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_envelope(&refused, "proof_required");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("did not pass"),
        "{refused}"
    );
    let (status, _) = h.get("/api/catalog/operators/project.fastq_to_fasta").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
