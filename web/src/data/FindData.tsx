/**
 * "Find data": search NCBI and Ensembl for reads, reference assemblies,
 * organisms and genes (the runtime's `GET /api/data/search`), read each
 * result's provenance and key facts, and add its source recipe to the
 * canvas as ONE transaction, so a single undo takes it away again.
 *
 * The search runs on submit, not as you type: every keystroke would be a
 * request to a rate-limited public provider.
 */
import { useId, useRef, useState } from "react";
import { dataKinds, type DataKind, type DataResult, type DataSearchReply } from "../api/dataSchemas";
import { describeFailure } from "../api/errors";
import { useServices, useWorkspaceState } from "../shell/context";
import { MAX_DATA_QUERY_CHARS, type DataApi, type DataQuery } from "./dataApi";
import { keyFacts, provenanceLine } from "./facts";
import { placeRecipe } from "./placement";

type SearchState =
  | { readonly status: "idle" }
  | { readonly status: "loading" }
  | { readonly status: "done"; readonly query: DataQuery; readonly reply: DataSearchReply; readonly results: readonly DataResult[] }
  | { readonly status: "failed"; readonly message: string; readonly detail?: string | undefined };

export interface FindDataProps {
  readonly data: DataApi;
  readonly onClose: () => void;
}

export function FindData({ data, onClose }: FindDataProps) {
  const { workspace } = useServices();
  const { snapshot } = useWorkspaceState();
  const [query, setQuery] = useState("");
  const [kind, setKind] = useState<DataKind | "">("");
  const [organism, setOrganism] = useState("");
  const [search, setSearch] = useState<SearchState>({ status: "idle" });
  const [added, setAdded] = useState<string | undefined>();
  const inflight = useRef<AbortController | undefined>(undefined);
  const formId = useId();

  const run = (request: DataQuery, previous: readonly DataResult[]) => {
    inflight.current?.abort();
    const controller = new AbortController();
    inflight.current = controller;
    setSearch({ status: "loading" });
    data.search(request, controller.signal).then(
      (reply) => {
        setSearch({ status: "done", query: request, reply, results: [...previous, ...reply.results] });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = describeFailure(error);
        setSearch({ status: "failed", message: failure.title, detail: failure.detail });
      },
    );
  };

  const submit = () => {
    const text = query.trim();
    if (text === "") return;
    setAdded(undefined);
    run({ query: text, ...(kind ? { kind } : {}), ...(organism.trim() ? { organism: organism.trim() } : {}) }, []);
  };

  const add = async (result: DataResult) => {
    if (!result.recipe || !snapshot) return;
    const doc = snapshot.document;
    const ids = new Set([...doc.nodes.map((n) => n.id), ...doc.edges.map((e) => e.id), ...doc.notes.map((n) => n.id)]);
    const bottom = doc.nodes.length === 0 ? undefined : Math.max(...doc.nodes.map((n) => n.y));
    const operations = placeRecipe(result.recipe, { ids, bottom });
    const outcome = await workspace.edit(result.recipe.summary, operations);
    if (outcome.ok) setAdded(result.id);
  };

  return (
    <section className="panel find-data" aria-label="Find data">
      <div className="panel__header">
        <h2 className="panel__title">Find data</h2>
        <button type="button" className="button button--ghost button--small" onClick={onClose} aria-label="Close Find data">
          ×
        </button>
      </div>
      <form
        id={formId}
        className="find-data__form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <input
          type="search"
          className="input"
          aria-label="Search public data"
          placeholder="Accession, organism, gene or free text"
          maxLength={MAX_DATA_QUERY_CHARS}
          value={query}
          onChange={(e) => { setQuery(e.target.value); }}
        />
        <select
          className="input"
          aria-label="Kind"
          value={kind}
          onChange={(e) => { setKind(e.target.value as DataKind | ""); }}
        >
          <option value="">Any kind</option>
          {dataKinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <input
          className="input"
          aria-label="Organism"
          placeholder="Organism or taxid"
          value={organism}
          onChange={(e) => { setOrganism(e.target.value); }}
        />
        <button type="submit" className="button button--small" disabled={query.trim() === "" || search.status === "loading"}>
          Search
        </button>
      </form>
      <p className="find-data__status" aria-live="polite">
        {search.status === "loading" && "Searching NCBI and Ensembl…"}
        {search.status === "failed" && (
          <span className="text-danger" role="alert">
            {search.message}
            {search.detail ? ` ${search.detail}` : ""}
          </span>
        )}
        {search.status === "done" &&
          (search.results.length === 0 ? "No public data matches." : `${String(search.results.length)} shown`)}
      </p>
      {search.status === "done" && search.reply.warnings.length > 0 && (
        <ul className="find-data__warnings" aria-label="Provider warnings">
          {search.reply.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {search.status === "done" && (
        <ul className="find-data__results">
          {search.results.map((result) => (
            <li key={`${result.kind}:${result.id}`} className="find-data__result" aria-label={result.title}>
              <p className="find-data__title">
                <strong>{result.title}</strong> <span className="muted">{result.kind} · {result.id}</span>
              </p>
              <dl className="find-data__facts">
                {keyFacts(result.facts).map(([label, value]) => (
                  <div key={label}>
                    <dt>{label}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
              <p className="find-data__provenance muted" title={result.provenance.endpoint}>
                {provenanceLine(result)}
              </p>
              {result.recipe ? (
                <button
                  type="button"
                  className="button button--small"
                  disabled={!snapshot}
                  onClick={() => void add(result)}
                  title={result.recipe.summary}
                >
                  {added === result.id ? "Added to canvas" : "Add to canvas"}
                </button>
              ) : (
                <p className="muted">{result.recipe_unavailable ?? "No source recipe for this result."}</p>
              )}
            </li>
          ))}
        </ul>
      )}
      {search.status === "done" && search.reply.next_cursor && (
        <button
          type="button"
          className="button button--ghost button--small"
          onClick={() => { run({ ...search.query, cursor: search.reply.next_cursor ?? undefined }, search.results); }}
        >
          More results
        </button>
      )}
    </section>
  );
}
