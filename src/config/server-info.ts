import fs from "node:fs";
import { processRuns } from "../shared/processes.js";

/** What a running `mnemo serve` leaves in the data dir, so other processes can find (or avoid) it. */
export interface ServerInfo {
  pid: number;
  url: string;
  startedAt: string;
  /** The store it serves (a data dir's database, or a URI): the default data dir keeps the record of a server on object storage. Absent in a record written before it was kept. */
  store?: string;
}

export function writeServerInfo(file: string, info: ServerInfo): void {
  fs.writeFileSync(file, `${JSON.stringify(info)}\n`, { mode: 0o600 });
}

export function removeServerInfo(file: string): void {
  fs.rmSync(file, { force: true });
}

/** Removes the record if this process wrote it: a server stopped as it started leaves none behind with its dead pid. */
export function removeOwnServerInfo(file: string): void {
  try {
    if ((JSON.parse(fs.readFileSync(file, "utf8")) as ServerInfo).pid !== process.pid) return;
  } catch {
    return; // none, or not one this process could have written
  }
  removeServerInfo(file);
}

/** The server using this data dir, if one is running now (a file left by a crashed one is ignored). */
export function runningServer(file: string): ServerInfo | undefined {
  let info: ServerInfo;
  try {
    info = JSON.parse(fs.readFileSync(file, "utf8")) as ServerInfo;
  } catch {
    return undefined;
  }
  return processRuns(info.pid) && info.pid !== process.pid ? info : undefined;
}
