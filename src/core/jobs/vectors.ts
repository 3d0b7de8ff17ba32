import { AppError } from "../../shared/errors.js";

/** A vector as the export format carries it: its float32 values, little-endian, in base64. */
export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

/** The vector back; `dims` values exactly, or invalid input naming where it was read. */
export function decodeVector(text: string, dims: number, where: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== dims * 4) {
    throw new AppError("invalid_input", `${where}: a vector of ${bytes.length / 4} values where the export's embedder makes ${dims}`);
  }
  // A copy: the Buffer may sit at an offset of a shared pool that is not 4-byte aligned.
  const vector = new Float32Array(dims);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
