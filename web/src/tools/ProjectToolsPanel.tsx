/**
 * The Project tools panel: where a person decides about operator candidates
 * an agent (or they) drafted. It lists each candidate with its contract, its
 * evidence, its proofs (state, the exact command, fixtures, outputs checked,
 * the end of stderr) and what changed since the earlier version, and owns
 * Prove, Accept and Reject — Accept only once a proof of exactly this
 * candidate passed, the rule the runtime's route enforces too.
 *
 * The panel is a list of sections so other project-level tool views (an
 * "Installed resources" section, say) can be mounted beside the candidates.
 */
import { useCallback, useEffect, useState } from "react";
import type { ReactNode } from "react";
import { HttpClient } from "../api/http";
import { MAX_REPLY_BYTES } from "../api/limits";
import * as w from "../api/workshopSchemas";
import type { Accepted, CandidateList, ListedCandidate, ProofStatus } from "../api/workshopSchemas";
import { canonicalJson, lineDiff } from "./diff";
import "./tools.css";

export interface ToolsSection {
  readonly id: string;
  readonly title: string;
  readonly render: () => ReactNode;
}

const http = new HttpClient();

export function ProjectToolsPanel({ onClose, onAccepted, extraSections = [] }: {
  readonly onClose: () => void;
  /** After Accept, with the new catalog revision: palette and contracts reload. */
  readonly onAccepted: (accepted: Accepted) => void;
  readonly extraSections?: readonly ToolsSection[];
}) {
  const sections: ToolsSection[] = [
    { id: "candidates", title: "Operator candidates", render: () => <Candidates onAccepted={onAccepted} /> },
    ...extraSections,
  ];
  return (
    <aside id="project-tools" className="tools-panel" aria-label="Project tools">
      <header className="tools-panel__head">
        <h2>Project tools</h2>
        <button type="button" className="button button--small" onClick={onClose}>Close</button>
      </header>
      {sections.map((section) => (
        <section key={section.id} className="tools-panel__section" aria-label={section.title}>
          <h3>{section.title}</h3>
          {section.render()}
        </section>
      ))}
    </aside>
  );
}

function Candidates({ onAccepted }: { readonly onAccepted: (accepted: Accepted) => void }) {
  const [list, setList] = useState<CandidateList | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const reload = useCallback(async () => {
    try {
      setList(await fetchCandidates());
      setFailure(undefined);
    } catch (error) {
      setFailure(describe(error));
    }
  }, []);
  useEffect(() => {
    let live = true;
    fetchCandidates().then(
      (fetched) => { if (live) setList(fetched); },
      (error: unknown) => { if (live) setFailure(describe(error)); },
    );
    return () => { live = false; };
  }, []);
  const decide = useCallback(
    async (candidate: ListedCandidate, decision: "accept" | "reject") => {
      try {
        const path = `/api/operator-candidates/${encodeURIComponent(candidate.digest)}/${decision}`;
        if (decision === "accept") {
          onAccepted(await http.request({ path, method: "POST", body: {}, schema: w.accepted, maxBytes: MAX_REPLY_BYTES }));
        } else {
          await http.request({ path, method: "POST", body: {}, schema: w.rejected, maxBytes: MAX_REPLY_BYTES });
        }
        await reload();
      } catch (error) {
        setFailure(describe(error));
      }
    },
    [onAccepted, reload],
  );
  const [proving, setProving] = useState<string | undefined>();
  const prove = useCallback(
    async (candidate: ListedCandidate) => {
      setProving(candidate.digest);
      try {
        const key = `ui-prove-${Date.now().toString(36)}-${candidate.digest.slice(-8)}`;
        const receipt = await http.request({
          path: `/api/operator-candidates/${encodeURIComponent(candidate.digest)}/proofs`,
          method: "POST",
          body: { idempotency_key: key },
          schema: w.proofReceipt,
          maxBytes: MAX_REPLY_BYTES,
        });
        for (let polls = 0; polls < 60; polls++) {
          const status = await http.request({
            path: `/api/operator-proofs/${encodeURIComponent(receipt.proof_id)}?wait_ms=10000`,
            schema: w.proofStatus,
            maxBytes: MAX_REPLY_BYTES,
          });
          if (TERMINAL.includes(status.run.phase)) break;
        }
        await reload();
      } catch (error) {
        setFailure(describe(error));
      } finally {
        setProving(undefined);
      }
    },
    [reload],
  );
  if (!list) return <p className="muted">{failure ?? "Loading candidates…"}</p>;
  const byDigest = new Map(list.candidates.map((c) => [c.digest, c]));
  return (
    <>
      {failure && <p className="banner banner--danger" role="alert">{failure}</p>}
      <button type="button" className="button button--small" onClick={() => void reload()}>Refresh</button>
      {list.candidates.length === 0 && <p className="muted">No candidates. An agent drafts one when the catalog lacks a tool.</p>}
      <ul className="tools-panel__list">
        {list.candidates.map((candidate) => {
          const earlier = candidate.previous_digest ? byDigest.get(candidate.previous_digest)?.contract : candidate.accepted_contract;
          return (
            <li key={candidate.digest} className="candidate" data-operator={candidate.operator_id}>
              <h4>{candidate.operator_id}</h4>
              <p className="muted">{typeof candidate.contract.title === "string" ? candidate.contract.title : ""} · {candidate.digest.slice(0, 19)}</p>
              <details>
                <summary>Contract</summary>
                <pre>{canonicalJson(candidate.contract)}</pre>
              </details>
              <details>
                <summary>Evidence</summary>
                <p>Documentation: {candidate.evidence.documentation}</p>
                <p>Packages: {candidate.evidence.packages.join(", ")}</p>
                <ul>
                  {candidate.evidence.flags.map((flag) => (
                    <li key={flag.flag}><code>{flag.flag}</code>: <q>{flag.excerpt}</q></li>
                  ))}
                </ul>
              </details>
              <details open={candidate.proofs.length > 0}>
                <summary>Proofs ({candidate.proofs.length})</summary>
                <ul className="candidate__proofs">
                  {candidate.proofs.map((proof) => <Proof key={proof.proof_id} proof={proof} />)}
                </ul>
              </details>
              {earlier && (
                <details>
                  <summary>Changes since the earlier version</summary>
                  <pre className="diff">
                    {lineDiff(canonicalJson(earlier), canonicalJson(candidate.contract)).map((line, index) => (
                      <span key={index} className={`diff__${line.kind}`}>
                        {line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}
                        {line.text}
                        {"\n"}
                      </span>
                    ))}
                  </pre>
                </details>
              )}
              <div className="candidate__actions">
                <button type="button" className="button button--small" disabled={proving !== undefined} onClick={() => void prove(candidate)}>
                  {proving === candidate.digest ? "Proving…" : "Prove"}
                </button>
                <button type="button" className="button button--small" disabled={!candidate.acceptable} onClick={() => void decide(candidate, "accept")}>Accept</button>
                <button type="button" className="button button--small" onClick={() => void decide(candidate, "reject")}>Reject</button>
              </div>
              {!candidate.acceptable && <p className="muted candidate__gate">Accept needs a passed proof of exactly this version.</p>}
            </li>
          );
        })}
      </ul>
    </>
  );
}

