import { afterEach, describe, expect, it, vi } from "vitest";
import { useFewerIoThreads } from "../../../src/core/operations/maintenance.js";

describe("useFewerIoThreads", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("gives LanceDB 3 I/O threads when nobody chose", () => {
    vi.stubEnv("LANCE_IO_THREADS", undefined);
    useFewerIoThreads();
    expect(process.env.LANCE_IO_THREADS).toBe("3");
  });

  it("keeps the user's own setting", () => {
    vi.stubEnv("LANCE_IO_THREADS", "8");
    useFewerIoThreads();
    expect(process.env.LANCE_IO_THREADS).toBe("8");
  });
});
