import type { Context } from "hono";

/** A request's body as the bytes arrive, for the core to write to disk (never read whole into memory). */
export async function* streamBody(c: Context): AsyncIterable<Uint8Array> {
  const body = c.req.raw.body;
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
