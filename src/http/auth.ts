import { setTimeout as sleep } from "node:timers/promises";
import type { MiddlewareHandler } from "hono";
import type { App } from "../core/index.js";
import { AppError } from "../shared/errors.js";
import type { MnemoService } from "../core/index.js";
import type { UserInfo } from "../core/index.js";
import { bearerChallenge } from "./resource-metadata.js";

export interface AuthVariables {
  service: MnemoService;
  user: UserInfo;
}

/** Wrong tokens allowed per client in the window before its answers are slowed down. */
const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;
type Authenticated = NonNullable<Awaited<ReturnType<App["authenticate"]>>>;

const PRUNE_ABOVE = 1_000;

/**
 * Who a failed attempt is counted against: one client, however many of its addresses it uses.
 * Every loopback address (all of 127.0.0.0/8, and ::1) is this machine; an IPv6 host holds its
 * whole /64. Counted per address, 127.0.0.2 went on guessing while 127.0.0.1 was locked out.
 */
export function clientKey(address: string): string {
  const ip = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (/^127\./.test(ip) || ip === "::1") return "loopback";
  if (!ip.includes(":")) return ip;
  const groups = expandIpv6(ip);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : ip;
}

/** The eight groups of an IPv6 address (`fe80::1%eth0` → fe80, 0, 0, 0, 0, 0, 0, 1), or undefined. */
function expandIpv6(ip: string): string[] | undefined {
  const [head = "", tail] = ip.replace(/%.*$/, "").toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((group) => group.replace(/^0+(?=.)/, ""));
}

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
    // Addresses that stopped failing are forgotten as they are next seen; many at once, all at once.
    if (this.failures.size > PRUNE_ABOVE) for (const known of [...this.failures.keys()]) this.recent(known, now);
    this.failures.set(address, [...this.recent(address, now), now]);
  }

  private recent(address: string, now: number): number[] {
    const kept = (this.failures.get(address) ?? []).filter((time) => now - time < this.windowMs);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }
}

/** How long the answer to a wrong token waits once its client is past the limit. */
export const SLOW_ANSWER_MS = 1_000;
/** Answers held back at once per client; past that, wrong tokens are answered at once. */
const MAX_HELD = 16;

/**
 * An Authorization header sent, but not as one bearer token: another scheme (Basic), or several
 * headers, which arrive joined by a comma. "Missing API token" sent its client looking for a header
 * it had sent. The header itself is not repeated: it may hold a secret.
 */
const UNREADABLE =
  "Authorization holds no single Bearer token (another scheme, or several Authorization headers): send Authorization: Bearer <token>, once";

/**
 * Bearer-token authentication: the token picks the user, and every handler gets that user's
 * service, so no handler can reach another user's rows.
 *
 * A token is checked before anything else, and a valid one is never held back or refused: a
 * client past the limit of wrong tokens (any local process: loopback is one client) used to get
 * 429 for every token, so it could lock a new user out. What makes guessing useless is the token:
 * 256 random bits. The limit protects the server instead: a client that keeps sending wrong
 * tokens has each answer held back (SLOW_ANSWER_MS, a few at a time), still a 401 with
 * Retry-After: the spec answers a bad token with 401 (§5), and a client that asks its user for
 * a new token on a 401 took a 429 for a busy server and kept sending the revoked one. Only a wrong
 * token counts: a request without one guesses nothing, and it is all a web page can send (a
 * cross-origin Authorization header needs CORS, which the server denies unless configured).
 */
export function bearerAuth(
  app: App,
  limiter: FailureLimiter,
  clientAddress: (c: Parameters<MiddlewareHandler>[0]) => string,
  slowAnswerMs = SLOW_ANSWER_MS,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const cache = new Map<string, { until: number; result: Authenticated }>();
  const held = new Map<string, number>();
  const authenticate = async (token: string): Promise<Authenticated | undefined> => {
    const cached = cache.get(token);
    if (cached && cached.until >= Date.now()) return cached.result;
    const result = await app.authenticate(token);
    if (result) cache.set(token, { until: Date.now() + CACHE_MS, result });
    else cache.delete(token); // only good tokens: bad ones must not grow the cache
    return result;
  };
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token) {
      c.header("WWW-Authenticate", bearerChallenge(c, false));
      throw new AppError(
        "unauthorized",
        header.replace(/^\s*Bearer\b/i, "").trim() === "" ? "Missing API token: send Authorization: Bearer <token>" : UNREADABLE,
      );
    }
    const result = await authenticate(token);
    if (result) {
      c.set("service", result.service);
      c.set("user", result.user);
      return next();
    }
    const client = clientKey(clientAddress(c));
    limiter.fail(client);
    const wait = limiter.retryAfter(client);
    c.header("WWW-Authenticate", bearerChallenge(c, true));
    if (wait === 0) throw new AppError("unauthorized", "Invalid API token");
    const holding = held.get(client) ?? 0;
    if (holding < MAX_HELD) {
      held.set(client, holding + 1);
      await sleep(slowAnswerMs);
      if ((held.get(client) ?? 1) <= 1) held.delete(client);
      else held.set(client, held.get(client)! - 1);
    }
    c.header("Retry-After", String(wait));
    throw new AppError("unauthorized", "Invalid API token (one of too many from this machine: each is now answered after a second)");
  };
}
