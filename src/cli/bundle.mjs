// Build step (`npm run build`, after tsc), not part of the CLI: bundles dist/cli/ and the two
// libraries only it uses (commander, chalk) into dist/cli/main.bundle.js, which bin/mnemo.js runs.
// Node 20 resolves, reads and links each ES module on its own: for a command sent to a running server
// that was ~40 of its 55 modules and a fifth of its CPU (src/README.md, CLI). The small modules the
// CLI imports from beside it (text, config, the HTTP client: LEAVES) come into the bundle
// too; everything else outside dist/cli/ stays the module it is, imported from where it lies, so the
// core, store and faces keep one copy each and load only when a command needs them, and so does
// shared/errors.js, whose classes the core's errors must be instances of. The import and export
// threads are bundles of their own (a worker runs its own file); every output lies in dist/cli/, so
// a path a CLI module takes from import.meta.url means the same bundled as not (LEAVES take none but
// to require a built-in). The CLI imports its own modules and LEAVES statically: each module it
// imports dynamically (and whatever else reaches what that one imports) becomes a chunk, one more
// module to load. Through a server a command loads 9 modules (~13% of its time, 2026-11-27).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const CLI = fileURLToPath(new URL("../../dist/cli/", import.meta.url));
const ENTRIES = ["main", "import-thread", "export-thread"];
const DIST = path.dirname(CLI.replace(/[\\/]$/, ""));
const BUNDLED_LIBRARIES = /^(commander|chalk)(\/|$)/;
/** Folders (under dist/) whose modules the CLI imports statically and may carry a copy of: no state, no class the core shares. */
const LEAVES = /^(text|config|client|schemas)[\\/]|^mcp[\\/]client-config\.js$|^shared[\\/]processes\.js$/;

/** Keeps a module outside dist/cli/ (and any library but the two) out of the bundle, imported from the bundle's folder. */
const onlyTheCli = {
  name: "only-the-cli",
  setup(bundler) {
    // commander requires node:child_process as it loads, for subcommands that are programs of their
    // own, which mnemo has none of: ~1.3 ms of every command's start. Required when first used.
    bundler.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`commander no longer requires child_process as ${eager}`);
      const lazy = "const childProcess = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });";
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
    // chalk works out a terminal's colours as it loads (node:tty, which loads node:net: ~5 ms of every
    // start); mnemo gives every Chalk its level (cli/output.ts), so the answer is never read.
    bundler.onResolve({ filter: /^#supports-color$/ }, () => ({ path: "supports-color", namespace: "no-colour-detection" }));
    bundler.onLoad({ filter: /.*/, namespace: "no-colour-detection" }, () => ({
      contents: "export default { stdout: false, stderr: false };",
      loader: "js",
    }));
    bundler.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point" || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      if (!args.path.startsWith(".")) return BUNDLED_LIBRARIES.test(args.path) ? undefined : { path: args.path, external: true };
      const target = path.resolve(args.resolveDir, args.path);
      if (target.startsWith(CLI)) return undefined;
      if (args.kind !== "require-call" && LEAVES.test(path.relative(DIST, target))) return undefined;
      const relative = path.relative(CLI, target);
      return { path: relative.startsWith(".") ? relative : `./${relative}`, external: true };
    });
  },
};

for (const file of fs.readdirSync(CLI)) if (file.endsWith(".bundle.js")) fs.rmSync(path.join(CLI, file)); // an earlier build's chunks

// Each entry a build of its own: sharing chunks with the threads split the main bundle's modules
// into chunks by which entries reach them, each one more module for a command to load (a worker
// thread loads its modules afresh anyway).
const inputs = [];
for (const name of ENTRIES) {
  const { metafile } = await build({
    metafile: true,
    entryPoints: [{ in: path.join(CLI, `${name}.js`), out: `${name}.bundle` }],
    outdir: CLI,
    chunkNames: "chunk-[hash].bundle",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    plugins: [onlyTheCli],
    // commander is CommonJS: its require() of Node's own modules needs a require in an ES module.
    banner: { js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);' },
    logLevel: "warning",
  });
  inputs.push(...Object.keys(metafile.inputs));
}

// The bundle's copies are of leaves alone: a copy of the core, the store or shared/errors.js would be a second one.
const copied = inputs.filter(
  (input) => !input.includes("node_modules") && !/^[a-z-]+:/.test(input) && !path.resolve(input).startsWith(CLI),
);
const strays = copied.filter((input) => !LEAVES.test(path.relative(DIST, path.resolve(input))));
if (strays.length > 0) throw new Error(`the CLI bundle would copy modules it must import: ${strays.join(", ")}`);
