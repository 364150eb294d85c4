import { useId, useState } from "react";
import type { CatalogMatch } from "../api/types";
import { writeOperatorDrag } from "../canvas/dragData";
import { familyColor } from "../canvas/portTypes";
import { splitTitle } from "../canvas/titles";
import { useCatalogSearch } from "./useCatalogSearch";

const SUGGESTIONS = ["reads", "quality", "align", "kraken2", "variant", "quantify"];

export interface PaletteProps {
  /** Adds the operator in the middle of the view (click or Enter). */
  readonly onAdd: (operator: { id: string; title: string }) => void;
  /** The live catalog's revision: a new one searches again. */
  readonly catalogRevision?: string;
}

/** The catalog: search as you type, then click or drag an operator onto the canvas. */
export function Palette({ onAdd, catalogRevision }: PaletteProps) {
  const [query, setQuery] = useState("");
  const search = useCatalogSearch(query, catalogRevision);
  const inputId = useId();
  const page = search.status === "done" ? search.page : search.status === "loading" ? search.previous : undefined;

  return (
    <aside className="panel palette" aria-label="Operator catalog">
      <div className="panel__header">
        <label className="panel__title" htmlFor={inputId}>
          Operators
        </label>
      </div>
      <div className="palette__search">
        <svg className="palette__search-icon" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M10.5 10.5 14 14" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
        </svg>
        <input
          id={inputId}
          type="search"
          className="input palette__input"
          placeholder="Search tools, types, packages…"
          value={query}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => { setQuery(e.target.value); }}
          aria-describedby={`${inputId}-status`}
        />
      </div>
      <p id={`${inputId}-status`} className="palette__status" aria-live="polite">
        {search.status === "failed" && <span className="text-danger">{search.message}</span>}
        {search.status === "done" &&
          (search.page.total_matches === 0
            ? `No operator matches “${search.query}”.`
            : `${String(search.page.total_matches)} match${search.page.total_matches === 1 ? "" : "es"}`)}
      </p>
      {search.status === "idle" ? (
        <div className="palette__empty">
          <p>Search the reviewed catalog by tool, data type or package.</p>
          <div className="chips" role="group" aria-label="Suggested searches">
            {SUGGESTIONS.map((s) => (
              <button key={s} type="button" className="chip" onClick={() => { setQuery(s); }}>
                {s}
              </button>
            ))}
          </div>
        </div>
      ) : (
        <ul className={`palette__results${search.status === "loading" ? " is-loading" : ""}`}>
          {page?.matches.map((match) => (
            <li key={match.id}>
              <PaletteItem match={match} onAdd={onAdd} />
            </li>
          ))}
        </ul>
      )}
      <p className="palette__hint">Click to add · drag to place</p>
    </aside>
  );
}

function PaletteItem({ match, onAdd }: { match: CatalogMatch; onAdd: PaletteProps["onAdd"] }) {
  const { name, purpose } = splitTitle(match.title);
  return (
    <button
      type="button"
      className="palette-item"
      draggable
      onDragStart={(e) => { writeOperatorDrag(e.dataTransfer, { id: match.id, title: match.title }); }}
      onClick={() => { onAdd({ id: match.id, title: match.title }); }}
      aria-label={`Add ${match.title} (${match.id}) to the canvas`}
      title={`${match.id} — click to add, or drag onto the canvas`}
    >
      <span className="palette-item__top">
        <span className="palette-item__name">{name}</span>
        <span className="palette-item__family">{match.palette}</span>
      </span>
      {purpose && <span className="palette-item__purpose">{purpose}</span>}
      <span className="palette-item__ports" aria-hidden="true">
        <TypeList types={match.inputs.filter((p) => !p.optional).map((p) => p.resource_profile ?? p.type)} empty="no inputs" />
        <span className="palette-item__arrow">→</span>
        <TypeList types={match.outputs.map((p) => p.type)} empty="—" />
      </span>
    </button>
  );
}

function TypeList({ types, empty }: { types: readonly string[]; empty: string }) {
  const unique = [...new Set(types)];
  if (unique.length === 0) return <span className="type-list type-list--empty">{empty}</span>;
  return (
    <span className="type-list">
      {unique.slice(0, 3).map((t) => (
        <span key={t} className="type-dot" style={{ color: familyColor(t) }}>
          {t}
        </span>
      ))}
      {unique.length > 3 && <span className="type-more">+{String(unique.length - 3)}</span>}
    </span>
  );
}
