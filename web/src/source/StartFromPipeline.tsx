/**
 * What an empty canvas offers: start from a real pipeline. Search the
 * nf-core catalog (ranked by the runtime, with each pipeline's description,
 * topics, archived flag and every release), or paste a GitHub URL or
 * `OWNER/REPO@REF`. Resolving is the runtime's one transaction that places
 * the pinned node (compare-and-swap on the newest state, an idempotency
 * key); a refusal is shown here with its code and what to do next.
 */
import type { SyntheticEvent } from "react";
import { useId, useState } from "react";
import type { ResolveTarget } from "../api/sourceEndpoints";
import type { NfcoreMatch, NfcoreSearchPage } from "../api/sourceSchemas";
import { FailureBlock } from "../shell/FailureBlock";
import { useServices } from "../shell/context";
import type { Failure } from "../state/controls";
import { sourceFailure } from "./failures";
import { catalogFreshness } from "./catalog";
import { useSourceApi } from "./context";
import { parseGithubReference } from "./reference";
import "./source.css";
import { useNfcoreSearch } from "./useNfcoreSearch";

export function StartFromPipeline() {
  const { workspace } = useServices();
  const source = useSourceApi();
  const [open, setOpen] = useState(true);
  const [query, setQuery] = useState("");
  const [pasted, setPasted] = useState("");
  const [pasteProblem, setPasteProblem] = useState<string | undefined>();
  const [resolving, setResolving] = useState<string | undefined>();
  const [failure, setFailure] = useState<Failure | undefined>();
  const search = useNfcoreSearch(query);
  const searchId = useId();
  const pasteId = useId();

  if (!open) {
    return (
      <button type="button" className="button start-source__reopen" onClick={() => { setOpen(true); }}>
        Start from a pipeline
      </button>
    );
  }

  const resolve = async (target: ResolveTarget, label: string) => {
    setFailure(undefined);
    setResolving(label);
    const result = await workspace.place((base) => source.resolve(target, base), { reportErrors: false });
    setResolving(undefined);
    if (!result.ok) setFailure(sourceFailure(result.error));
  };

  const submitPasted = (event: SyntheticEvent) => {
    event.preventDefault();
    const reference = parseGithubReference(pasted);
    if (!reference.ok) {
      setPasteProblem(reference.reason);
      return;
    }
    setPasteProblem(undefined);
    void resolve({ provider: "github", repository: reference.repository, ref: reference.ref }, `${reference.repository}@${reference.ref}`);
  };

  const page = search.status === "done" ? search.page : search.status === "loading" ? search.previous : undefined;
  return (
    <section className="start-source" aria-label="Start from a pipeline" aria-busy={resolving !== undefined || undefined}>
      <header className="start-source__head">
        <div>
          <h2 className="start-source__title">Start from a pipeline</h2>
          <p className="muted">
            Pin a real nf-core or GitHub Nextflow pipeline at one commit; its outline and parameters come from the
            pipeline itself.
          </p>
        </div>
        <button type="button" className="icon-button" aria-label="Close and build from operators" onClick={() => { setOpen(false); }}>
          ×
        </button>
      </header>

      <label htmlFor={searchId} className="field__label">
        Search nf-core
      </label>
      <input
        id={searchId}
        className="input"
        type="search"
        placeholder="rnaseq, demo, download…"
        autoComplete="off"
        spellCheck={false}
        value={query}
        onChange={(e) => { setQuery(e.target.value); }}
      />
      {page && <CatalogLine page={page} />}
      {search.status === "failed" && <FailureBlock failure={search.failure} />}
      {page && (
        <ul className={`start-source__results${search.status === "loading" ? " start-source__results--stale" : ""}`} aria-label="nf-core pipelines">
          {page.matches.length === 0 && <li className="muted">No nf-core pipeline matches “{page.query}”.</li>}
          {page.matches.map((match) => (
            <PipelineRow
              key={match.repository}
              match={match}
              disabled={resolving !== undefined}
              onUse={(release) => void resolve({ provider: "nf-core", pipeline: match.repository, release }, `${match.repository} ${release}`)}
            />
          ))}
        </ul>
      )}
      {page && page.total_matches > page.matches.length && (
        <p className="muted start-source__more">
          {page.total_matches - page.matches.length} more: refine the search to see them.
        </p>
      )}

      <form className="start-source__paste" onSubmit={submitPasted}>
        <label htmlFor={pasteId} className="field__label">
          Or paste a GitHub URL or OWNER/REPO@REF
        </label>
        <div className="start-source__paste-row">
          <input
            id={pasteId}
            className="input input--mono"
            type="text"
            placeholder="https://github.com/OWNER/REPO/tree/REF"
            autoComplete="off"
            spellCheck={false}
            value={pasted}
            aria-invalid={pasteProblem ? true : undefined}
            aria-describedby={pasteProblem ? `${pasteId}-problem` : undefined}
            onChange={(e) => {
              setPasted(e.target.value);
              setPasteProblem(undefined);
            }}
          />
          <button type="submit" className="button" disabled={resolving !== undefined}>
            Resolve
          </button>
        </div>
        {pasteProblem && (
          <p id={`${pasteId}-problem`} className="field__error" role="alert">
            {pasteProblem}
          </p>
        )}
      </form>

      {resolving && (
        <p className="start-source__status" role="status">
          Fetching, verifying and outlining {resolving}…
        </p>
      )}
      {failure && <FailureBlock failure={failure} onDismiss={() => { setFailure(undefined); }} />}
    </section>
  );
}

