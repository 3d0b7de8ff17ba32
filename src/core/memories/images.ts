import fs from "node:fs";
import path from "node:path";
import { parseInput } from "../../schemas/parse.js";
import { ImageMemoryRequest, MAX_IMAGE_BYTES, type StoreMemoryResponse } from "../../schemas/memories.js";
import { DOCTOR_SUGGESTION } from "../../store/damage.js";
import type { MemoryRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { checkImage, mimeOf, storedImageProblem } from "./image-types.js";
import { insertMemoryRows } from "./memories.js";

/**
 * An image memory: its bytes are stored first (so no row ever points at missing bytes), then the
 * row, whose text is the description: the one given, else a caption from an image-to-text model
 * when one is available, else words from the file name.
 */
export async function storeImageMemory(ctx: CoreContext, userId: string, input: ImageMemoryRequest): Promise<StoreMemoryResponse> {
  const request = parseInput(ImageMemoryRequest, input);
  // A data URL (what a browser's FileReader gives a plugin) carries the same base64 after its header.
  const data = Buffer.from(request.data.replace(/^data:image\/[\w.+-]+;base64,/, ""), "base64");
  if (data.length > MAX_IMAGE_BYTES) {
    throw new AppError("payload_too_large", `data: the image is ${(data.length / 1048576).toFixed(1)} MB; the limit is 10 MB`, {
      details: { field: "data" },
    });
  }
  const { type, problem } = checkImage(data);
  if (!type) throw AppError.invalid("data", problem);
  const description = request.description ?? (await ctx.caption(data)) ?? describeFromName(request.filename);
  const id = newId("mem");
  const file = path.join(userId, `${id}.${type.ext}`);
  await ctx.store.write(() => ctx.images.write(file, data));
  try {
    const [vector] = await ctx.embedder.embedDocuments([description], { urgent: true });
    const now = ctx.now().toISOString();
    const row: MemoryRow = {
      id,
      userId,
      bucketId: request.bucketId ?? 1,
      text: description,
      contentType: "image",
      imageFile: file,
      imageDescription: description,
      source: request.source ?? null,
      version: 1,
      createdAt: now,
      updatedAt: now,
      vector: vector!,
    };
    await insertMemoryRows(ctx, userId, [row]);
  } catch (error) {
    await ctx.store.write(() => ctx.images.remove([file])).catch(() => undefined); // the error that matters is the first
    throw error;
  }
  return { done: "ok", memoryId: id };
}

/** "beach-sunset_2024.jpg" → "Image: beach sunset 2024". */
export function describeFromName(filename: string | undefined): string {
  const words = path
    .basename(filename ?? "", path.extname(filename ?? ""))
    .replace(/[-_.]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return words ? `Image: ${words}` : "Image";
}

/** Call inside the store's `write`, with the rows that name them. */
export async function removeImageFiles(ctx: CoreContext, files: (string | null)[]): Promise<void> {
  await ctx.images.remove(files.filter((file): file is string => file !== null));
}

/** A user's image files (or their copies cached from the bucket) live in a folder of their own (`images/<user id>/`). */
export function removeUserImages(ctx: CoreContext, userId: string): void {
  fs.rmSync(path.join(ctx.config.paths.images, userId), { recursive: true, force: true });
}

/** The stored bytes of an image memory are not the image any more (a damaged disk or copy). */
export function damagedImage(memoryId: string, problem: string): AppError {
  return new AppError("unavailable", `The picture of image memory ${memoryId} is damaged: its file ${problem}`, {
    suggestion: DOCTOR_SUGGESTION,
  });
}

/** The bytes behind an image memory, for the image route (the signature already checked). */
export async function imageBytes(ctx: CoreContext, memoryId: string): Promise<{ data: Buffer; mime: string }> {
  const [row] = await ctx.store.select(
    "memories",
    { id: memoryId, contentType: "image" },
    {
      columns: ["imageFile"],
    },
  );
  if (!row?.imageFile) throw new AppError("not_found", "image not found");
  const data = await ctx.images.read(row.imageFile);
  // Removed by hand from the images folder: a 404, not a 200 whose body breaks off.
  if (!data) throw new AppError("not_found", "image not found: its file is gone from the data dir");
  const problem = storedImageProblem(data);
  if (problem) throw damagedImage(memoryId, problem);
  return { data, mime: mimeOf(row.imageFile) };
}
