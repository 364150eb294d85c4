import { Fragment } from "react";
import type { RequirementEvidence } from "../api/types";
import "./why.css";

/**
 * One fact of a requirement's evidence: a term and its value, e.g.
 * `["Declared in", "operators/class.kraken2.toml:52"]`.
 */
export type EvidenceRow = readonly [term: string, value: string];

/**
 * The facts a requirement was derived from, in reading order: the contract
 * field and where it is declared, the node it applies to, and the file it is
 * about with the digest recorded for it versus the one found.
 */
export function evidenceRows(evidence: RequirementEvidence): EvidenceRow[] {
  const rows: EvidenceRow[] = [];
  const { contract, graph, file } = evidence;
  if (contract) {
    rows.push(["Contract", `${contract.operator_id} · ${contract.field}`]);
    if (contract.source) {
      const { file: path, line } = contract.source;
      rows.push(["Declared in", line === undefined ? path : `${path}:${String(line)}`]);
    }
    rows.push(["Revision", contract.operator_revision]);
  }
  if (graph) {
    const at = graph.port ? ` · port ${graph.port}` : graph.param ? ` · parameter ${graph.param}` : "";
    rows.push(["Node", `${graph.node_id}${at}`]);
    if (graph.pinned_revision) rows.push(["Node pins", graph.pinned_revision]);
  }
  if (file) {
    rows.push(["File", `${file.path} (${file.found ? "found" : "not found"})`]);
    if (file.recorded_location) rows.push(["Recorded at", file.recorded_location]);
    if (file.recorded_digest) rows.push(["Recorded", file.recorded_digest]);
    if (file.found_digest) rows.push(["Found", file.found_digest]);
  }
  return rows;
}

/** A small "why" disclosure under a requirement; nothing when there is no evidence. */
export function Why({ evidence }: { evidence: RequirementEvidence }) {
  const rows = evidenceRows(evidence);
  if (rows.length === 0) return null;
  return (
    <details className="why">
      <summary className="why__summary">Why</summary>
      <dl className="facts why__facts">
        {rows.map(([term, value]) => (
          <Fragment key={term}>
            <dt>{term}</dt>
            <dd className="mono">{value}</dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}
