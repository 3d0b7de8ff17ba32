import fs from "node:fs";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { DEFAULT_USER } from "../config/default-user.js";
import type { UserRow } from "../store/rows.js";
import { DamagedTableError } from "../store/damage.js";
import { TABLE, type TableKey } from "../store/schema.js";
import { ensureDefaultBucket } from "./memories/buckets.js";
import type { CoreContext } from "./context.js";
import { AppError } from "../shared/errors.js";
import { removeUserImages } from "./memories/images.js";
import { newId } from "../shared/ids.js";

const USER_NAME = /^[a-zA-Z0-9._-]{1,64}$/;

export interface UserInfo {
  id: string;
  name: string;
  hasToken: boolean;
  createdAt: string;
}

function hashToken(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function toInfo(row: UserRow): UserInfo {
  return { id: row.id, name: row.name, hasToken: row.tokenHash !== null, createdAt: row.createdAt };
}

async function findByName(ctx: CoreContext, name: string): Promise<UserRow | undefined> {
  const [row] = await ctx.store.select("users", { name });
  return row;
}

/** The user called `name`. The default user is created on first use; others must be added. */
export async function resolveUser(ctx: CoreContext, name: string): Promise<UserInfo> {
  const row = await findByName(ctx, name);
  if (row) return toInfo(row);
  await refuseIfUsersLost(ctx);
  if (name !== DEFAULT_USER) {
    throw new AppError("not_found", `user "${name}" does not exist`, {
      suggestion: `Add it with \`mnemo users add ${name}\`, or leave out --user to use the default user.`,
    });
  }
  return addUser(ctx, name, { ifMissing: true });
}

/**
 * A users table that lost its rows (cut short, made again) still reads: a user not found is then a
 * user lost, not one to make. Every user has a bucket, so buckets of users the table does not hold
 * tell it; a fresh default user would make the store look empty, and a repair could no longer give
 * the rows back to the user they belong to.
 */
async function refuseIfUsersLost(ctx: CoreContext): Promise<void> {
  const owners = new Set((await ctx.store.select("buckets", {}, { columns: ["userId"] })).map((row) => row.userId));
  if (owners.size === 0) return;
  const users = new Set((await ctx.store.select("users", {}, { columns: ["id"] })).map((row) => row.id));
  const lost = [...owners].filter((id) => !users.has(id)).length;
  if (lost > 0) throw new DamagedTableError("users", `it does not hold ${lost === 1 ? "a user" : `${lost} users`} whose data is stored`);
}

export async function addUser(ctx: CoreContext, name: string, options: { ifMissing?: boolean } = {}): Promise<UserInfo> {
  if (!USER_NAME.test(name)) {
    throw AppError.invalid("name", "must be 1 to 64 letters, digits, dots, hyphens or underscores");
  }
  const info = await ctx.store.write(async () => {
    const users = await ctx.store.select("users", {});
    const existing = users.find((row) => row.name === name);
    if (existing) {
      if (options.ifMissing) return toInfo(existing);
      throw new AppError("conflict", `user "${name}" already exists`, { details: { field: "name" } });
    }
    // "Alice" beside "alice" would be two stores of memories told apart by a capital letter.
    const like = users.find((row) => row.name.toLowerCase() === name.toLowerCase());
    if (like) {
      throw new AppError("conflict", `user "${like.name}" already exists, and "${name}" differs from it only in case`, {
        details: { field: "name" },
        suggestion: `Use --user ${like.name}, or add the new user under another name.`,
      });
    }
    const row: UserRow = { id: newId("usr"), name, tokenHash: null, createdAt: ctx.now().toISOString() };
    await ctx.store.add("users", [row]);
    await ensureDefaultBucket(ctx, row.id);
    return toInfo(row);
  });
  ctx.afterWrite();
  return info;
}

export async function listUsers(ctx: CoreContext): Promise<UserInfo[]> {
  const rows = await ctx.store.select("users", {});
  return rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(toInfo);
}

/** Every table whose rows belong to one user. */
const OWNED = (Object.keys(TABLE) as TableKey[]).filter((key) => key !== "meta" && key !== "users");

/**
 * The default user cannot be removed: mnemo acts as them without --user and the token file holds
 * their token, so removing them would leave a revoked token there while the next command made an
 * empty default user again.
 */
export function checkRemovable(name: string): void {
  if (name !== DEFAULT_USER) return;
  throw AppError.invalid(
    "name",
    `"${DEFAULT_USER}" is the default user, whom mnemo acts as without --user and whose token is in the token file: it cannot be removed`,
    "To clear its data, delete its memories and conversations by id (`mnemo memories delete …`, `mnemo chats delete …`), or start an empty store with --store <another dir>.",
  );
}

/** Removes a user, every row they own and their image files. */
export async function removeUser(ctx: CoreContext, name: string): Promise<void> {
  checkRemovable(name);
  const user = await resolveExisting(ctx, name);
  await ctx.store.write(async () => {
    for (const key of OWNED) await ctx.store.delete(key, { userId: user.id });
    await ctx.store.delete("users", { id: user.id });
  });
  removeUserImages(ctx, user.id);
  ctx.afterWrite();
}

/** A new API token for the user; the old one stops working. Only its hash is stored. */
export async function rotateToken(ctx: CoreContext, name: string): Promise<string> {
  return rotateTokenOf(ctx, await resolveUser(ctx, name));
}

/**
 * The same for a user already known (the caller of POST /api/token/rotate). The default user's
 * token is also written to the token file, where local plugins and `--remote` look for it, so a
 * token rotated from the web app does not leave them a revoked one.
 *
 * The hash is replaced only if it is still the one read first (a conditional update, counted), so
 * of two rotations at once, on two machines or one, one succeeds and the other is told so: nobody
 * is handed a token that another rotation already revoked.
 */
export async function rotateTokenOf(ctx: CoreContext, user: Pick<UserInfo, "id" | "name">): Promise<string> {
  const token = `mnemo_${randomBytes(32).toString("base64url")}`;
  const [before] = await ctx.store.select("users", { id: user.id }, { columns: ["tokenHash"] });
  const unchanged = { id: user.id, tokenHash: before?.tokenHash ? before.tokenHash : null };
  const rotated = await ctx.store.write(() => ctx.store.update("users", unchanged, { tokenHash: hashToken(token).toString("hex") }));
  if (rotated === 0) {
    throw new AppError(
      "conflict",
      `The token of user "${user.name}" was rotated by another request at the same moment; that one's token is in effect`,
      {
        suggestion: "Rotate again for a token of your own (the other one then stops working).",
      },
    );
  }
  ctx.afterWrite();
  if (user.name === DEFAULT_USER) writeTokenFile(ctx.config.paths.tokenFile, token);
  return token;
}

/** The default user's token where local plugins look for it, readable by its owner only, whatever the file's mode was. */
function writeTokenFile(file: string, token: string): void {
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/**
 * What a web session of the user rests on: their token's hash ("" for a user without one), or
 * undefined once the user is removed. A session ends when it changes (web/sessions.ts).
 */
export async function credentialStamp(ctx: CoreContext, userId: string): Promise<string | undefined> {
  const [row] = await ctx.store.select("users", { id: userId }, { columns: ["tokenHash"] });
  return row ? (row.tokenHash ?? "") : undefined;
}

/** The user a bearer token belongs to; every stored hash is compared in constant time. */
export async function userForToken(ctx: CoreContext, token: string): Promise<UserInfo | undefined> {
  const presented = hashToken(token);
  let match: UserRow | undefined;
  for (const row of await ctx.store.select("users", { tokenHash: { not: null } })) {
    const stored = Buffer.from(row.tokenHash ?? "", "hex");
    if (stored.length === presented.length && timingSafeEqual(stored, presented)) match = row;
  }
  return match && toInfo(match);
}

async function resolveExisting(ctx: CoreContext, name: string): Promise<UserInfo> {
  const row = await findByName(ctx, name);
  if (!row) throw new AppError("not_found", `user "${name}" does not exist`, { suggestion: "List users with `mnemo users list`." });
  return toInfo(row);
}
