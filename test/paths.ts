import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BIN = path.join(ROOT, "bin", "mnemo.js");
