/**
 * A loopback stand-in of nf-co.re and the GitHub REST API for the browser
 * journeys, serving the fixtures committed in crates/somite-source/tests/data
 * (real nf-core release tarballs and the catalog's shape) with the
 * documented routes and answers:
 *
 * - `GET /pipelines.json` → the nf-core catalog;
 * - `GET /repos/{owner}/{repo}/commits/{ref}` → `{sha, commit: {committer:
 *   {date}}}` for a release tag or a full commit of the catalog (404 for an
 *   unknown repository, 422 for an unknown ref, as GitHub answers);
 * - `GET /repos/{owner}/{repo}/tarball/{sha}` → the gzip tarball, when the
 *   fixture is there (404 otherwise).
 *
 * The runtime is pointed at it with `SOMITE_NFCORE_PIPELINES_URL` and
 * `SOMITE_GITHUB_API_URL`; its real code path is the one under test.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../../crates/somite-source/tests/data");
/** The nine real nf-core releases trimmed to what Somite reads (tests/data/nf-core-corpus). */
export const CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), "../../tests/data/nf-core-corpus");

interface Catalog {
  remote_workflows: { full_name: string; releases: { tag_name: string; tag_sha: string; published_at: string }[] }[];
}

export interface Providers {
  /** What the runtime's environment needs to use the stand-in. */
  readonly env: Record<string, string>;
  /** Requests served, as `METHOD /path`. */
  readonly requests: readonly string[];
  stop(): Promise<void>;
}

/** Serves the archives and `pipelines.json` of `fixtures` (by default the source crate's). */
export async function startProviders(fixtures: string = FIXTURES): Promise<Providers> {
  const catalogText = readFileSync(join(fixtures, "pipelines.json"), "utf8");
  const catalog = JSON.parse(catalogText) as Catalog;
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    requests.push(`${request.method ?? "GET"} ${path}`);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (path === "/pipelines.json") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(catalogText);
      return;
    }
    const commit = /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)$/.exec(path);
    if (commit) {
      const repository = `${commit[1] ?? ""}/${commit[2] ?? ""}`;
      const ref = decodeURIComponent(commit[3] ?? "");
      const pipeline = catalog.remote_workflows.find((w) => w.full_name === repository);
      const release = pipeline?.releases.find((r) => r.tag_name === ref || r.tag_sha === ref);
      if (!pipeline) json(404, { message: "Not Found" });
      else if (!release) json(422, { message: `No commit found for SHA: ${ref}` });
      else json(200, { sha: release.tag_sha, commit: { committer: { date: release.published_at } } });
      return;
    }
    const tarball = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/([0-9a-f]{40})$/.exec(path);
    if (tarball) {
      const file = join(fixtures, `${tarball[1] ?? ""}-${tarball[2] ?? ""}-${tarball[3] ?? ""}.tar.gz`);
      if (!existsSync(file)) {
        json(404, { message: "Not Found" });
        return;
      }
      response.writeHead(200, { "content-type": "application/x-gzip" });
      response.end(readFileSync(file));
      return;
    }
    json(404, { message: "Not Found" });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const address = server.address();
  if (!address || typeof address !== "object") throw new Error("the provider stand-in has no port");
  const base = `http://127.0.0.1:${String(address.port)}`;
  return {
    env: { SOMITE_NFCORE_PIPELINES_URL: `${base}/pipelines.json`, SOMITE_GITHUB_API_URL: base },
    requests,
    stop: () => new Promise((done) => server.close(() => { done(); })),
  };
}
