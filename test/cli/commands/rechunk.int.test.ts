import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { BIN, chatAbout, isolatedEnv, openAppWithChats, runCli } from "../../helpers.js";

/** A store of these conversations (chunked at the default 192 tokens), config.json then set to `chunkTokens`, and the env of a CLI on it. */
async function storeWithSetting(chats: ReturnType<typeof chatAbout>[], chunkTokens: number) {
  const { app } = await openAppWithChats(chats);
  const dataDir = app.config.paths.dataDir;
  await app.close();
  fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ chunkTokens }));
  return { dataDir, env: isolatedEnv({ MNEMO_STORE: dataDir, MNEMO_EMBEDDER: "bundled" }) };
}

async function chunksInfo(env: NodeJS.ProcessEnv): Promise<{ tokens: number; setting: number; note?: string }> {
  const info = await runCli(["--json", "info"], { env });
  expect(info.code, info.stderr).toBe(0);
  return (JSON.parse(info.stdout) as { chunks: { tokens: number; setting: number; note?: string } }).chunks;
}

const NOTE = /chunks of up to 192 tokens, but config\.json's chunkTokens is 48: `mnemo reindex --rechunk` cuts it again/;

describe("mnemo reindex --rechunk, from the command line", () => {
  it("info and doctor say the store's chunks differ from chunkTokens; reindex --rechunk cuts them again and search finds the same", async () => {
    const { env } = await storeWithSetting([chatAbout("bread", "sourdough starter"), chatAbout("tea", "oolong brewing")], 48);
    const info = await runCli(["info"], { env });
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toMatch(/^Chunks: +up to 192 tokens$/m);
    expect(info.stderr).toMatch(NOTE);
    const doctor = await runCli(["doctor"], { env });
    expect(doctor.code, doctor.stderr).toBe(0); // a setting to apply is not damage
    expect(doctor.stdout).toMatch(/embedder bundled, 512 dimensions, chunks of up to 192 tokens/);
    expect(doctor.stderr).toMatch(/Nothing is wrong with the store/);
    expect(doctor.stderr).toMatch(NOTE);
    const before = await runCli(["--json", "search", "oolong brewing secret"], { env });
    const beforeTop = (JSON.parse(before.stdout) as { results: { conversationId: string; text: string }[] }).results[0]!;
    expect(beforeTop.text).toMatch(/The oolong brewing secret is patience/);

    const reindex = await runCli(["reindex", "--rechunk"], { env });
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(reindex.stderr).toMatch(/Re-chunked the chat history into 16 chunks of up to 48 tokens, embedded with bundled/);
    expect(await chunksInfo(env)).toEqual({ tokens: 48, setting: 48 });
    const after = await runCli(["--json", "search", "oolong brewing secret"], { env });
    const afterTop = (JSON.parse(after.stdout) as { results: { conversationId: string; text: string }[] }).results[0]!;
    expect(afterTop.conversationId).toBe(beforeTop.conversationId);
    expect(afterTop.text).toMatch(/^Turn 5 on oolong brewing: .*The oolong brewing secret is patience\.$/);
    const healthy = await runCli(["doctor"], { env });
    expect(healthy.code, healthy.stderr).toBe(0);
    expect(healthy.stderr).not.toMatch(/chunkTokens/);
  });

  // 20 conversations, so that embedding their 160 new chunks (0.13 s at best) takes far longer than the few ms between the new table appearing and the kill.
  it("killed mid-way (kill -9), the store keeps its chunks and size; run again, it completes", async () => {
    const topics = Array.from({ length: 20 }, (_, i) => chatAbout(`c${i}`, `topic number ${i}`));
    const { dataDir, env } = await storeWithSetting(topics, 48);
    const child = spawn(process.execPath, [BIN, "reindex", "--rechunk"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = once(child, "close");
    // The new generation's chunks table exists from the start of the copy; the switch comes after every chunk is embedded.
    while (!fs.existsSync(path.join(dataDir, "db", "chunks_g1.lance")) && child.exitCode === null) await sleep(5);
    child.kill("SIGKILL");
    const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe("SIGKILL");

    expect(await chunksInfo(env)).toMatchObject({ tokens: 192, setting: 48 });
    const search = await runCli(["--json", "search", "topic number 17 secret"], { env });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout).results[0].text).toMatch(/The topic number 17 secret is patience/);

    const again = await runCli(["reindex", "--rechunk"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Re-chunked the chat history into 160 chunks of up to 48 tokens/);
    expect(await chunksInfo(env)).toEqual({ tokens: 48, setting: 48 });
    const found = await runCli(["--json", "search", "topic number 17 secret"], { env });
    expect(JSON.parse(found.stdout).results[0].text).toMatch(/^Turn 5 on topic number 17: .*secret is patience\.$/);
  });
});
