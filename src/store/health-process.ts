/**
 * The child process `mnemo doctor` reads a store through (core/operations/doctor.ts starts it):
 * whatever LanceDB prints when a damaged page makes it panic lands on this process's stderr, which
 * the doctor keeps to itself. Writes one JSON object a line on stdout.
 *
 *   node health-process.js check <uri> [<checksums file>]
 *                                                   {"checking":t} {"table":…} … {"done":StoreHealth}
 *   node health-process.js salvage <uri> <table> <key> <dims> newest|earlier [<changed files JSON> <rows file>]
 *                                                   {"done":{"rows":n,"kept":k,"olderBy":v,"setAside":s}}
 *
 * or, when it cannot: {"failed":{"what", "detail"?}}, with "fault":true and a "suggestion" for a
 * failing disk or object store.
 *
 *   node health-process.js serve                   the same commands, each sent as {"args":[…]} over
 *                                                   the IPC channel once the one before is answered
 *
 * The doctor keeps a `serve` process for its checks: a repair checks the store three times.
 *
 * A store on object storage: its storage options in MNEMO_STORAGE_OPTIONS (JSON), not in the
 * arguments, which any user of the machine can read.
 *
 * It ends when the doctor that started it ends (its IPC channel closes), even by kill -9: a salvage
 * left working would race the repair the user runs next on the same table. A salvage cut short is
 * taken up again by that repair (store/salvage.ts).
 */
import type { Schema } from "apache-arrow";
import { checkStore, missingColumns, problemOf } from "./health.js";
import { storageFaultOf } from "./object-store-errors.js";
import { salvageTable } from "./salvage.js";
import type { TableKey } from "./schema.js";
import { withoutSecrets } from "./store.js";

// A doctor gone before this process had started leaves it no channel at all.
if (!process.connected) process.exit(1);
process.on("disconnect", () => process.exit(1));

const options = JSON.parse(process.env["MNEMO_STORAGE_OPTIONS"] || "{}") as Record<string, string>;
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function run([command, uri, table, key, dims, versions, changed, rowsFile]: string[]): Promise<void> {
  const checksums = command === "check" ? table : undefined; // the check's second argument
  try {
    await withoutSecrets(options, async () => {
      if (command === "check" && uri) {
        const on = { checking: (name: string) => say({ checking: name }), table: (health: unknown) => say({ table: health }) };
        say({ done: await checkStore(uri, options, on, checksums) });
      } else if (command === "salvage" && uri && table && key) {
        const usable = (schema: Schema) => !missingColumns(schema, key as TableKey, Number(dims) || undefined);
        const setAside = changed && rowsFile ? { files: JSON.parse(changed) as string[], rowsFile } : undefined;
        say({
          done: await salvageTable(uri, table, options, { usable, earlier: versions === "earlier", ...(setAside ? { setAside } : {}) }),
        });
      } else {
        say({
          failed: {
            what: `usage: health-process.js check <uri> [<checksums file>] | salvage <uri> <table> <key> <dims> newest|earlier [<changed files JSON> <rows file>] | serve`,
          },
        });
      }
    });
  } catch (error) {
    const fault = storageFaultOf(error, uri ?? "the store");
    say({ failed: fault ? { what: fault.message, suggestion: fault.suggestion, fault: true } : problemOf(error) });
  }
}

if (process.argv[2] === "serve") {
  // Listening on the channel keeps this process running until the doctor lets it go (disconnects).
  process.on("message", (message) => void run((message as { args: string[] }).args));
} else {
  process.channel?.unref(); // the channel alone does not keep this process running once its work is done
  await run(process.argv.slice(2));
}
