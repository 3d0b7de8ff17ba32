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

  it("only store/ builds SQL: it alone imports store/sql.ts, and core/ holds no SQL-looking string", () => {
    const sql = path.join("store", "sql.ts");
    const importers = files.filter(({ file, imports }) => folderOf(file) !== "store" && imports.includes(sql)).map(({ file }) => file);
    expect(importers).toEqual([]);
    const literals = files
      .filter(({ file }) => folderOf(file) === "core")
      .flatMap(({ file }) => stringLiterals(path.join(SRC, file)).map((text) => `${file}: ${text}`));
    expect(literals.filter((literal) => SQL_LOOKING.test(literal.slice(literal.indexOf(": ") + 2)))).toEqual([]);
  });
});

/** A predicate's shape: `column = '…'`, `= ${…}`, `= 3`, `= true`, `IN (`, `IS NULL`, `LIKE '…'`; or a bare "true". */
const SQL_LOOKING =
  /\b[a-z][A-Za-z]* (?:(?:=|!=|<>|>=|<=|<|>) (?:'|\$\{|\d|true\b|false\b|NULL\b)|(?:NOT )?IN \(|IS (?:NOT )?NULL\b|I?LIKE ['$])|^(?:true|false)$/;

/**
 * The text of every string literal in a file, each `${…}` of a template as `${}`; comments skipped.
 * (A small scanner: TypeScript 7 has no compiler API in JavaScript.) Regex literals are not told
 * from division, so a quote inside one would throw it off; core/ has none.
 */
function stringLiterals(file: string): string[] {
  const code = fs.readFileSync(file, "utf8");
  const found: string[] = [];
  const templates: number[] = []; // the brace depth at which each open template's `${` began
  let depth = 0;
  let i = 0;
  /** From inside a template to its end or its next `${`. */
  const readTemplate = (): void => {
    let text = "";
    while (i < code.length && code[i] !== "`" && !code.startsWith("${", i)) {
      const length = code[i] === "\\" ? 2 : 1;
      text += code.slice(i, i + length);
      i += length;
    }
    if (code[i] === "`") {
      found.push(text);
      i += 1;
    } else {
      found.push(`${text}\${}`);
      templates.push(depth);
      depth += 1;
      i += 2;
    }
  };
  while (i < code.length) {
    const c = code[i]!;
    if (code.startsWith("//", i)) {
      const end = code.indexOf("\n", i);
      i = end === -1 ? code.length : end;
    } else if (code.startsWith("/*", i)) {
      i = code.indexOf("*/", i) + 2;
    } else if (c === '"' || c === "'") {
      let end = i + 1;
      while (end < code.length && code[end] !== c && code[end] !== "\n") end += code[end] === "\\" ? 2 : 1;
      found.push(code.slice(i + 1, end));
      i = end + 1;
    } else {
      i += 1;
      if (c === "`") readTemplate();
      else if (c === "{") depth += 1;
      else if (c === "}") {
        depth -= 1;
        if (templates.at(-1) === depth) {
          templates.pop();
          readTemplate();
        }
      }
    }
  }
  return found;
}
