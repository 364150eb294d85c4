/**
 * The Operator Workshop from the person's side: a `project.*` candidate
 * (seqtk seq -a, FASTQ to FASTA) is drafted over HTTP, the way an agent's
 * tools reach the runtime (the draft route is the one the MCP router
 * shares); the person opens it in Project tools, where Accept waits for a
 * passed proof, proves it, sees the proof for what it is (a validation run
 * with the runner's Pixi STAND-IN and the task proof with the real seqtk in
 * its sandbox: the exact command, fixtures, outputs checked), accepts it,
 * and the palette — still showing the same search — offers the new operator
 * without a reload; it is placed on the canvas. A candidate with a flag
 * seqtk does not have fails its proof, and Accept stays disabled.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { WorkflowView } from "../src/api/types";
import { node } from "./canvas";
import type { Browser, Somite } from "./harness";
import { openBrowser, pixiStandin, screenshot, startSomite } from "./harness";

const OPERATOR = "project.fastq_to_fasta";

/** `seqtk seq -a` as a project operator (see seqtk's README). */
const DRAFT = {
  contract: {
    id: OPERATOR,
    title: "seqtk seq -a: FASTQ to FASTA",
    palette: "Project tools",
    kind: "external",
    cost: "trivial",
    bin: "seqtk",
    pixi: { seqtk: "1.3" },
    resources: { cpus: 1, memory_gb: 1 },
    stdout: "fasta",
    argv: ["seqtk", "seq", "-a", "{input.reads}"],
    ports: {
      in: [{ name: "reads", type: "Fastq", union: ["FastqGz"] }],
      out: [{ name: "fasta", type: "Fasta" }],
    },
  },
  evidence: {
    documentation: "https://github.com/lh3/seqtk#seqtk-examples",
    packages: ["seqtk==1.3"],
    flags: [{ flag: "-a", excerpt: "Convert FASTQ to FASTA:\n\n    seqtk seq -a in.fq.gz > out.fa" }],
  },
};

interface Drafted { digest: string; operator_id: string }
interface Receipt { proof_id: string; candidate_digest: string; run_id: string }
interface ProofStatus { proven: boolean; candidate_digest: string; run: { phase: string } }

let toolDir: string;
let somite: Somite;
let browser: Browser;

beforeAll(async () => {
  toolDir = mkdtempSync(join(tmpdir(), "somite-e2e-workshop-"));
  somite = await startSomite({ pixi: pixiStandin(toolDir, { SOMITE_STANDIN_STEP_MS: "200" }) });
  browser = await openBrowser();
});

afterAll(async () => {
  await browser.close();
  await somite.stop();
  rmSync(toolDir, { recursive: true, force: true });
});

test("a drafted and proved candidate is accepted by a person and placed from the palette", async () => {
  const { page } = browser;
  await page.goto(somite.url);
  const palette = page.getByLabel("Operator catalog");
  await page.getByLabel("Operators").fill("fasta");
  await page.locator(".palette__status").waitFor();
  await expect.poll(() => palette.getByRole("button", { name: new RegExp(OPERATOR.replace(".", "\\.")) }).count()).toBe(0);

  const drafted = await somite.api<Drafted>("/api/operator-candidates", DRAFT);
  expect(drafted.operator_id).toBe(OPERATOR);

  await page.getByRole("button", { name: "Project tools" }).click();
  const panel = page.getByLabel("Project tools", { exact: true });
  const candidate = panel.locator(`.candidate[data-operator="${OPERATOR}"]`);
  await candidate.waitFor();
  // Never proven: Accept waits for a proof.
  expect(await candidate.getByRole("button", { name: "Accept" }).isDisabled()).toBe(true);
  await candidate.getByText("Accept needs a passed proof").waitFor();
  await candidate.getByRole("button", { name: "Prove" }).click();
  // The proof is shown as what it is: the validation run it was, and the
  // task proof by its own name, outcome and exact command.
  const proof = candidate.locator(".proof").first();
  await proof.waitFor({ timeout: 60_000 });
  await expect.poll(() => proof.textContent(), { timeout: 60_000 }).toMatch(/: passed/);
  expect(await proof.textContent()).toMatch(/validation run \S+ \(completed/);
  expect(await proof.textContent()).toContain("Outputs checked: fasta");
  await proof.getByText("Exact command").click();
  expect(await proof.locator(".proof__script").textContent()).toContain("'seqtk'");
  expect(await candidate.getByRole("button", { name: "Accept" }).isDisabled()).toBe(false);
  await screenshot(page, "workshop-01-candidate");

  const before = await somite.api<WorkflowView>("/api/workflow");
  await candidate.getByRole("button", { name: "Accept" }).click();
  await page.getByText("Project operator accepted").waitFor();

  // The same search, not retyped: the new catalog revision searches again.
  const offered = palette.getByRole("button", { name: new RegExp(OPERATOR.replace(".", "\\.")) });
  await offered.waitFor();
  await screenshot(page, "workshop-02-palette");
  await offered.click();
  await expect
    .poll(async () => (await somite.api<WorkflowView>("/api/workflow")).document.nodes.filter((n) => n.operator_id === OPERATOR).length)
    .toBe(1);
  const after = await somite.api<WorkflowView>("/api/workflow");
  const placed = after.document.nodes.find((n) => n.operator_id === OPERATOR);
  expect(after.catalog_revision).not.toBe(before.catalog_revision);
  await node(page, placed?.id ?? "").waitFor();
  await screenshot(page, "workshop-03-placed");
});

test("a candidate whose proof fails cannot be accepted", async () => {
  const { page } = browser;
  const wrong = structuredClone(DRAFT);
  wrong.contract.id = "project.fastq_to_fasta_wrong";
  wrong.contract.argv = ["seqtk", "seq", "--fasta", "{input.reads}"];
  wrong.evidence.flags = [{ flag: "--fasta", excerpt: "--fasta  output FASTA" }];
  const drafted = await somite.api<Drafted>("/api/operator-candidates", wrong);
  const receipt = await somite.api<Receipt>(`/api/operator-candidates/${encodeURIComponent(drafted.digest)}/proofs`, {
    idempotency_key: "e2e-workshop-proof-wrong-0001",
  });
  let status = await somite.api<ProofStatus>(`/api/operator-proofs/${receipt.proof_id}?wait_ms=20000`);
  for (let attempt = 0; attempt < 10 && !["completed", "failed", "cancelled"].includes(status.run.phase); attempt++) {
    status = await somite.api<ProofStatus>(`/api/operator-proofs/${receipt.proof_id}?wait_ms=20000`);
  }
  await page.goto(somite.url);
  await page.getByRole("button", { name: "Project tools" }).click();
  const candidate = page.getByLabel("Project tools", { exact: true }).locator('.candidate[data-operator="project.fastq_to_fasta_wrong"]');
  await candidate.waitFor();
  await expect.poll(() => candidate.locator(".proof").first().textContent()).toMatch(/did not pass/);
  expect(await candidate.getByRole("button", { name: "Accept" }).isDisabled()).toBe(true);
  await screenshot(page, "workshop-04-failed-proof");
});
