import { describe, expect, it } from "vitest";
import type { SomiteApi } from "../api/endpoints";
import type { OperatorReply } from "../api/types";
import { ContractCache } from "./contracts";

/** An API whose contracts say which catalog revision served them. */
function catalogApi() {
  const served = { revision: "b3:before", fetches: [] as string[] };
  const api = {
    operator: (id: string) => {
      served.fetches.push(`${id}@${served.revision}`);
      return Promise.resolve({ id, catalog_revision: served.revision } as unknown as OperatorReply);
    },
  } as unknown as SomiteApi;
  return { api, served };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ContractCache: one fetch per contract per catalog revision", () => {
  it("fetches again under a new catalog revision and serves the new contract", async () => {
    const { api, served } = catalogApi();
    const cache = new ContractCache(api);
    cache.request(["project.fastq_to_fasta"], "b3:before");
    cache.request(["project.fastq_to_fasta"], "b3:before");
    await settle();
    expect(served.fetches).toEqual(["project.fastq_to_fasta@b3:before"]);

    served.revision = "b3:after";
    cache.request(["project.fastq_to_fasta"], "b3:after");
    await settle();
    expect(served.fetches).toEqual(["project.fastq_to_fasta@b3:before", "project.fastq_to_fasta@b3:after"]);
    const entry = cache.getEntries().get("project.fastq_to_fasta");
    expect(entry?.status === "loaded" && (entry.reply as unknown as { catalog_revision: string }).catalog_revision).toBe("b3:after");
    await expect(cache.load("project.fastq_to_fasta", "b3:after")).resolves.toMatchObject({ catalog_revision: "b3:after" });
    expect(served.fetches).toHaveLength(2);
  });
});
