import { describe, expect, it } from "vitest";
import type { DataRecipe } from "../api/dataSchemas";
import { PLACEMENT_GAP, placeRecipe } from "./placement";

const recipe: DataRecipe = {
  summary: "Fetch GCF_000001405.40 from NCBI Datasets",
  operations: [
    { op: "add_operator", node_id: "gcf_000001405_40_download", operator_id: "ncbi.datasets_genome", params: { accession: "GCF_000001405.40" }, x: 0, y: 0 },
    { op: "add_operator", node_id: "gcf_000001405_40_extract", operator_id: "ncbi.datasets_extract_assembly", x: 240, y: 0 },
    {
      op: "connect",
      edge_id: "gcf_000001405_40_download_package__gcf_000001405_40_extract_package",
      from_node: "gcf_000001405_40_download",
      from_port: "package",
      to_node: "gcf_000001405_40_extract",
      to_port: "package",
    },
  ],
  produces: [{ node_id: "gcf_000001405_40_extract", port: "genome", type: "Fasta" }],
};

describe("placeRecipe", () => {
  it("keeps the recipe as it is on an empty canvas", () => {
    expect(placeRecipe(recipe, { ids: new Set(), bottom: undefined })).toEqual(recipe.operations);
  });

  it("renames colliding ids consistently and places the recipe below the graph", () => {
    const placed = placeRecipe(recipe, { ids: new Set(["gcf_000001405_40_download"]), bottom: 300 });
    expect(placed).toEqual([
      { ...recipe.operations[0], node_id: "gcf_000001405_40_download_2", y: 300 + PLACEMENT_GAP },
      { ...recipe.operations[1], y: 300 + PLACEMENT_GAP },
      {
        ...recipe.operations[2],
        edge_id: "gcf_000001405_40_download_2_package__gcf_000001405_40_extract_package",
        from_node: "gcf_000001405_40_download_2",
      },
    ]);
  });

  it("never reuses an id an edge or note already holds", () => {
    const placed = placeRecipe(recipe, {
      ids: new Set(["gcf_000001405_40_download_package__gcf_000001405_40_extract_package"]),
      bottom: 0,
    });
    const ids = placed.map((o) => (o.op === "connect" ? o.edge_id : o.op === "add_operator" ? o.node_id : ""));
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe("gcf_000001405_40_download_package__gcf_000001405_40_extract_package_2");
  });
});

describe("dataSearchPath", () => {
  it("sends only what is set, trimmed and bounded", async () => {
    const { dataSearchPath, MAX_DATA_QUERY_CHARS } = await import("./dataApi");
    expect(dataSearchPath({ query: "  GRCh38 ", kind: "assembly", organism: " " })).toBe(
      "/api/data/search?query=GRCh38&kind=assembly&limit=10",
    );
    const long = dataSearchPath({ query: "x".repeat(500), provider: "ensembl", cursor: "c1" });
    const params = new URL(long, "http://localhost").searchParams;
    expect(params.get("query")).toHaveLength(MAX_DATA_QUERY_CHARS);
    expect(params.get("provider")).toBe("ensembl");
    expect(params.get("cursor")).toBe("c1");
  });
});
