import fs from "node:fs";
import path from "node:path";
import type { Store } from "./store.js";
import { diskFullOr } from "./write-lock.js";

/**
 * Where the bytes of image memories are kept, by the `imageFile` name a memory row holds
 * (`<user id>/<memory id>.<ext>`): files in the local data dir for a store on disk; the store's
 * `images` table for a store on object storage, so that every machine on the bucket shows them.
 * Call `write` and `remove` inside the store's `write`, like any other write.
 */
export interface ImageBytes {
  /** Written whole or not at all. */
  write(file: string, data: Uint8Array): Promise<void>;
  /** The bytes; undefined when they are gone (a file removed by hand). */
  read(file: string): Promise<Buffer | undefined>;
  /** A path on this machine that holds the bytes, for a file:// URL; undefined when they are gone. */
  localPath(file: string): Promise<string | undefined>;
  remove(files: readonly string[]): Promise<void>;
}

/** A folder of files, one per image, in a folder per user. */
export class ImageFolder implements ImageBytes {
  constructor(private readonly dir: string) {}

  async write(file: string, data: Uint8Array): Promise<void> {
    writeWhole(path.join(this.dir, file), data);
  }

  async read(file: string): Promise<Buffer | undefined> {
    try {
      return fs.readFileSync(path.join(this.dir, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async localPath(file: string): Promise<string | undefined> {
    const full = path.join(this.dir, file);
    return fs.existsSync(full) ? full : undefined;
  }

  async remove(files: readonly string[]): Promise<void> {
    for (const file of files) fs.rmSync(path.join(this.dir, file), { force: true });
  }
}

/**
 * The store's `images` table. An image is written once and never changed (its name holds its
 * memory's id), so the copy cached in `cacheDir` for file:// URLs never goes stale; it is removed
 * with the image on this machine, and is only ever a copy elsewhere.
 */
export class ImageTable implements ImageBytes {
  private readonly cache: ImageFolder;

  constructor(
    private readonly store: Store,
    cacheDir: string,
  ) {
    this.cache = new ImageFolder(cacheDir);
  }

  async write(file: string, data: Uint8Array): Promise<void> {
    await this.store.upsert("images", "file", [{ file, userId: file.split(/[\\/]/)[0]!, data }]);
  }

  async read(file: string): Promise<Buffer | undefined> {
    const [row] = await this.store.select("images", { file }, { columns: ["data"] });
    // An image stored before images went to the bucket (schema 3) is a file on the machine that stored it.
    return row ? Buffer.from(row.data) : this.cache.read(file);
  }

  async localPath(file: string): Promise<string | undefined> {
    const cached = await this.cache.localPath(file);
    if (cached) return cached;
    const data = await this.read(file);
    if (!data) return undefined;
    await this.cache.write(file, data);
    return this.cache.localPath(file);
  }

  async remove(files: readonly string[]): Promise<void> {
    if (files.length === 0) return;
    await this.store.delete("images", { file: files });
    await this.cache.remove(files);
  }
}

function writeWhole(target: string, data: Uint8Array): void {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${target}.tmp`, data, { mode: 0o600 });
    fs.renameSync(`${target}.tmp`, target);
  } catch (error) {
    fs.rmSync(`${target}.tmp`, { force: true });
    throw diskFullOr(error, path.dirname(target));
  }
}
