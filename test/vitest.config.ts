import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Lives in test/ because the project's top level holds only what the brief allows.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/cleanup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Tests that open stores in their own process: Lance's warnings ("No existing dataset …") are noise.
    env: { LANCEDB_LOG: "error" },
  },
});
