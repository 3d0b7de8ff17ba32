import { randomBytes, timingSafeEqual } from "node:crypto";
import type { App, MnemoService, UserInfo } from "../core/index.js";

/** A one-time code is good for this long: `mnemo ui` opens the browser on it at once. */
const CODE_TTL_MS = 2 * 60 * 1000;
/** A session ends after this long unused (each request renews it). */
const IDLE_MS = 24 * 60 * 60 * 1000;
/** How long a session's user and token are taken as unchanged, as the API remembers a good token (http/auth.ts). */
const RECHECK_MS = 2_000;

export interface Flash {
  kind: "success" | "error";
  text: string;
  /** What was just moved to the trash: an Undo button puts it back (trash entry ids), then goes to `back`. */
  undo?: { ids: string[]; back: string } | undefined;
  /**
   * A refused form's action and what was typed in it, for the page to fill it in again rather than
   * lose it; and the form field the error is about, for the page to show the error there.
   */
  typed?: { action: string; fields: Record<string, string>; field?: string | undefined } | undefined;
  /** The id of the item on the page the message is about (an edited memory), which shows it there. */
  at?: string | undefined;
}

/** A browser signed in as one user: the cookie names it; the service is that user's, as a bearer token's would be. */
export interface WebSession {
  readonly id: string;
  readonly user: UserInfo;
  readonly service: MnemoService;
  /** Sent back with every form and script request that changes something (CSRF). */
  readonly csrf: string;
  expires: number;
  /** The user's credential when signed in (core's credentialStamp), and when it was last found unchanged. */
  stamp: string;
  checkedAt: number;
  /** A message for the next page shown (after a redirect). */
  flash?: Flash | undefined;
  /** A token just rotated, shown once on the next Settings page, then forgotten. */
  newToken?: string | undefined;
  /** After its user rotated their token here: this session stays signed in (their others end). */
  renew(): Promise<void>;
}

/**
 * Sign-in for the web app, kept in memory: one-time codes (`mnemo ui` opens the browser on one)
 * and sessions. The browser holds only a random session id in an HttpOnly cookie, never the API
 * token, and a restarted server has forgotten every session (`mnemo ui` signs in again).
 */
export class Sessions {
  private readonly codes = new Map<string, { userName: string; expires: number }>();
  private readonly sessions = new Map<string, WebSession>();

  constructor(private readonly app: App) {}

  /** A code that signs the browser in as `userName`, once, within two minutes. */
  issueCode(userName: string): string {
    this.prune();
    const code = randomBytes(24).toString("base64url");
    this.codes.set(code, { userName, expires: Date.now() + CODE_TTL_MS });
    return code;
  }

  /** The session a code opens; undefined for a code unknown, used or expired. */
  async redeem(code: string): Promise<WebSession | undefined> {
    const entry = this.codes.get(code);
    this.codes.delete(code);
    if (!entry || entry.expires < Date.now()) return undefined;
    const user = await this.app.users.resolve(entry.userName);
    return this.open(user, await this.app.service(user.name));
  }

  /** A session for a user who signed in with their token (the login page). */
  async signIn(token: string): Promise<WebSession | undefined> {
    const found = await this.app.authenticate(token);
    return found && this.open(found.user, found.service);
  }

  /** The signed-in session of that id; undefined when there is none, it expired, or its user or token changed. */
  async get(id: string | undefined): Promise<WebSession | undefined> {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    const now = Date.now();
    if (session.expires < now) {
      this.sessions.delete(id);
      return undefined;
    }
    if (now - session.checkedAt > RECHECK_MS) {
      if ((await this.app.users.credentialStamp(session.user.id)) !== session.stamp) {
        this.sessions.delete(id);
        return undefined;
      }
      session.checkedAt = now;
    }
    session.expires = now + IDLE_MS;
    return session;
  }

  close(id: string): void {
    this.sessions.delete(id);
  }

  private async open(user: UserInfo, service: MnemoService): Promise<WebSession | undefined> {
    this.prune();
    const stamp = await this.app.users.credentialStamp(user.id);
    if (stamp === undefined) return undefined;
    const session: WebSession = {
      id: randomBytes(32).toString("base64url"),
      user,
      service,
      csrf: randomBytes(24).toString("base64url"),
      expires: Date.now() + IDLE_MS,
      stamp,
      checkedAt: Date.now(),
      renew: async () => {
        session.stamp = (await this.app.users.credentialStamp(user.id)) ?? session.stamp;
        session.checkedAt = Date.now();
      },
    };
    this.sessions.set(session.id, session);
    return session;
  }

  private prune(): void {
    const now = Date.now();
    for (const [code, entry] of this.codes) if (entry.expires < now) this.codes.delete(code);
    for (const [id, session] of this.sessions) if (session.expires < now) this.sessions.delete(id);
  }
}

/** Whether `given` is the session's CSRF token, compared in constant time. */
export function csrfMatches(session: WebSession, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
