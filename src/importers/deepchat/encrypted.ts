// DeepChat's agent.db with "SQLite database encryption" on (1.0.5 on): SQLCipher 4 pages, no SQLite
// header, keyed by a password the user typed or Electron's safeStorage wrapped (src/main/app/
// databaseSecurity.ts). Whether it is on is kept beside app_db, in <userData>/database-security.json
// (ElectronStore): `{ "metadata": { "enabled": true, "passwordStorage": "safeStorage" | "manual", … } }`.
// mnemo has no SQLCipher and never asks for the password: the file is named as encrypted when that
// says so, else as encrypted or damaged.
import { AppError } from "../../shared/errors.js";
import { isObject, jsonObjectIn } from "../json-values.js";
import { smallText, type ByteSource } from "../source.js";

const SETTINGS = "../database-security.json";
const MAX_SETTINGS_BYTES = 64 * 1024;

export async function encryptedDatabase(source: ByteSource): Promise<AppError> {
  const enabled = await encryptionEnabled(source);
  const what = enabled
    ? "DeepChat's database, encrypted (database-security.json beside its app_db folder says encryption is on)"
    : "no SQLite database as DeepChat writes it: encrypted by DeepChat's database encryption, or damaged";
  return new AppError("invalid_input", `${source.label}: ${what}; mnemo cannot read an encrypted database`, {
    suggestion:
      "In DeepChat, turn encryption off (Settings → Data → SQLite database encryption → Disable encryption), " +
      "which writes agent.db back as plain SQLite, then import it again (and turn encryption on again if you want it).",
    details: { field: "database", problem: "encrypted" },
  });
}

async function encryptionEnabled(source: ByteSource): Promise<boolean> {
  const settings = await source.sibling?.(SETTINGS).catch(() => undefined);
  if (settings === undefined) return false;
  const metadata = jsonObjectIn(await smallText(settings, MAX_SETTINGS_BYTES).catch(() => undefined))?.metadata;
  return isObject(metadata) && metadata.enabled === true;
}
