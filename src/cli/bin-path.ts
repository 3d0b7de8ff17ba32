import { fileURLToPath } from "node:url";

/**
 * bin/mnemo.js of this installation, which a service or an MCP client runs. From dist/cli/, where
 * this module and the CLI's bundle both lie (cli/bundle.mjs).
 */
export const BIN = fileURLToPath(new URL("../../bin/mnemo.js", import.meta.url));
