import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import { SlowestFirst } from "./sequencer.js";

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

/**
 * Integration tests whose subject needs more than this process: a browser (Chromium), a bucket
 * (s3rver), several mnemo processes at once, signals, a terminal, a service manager, or what only a
 * process of its own shows (LanceDB's panics on fd 2, glibc's allocator): a project of their own,
 * `npm run test:system`.
 */
const SYSTEM = [
  "test/web/app.int.test.ts",
  "test/web/accessibility.int.test.ts",
  "test/web/features.int.test.ts",
  "test/web/import-text-memories.int.test.ts",
  "test/store/object-storage.int.test.ts",
  "test/store/multi-machine.int.test.ts",
  "test/store/store-lease.int.test.ts",
  "test/store/concurrency.int.test.ts",
  "test/store/process-lock.int.test.ts",
  "test/store/damage.int.test.ts",
  "test/store/faults.int.test.ts",
  "test/store/repair-crash.int.test.ts",
  "test/store/object-storage-doctor.int.test.ts",
  "test/store/object-storage-repair.int.test.ts",
  "test/http/crash.int.test.ts",
  "test/mcp/stdio.int.test.ts",
  "test/mcp/inspector.int.test.ts",
  "test/cli/service.int.test.ts",
  "test/cli/watch.int.test.ts",
  "test/cli/terminal.int.test.ts",
  "test/shared/lean-allocator.int.test.ts",
];

/**
 * The projects that run the compiled code, with the bundled model converted once for the run.
 * Node imports dist/ itself (server.deps.external), as it does for users, rather than vite's
 * module runner transforming and evaluating its ~200 modules in every test file's process.
 */
const onDist = {
  plugins: [srcToDist()],
  test: { globalSetup: ["test/global-setup.ts"], server: { deps: { external: [new RegExp(`^${DIST}`)] } } },
};

/**
 * Files that run one after another in a worker process keep its modules (isolate: false) rather
 * than loading them anew in a fresh process each: that took 17 of the unit project's 26 s of CPU,
 * and 70 of the integration project's 400. What a file starts (a server, a temp dir) it ends in
 * its afterAll, as it must anyway. The system project's files keep a process each.
 */
const shared = { isolate: false } as const;

// Lives in test/ because the project's top level holds only what the brief allows.
export default defineConfig({
  root: ROOT,
  test: {
    setupFiles: ["test/cleanup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A test file per core and one more: a file waits on its servers, child processes, disk and
    // leases part of the time (measured: test/bench/README.md, "The test suite").
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: SlowestFirst },
    // Tests that open stores in their own process: Lance's warnings ("No existing dataset …") are
    // noise, and so is the backtrace of a panic on a store damaged on purpose (main() sets the same).
    env: { LANCEDB_LOG: "error", RUST_BACKTRACE: "0" },
    projects: [
      // Pure functions on src/: no store, no child process, no dist/; runs before `tsc`, in seconds.
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [INTEGRATION, PACKAGE], ...shared } },
      // A real store, the CLI's own program, HTTP: after `tsc`.
      { extends: true, ...onDist, test: { ...onDist.test, name: "integration", include: [INTEGRATION], exclude: SYSTEM, ...shared } },
      { extends: true, ...onDist, test: { ...onDist.test, name: "system", include: SYSTEM } },
      // `npm pack`, installed with `npm install -g` into a prefix of its own and run from there: minutes.
      { extends: true, test: { name: "package", include: [PACKAGE], testTimeout: 300_000, hookTimeout: 900_000 } },
    ],
  },
});