const TERMINAL = ["completed", "failed", "cancelled"];

/** One proof as a person reviews it before accepting. */
function Proof({ proof }: { readonly proof: ProofStatus }) {
  const ended = TERMINAL.includes(proof.run.phase);
  const outcome = proof.passed ? "passed" : ended ? "did not pass" : "running";
  const task = proof.task_proof;
  const ran = task.state === "ran" && typeof task.proof === "object" && task.proof !== null ? (task.proof as Record<string, unknown>) : undefined;
  const outputs = Array.isArray(ran?.outputs) ? (ran.outputs as Record<string, unknown>[]) : [];
  const fixtures = Array.isArray(ran?.fixtures) ? (ran.fixtures as Record<string, unknown>[]) : [];
  return (
    <li className={`proof proof--${proof.passed ? "passed" : ended ? "failed" : "running"}`} data-proof={proof.proof_id}>
      <p>
        <strong>{proof.proof_id}: {outcome}</strong> · validation run {proof.run_id} ({proof.run.phase}, closure {proof.closure_digest.slice(0, 19)}); {taskProofLine(task)}
      </p>
      {fixtures.length > 0 && <p>Fixtures: {fixtures.map((f) => `${String(f.port)} ← ${String(f.name)}`).join(", ")}</p>}
      {outputs.length > 0 && (
        <p>Outputs checked: {outputs.map((o) => `${String(o.port)} (${String(o.glob)}) ${o.passed === true ? "present" : "missing or empty"}`).join(", ")}</p>
      )}
      {typeof ran?.script === "string" && (
        <details>
          <summary>Exact command</summary>
          <pre className="proof__script">{ran.script}</pre>
        </details>
      )}
      {typeof ran?.stderr_tail === "string" && ran.stderr_tail !== "" && (
        <details>
          <summary>End of stderr</summary>
          <pre>{ran.stderr_tail}</pre>
        </details>
      )}
    </li>
  );
}

function fetchCandidates(): Promise<CandidateList> {
  return http.request({ path: "/api/operator-candidates", schema: w.candidateList, maxBytes: MAX_REPLY_BYTES });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function taskProofLine(taskProof: Record<string, unknown>): string {
  const kind = typeof taskProof.kind === "string" ? taskProof.kind : "task proof";
  if (taskProof.state === "ran") return `${kind}: ${taskProof.passed === true ? "passed" : "failed"}`;
  return `${kind}: not run (${typeof taskProof.reason === "string" ? taskProof.reason : "unknown"})`;
}
