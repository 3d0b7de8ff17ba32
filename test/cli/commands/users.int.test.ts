import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, openTestApp, runCli, serveStore, startCommand, tempDir, type ServedStore } from "../../helpers.js";

/** One `mnemo serve` on a fresh store, in a process of its own: "already serves this store" is said of another process. */
let served: ServedStore;
beforeAll(async () => {
  served = await serveStore({ spawn: true });
});
afterAll(async () => served?.stop());

describe("mnemo token and users", () => {
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const mnemo = (args: string[]) => runCli(args, { env });

  it("token --rotate prints a new token once, writes the 0600 token file, and revokes the old one", async () => {
    expect(JSON.parse((await mnemo(["--json", "token"])).stdout)).toMatchObject({ user: "default", hasToken: false });
    const first = JSON.parse((await mnemo(["--json", "token", "--rotate"])).stdout).token as string;
    expect(first).toMatch(/^mnemo_/);
    const file = path.join(store, "token");
    expect(fs.readFileSync(file, "utf8").trim()).toBe(first);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse((await mnemo(["--json", "token"])).stdout).hasToken).toBe(true);
    fs.chmodSync(file, 0o644);
    const second = (await mnemo(["token", "--rotate"])).stdout.trim();
    expect(second).not.toBe(first);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600); // whatever mode the old file had
    const app = await openTestApp({ store });
    expect(await app.authenticate(first)).toBeUndefined();
    expect((await app.authenticate(second))?.user.name).toBe("default");
    await app.close();
  });

  it("users add prints the new user's token; list and remove", async () => {
    const added = JSON.parse((await mnemo(["--json", "users", "add", "bob"])).stdout);
    expect(added).toMatchObject({ user: "bob", token: expect.stringMatching(/^mnemo_/) });
    expect((await mnemo(["users", "add", "bob"])).stderr).toMatch(/already exists/);
    expect((await mnemo(["users", "add", "bad name!"])).code).toBe(2);
    const list = JSON.parse((await mnemo(["--json", "users"])).stdout) as { name: string; hasToken: boolean }[];
    expect(list.map((u) => u.name)).toEqual(["default", "bob"]);
    // The token file stays the default user's when another user's token is rotated.
    const tokenFile = path.join(store, "token");
    const before = fs.readFileSync(tokenFile, "utf8");
    const bobs = JSON.parse((await mnemo(["--json", "--user", "bob", "token", "--rotate"])).stdout).token as string;
    expect(fs.readFileSync(tokenFile, "utf8")).toBe(before);
    expect(before).not.toContain(bobs);
    expect((await mnemo(["--user", "bob", "remember", "bob's note"])).code).toBe(0);
    expect((await mnemo(["users", "remove", "bob"])).code).toBe(2);
    // A name that differs from a user's only in case is refused, naming the user there is.
    const cased = await mnemo(["users", "add", "Bob"]);
    expect(cased.code).not.toBe(0);
    expect(cased.stderr).toMatch(/user "bob" already exists, and "Bob" differs from it only in case\n.*--user bob/);
    const unconfirmed = await mnemo(["users", "remove", "bob"]);
    expect([unconfirmed.code, unconfirmed.stderr]).toEqual([
      2,
      expect.stringContaining("Refusing to remove user bob and all their memories and conversations without confirmation"),
    ]);
    expect((await mnemo(["--yes", "users", "remove", "bob"])).code).toBe(0);
    // The default user is the one the CLI and the token file act as: removing it is refused, and nothing changes.
    const tokenBefore = fs.readFileSync(tokenFile, "utf8");
    const refused = await mnemo(["--yes", "users", "remove", "default"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/"default" is the default user[\s\S]*mnemo memories delete/);
    expect(fs.readFileSync(tokenFile, "utf8")).toBe(tokenBefore);
    expect(JSON.parse((await mnemo(["--json", "token"])).stdout)).toMatchObject({ user: "default", hasToken: true });
    const missing = await mnemo(["--user", "bob", "memories"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/mnemo users add bob/);
  });

  it("mnemo serve warns when it listens beyond this machine", async () => {
    const server = await startCommand(["--json", "serve", "--host", "0.0.0.0", "--port", "0"], env);
    await server.stop();
    expect(server.log()).toMatch(/Listening on 0\.0\.0\.0: other machines can reach this server/);
  });

  it("the first mnemo serve writes a token file only its owner can read", async () => {
    expect(served.token).toMatch(/^mnemo_/);
    expect(fs.statSync(served.tokenFile).mode & 0o777).toBe(0o600);
  });
});

describe("flags that cannot work say so, with exit code 2", () => {
  it("refuses --remote for commands that administer this machine's store, and --user with a server", async () => {
    const local = path.join(tempDir(), "local");
    const env = isolatedEnv({ MNEMO_STORE: local, MNEMO_EMBEDDER: "bundled" });
    for (const args of [["users", "add", "carol"], ["token"], ["maintain"], ["reindex"]]) {
      const result = await runCli(["--remote", served.url, "--token", served.token, ...args], { env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^✖ --remote: this command works on the store of this machine/m);
    }
    expect(fs.existsSync(local)).toBe(false); // no store was made on the way
    // MNEMO_URL, set for the everyday commands, is not a request to administer the server: they run here, saying so.
    const viaEnv = await runCli(["--json", "token"], { env: { ...env, MNEMO_URL: served.url } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(viaEnv.stderr).toContain(`This command works on the store at ${local}, not on the server at $MNEMO_URL.`);
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ user: "default", hasToken: false });
    const asUser = await runCli(["--user", "alice", "memories"], { env: served.env });
    expect(asUser.code).toBe(2);
    expect(asUser.stderr).toMatch(/--user: cannot be used with a server/);
  });

  it("names a bad --store, --remote or --port, and a port in use", async () => {
    const env = isolatedEnv({ MNEMO_EMBEDDER: "bundled" });
    expect(await runCli(["--store", "", "memories"], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--store: must not be empty/),
    });
    expect(await runCli(["--remote", "not-a-url", "memories"], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--remote: "not-a-url" is not a server address/),
    });
    const store = path.join(tempDir(), "store");
    expect(await runCli(["--store", store, "serve", "--port", "99999"], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--port: must be at most 65535/),
    });
    const port = new URL(served.url).port;
    const taken = await runCli(["--store", store, "serve", "--port", port], { env });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use[\\s\\S]*--port`));
    const second = await runCli(["--store", served.dataDir, "serve", "--port", "0"], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`mnemo serve \\(pid \\d+\\) already serves this store at ${served.url}`));
  });
});
