/**
 * Search-as-you-type over the catalog, with the same ranked search the agent
 * uses (`GET /api/catalog/search`). Typing is debounced and each new query
 * aborts the one before, so results never arrive out of order. A new
 * catalog revision (an accepted project operator) searches the same query
 * again, so the palette offers what the catalog now holds.
 */
import { useEffect, useState } from "react";
import { describeFailure } from "../api/errors";
import { MAX_QUERY_CHARS } from "../api/limits";
import type { CatalogPage } from "../api/types";
import { useServices } from "../shell/context";

export type SearchState =
  | { readonly status: "idle" }
  | { readonly status: "loading"; readonly query: string; readonly previous: CatalogPage | undefined }
  | { readonly status: "done"; readonly query: string; readonly page: CatalogPage }
  | { readonly status: "failed"; readonly query: string; readonly message: string };

const DEBOUNCE_MS = 120;
const RESULT_LIMIT = 30;

export function useCatalogSearch(input: string, catalogRevision?: string): SearchState {
  const { api } = useServices();
  const query = input.trim().slice(0, MAX_QUERY_CHARS);
  const [state, setState] = useState<SearchState>({ status: "idle" });

  // Derived during render: an empty box is idle at once, a new query shows
  // the previous results (dimmed) until its own arrive.
  const stale = state.status !== "idle" && state.query !== query;
  if (query === "" && state.status !== "idle") setState({ status: "idle" });
  else if (query !== "" && (state.status === "idle" || stale)) {
    setState({ status: "loading", query, previous: state.status === "done" ? state.page : undefined });
  }

  useEffect(() => {
    if (query === "") return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api.searchCatalog(query, RESULT_LIMIT, controller.signal).then(
        (page) => { setState({ status: "done", query, page }); },
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ status: "failed", query, message: describeFailure(error).title });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [api, query, catalogRevision]);

  return state;
}
