import { afterEach, describe, expect, it } from "vitest";
import { useFewerIoThreads } from "../../src/core/maintenance.js";

describe("useFewerIoThreads", () => {
  const saved = process.env.LANCE_IO_THREADS;
  afterEach(() => {
    if (saved === undefined) delete process.env.LANCE_IO_THREADS;
    else process.env.LANCE_IO_THREADS = saved;
  });

  it("gives LanceDB 3 I/O threads when nobody chose", () => {
    delete process.env.LANCE_IO_THREADS;
    useFewerIoThreads();
    expect(process.env.LANCE_IO_THREADS).toBe("3");
  });

  it("keeps the user's own setting", () => {
    process.env.LANCE_IO_THREADS = "8";
    useFewerIoThreads();
    expect(process.env.LANCE_IO_THREADS).toBe("8");
  });
});
