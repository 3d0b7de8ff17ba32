import type { Context } from "hono";
import { describe, expect, it } from "vitest";
import { LargeBodies } from "../../src/http/admission.js";

const withLength = (length: number | undefined) =>
  ({ req: { header: () => (length === undefined ? undefined : String(length)) } }) as unknown as Context;

describe("LargeBodies", () => {
  it("admits large bodies (or of unknown length) two at a time, small ones at once", async () => {
    const gate = new LargeBodies(2);
    const log: string[] = [];
    const release: (() => void)[] = [];
    const work = (name: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${name}`);
        release.push(() => resolve(name));
      });
    const big = [
      gate.admit(withLength(40e6), work("a")),
      gate.admit(withLength(undefined), work("b")),
      gate.admit(withLength(40e6), work("c")),
    ];
    const small = gate.admit(withLength(500), work("small"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(["start a", "start b", "start small"]);
    release.shift()!(); // a ends: c may start
    await big[0];
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(["start a", "start b", "start small", "start c"]);
    for (const done of release) done();
    expect(await Promise.all([...big, small])).toEqual(["a", "b", "c", "small"]);
  });
});
