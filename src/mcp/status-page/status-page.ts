/**
 * The status page (docs/status-page.md): what the agents see, for a person, on the tool server's
 * port. The tool server checks Host and Origin as for /mcp before it hands a request here.
 *
 * Access is as strict as the tools': a person signs in with a tool server token (its failures
 * counted by the tool server's AuthFailureLimiter), gets a short-lived HttpOnly SameSite=Strict
 * session cookie and sees what that token's role may read; without tokens configured (loopback
 * only), a visitor is the anonymous caller, with the anonymous role, as an agent without a token.
 * Every POST is same-origin (Origin equal to the page's own), carries the session's CSRF token
 * (the sign-in form a double-submit one), is a bounded form, and counts against the caller's rate
 * limit. Approving and declining go through the remediation's own `approve:` and `decline:`
 * acts, audited under the person's name.
 *
 *   GET  /                  the page (the sign-in form when a token is needed); ?fragment=main: its `main` only
 *   GET  /sign-in           the sign-in form
 *   GET  /status-page.css, /status-page.js
 *   POST /sign-in           token -> session cookie
 *   POST /sign-out
 *   POST /approvals         id, decision (approve | decline), reason
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RemediationRefused } from '../../incidents/remediation.js';
import type { RateLimiter } from '../../shared/rate-limiter.js';
import type { AuthFailureLimiter } from '../auth-failure-limiter.js';
import { AuthenticationError } from '../authenticator.js';
import { TokenRefusal } from '../oauth/token-refusal.js';
import { readBody } from '../read-body.js';
import type { CallerIdentity } from '../tool-definition.js';
import type { ToolServices } from '../tool-services.js';
import { mayDecide } from '../views/approval-view.js';
import { SCRIPT, STYLESHEET } from './assets.js';
import { html } from './html.js';
import { cookieValue, type PageSession, PageSessions, randomToken, SESSION_COOKIE, SESSION_TTL_MS, SIGN_IN_COOKIE, sameSecret, setCookie } from './page-sessions.js';
import { mainSection, type PageViewer, pageDocument, pageHeader, signInBody } from './render-page.js';

export interface StatusPageOptions {
  readonly services: ToolServices;
  /** The tool server's: a token's identity (static, else with svc.mcp.oauth an access token's); throws AuthenticationError. */
  readonly identify: (authorization: string) => Promise<CallerIdentity>;
  /** The identity of a caller without a credential, where the tool server serves them (no tokens, no OAuth); else undefined. */
  readonly anonymous: CallerIdentity | undefined;
  /** The tool server's: sign-in failures count with bearer token failures. */
  readonly authFailures: AuthFailureLimiter;
  /** The tool server's: a person's requests count against their credential's rate. */
  readonly limiter: RateLimiter;
  readonly now: () => number;
}

export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: a form's Origin would then be "null", and same-origin POSTs could not be told apart.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The largest form accepted: an OAuth access token (a JWT of a few KB) and a CSRF token fit. */
export const MAX_FORM_BYTES = 8192;
const MAX_TOKEN_CHARS = 4096;
const TOKEN = new RegExp(`^\\S{1,${MAX_TOKEN_CHARS}}$`);
const MAX_REASON_CHARS = 500;
const APPROVAL_ID = /^APR-[A-Za-z0-9-]{1,60}$/;

/** What a redirect after an act tells the person, by a code in the query (nothing echoed but a checked id). */
const NOTICES: Readonly<Record<string, (id: string) => string>> = {
  approved: (id) => `${id} approved: the agent that asked may now execute its action with approved_by "${id}".`,
  declined: (id) => `${id} declined: the agent that asked is told so at its next call with approved_by "${id}".`,
  'signed-out': () => 'Signed out.',
};

export class StatusPage {
  private readonly sessions: PageSessions;

