import { describe, expect, it } from "vitest";
import type { ContractEntry } from "../state/contracts";
import { operatorReply } from "../api/schemas";
import { REV_A, REV_B } from "../testing/wire";
import { resourceProfileOf } from "./profile";

const kraken: ContractEntry = {
  status: "loaded",
  reply: operatorReply.parse({
    revision: REV_A,
    catalog_revision: REV_B,
    contract: {
      id: "class.kraken2",
      title: "Kraken2",
      palette: "Classification",
      kind: "external",
      cost: "moderate",
      ports: {
        in: [
          { name: "r1", type: "FastqGz" },
          { name: "db", type: "Directory", resource: { profile: "kraken2-database", title: "Kraken2 database", detail: "" } },
        ],
      },
    },
  }),
};
const contracts = new Map([["class.kraken2", kraken]]);
const item = { kind: "managed_resource" as const, operator_id: "class.kraken2", field: "db" };

describe("resourceProfileOf", () => {
  it("reads the profile from the node's contract", () => {
    expect(resourceProfileOf(item, contracts)).toBe("kraken2-database");
  });

  it("knows none for other kinds, ports without a resource, or contracts not loaded", () => {
    expect(resourceProfileOf({ ...item, kind: "input" }, contracts)).toBeUndefined();
    expect(resourceProfileOf({ ...item, field: "r1" }, contracts)).toBeUndefined();
    expect(resourceProfileOf(item, new Map([["class.kraken2", { status: "loading" }]]))).toBeUndefined();
  });
});
