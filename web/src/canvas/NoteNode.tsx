import type { NodeProps } from "@xyflow/react";
import { memo, useState } from "react";
import { MAX_NOTE_CHARS } from "../api/limits";
import { useServices } from "../shell/context";
import type { NoteFlowNode } from "./flowModel";
import { sameDataAndSelection } from "./nodeProps";

/**
 * A sticky note: presentation only, so it never changes the graph revision.
 * Double-click (or Enter) edits the text; leaving the field saves it.
 */
export const NoteNode = memo(function NoteNode({ data, selected }: NodeProps<NoteFlowNode>) {
  const { workspace } = useServices();
  const { note } = data;
  const [draft, setDraft] = useState<string | null>(null);

  const save = () => {
    if (draft !== null && draft !== note.text) {
      void workspace.edit("Edit note", [{ op: "edit_note", note_id: note.id, text: draft }]);
    }
    setDraft(null);
  };

  if (draft !== null) {
    return (
      <div className="note note--editing">
        <textarea
          className="note__editor nodrag nowheel"
          aria-label="Note text"
          value={draft}
          maxLength={MAX_NOTE_CHARS}
          autoFocus
          onChange={(e) => { setDraft(e.target.value); }}
          onBlur={save}
          onKeyDown={(e) => {
            if (e.key === "Escape") setDraft(null);
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) save();
          }}
        />
      </div>
    );
  }
  return (
    <div
      className={`note${selected ? " note--selected" : ""}`}
      role="note"
      tabIndex={0}
      aria-label="Sticky note; press Enter to edit"
      onDoubleClick={() => { setDraft(note.text); }}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          setDraft(note.text);
        }
      }}
    >
      {note.text === "" ? <span className="note__placeholder">Double-click to write</span> : note.text}
    </div>
  );
}, sameDataAndSelection);
