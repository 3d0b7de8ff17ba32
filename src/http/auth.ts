import type { MiddlewareHandler } from "hono";
import type { App } from "../core/app.js";
import { AppError } from "../core/errors.js";
import type { MnemoService } from "../core/service.js";
import type { UserInfo } from "../core/users.js";

export interface AuthVariables {
  service: MnemoService;
  user: UserInfo;
}

/** Failed attempts allowed per client address in the window before it gets 429s. */
const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;
/** A token's user is remembered this long, so a revoked token stops working within it. */
const CACHE_MS = 2_000;

/** Counts failed authentications per client address over a sliding window. */
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  retryAfter(address: string, now = Date.now()): number {
    const recent = this.recent(address, now);
    return recent.length >= this.max ? Math.ceil((recent[0]! + this.windowMs - now) / 1000) : 0;
  }

  fail(address: string, now = Date.now()): void {
    this.failures.set(address, [...this.recent(address, now), now]);
  }

  private recent(address: string, now: number): number[] {
    const kept = (this.failures.get(address) ?? []).filter((time) => now - time < this.windowMs);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }
}

/**
 * Bearer-token authentication: the token picks the user, and every handler gets that user's
 * service, so no handler can reach another user's rows.
 */
export function bearerAuth(app: App, limiter: FailureLimiter, clientAddress: (c: Parameters<MiddlewareHandler>[0]) => string): MiddlewareHandler<{ Variables: AuthVariables }> {
  const cache = new Map<string, { until: number; result: Awaited<ReturnType<App["authenticate"]>> }>();
  return async (c, next) => {
    const address = clientAddress(c);
    const wait = limiter.retryAfter(address);
    if (wait > 0) {
      c.header("Retry-After", String(wait));
      throw new AppError("rate_limited", "Too many failed authentication attempts; try again later");
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    const token = match?.[1];
    let result = token ? cache.get(token) : undefined;
    if (token && (!result || result.until < Date.now())) {
      result = { until: Date.now() + CACHE_MS, result: await app.authenticate(token) };
      if (result.result) cache.set(token, result); // only good tokens: bad ones must not grow the cache
      else cache.delete(token);
    }
    if (!result?.result) {
      limiter.fail(address);
      throw new AppError("unauthorized", token ? "Invalid API token" : "Missing API token: send Authorization: Bearer <token>");
    }
    c.set("service", result.result.service);
    c.set("user", result.result.user);
    await next();
  };
}
