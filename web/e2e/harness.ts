/**
 * What every browser journey stands on: the real `somite` binary started in
 * a fresh empty folder (its project) with no `SOMITE_WEB_BUNDLE`, so it
 * serves the web bundle it embeds, exactly as a copied binary would; and
 * Debian's Chromium driven through playwright-core with a fresh profile.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { BrowserContext, Page } from "playwright-core";

const WEB_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_DIR = join(WEB_ROOT, "test-results");
const SOMITE_BIN = resolve(WEB_ROOT, process.env.SOMITE_BIN ?? "../target/debug/somite");
/** The scripted ACP agent, built next to `somite` (`cargo build -p somite-test-agent`). */
const TEST_AGENT_BIN = resolve(WEB_ROOT, process.env.SOMITE_TEST_AGENT ?? join(dirname(SOMITE_BIN), "somite-test-agent"));
/**
 * The runner's STAND-IN for `pixi` (`cargo build -p somite-runner --bins`):
 * it follows Pixi's and Nextflow's process contract without running tools,
 * since neither can be installed on the test machines. Only the run journey
 * uses it, through `SOMITE_PIXI`; the runtime's code path is the real one.
 */
const PIXI_STANDIN_BIN = resolve(WEB_ROOT, process.env.SOMITE_PIXI_STANDIN ?? join(dirname(SOMITE_BIN), "somite-pixi-standin"));
const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";
const BUNDLE = join(WEB_ROOT, "dist");

export interface Somite {
  readonly url: string;
  readonly projectDir: string;
  /** A JSON call straight to the runtime, as another client (not the page) would make it. */
  api<T = unknown>(path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export interface SomiteOptions {
  /** An absolute path given to the runtime as `SOMITE_PIXI`. */
  readonly pixi?: string;
  /** More environment for the runtime (loopback provider stand-ins, a private cache). */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startSomite(options: SomiteOptions = {}): Promise<Somite> {
  if (!existsSync(SOMITE_BIN)) throw new Error(`no somite binary at ${SOMITE_BIN}; build it or set SOMITE_BIN`);
  const bundleIndex = join(BUNDLE, "index.html");
  if (!existsSync(bundleIndex)) throw new Error(`no built bundle in ${BUNDLE}; run npm run build first`);
  const projectDir = mkdtempSync(join(tmpdir(), "somite-e2e-"));
  const port = await freePort();
  // A Pixi only when the journey asks for one, and never a bundle folder:
  // what is served is what the binary carries, whatever the caller's
  // environment says.
  const { SOMITE_PIXI: _pixi, SOMITE_WEB_BUNDLE: _bundle, ...environment } = process.env;
  // `somite serve` with no --project, in the empty folder: the project is the current folder.
  const child = spawn(SOMITE_BIN, ["serve", "--port", String(port)], {
    cwd: projectDir,
    env: {
      ...environment,
      SOMITE_SSE_KEEPALIVE_SECS: "5",
      ...(options.pixi ? { SOMITE_PIXI: options.pixi } : {}),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${String(port)}`;
  await waitUntilHealthy(url, child, () => output);
  // The binary must carry this build of the web, not an older one (or none).
  const served = await (await fetch(`${url}/`)).text();
  if (served !== readFileSync(bundleIndex, "utf8")) {
    await stopProcess(child);
    rmSync(projectDir, { recursive: true, force: true });
    throw new Error(`${SOMITE_BIN} does not embed the bundle in ${BUNDLE}; build it after npm run build (SOMITE_REQUIRE_WEB_BUNDLE=1 cargo build -p somite)`);
  }

  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const json = (await response.json()) as T;
    if (!response.ok) throw new Error(`${path}: HTTP ${String(response.status)} ${JSON.stringify(json)}`);
    return json;
  };

  return {
    url,
    projectDir,
    api,
    stop: async () => {
      await stopProcess(child);
      rmSync(projectDir, { recursive: true, force: true });
    },
  };
}

/** The absolute path of `somite-test-agent`, or an error saying how to build it. */
export function testAgentPath(): string {
  if (!existsSync(TEST_AGENT_BIN)) {
    throw new Error(`no somite-test-agent at ${TEST_AGENT_BIN}; build it with \`cargo build -p somite-test-agent\` or set SOMITE_TEST_AGENT`);
  }
  return TEST_AGENT_BIN;
}

/**
 * An executable that runs the Pixi stand-in with `SOMITE_STANDIN_*` settings
 * (the runner passes only an allowlisted environment to Pixi, so they are
 * set by this wrapper). `dir` must outlive the runtime using it.
 */
export function pixiStandin(dir: string, settings: Readonly<Record<string, string>>): string {
  if (!existsSync(PIXI_STANDIN_BIN)) {
    throw new Error(`no somite-pixi-standin at ${PIXI_STANDIN_BIN}; build it with \`cargo build -p somite-runner --bins\` or set SOMITE_PIXI_STANDIN`);
  }
  const exports = Object.entries(settings)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "")}'`)
    .join("\n");
  const path = join(dir, "pixi");
  writeFileSync(path, `#!/bin/sh\n${exports}\nexec '${PIXI_STANDIN_BIN}' "$@"\n`, { mode: 0o755 });
  return path;
}

export interface Browser {
  readonly page: Page;
  close(): Promise<void>;
}

export async function openBrowser(options: { colorScheme?: "light" | "dark" } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "somite-chromium-"));
  // Playwright adds --headless, --no-sandbox (chromiumSandbox: false) and
  // --user-data-dir (the fresh profile) itself; the rest keeps Chromium from
  // reaching any network service on its own.
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: [
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    acceptDownloads: true,
    colorScheme: options.colorScheme ?? "light",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolvePort(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

async function waitUntilHealthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`somite exited with ${String(child.exitCode)}:\n${log()}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopProcess(child);
  throw new Error(`somite did not become healthy in 20 s:\n${log()}`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(force);
      done();
    });
    child.kill("SIGTERM");
  });
}
