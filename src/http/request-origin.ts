import { AsyncLocalStorage } from "node:async_hooks";
import type { MiddlewareHandler } from "hono";

/**
 * The origin the client reached the server by (its Host header, which the host guard has
 * checked), for the links the core makes during the request: an image memory's `image_url` must
 * open for the caller, and the server's own address (127.0.0.1 when it listens on every
 * interface) does not for a client on another machine.
 */
const urls = new AsyncLocalStorage<string>();

/** Runs the rest of the request with its URL known to `requestOrigin` (parsed only when a link needs it). */
export const rememberOrigin: MiddlewareHandler = (c, next) => urls.run(c.req.url, next);

/** The origin of the request being answered, or undefined outside one (the CLI, a background job). */
export const requestOrigin = (): string | undefined => {
  const url = urls.getStore();
  return url === undefined ? undefined : new URL(url).origin;
};
