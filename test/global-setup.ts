import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { bundledModelFile } from "../src/providers/bundled/bundled-model-file.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A models folder holding the bundled model, converted once for the whole run. */
    modelsDir: string;
  }
}

/**
 * Converts the bundled model once per run, into a folder every store of the run finds it in
 * ($MNEMO_MODELS, see isolatedEnv): each fresh store converted it again, a second of CPU apiece.
 * The folder is named for this vitest process, so the projects that run this setup share it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = path.join(os.tmpdir(), `mnemo-test-models-${process.pid}`);
  const file = await bundledModelFile(dir);
  if (typeof file !== "string") throw new Error(`could not write the converted bundled model into ${dir}`);
  project.provide("modelsDir", dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
