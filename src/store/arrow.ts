import { createRequire } from "node:module";

/**
 * apache-arrow as LanceDB loads it: its CommonJS build. Imported as an ES module it is its ES build,
 * a second copy of the library in every process and thread that opens a store (~0.1 s of CPU each:
 * a CLI command, a doctor's check, an import thread).
 */
export const arrow: typeof import("apache-arrow") = createRequire(import.meta.url)("apache-arrow");
