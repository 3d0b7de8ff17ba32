import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliTarget, ROOT, runCli } from "../../helpers.js";

/** `mnemo trash`, and `--trash` on the deletes — on the store, and through a server (POST /api/trash and its kin). */
describe.each(["embedded", "remote"] as const)("mnemo trash (%s)", (mode) => {
  let target: Awaited<ReturnType<typeof cliTarget>>;
  const cli = (...args: string[]) => runCli(args, { env: target.env });
  const json = async (...args: string[]) => {
    const result = await cli("--json", ...args);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  beforeAll(async () => {
    target = await cliTarget(mode);
  });
  afterAll(() => target.stop());

  it("`memories list`, `buckets list` and `trash list` are the commands' own listings, as `chats list` is; 'list' stays a memory's text", async () => {
    const { memoryId } = await json("remember", "--no-date", "memories", "list");
    expect((await json("memories", "list", "--all")).memories.map((m: { id: string }) => m.id)).toContain(memoryId);
    expect(await json("memories", "list")).toEqual(await json("memories"));
    expect(await json("buckets", "list")).toEqual(await json("buckets"));
    expect(await json("trash", "list")).toEqual(await json("trash"));
    expect((await json("memories", "--all")).memories.find((m: { id: string }) => m.id === memoryId).text).toBe("memories list");
    await json("--yes", "memories", "delete", memoryId);
  });

  it("moves a memory to the trash without asking, lists it, and restores it as it was", async () => {
    const { memoryId } = await json("remember", "--no-date", "Tram 28 goes up to Graça");
    const moved = await cli("memories", "delete", "--trash", memoryId, "mem_01ZZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(moved.code).toBe(1);
    expect(moved.stdout + moved.stderr).toContain(`Moved memory ${memoryId} to the trash as trs_`);
    expect(moved.stderr).toContain("Not found: mem_01ZZZZZZZZZZZZZZZZZZZZZZZZ");
    expect((await json("memories")).memories).toEqual([]);

    const listed = await cli("trash");
    expect(listed.stdout).toMatch(/trs_\w+ +memory .* Tram 28 goes up to Graça \(General\)/);
    const [entry] = (await json("trash")).items;
    const restored = await cli("trash", "restore", entry.id);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout + restored.stderr).toContain(`Restored memory ${memoryId}: Tram 28 goes up to Graça`);
    const history = await json("memories", "history", memoryId);
    expect(history.versions).toHaveLength(1);
    const empty = await cli("trash");
    expect(empty.stdout + empty.stderr).toContain("The trash is empty.");
  });

  it("restores by the memory's or conversation's own id, the one `delete --trash` was given, and says the entry's id to use", async () => {
    const { memoryId } = await json("remember", "--no-date", "The ferry to Cacilhas leaves every 20 minutes");
    const moved = await cli("memories", "delete", "--trash", memoryId);
    const [entry] = (await json("trash")).items;
    expect(moved.stderr).toContain(`Kept 30 days: \`mnemo trash restore ${entry.id}\` puts it back.`);
    const restored = await cli("trash", "restore", memoryId);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout + restored.stderr).toContain(`Restored memory ${memoryId}: The ferry to Cacilhas`);
    expect((await json("memories")).memories.map((m: { id: string }) => m.id)).toContain(memoryId);
    expect((await json("trash")).total).toBe(0);
    await json("--yes", "memories", "delete", memoryId);
  });

  it("moves conversations there, and empties the trash for good only when told to", async () => {
    const imported = await json("import", path.join(ROOT, "fixtures", "exports", "upload", "array.json"));
    const ids: string[] = imported.conversationIds.slice(0, 2);
    expect(ids).toHaveLength(2);
    const moved = await json("chats", "delete", "--trash", ...ids);
    expect(moved.items.map((item: { itemId: string }) => item.itemId)).toEqual(ids);
    expect((await json("chats", "list")).items.map((item: { id: string }) => item.id)).not.toContain(ids[0]);
    const unasked = await cli("trash", "empty");
    expect(unasked.code).toBe(2);
    expect((await json("trash")).total).toBe(2);
    const [one] = (await json("trash")).items;
    expect(await json("--yes", "trash", "empty", one.id)).toEqual({ deleted: 1, notFound: [] });
    const emptied = await cli("--yes", "trash", "empty");
    expect(emptied.stderr).toMatch(/^✔ Deleted 1 trash entry for good$/m);
    const missing = await cli("trash", "restore", one.id);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(new RegExp(`^✖ ${one.id} is not in the trash\n  → It was restored or deleted for good already`));
    const several = await cli("trash", "restore", one.id, "trs_nothing");
    expect(several.stderr).toMatch(/^✖ none of these is in the trash\n/);
    // Deleting for good names the ids that are not there (it said "Deleted 1 trash entry" and no more), by a memory's own id too.
    const { memoryId } = await json("remember", "--no-date", "Kept for a moment in the trash");
    await json("memories", "delete", "--trash", memoryId);
    const partly = await cli("--yes", "trash", "empty", memoryId, one.id);
    expect(partly.stderr).toMatch(/^✔ Deleted 1 trash entry for good$/m);
    expect(partly.stderr).toContain(`! Not in the trash (restored or deleted already, or expired): ${one.id}\n`);
    const none = await cli("--yes", "trash", "empty", one.id);
    expect([none.code, none.stderr]).toEqual([1, expect.stringMatching(new RegExp(`^✖ ${one.id} is not in the trash\n`))]);
  });
});
