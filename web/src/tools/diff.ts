/**
 * A line diff of two contracts as pretty JSON, for the panel's "changes
 * since the earlier version". Contracts are a few hundred lines at most, so
 * the plain longest-common-subsequence table is small enough.
 */
export interface DiffLine {
  readonly kind: "same" | "added" | "removed";
  readonly text: string;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const width = b.length + 1;
  // lcs[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = new Int32Array((a.length + 1) * width);
  const at = (i: number, j: number) => lcs[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    if (left !== undefined && left === right) {
      lines.push({ kind: "same", text: left });
      i++;
      j++;
    } else if (left !== undefined && (right === undefined || at(i + 1, j) >= at(i, j + 1))) {
      lines.push({ kind: "removed", text: left });
      i++;
    } else if (right !== undefined) {
      lines.push({ kind: "added", text: right });
      j++;
    }
  }
  return lines;
}

/** Pretty JSON with sorted keys, so a diff shows changes, not key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  }, 2);
}
