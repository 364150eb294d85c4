/**
 * The public-data journey: search NCBI for a reference assembly (served by
 * a loopback stand-in of NCBI Datasets answering its documented
 * `genome/accession/{accession}/dataset_report` shape), read its facts and
 * provenance, add its source recipe to the canvas as one undoable edit,
 * connect the extracted genome to an aligner's index, and watch readiness
 * change.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { dragConnection, handle, node, readinessSettled, requiredCount, searchPalette } from "./canvas";
import type { Browser, Somite } from "./harness";
import { openBrowser, screenshot, startSomite } from "./harness";

const ACCESSION = "GCF_000001405.40";
/** The recorded-shape answer the data crate's own stand-in tests serve. */
const REPORT = readFileSync(
  resolve(import.meta.dirname, "../../crates/somite-data/tests/it/fixtures/datasets_genome_accession.json"),
);

let somite: Somite;
let browser: Browser;
let ncbi: Server;
let cache: string;
const requests: string[] = [];

beforeAll(async () => {
  ncbi = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0] ?? "";
    requests.push(path);
    if (path === `/genome/accession/${ACCESSION}/dataset_report`) {
      response.writeHead(200, { "content-type": "application/json" }).end(REPORT);
    } else {
      response.writeHead(404, { "content-type": "application/json" }).end("{}");
    }
  });
  await new Promise<void>((done) => ncbi.listen(0, "127.0.0.1", done));
  const standin = `http://127.0.0.1:${String((ncbi.address() as AddressInfo).port)}`;
  cache = mkdtempSync(join(tmpdir(), "somite-e2e-cache-"));
  somite = await startSomite({
    env: {
      SOMITE_NCBI_DATASETS_URL: standin,
      SOMITE_NCBI_EUTILS_URL: standin,
      SOMITE_ENSEMBL_REST_URL: standin,
      SOMITE_ENSEMBL_FTP_URL: standin,
      XDG_CACHE_HOME: cache,
    },
  });
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
  await new Promise<void>((done) => ncbi.close(() => { done(); }));
  rmSync(cache, { recursive: true, force: true });
});

test("find a reference assembly, add its recipe, connect it to an aligner", async () => {
  const { page } = browser;
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  await page.goto(somite.url);
  await node(page, "reads").waitFor();
  await readinessSettled(page);

  // 1. Search the assembly by its accession, as an assembly.
  await page.getByRole("button", { name: "Find data" }).click();
  const panel = page.getByRole("region", { name: "Find data" });
  await panel.getByLabel("Search public data").fill(ACCESSION);
  await panel.getByLabel("Kind").selectOption("assembly");
  await panel.getByRole("button", { name: "Search" }).click();
  const result = panel.locator(".find-data__result").first();
  await result.waitFor();
  await expect.poll(() => result.locator(".find-data__facts").textContent()).toContain("GRCh38.p14");
  expect(await result.locator(".find-data__provenance").textContent()).toContain("NCBI Datasets");
  expect(requests).toContain(`/genome/accession/${ACCESSION}/dataset_report`);
  await screenshot(page, "find-data-01-result");

  // 2. Add its recipe: the download and the extraction, as one edit.
  const before = await somite.api<{ document: { nodes: { id: string; operator_id: string }[] } }>("/api/workflow");
  await result.getByRole("button", { name: "Add to canvas" }).click();
  await expect.poll(async () => (await somite.api<typeof before>("/api/workflow")).document.nodes.length).toBe(
    before.document.nodes.length + 2,
  );
  const after = await somite.api<typeof before>("/api/workflow");
  const added = after.document.nodes.filter((n) => !before.document.nodes.some((b) => b.id === n.id));
  expect(added.map((n) => n.operator_id).sort()).toEqual(["ncbi.datasets_extract_assembly", "ncbi.datasets_genome"]);
  const extract = added.find((n) => n.operator_id === "ncbi.datasets_extract_assembly")?.id ?? "";
  await panel.getByRole("button", { name: "Close Find data" }).click();

  // One undo takes the whole recipe away; redo brings it back.
  await page.getByRole("button", { name: "Undo" }).click();
  await expect.poll(async () => (await somite.api<typeof before>("/api/workflow")).document.nodes.length).toBe(
    before.document.nodes.length,
  );
  await page.keyboard.press("Control+Shift+Z");
  await node(page, extract).waitFor();

  // 3. Add an aligner's index and connect the extracted genome to it.
  await searchPalette(page, "bwa index");
  await page.locator(".palette-item", { hasText: "index a reference" }).first().click();
  await node(page, "bwa_index").waitFor();
  await page.getByRole("button", { name: "Fit View" }).click();
  await page.waitForTimeout(300);
  await readinessSettled(page);
  const unconnected = await requiredCount(page);
  await dragConnection(page, handle(page, extract, "out:genome"), handle(page, "bwa_index", "in:reference"));
  await expect.poll(() => requiredCount(page)).toBe(unconnected - 1);
  await readinessSettled(page);
  await screenshot(page, "find-data-02-connected");

  expect(errors).toEqual([]);
});
