import { useState } from "react";
import { MAX_TITLE_CHARS } from "../api/limits";
import { useServices } from "./context";

/** The document title; click to rename (one `set_title` transaction). */
export function EditableTitle({ title }: { title: string }) {
  const { workspace } = useServices();
  const [draft, setDraft] = useState<string | null>(null);

  const save = () => {
    const next = draft?.trim();
    setDraft(null);
    if (next !== undefined && next !== "" && next !== title) {
      void workspace.edit(`Rename to “${next}”`, [{ op: "set_title", title: next }]);
    }
  };

  if (draft === null) {
    return (
      <button type="button" className="title-button" onClick={() => { setDraft(title); }}
        title="Rename the workflow"
        aria-label={`Rename workflow “${title}”`}
      >
        <span className="title-button__text">{title || "Untitled workflow"}</span>
        <svg viewBox="0 0 16 16" className="title-button__icon" aria-hidden="true">
          <path d="M11.5 2.5l2 2L6 12H4v-2z" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
        </svg>
      </button>
    );
  }
  return (
    <input
      className="input title-input"
      aria-label="Workflow title"
      value={draft}
      maxLength={MAX_TITLE_CHARS}
      autoFocus
      onFocus={(e) => { e.target.select(); }}
      onChange={(e) => { setDraft(e.target.value); }}
      onBlur={save}
      onKeyDown={(e) => {
        if (e.key === "Enter") save();
        if (e.key === "Escape") setDraft(null);
      }}
    />
  );
}
