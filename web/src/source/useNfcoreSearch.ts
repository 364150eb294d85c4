/**
 * Search-as-you-type over the nf-core catalog (`GET
 * /api/source/nfcore/search`), debounced; each new query aborts the one
 * before, so results never arrive out of order. An empty box lists every
 * pipeline (the runtime ranks them), so the panel is useful before typing.
 */
import { useEffect, useState } from "react";
import { MAX_QUERY_CHARS } from "../api/limits";
import type { NfcoreSearchPage } from "../api/sourceSchemas";
import type { Failure } from "../state/controls";
import { sourceFailure } from "./failures";
import { useSourceApi } from "./context";

export type NfcoreSearchState =
  | { readonly status: "loading"; readonly query: string; readonly previous: NfcoreSearchPage | undefined }
  | { readonly status: "done"; readonly query: string; readonly page: NfcoreSearchPage }
  | { readonly status: "failed"; readonly query: string; readonly failure: Failure };

const DEBOUNCE_MS = 200;
export const NFCORE_RESULT_LIMIT = 20;

export function useNfcoreSearch(input: string): NfcoreSearchState {
  const source = useSourceApi();
  const query = input.trim().slice(0, MAX_QUERY_CHARS);
  const [state, setState] = useState<NfcoreSearchState>({ status: "loading", query, previous: undefined });

  // Derived during render: a new query keeps the previous results (dimmed) until its own arrive.
  if (state.query !== query) {
    setState({ status: "loading", query, previous: state.status === "done" ? state.page : state.status === "loading" ? state.previous : undefined });
  }

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      source.searchNfcore(query, NFCORE_RESULT_LIMIT, controller.signal).then(
        (page) => { setState({ status: "done", query, page }); },
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ status: "failed", query, failure: sourceFailure(error) });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [source, query]);

  return state;
}
