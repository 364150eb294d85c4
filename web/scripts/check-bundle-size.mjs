// The bundle-size budget, checked after every build: the entry chunk the
// browser must load before the canvas can draw, gzipped as a server would
// send it. Raising a budget is a decision to make in review, not here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const KiB = 1024;
const BUDGETS = { js: 170 * KiB, css: 12 * KiB };

const dist = join(import.meta.dirname, "..", "dist");
const manifest = JSON.parse(readFileSync(join(dist, ".vite", "manifest.json"), "utf8"));
const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
if (!entry) {
  console.error("bundle budget: no entry chunk in dist/.vite/manifest.json");
  process.exit(1);
}

const files = [
  { kind: "js", file: entry.file },
  ...(entry.css ?? []).map((file) => ({ kind: "css", file })),
];
let failed = false;
for (const { kind, file } of files) {
  const bytes = readFileSync(join(dist, file));
  const gzipped = gzipSync(bytes, { level: 9 }).byteLength;
  const budget = BUDGETS[kind];
  const verdict = gzipped <= budget ? "within" : "OVER";
  console.log(
    `bundle budget: ${file} ${(gzipped / KiB).toFixed(1)} KiB gzip (${(bytes.byteLength / KiB).toFixed(1)} KiB raw), ${verdict} the ${budget / KiB} KiB budget`,
  );
  if (gzipped > budget) failed = true;
}
if (failed) {
  console.error("bundle budget exceeded: find what grew (npx vite build --sourcemap) before raising a budget");
  process.exit(1);
}