  constructor(private readonly options: StatusPageOptions) {
    this.sessions = new PageSessions(options.now);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://page');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /status-page.css') return send(res, 200, 'text/css; charset=utf-8', STYLESHEET);
    if (route === 'GET /status-page.js') return send(res, 200, 'text/javascript; charset=utf-8', SCRIPT);
    const secure = 'encrypted' in req.socket && req.socket.encrypted === true;
    const session = this.sessions.find(cookieValue(req.headers.cookie, SESSION_COOKIE));
    const caller = session?.caller ?? this.options.anonymous;
    const address = req.socket.remoteAddress ?? 'unknown';
    const wait = this.options.limiter.take(caller && caller.tokenAgent !== undefined ? caller.credential : `page:${address}`);
    if (wait > 0) return send(res, 429, 'text/plain; charset=utf-8', `too many requests; retry in ${wait}s`, { 'retry-after': String(wait) });

    if (req.method === 'GET' && (url.pathname === '/' || url.pathname === '/sign-in')) {
      if (!caller || url.pathname === '/sign-in') return this.signInForm(res, secure, caller ? 200 : 401);
      const viewer: PageViewer = { caller, csrf: session?.csrf, canSignIn: this.options.anonymous === undefined };
      const notice = noticeOf(url);
      const main = mainSection(this.options.services, viewer, notice);
      if (url.searchParams.get('fragment') === 'main') return send(res, 200, 'text/html; charset=utf-8', main.text);
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        pageDocument(`${this.options.services.analysis.serviceName}: status`, html`${pageHeader(this.options.services.analysis.serviceName, viewer)}${main}`, true),
      );
    }
    if (req.method !== 'POST') {
      if (req.method === 'GET') return send(res, 404, 'text/plain; charset=utf-8', 'not found: the status page is at /, the MCP endpoint at /mcp');
      return send(res, 405, 'text/plain; charset=utf-8', 'the status page takes GET and POST', { allow: 'GET, POST' });
    }
    // Same origin only: the tool server let any loopback origin through, as MCP clients may be pages on other ports.
    if (!sameOrigin(req)) return send(res, 403, 'text/plain; charset=utf-8', 'a form of the status page is posted from the status page itself (Origin)');
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return send(res, 415, 'text/plain; charset=utf-8', 'the status page takes forms (application/x-www-form-urlencoded)');
    const body = await readBody(req, MAX_FORM_BYTES);
    if (body === undefined) return send(res, 413, 'text/plain; charset=utf-8', `a form is at most ${MAX_FORM_BYTES} bytes`, { connection: 'close' });
    const form = new URLSearchParams(body);
    if (url.pathname === '/sign-in') return this.signIn(req, res, form, secure, address);
    if (!session) return send(res, 401, 'text/plain; charset=utf-8', 'sign in first: your session is missing or has expired');
    if (!sameSecret(form.get('csrf') ?? undefined, session.csrf)) return send(res, 403, 'text/plain; charset=utf-8', "the form lacks this session's CSRF token; reload the page");
    if (url.pathname === '/sign-out') {
      this.sessions.close(session.id);
      return redirect(res, '/?notice=signed-out', setCookie(SESSION_COOKIE, '', 0, secure));
    }
    if (url.pathname === '/approvals') return this.decide(res, session, form);
    return send(res, 404, 'text/plain; charset=utf-8', 'not found');
  }

  private signInForm(res: ServerResponse, secure: boolean, status: number, message?: string): void {
    const csrf = randomToken();
    const document = pageDocument('Sign in', signInBody(csrf, message), false);
    send(res, status, 'text/html; charset=utf-8', document, { 'set-cookie': setCookie(SIGN_IN_COOKIE, csrf, SESSION_TTL_MS, secure) });
  }

  private async signIn(req: IncomingMessage, res: ServerResponse, form: URLSearchParams, secure: boolean, address: string) {
    if (!sameSecret(form.get('csrf') ?? undefined, cookieValue(req.headers.cookie, SIGN_IN_COOKIE)))
      return this.signInForm(res, secure, 403, 'The sign-in form expired or did not come from this page; try again.');
    const wait = this.options.authFailures.wait(address);
    if (wait > 0) return send(res, 429, 'text/plain; charset=utf-8', `too many failed authentications; retry in ${wait}s`, { 'retry-after': String(wait) });
    const token = form.get('token') ?? '';
    let caller: CallerIdentity;
    try {
      if (!TOKEN.test(token)) throw new AuthenticationError(`a token is 1 to ${MAX_TOKEN_CHARS} characters without spaces`);
      caller = await this.options.identify(`Bearer ${token}`);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      // The issuer's keys are not had yet (svc.mcp.oauth): not the person's failure.
      if (error instanceof TokenRefusal && error.status === 503) return this.signInForm(res, secure, 503, `Not signed in: ${error.message}; try again in a few seconds.`);
      this.options.authFailures.failed(address);
      return this.signInForm(res, secure, 401, `Not signed in: ${error.message}.`);
    }
    this.options.authFailures.succeeded(address);
    const session = this.sessions.open(caller);
    redirect(res, '/', setCookie(SESSION_COOKIE, session.id, SESSION_TTL_MS, secure), setCookie(SIGN_IN_COOKIE, '', 0, secure));
  }

  /** Approves or declines through the remediation's own acts: audited under the person's name, refused as an agent would be. */
  private async decide(res: ServerResponse, session: PageSession, form: URLSearchParams): Promise<void> {
    const id = form.get('id') ?? '';
    const decision = form.get('decision');
    const reason = (form.get('reason') ?? '').trim();
    if (!APPROVAL_ID.test(id)) return send(res, 400, 'text/plain; charset=utf-8', 'id must be an approval request id (APR-...)');
    if (decision !== 'approve' && decision !== 'decline') return send(res, 400, 'text/plain; charset=utf-8', 'decision must be approve or decline');
    if (reason.length > MAX_REASON_CHARS) return send(res, 400, 'text/plain; charset=utf-8', `a reason is at most ${MAX_REASON_CHARS} characters`);
    if (!mayDecide(this.options.services, session.caller))
      return send(res, 403, 'text/plain; charset=utf-8', 'this token may not decide approval requests: it needs REMEDIATE, and ADMIN or a place in svc.mcp.approvers');
    if (decision === 'decline' && !reason) return this.refused(res, session, 'A decline needs a reason: it is what the agent that asked is told.');
    const action = `${decision}:${id}`;
    try {
      await this.options.services.remediation.execute(action, reason || 'approved on the status page', undefined, session.caller);
    } catch (error) {
      if (!(error instanceof RemediationRefused)) throw error;
      return this.refused(res, session, `Not ${decision === 'approve' ? 'approved' : 'declined'}: ${error.message}`);
    }
    redirect(res, `/?notice=${decision === 'approve' ? 'approved' : 'declined'}&id=${id}`);
  }

  /** The page again, with why the act was refused. */
  private refused(res: ServerResponse, session: PageSession, message: string): void {
    const { services } = this.options;
    const viewer: PageViewer = { caller: session.caller, csrf: session.csrf, canSignIn: true };
    const body = html`${pageHeader(services.analysis.serviceName, viewer)}${mainSection(services, viewer, message)}`;
    send(res, 409, 'text/html; charset=utf-8', pageDocument(`${services.analysis.serviceName}: status`, body, true));
  }
}

function noticeOf(url: URL): string | undefined {
  const code = url.searchParams.get('notice');
  const id = url.searchParams.get('id') ?? '';
  if (!code || !Object.hasOwn(NOTICES, code)) return undefined;
  return NOTICES[code]!(APPROVAL_ID.test(id) ? id : 'the request');
}

/** Whether a POST comes from a page of this origin: its Origin names the host it was sent to. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin || !req.headers.host) return false;
  const secure = 'encrypted' in req.socket && req.socket.encrypted === true;
  return origin === `${secure ? 'https' : 'http'}://${req.headers.host}`;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers }).end(body);
}

function redirect(res: ServerResponse, location: string, ...cookies: string[]): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, 'content-length': '0', ...(cookies.length && { 'set-cookie': cookies }) }).end();
}
