import { describe, expect, it } from "vitest";
import { decodeVector, encodeVector } from "../../../src/core/jobs/vectors.js";

describe("vectors in the export format", () => {
  it("round-trips float32 values exactly, including from a view into a larger buffer", () => {
    const values = Float32Array.from([0.1, -0.25, 1e-8, 3.4e38, -0]);
    const view = new Float32Array(new Float32Array([9, ...values, 9]).buffer, 4, values.length);
    expect(encodeVector(view)).toBe(encodeVector(values));
    expect(decodeVector(encodeVector(values), 5, "memory x")).toEqual(values);
  });

  it("refuses a vector of another length, saying where it was", () => {
    expect(() => decodeVector(encodeVector(new Float32Array(3)), 512, "conversation c, chunk 2")).toThrow(
      "conversation c, chunk 2: a vector of 3 values where the export's embedder makes 512",
    );
  });
});
