import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { readinessItem } from "../api/schemas";
import { Why, evidenceRows } from "./Why";

const REVISION = `blake3:${"a".repeat(64)}`;
const RECORDED = `blake3:${"1".repeat(64)}`;
const FOUND = `blake3:${"2".repeat(64)}`;

/** A managed-resource requirement as `GET /api/readiness` sends it. */
const wire = {
  id: "managed_resource:kraken:db",
  node_id: "kraken",
  operator_id: "class.kraken2",
  field: "db",
  title: "Provide Kraken2 database for kraken",
  detail: "A Kraken2 database folder.",
  kind: "managed_resource",
  priority: 4,
  required: true,
  escalatable: true,
  resolutions: [],
  recipes: [],
  evidence: {
    contract: {
      operator_id: "class.kraken2",
      operator_revision: REVISION,
      field: "ports.in[0].resource",
      source: { file: "operators/class.kraken2.toml", line: 52 },
    },
    graph: { node_id: "kraken", port: "db" },
  },
};

describe("the why disclosure", () => {
  it("reads a requirement's evidence off the wire", () => {
    const item = readinessItem.parse(wire);
    expect(evidenceRows(item.evidence)).toEqual([
      ["Contract", "class.kraken2 · ports.in[0].resource"],
      ["Declared in", "operators/class.kraken2.toml:52"],
      ["Revision", REVISION],
      ["Node", "kraken · port db"],
    ]);
  });

  it("is a closed disclosure naming the contract field and its source line", () => {
    const html = renderToStaticMarkup(createElement(Why, { evidence: readinessItem.parse(wire).evidence }));
    expect(html).toMatch(/^<details class="why"><summary[^>]*>Why<\/summary>/);
    expect(html).not.toContain("open");
    expect(html).toContain("<dt>Declared in</dt><dd class=\"mono\">operators/class.kraken2.toml:52</dd>");
  });

  it("shows a file's recorded digest against the one found", () => {
    const rows = evidenceRows({
      file: { path: ".somite/web.somite.json", found: true, recorded_digest: RECORDED, found_digest: FOUND },
    });
    expect(rows).toEqual([
      ["File", ".somite/web.somite.json (found)"],
      ["Recorded", RECORDED],
      ["Found", FOUND],
    ]);
  });

  it("renders nothing for a requirement without evidence", () => {
    expect(renderToStaticMarkup(createElement(Why, { evidence: {} }))).toBe("");
  });

  it("refuses evidence whose revision is not a revision", () => {
    const bad = { ...wire, evidence: { ...wire.evidence, contract: { ...wire.evidence.contract, operator_revision: "v1" } } };
    expect(readinessItem.safeParse(bad).success).toBe(false);
  });
});
