import { defineConfig } from "vitest/config";

// Unit tests: the pure state, domain and API-validation modules, in node.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
