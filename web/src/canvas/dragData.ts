/** The drag-and-drop payload type for an operator dragged from the palette. */
export const OPERATOR_DRAG_TYPE = "application/x-somite-operator";

export interface OperatorDrag {
  readonly id: string;
  readonly title: string;
}

export function readOperatorDrag(data: DataTransfer): OperatorDrag | undefined {
  const raw = data.getData(OPERATOR_DRAG_TYPE);
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value === "object" && value !== null && "id" in value && "title" in value) {
      const { id, title } = value;
      if (typeof id === "string" && typeof title === "string") return { id, title };
    }
  } catch {
    // Not ours: some other page or app dropped text onto the canvas.
  }
  return undefined;
}

export function writeOperatorDrag(data: DataTransfer, drag: OperatorDrag): void {
  data.setData(OPERATOR_DRAG_TYPE, JSON.stringify(drag));
  data.effectAllowed = "copy";
}
