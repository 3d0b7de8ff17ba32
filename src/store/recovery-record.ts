import fs from "node:fs";
import path from "node:path";
import type { UserRow } from "./rows.js";
import type { StoreMeta } from "./schema.js";

/**
 * What a damaged meta or users table can no longer say, kept in the local data dir: the store's
 * meta record (its embedder and live generation) and every user seen (id, name, token hash). A store
 * whose meta table is damaged opens with the recorded meta (store.ts), and `mnemo doctor --repair`
 * writes both tables again from it; without it, users are rebuilt from their rows' ids alone. Only a
 * copy for recovery: the tables are what counts. A user seen once stays recorded (a repair rebuilds
 * only users whose rows are still stored). Owner-only, as the users table is.
 */
export interface RecoveryRecord {
  meta?: StoreMeta;
  users: UserRow[];
}

export function readRecoveryRecord(file: string): RecoveryRecord {
  return parse(readText(file));
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function parse(text: string | undefined): RecoveryRecord {
  try {
    const value = JSON.parse(text ?? "{}") as Partial<RecoveryRecord>;
    return { ...(value.meta ? { meta: value.meta } : {}), users: Array.isArray(value.users) ? value.users : [] };
  } catch {
    return { users: [] };
  }
}

/** Records `meta` and `users` (merged by id with those recorded); the file is written only when that changes it. */
export function updateRecoveryRecord(file: string, seen: { meta?: StoreMeta; users?: UserRow[] }): void {
  const written = readText(file);
  const before = parse(written);
  const users = new Map(before.users.map((user) => [user.id, user]));
  for (const user of seen.users ?? []) users.set(user.id, user);
  const after: RecoveryRecord = { ...((seen.meta ?? before.meta) ? { meta: seen.meta ?? before.meta } : {}), users: [...users.values()] };
  const text = `${JSON.stringify(after, null, 1)}\n`;
  if (text === written) return;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}
