// Damage stays with its record (issue 36): random damage to one record of a generated export of
// 1,000 conversations (text that is not valid Unicode, bytes lost, added or changed, a record cut
// short, a record that is not a conversation) changes what that record gives, and nothing else.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";
import type { AppError } from "../../src/shared/errors.js";
import { type Format, GENERATED, RECORDS, serialise } from "./generated-export.js";

const CONVERSATIONS = GENERATED;
const tmp = mkdtempSync(join(tmpdir(), "mnemo-damage-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Imported {
  conversations: UploadConversation[];
  problems: AppError[];
  repaired: { record: number; text: string }[];
}

async function importBytes(bytes: Buffer, name: string): Promise<Imported> {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  const problems: AppError[] = [];
  const reader = await openExport(path, { onUnreadable: (problem) => problems.push(problem) });
  const conversations: UploadConversation[] = [];
  for await (const conversation of reader.conversations()) conversations.push(conversation);
  return { conversations, problems, repaired: reader.repaired() };
}

const baseline: Partial<Record<Format, string[]>> = {};
/** What each record of the undamaged export gives, as JSON text. */
async function undamaged(format: Format): Promise<string[]> {
  baseline[format] ??= (await importBytes(serialise(RECORDS[format]).bytes, `${format}-whole.json`)).conversations.map((c) =>
    JSON.stringify(c),
  );
  return baseline[format]!;
}

/** Damage to a record's value, before it is written. */
const valueDamage = fc.oneof(
  fc.record({ kind: fc.constant("lone surrogate" as const), at: fc.nat(), surrogate: fc.integer({ min: 0xd800, max: 0xdfff }) }),
  fc.record({ kind: fc.constant("cut emoji" as const) }),
  fc.record({ kind: fc.constant("not an object" as const), value: fc.constantFrom<unknown>(null, 42, "text", [], true) }),
  fc.record({
    kind: fc.constant("field of another type" as const),
    field: fc.nat(),
    value: fc.constantFrom<unknown>(null, 7, "x", [], {}),
  }),
);

/** Damage to the record's bytes, once written. */
const byteDamage = fc.oneof(
  fc.record({ kind: fc.constant("bytes lost" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("bytes added" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("bytes changed" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("cut short" as const), at: fc.nat(), length: fc.nat() }),
  fc.record({ kind: fc.constant("bytes that are not UTF-8" as const), at: fc.nat(), byte: fc.constantFrom(0xff, 0xfe, 0xc3, 0x80, 0xed) }),
);

type ValueDamage = typeof valueDamage extends fc.Arbitrary<infer T> ? T : never;
type ByteDamage = typeof byteDamage extends fc.Arbitrary<infer T> ? T : never;

function damageValue(record: Record<string, unknown>, damage: ValueDamage, format: Format): unknown {
  const copy = structuredClone(record);
  const titleKey = format === "claude" ? "name" : "title";
  const text = copy[titleKey] as string;
  switch (damage.kind) {
    case "lone surrogate": {
      const at = damage.at % (text.length + 1);
      copy[titleKey] = `${text.slice(0, at)}${String.fromCharCode(damage.surrogate)}${text.slice(at)}`;
      return copy;
    }
    case "cut emoji":
      copy[titleKey] = text.slice(0, text.indexOf("🙂") + 1); // half of the emoji's surrogate pair
      return copy;
    case "not an object":
      return damage.value;
    case "field of another type": {
      const keys = Object.keys(copy);
      copy[keys[damage.field % keys.length]!] = damage.value;
      return copy;
    }
  }
}

function damageBytes(bytes: Buffer, span: { start: number; end: number }, damage: ByteDamage): Buffer {
  const length = span.end - span.start;
  const at = span.start + (damage.at % length);
  switch (damage.kind) {
    case "bytes lost":
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(at + damage.length, span.end))]);
    case "bytes added":
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(damage.bytes), bytes.subarray(at)]);
    case "bytes changed": {
      const copy = Buffer.from(bytes);
      Buffer.from(damage.bytes).copy(copy, at, 0, Math.min(damage.bytes.length, span.end - at));
      return copy;
    }
    case "cut short":
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(span.end, at + 1 + (damage.length % length)))]);
    case "bytes that are not UTF-8": {
      // Inside the title's text, so that the damage is to a string.
      const text = bytes.subarray(span.start, span.end).toString("latin1");
      const titleAt = span.start + text.indexOf('e":"') + 4; // "title":" or "name":"
      const inside = titleAt + (damage.at % 8);
      return Buffer.concat([bytes.subarray(0, inside), Buffer.from([damage.byte]), bytes.subarray(inside)]);
    }
  }
}

