/**
 * The status page's sign-in sessions: a person's token, once checked, is exchanged for a random
 * session id carried by an HttpOnly, SameSite=Strict cookie (Secure over TLS), valid for
 * SESSION_TTL_MS from sign-in, and a CSRF token every state-changing form sends back. The token
 * itself is never kept. Bounded: at most MAX_SESSIONS, the oldest dropped first.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CallerIdentity } from '../tool-definition.js';

export const SESSION_COOKIE = 'svc_page';
/** The sign-in form's own CSRF token, a double-submit cookie: there is no session yet to hold it. */
export const SIGN_IN_COOKIE = 'svc_sign_in';
export const SESSION_TTL_MS = 15 * 60_000;
export const MAX_SESSIONS = 256;

export interface PageSession {
  readonly id: string;
  /** The person, as their token's identity, marked a person (only a person approves svc.mcp.human-approval kinds). */
  readonly caller: CallerIdentity;
  readonly csrf: string;
  readonly expiresAt: number;
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether two secrets are equal, in time independent of where they differ. */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class PageSessions {
  private readonly sessions = new Map<string, PageSession>();

  constructor(private readonly now: () => number) {}

  open(caller: CallerIdentity): PageSession {
    this.expire();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const session: PageSession = { id: randomToken(), caller: { ...caller, person: true }, csrf: randomToken(), expiresAt: this.now() + SESSION_TTL_MS };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session a cookie names, if any. */
  find(id: string | undefined): PageSession | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt > this.now()) return session;
    this.sessions.delete(id);
    return undefined;
  }

  close(id: string): void {
    this.sessions.delete(id);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value: HttpOnly, SameSite=Strict, path /, Secure when the connection is TLS; `maxAgeMs` 0 deletes it. */
export function setCookie(name: string, value: string, maxAgeMs: number, secure: boolean): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure ? '; Secure' : ''}`;
}
