import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = `${ROOT}src/`;
const DIST = `${ROOT}dist/`;

/**
 * The integration project runs the compiled code, as users do: model workers and child processes
 * can only run JavaScript, and one copy of each module keeps `instanceof AppError` true across
 * them. So `src/x.ts`, imported by a test, resolves to `dist/x.js`.
 */
function srcToDist(): Plugin {
  return {
    name: "mnemo-src-to-dist",
    enforce: "pre",
    async resolveId(source, importer, options) {
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved?.id.startsWith(SRC)) return resolved;
      return { ...resolved, id: resolved.id.replace(SRC, DIST).replace(/\.ts$/, ".js") };
    },
  };
}

const INTEGRATION = "test/**/*.int.test.ts";
const PACKAGE = "test/**/*.pack.test.ts";

// Lives in test/ because the project's top level holds only what the brief allows.
export default defineConfig({
  root: ROOT,
  test: {
    setupFiles: ["test/cleanup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Tests that open stores in their own process: Lance's warnings ("No existing dataset …") are noise.
    env: { LANCEDB_LOG: "error" },
    projects: [
      // Pure functions on src/: no store, no child process, no dist/; runs before `tsc`, in seconds.
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [INTEGRATION, PACKAGE] } },
      // A real store, the built binary, HTTP: after `tsc`.
      { extends: true, plugins: [srcToDist()], test: { name: "integration", include: [INTEGRATION] } },
      // `npm pack`, installed with `npm install -g` into a prefix of its own and run from there: minutes.
      { extends: true, test: { name: "package", include: [PACKAGE], testTimeout: 300_000, hookTimeout: 900_000 } },
    ],
  },
});
