import type { ConnectionLineComponentProps } from "@xyflow/react";
import { getBezierPath } from "@xyflow/react";
import type { CanvasNode } from "./flowModel";
import { refusalOf, useCanvasDocument } from "./canvasDocument";
import { familyColor } from "./portTypes";

/**
 * The line drawn while connecting. Over a handle that refuses the edge it
 * turns red and says why, before the mouse is released.
 */
export function ConnectionLine({
  fromX,
  fromY,
  toX,
  toY,
  fromPosition,
  toPosition,
  fromNode,
  fromHandle,
  toNode,
  toHandle,
}: ConnectionLineComponentProps<CanvasNode>) {
  const document = useCanvasDocument();
  const [path] = getBezierPath({ sourceX: fromX, sourceY: fromY, sourcePosition: fromPosition, targetX: toX, targetY: toY, targetPosition: toPosition });

  const fromPort = fromHandle.id?.replace(/^(in|out):/, "");
  const fromPorts = "node" in fromNode.data ? [...fromNode.data.node.ports.in, ...fromNode.data.node.ports.out] : [];
  const fromType = fromPorts.find((p) => p.name === fromPort)?.type;

  let refusal: string | undefined;
  if (document && toNode && toHandle) {
    const forward = fromHandle.type === "source";
    if (fromHandle.type === toHandle.type) {
      refusal = forward ? "connect an output to an input" : "connect an input to an output";
    } else {
      refusal = refusalOf(document, {
        source: forward ? fromNode.id : toNode.id,
        sourceHandle: forward ? (fromHandle.id ?? null) : (toHandle.id ?? null),
        target: forward ? toNode.id : fromNode.id,
        targetHandle: forward ? (toHandle.id ?? null) : (fromHandle.id ?? null),
      });
    }
  }

  const stroke = refusal ? "var(--danger)" : fromType ? familyColor(fromType) : "var(--accent)";
  return (
    <g className={refusal ? "connection-line connection-line--refused" : "connection-line"}>
      <path d={path} fill="none" stroke={stroke} strokeWidth={2} strokeDasharray={refusal ? "6 4" : undefined} />
      <circle cx={toX} cy={toY} r={4} fill={stroke} />
      {refusal && (
        <foreignObject x={toX + 12} y={toY + 10} width={300} height={64} className="connection-line__label-box">
          <div className="connection-line__label" role="alert">
            {refusal}
          </div>
        </foreignObject>
      )}
    </g>
  );
}
