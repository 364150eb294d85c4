/**
 * The Agent panel's dock: the workbench's last column, beside the
 * inspector, with a handle on its left edge that resizes it by pointer or
 * keyboard (the WAI-ARIA window splitter: arrows, Shift for bigger steps,
 * Home and End). The width asked for is remembered for this browser; the
 * workbench grid gives the canvas the rest and never less than its minimum,
 * so on a narrow window the panel stops short of it, and the handle reports
 * the width on screen.
 */
import "./AgentDock.css";
import type { CSSProperties, ReactNode } from "react";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { DOCK_MAX_WIDTH, DOCK_MIN_WIDTH, clampDockWidth, keyedDockWidth, rememberDockWidth, storedDockWidth } from "./dockWidth";

/** The element the handle resizes (and the top bar's Agent button controls). */
export const AGENT_DOCK_ID = "agent-panel";

export interface DockWidth {
  readonly width: number;
  readonly setWidth: (width: number) => void;
  /** For the workbench: the grid column the dock is drawn in. */
  readonly style: CSSProperties;
}

export function useDockWidth(): DockWidth {
  const [width, setWidth] = useState(() => storedDockWidth(localStorage));
  useEffect(() => {
    rememberDockWidth(localStorage, width);
  }, [width]);
  const style = useMemo(
    () => ({ "--agent-dock-min": `${String(DOCK_MIN_WIDTH)}px`, "--agent-dock-width": `${String(width)}px` }) as CSSProperties,
    [width],
  );
  return { width, setWidth, style };
}

export function AgentDock({ width, onResize, children }: { width: number; onResize: (width: number) => void; children: ReactNode }) {
  const dock = useRef<HTMLDivElement>(null);
  const drag = useRef<{ x: number; width: number } | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const [shown, setShown] = useState(width);

  useLayoutEffect(() => {
    const element = dock.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      setShown(Math.round(element.getBoundingClientRect().width));
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, []);

  // Steps start from the width on screen, not the one asked for, so a
  // panel held back by a narrow window answers the first key press.
  const onScreen = () => dock.current?.getBoundingClientRect().width ?? width;
  const endDrag = () => {
    drag.current = undefined;
    setDragging(false);
  };

  return (
    <div id={AGENT_DOCK_ID} ref={dock} className="agent-dock">
      <div
        role="separator"
        aria-orientation="vertical"
        aria-label="Agent panel width"
        aria-controls={AGENT_DOCK_ID}
        aria-valuemin={DOCK_MIN_WIDTH}
        aria-valuemax={DOCK_MAX_WIDTH}
        aria-valuenow={shown}
        tabIndex={0}
        title="Drag, or use the arrow keys, to resize the agent panel"
        className="agent-dock__handle"
        data-dragging={dragging ? "true" : undefined}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          e.preventDefault();
          e.currentTarget.setPointerCapture(e.pointerId);
          drag.current = { x: e.clientX, width: onScreen() };
          setDragging(true);
        }}
        onPointerMove={(e) => {
          const start = drag.current;
          if (start) onResize(clampDockWidth(start.width + start.x - e.clientX));
        }}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onKeyDown={(e) => {
          const next = keyedDockWidth(e.key, e.shiftKey, onScreen());
          if (next === undefined) return;
          e.preventDefault();
          onResize(next);
        }}
      />
      {children}
    </div>
  );
}
