/**
 * A native variant on the canvas says where it came from (issue 22): the
 * pinned tree it was promoted from (repository@commit, tree digest), which
 * calls became which nodes, and the calls no native node stands for yet,
 * each a blocking requirement in the readiness panel. The source is kept in
 * the document: going back to it is one `revert_variant` edit.
 */
import type { VariantOrigin } from "../api/types";
import { useServices } from "../shell/context";
import "./source.css";

/** The call's own name: the last segment of its fully-qualified name. */
const callName = (invocation: string) => invocation.slice(invocation.lastIndexOf(":") + 1);

export function VariantBanner({ origin }: { origin: VariantOrigin }) {
  const { workspace } = useServices();
  return (
    <section className="banner variant-banner" aria-label="Native variant" data-variant-of={origin.repository}>
      <span>
        Native variant of{" "}
        <strong className="mono" title={origin.commit}>
          {origin.repository}@{origin.commit.slice(0, 7)}
        </strong>
        {origin.release !== null && <span className="muted"> (release {origin.release})</span>}
        <span className="muted mono" title={origin.tree_digest}>
          {" "}
          · tree {origin.tree_digest.slice(7, 19)}
        </span>
      </span>
      <span data-testid="variant-promoted">
        Promoted:{" "}
        {origin.promoted.map((p, index) => (
          <span key={p.invocation} title={p.invocation}>
            {index > 0 && ", "}
            <span className="mono">{callName(p.invocation)}</span> → <span className="mono">{p.node_id}</span>
            {p.how === "catalog_equivalent" && <span className="muted"> (catalog equivalent)</span>}
            {p.how === "added" && <span className="muted"> (added by hand)</span>}
          </span>
        ))}
      </span>
      {origin.unrepresented.length > 0 && (
        <div>
          Not represented yet:
          <ul className="variant-banner__list" aria-label="Steps with no native node">
            {origin.unrepresented.map((u) => (
              <li key={u.invocation} title={u.invocation}>
                <span className="mono">{u.process}</span> <span className="muted">{u.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <button
        type="button"
        className="button button--small"
        onClick={() => void workspace.edit(`Back to ${origin.repository}`, [{ op: "revert_variant" }])}
      >
        Back to the source workflow
      </button>
    </section>
  );
}
