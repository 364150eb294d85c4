import { defineConfig } from "vitest/config";

// Browser journeys: node-side tests that start the real `somite` binary and
// drive Debian's Chromium through playwright-core. One file at a time, since
// each journey owns a server and a browser and the CI machine has two cores.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