/** What one damaged record may change: its own conversation, and problems (or a repair) that name it. */
function expectOnlyRecordChanged(damaged: Imported, whole: string[], k: number, span: { start: number; end: number }): void {
  expect(whole).toHaveLength(CONVERSATIONS);
  const got = damaged.conversations.map((conversation) => JSON.stringify(conversation));
  const present = new Set(got);
  const lost = whole.flatMap((conversation, i) => (i !== k && !present.has(conversation) ? [i + 1] : []));
  expect(lost, "records whose conversation is lost or changed").toEqual([]);
  const others = new Set(whole.filter((_, i) => i !== k));
  expect(got.filter((conversation) => !others.has(conversation)).length, "conversations from the damaged record").toBeLessThanOrEqual(1);
  for (const problem of damaged.problems) {
    const byte = Number(problem.details["recordByte"] ?? problem.details["byte"]);
    expect(byte, problem.message).toBeGreaterThanOrEqual(span.start);
    expect(byte, problem.message).toBeLessThanOrEqual(span.end);
  }
  for (const repair of damaged.repaired) expect(repair.record).toBe(k + 1);
}

describe("damage to one record of 1,000", () => {
  const format = fc.constantFrom(...(Object.keys(RECORDS) as Format[]));
  const record = fc.nat({ max: CONVERSATIONS - 1 });

  it("to its value (text not valid Unicode, not an object, a field of another type): that record alone", async () => {
    await fc.assert(
      fc.asyncProperty(format, record, valueDamage, async (format, k, damage) => {
        const records = RECORDS[format].map((value, i) => (i === k ? damageValue(value, damage, format) : value));
        const { bytes, spans } = serialise(records);
        const damaged = await importBytes(bytes, `${format}-value.json`);
        expectOnlyRecordChanged(damaged, await undamaged(format), k, spans[k]!);
        if (damage.kind === "lone surrogate" || damage.kind === "cut emoji") {
          expect(damaged.problems).toEqual([]);
          expect(damaged.repaired).toEqual([expect.objectContaining({ record: k + 1, text: expect.stringContaining("\uFFFD") })]);
          expect(damaged.conversations).toHaveLength(CONVERSATIONS);
        }
      }),
      { numRuns: 20 },
    );
  });

  it("to its bytes (lost, added, changed, cut short, not UTF-8): that record alone", async () => {
    await fc.assert(
      fc.asyncProperty(format, record, byteDamage, async (format, k, damage) => {
        const { bytes, spans } = serialise(RECORDS[format]);
        const span = spans[k]!;
        const damagedBytes = damageBytes(bytes, span, damage);
        const end = span.end + (damagedBytes.length - bytes.length);
        const damaged = await importBytes(damagedBytes, `${format}-bytes.json`);
        expectOnlyRecordChanged(damaged, await undamaged(format), k, { start: span.start, end: Math.max(end, span.start) });
        if (damage.kind === "bytes that are not UTF-8") {
          expect(damaged.repaired).toEqual([expect.objectContaining({ record: k + 1, text: expect.stringContaining("\uFFFD") })]);
        }
      }),
      {
        numRuns: 40,
        examples: [
          // Found by this test: a cut that loses a record's closing brackets, so that the next records read as inside it.
          ["claude", 997, { kind: "cut short", at: 1_825_243_379, length: 327_565_618 }],
          // And a byte lost from or added to the first record's `inserted_at`, the key that tells DeepSeek's
          // records from ChatGPT's: the whole file was read as ChatGPT's, and nothing imported.
          ["deepseek", 0, { kind: "bytes lost", at: 2_147_483_636, length: 1 }],
          ["deepseek", 0, { kind: "bytes added", at: 1_761_253_140, bytes: Uint8Array.from([32]) }],
        ],
      },
    );
  });
});

describe("one bad title among 60 conversations (the export that imported 0)", () => {
  it("imports all 60 and says which record was repaired", async () => {
    const records = RECORDS.chatgpt.slice(0, 60).map((value, i) => (i === 41 ? { ...value, title: "Cut mid-emoji \ud83d" } : value));
    const { conversations, problems, repaired } = await importBytes(serialise(records).bytes, "sixty.json");
    expect(conversations).toHaveLength(60);
    expect(problems).toEqual([]);
    expect(repaired).toEqual([{ file: join(tmp, "sixty.json"), record: 42, fields: ["title"], count: 1, text: "Cut mid-emoji \uFFFD" }]);
    expect(conversations[41]?.conversation.title).toBe("Cut mid-emoji \uFFFD");
  });
});

describe("the other layouts of JSON records", () => {
  const five = RECORDS.chatgpt.slice(0, 5);
  const damage = (text: string) => text.replace('"conv-0002-x"', '"conv-0002-x"x'); // record 3's last field

  it.each([
    ["a wrapped list", JSON.stringify({ meta: { note: [{ conversations: 1 }] }, conversations: five, rest: [five[0]] })],
    ["values one after another", five.map((record) => JSON.stringify(record, null, 2)).join("\n")],
    ["one value a line", five.map((record) => JSON.stringify(record)).join("\n")],
  ])("%s: the damaged record alone is left out, and named", async (_, text) => {
    const { conversations, problems } = await importBytes(Buffer.from(damage(text)), "layout.json");
    expect(conversations.map((conversation) => conversation.conversation.id)).toEqual([
      "conv-0000-x",
      "conv-0001-x",
      "conv-0003-x",
      "conv-0004-x",
    ]);
    expect(problems.map((problem) => problem.details["record"])).toEqual([3]);
  });
});
