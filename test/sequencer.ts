import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that took longest in a full run from a fresh clone (2026-11-27, 509 s in all), slowest
 * first: on a fresh clone vitest knows no durations and would order each project's files by size.
 */
const SLOWEST = [
  "test/store/object-storage.int.test.ts",
  "test/store/corruption.int.test.ts",
  "test/store/faults.int.test.ts",
  "test/cli/commands/import.int.test.ts",
  "test/web/accessibility.int.test.ts",
  "test/store/store.int.test.ts",
  "test/store/damage.int.test.ts",
  "test/store/object-storage-repair.int.test.ts",
  "test/cli/service.int.test.ts",
  "test/cli/commands/export.int.test.ts",
  "test/importers/every-format.int.test.ts",
  "test/cli/watch.int.test.ts",
  "test/cli/commands/recall.int.test.ts",
  "test/web/app.int.test.ts",
  "test/cli/commands/import-text-memories.int.test.ts",
  "test/core/operations/doctor.int.test.ts",
  "test/cli/commands/memories.int.test.ts",
  "test/cli/server-route.int.test.ts",
  "test/web/features.int.test.ts",
  "test/store/store-lease.int.test.ts",
  "test/http/server.int.test.ts",
  "test/store/multi-machine.int.test.ts",
  "test/mcp/inspector.int.test.ts",
  "test/http/hostile-input.int.test.ts",
  "test/mcp/tools.int.test.ts",
];

/**
 * The system project first (its files are the longest and each has a process of its own), then
 * integration, then unit: a project's files one after another, so that a worker that keeps its
 * modules (isolate: false) goes on to the next file of its project. Within a project, the slowest
 * first (by the last run's durations when vitest has them, else SLOWEST, else size), so that the
 * workers end together rather than one running the longest file alone at the end.
 */
const PROJECTS = ["system", "integration", "unit", "package"];

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const keyOf = (file: TestSpecification) => `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
    const listed = (file: TestSpecification) => {
      const index = SLOWEST.indexOf(path.relative(config.root, file.moduleId));
      return index === -1 ? SLOWEST.length : index;
    };
    const byProject = (a: TestSpecification, b: TestSpecification) => PROJECTS.indexOf(a.project.name) - PROJECTS.indexOf(b.project.name);
    const byDuration = (a: TestSpecification, b: TestSpecification) => {
      const [ran, other] = [cache.getFileTestResults(keyOf(a)), cache.getFileTestResults(keyOf(b))];
      return ran && other ? other.duration - ran.duration : 0;
    };
    const bySize = (a: TestSpecification, b: TestSpecification) =>
      (cache.getFileStats(keyOf(b))?.size ?? 0) - (cache.getFileStats(keyOf(a))?.size ?? 0);
    return [...files].sort((a, b) => byProject(a, b) || byDuration(a, b) || listed(a) - listed(b) || bySize(a, b));
  }
}