/** Where the catalog came from and how old it is; offline says why. */
function CatalogLine({ page }: { page: NfcoreSearchPage }) {
  const { catalog } = page;
  const text = catalogFreshness(catalog);
  return (
    <p className={`start-source__catalog${catalog.origin === "offline" ? " start-source__catalog--offline" : ""}`} data-origin={catalog.origin}>
      {text} · {page.total_matches} {page.total_matches === 1 ? "pipeline" : "pipelines"}
      {catalog.origin === "offline" && catalog.offline_reason && <span className="muted"> ({catalog.offline_reason})</span>}
    </p>
  );
}

function PipelineRow({ match, disabled, onUse }: { match: NfcoreMatch; disabled: boolean; onUse: (release: string) => void }) {
  const [release, setRelease] = useState(match.latest_release?.tag ?? match.releases[0]?.tag ?? "");
  const chosen = match.releases.find((r) => r.tag === release);
  return (
    <li className="start-source__pipeline" data-repository={match.repository}>
      <div className="start-source__pipeline-head">
        <span className="start-source__name">{match.repository}</span>
        {match.archived && <span className="tag tag--archived">archived</span>}
      </div>
      {match.description && <p className="start-source__description">{match.description}</p>}
      {match.topics.length > 0 && (
        <p className="start-source__topics" aria-label="Topics">
          {match.topics.slice(0, 8).map((topic) => (
            <span key={topic} className={`tag${match.matched_terms.some((t) => topic.includes(t)) ? " tag--recommended" : ""}`}>
              {topic}
            </span>
          ))}
        </p>
      )}
      {match.releases.length === 0 ? (
        <p className="muted">No release yet: paste {match.repository}@REF below to pin a branch’s current commit.</p>
      ) : (
        <div className="start-source__use">
          <select
            className="input"
            aria-label={`Release of ${match.repository}`}
            value={release}
            onChange={(e) => { setRelease(e.target.value); }}
          >
            {match.releases.map((r) => (
              <option key={r.tag} value={r.tag}>
                {r.tag}
                {r.published_at ? ` · ${r.published_at.slice(0, 10)}` : ""}
              </option>
            ))}
          </select>
          <button type="button" className="button button--primary" disabled={disabled || !chosen} onClick={() => { onUse(release); }}>
            Use {release}
          </button>
          {chosen && (
            <span className="mono muted start-source__commit" title={chosen.commit}>
              {chosen.commit.slice(0, 7)}
            </span>
          )}
        </div>
      )}
    </li>
  );
}
