import type { Context } from "hono";
import { MB } from "./routes.js";

/** A body over this (or of unknown length) is large: reading and storing it can take hundreds of MB. */
const LARGE_BODY_BYTES = MB;
/** Large bodies read at once: four 42 MB uploads read together took a server to 2.1 GB. */
const LARGE_BODIES_AT_ONCE = 2;

/**
 * Admits requests with large bodies a few at a time; the rest wait their turn before a byte of their
 * body is read (TCP holds it meanwhile), so memory is bounded by a few bodies, not by how many
 * clients send at once. Small bodies never wait.
 */
export class LargeBodies {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly atOnce = LARGE_BODIES_AT_ONCE) {}

  async admit<T>(c: Context, work: () => Promise<T>): Promise<T> {
    const length = Number(c.req.header("content-length") ?? Number.NaN);
    if (length <= LARGE_BODY_BYTES) return work();
    if (this.running >= this.atOnce) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
