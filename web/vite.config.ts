import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// During `npm run dev` the API lives on a separately started `somite serve`;
// the proxy keeps every request same-origin, exactly as in production where
// somite serves this bundle itself.
const apiTarget = process.env.SOMITE_DEV_API ?? "http://127.0.0.1:7310";

export default defineConfig({
  plugins: [react()],
  build: {
    target: "es2022",
    sourcemap: true,
    // The entry chunk is the whole app (the canvas cannot draw without it);
    // its size is held by scripts/check-bundle-size.mjs instead.
    chunkSizeWarningLimit: 1024,
    // Names the entry chunk for the bundle-size check.
    manifest: true,
  },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": { target: apiTarget } },
  },
});
