import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./paths.js";

const SRC = path.join(ROOT, "src");

/**
 * What each folder of src/ may import (besides itself): imports run downward only, and a face
 * (cli, http, client, mcp, web) reaches the core through core/index.ts alone.
 */
const MAY_IMPORT: Record<string, string[]> = {
  shared: [],
  text: ["shared"],
  schemas: ["shared", "text"],
  config: ["shared", "schemas"],
  store: ["shared", "text", "schemas", "config"],
  importers: ["shared", "text", "schemas"],
  providers: ["shared", "text", "schemas", "config"],
  core: ["shared", "text", "schemas", "config", "store", "importers", "providers"],
  client: ["shared", "text", "schemas", "config", "core"],
  http: ["shared", "text", "schemas", "config", "core", "mcp"],
  mcp: ["shared", "text", "schemas", "config", "core", "client"],
  web: ["shared", "text", "schemas", "config", "core", "http", "mcp"],
  cli: ["shared", "text", "schemas", "config", "core", "client", "http", "mcp", "web"],
};
const FACES = new Set(["cli", "http", "client", "mcp", "web"]);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Every relative module a file imports (static, dynamic and type-only), as a path under src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1]!);
  return specs.map((spec) => path.relative(SRC, path.resolve(path.dirname(file), spec)).replace(/\.js$/, ".ts"));
}

const files = sourceFiles(SRC).map((file) => ({ file: path.relative(SRC, file), imports: importsOf(file) }));
const folderOf = (file: string) => file.split(path.sep)[0]!;

describe("the shape of src/", () => {
  it("has only the folders the architecture names", () => {
    const folders = new Set(files.map(({ file }) => folderOf(file)));
    for (const folder of folders) expect(Object.keys(MAY_IMPORT), `src/${folder}`).toContain(folder);
  });

  it("imports run downward only, and faces enter the core through core/index.ts", () => {
    const wrong: string[] = [];
    for (const { file, imports } of files) {
      const from = folderOf(file);
      for (const target of imports) {
        const to = folderOf(target);
        if (to === from) continue;
        if (!MAY_IMPORT[from]?.includes(to)) wrong.push(`${file} -> ${target}`);
        else if (FACES.has(from) && to === "core" && target !== path.join("core", "index.ts"))
          wrong.push(`${file} -> ${target} (not the door)`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the CLI reads and writes the run's io, not the process's (so that tests run it in process)", () => {
    // cli/io.ts makes the process's io; cli/main.ts is the process's entry.
    const own = new Set([path.join("cli", "io.ts"), path.join("cli", "main.ts")]);
    const wrong = files
      .filter(({ file }) => folderOf(file) === "cli" && !own.has(file))
      .flatMap(({ file }) =>
        [...fs.readFileSync(path.join(SRC, file), "utf8").matchAll(/process\.(env|stdin|stdout|stderr|exitCode)\b/g)].map(
          (match) => `${file}: ${match[0]}`,
        ),
      );
    expect(wrong).toEqual([]);
  });

  it("has no import cycle", () => {
    const graph = new Map(files.map(({ file, imports }) => [file, imports]));
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") return void cycles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
