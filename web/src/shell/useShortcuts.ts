import { useEffect } from "react";

export interface Shortcuts {
  readonly undo: () => void;
  readonly redo: () => void;
}

/**
 * Undo and redo from the keyboard: Ctrl/⌘+Z, Ctrl/⌘+Shift+Z and Ctrl+Y.
 * Ignored while typing in a field, where the browser's own text undo applies.
 */
export function useShortcuts({ undo, redo }: Shortcuts): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || isTyping(event.target)) return;
      const key = event.key.toLowerCase();
      if (key === "z" && !event.shiftKey) undo();
      else if ((key === "z" && event.shiftKey) || key === "y") redo();
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => { window.removeEventListener("keydown", onKeyDown); };
  }, [undo, redo]);
}

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")
  );
}
