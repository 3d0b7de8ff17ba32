/**
 * The child process `mnemo doctor` reads a store through (core/operations/doctor.ts starts it):
 * whatever LanceDB prints when a damaged page makes it panic lands on this process's stderr, which
 * the doctor keeps to itself. Writes one JSON object a line on stdout.
 *
 *   node health-process.js check <uri>              {"checking":t} {"table":…} … {"done":StoreHealth}
 *   node health-process.js salvage <uri> <table>    {"done":{"rows":n,"kept":k}}
 */
import { checkStore, problemOf } from "./health.js";
import { salvageTable } from "./salvage.js";

const [command, uri, table] = process.argv.slice(2);
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

try {
  if (command === "check" && uri) {
    say({ done: await checkStore(uri, { checking: (name) => say({ checking: name }), table: (health) => say({ table: health }) }) });
  } else if (command === "salvage" && uri && table) {
    say({ done: await salvageTable(uri, table) });
  } else {
    say({ failed: { what: `usage: health-process.js check <uri> | salvage <uri> <table>` } });
  }
} catch (error) {
  say({ failed: problemOf(error) });
}
