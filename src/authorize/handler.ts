/**
 * `{SITE_URL}/wp-admin/authorize-application.php`, the authorization endpoint the index advertises. An
 * application sends its user here; the user signs in with their login password and approves (a new
 * application password, handed to `success_url` or shown) or rejects (sent to `reject_url` with
 * `success=false`). Sign-in failures share the API's throttle.
 */
import type Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { Site } from '../site';
import { chunkPassword } from '../access/applicationPasswords';
import { SIGN_IN_UNAVAILABLE_RETRY_AFTER_SECONDS, SignInUnavailable, findSignInUser } from '../rest/authenticate';
import type { FoundUser } from '../rest/authenticate';
import { CHECKS_BUSY_RETRY_AFTER_SECONDS, SignInChecksBusy, loginChecksFor } from '../access/loginChecks';
import { retryAfterSeconds, throttleFor } from '../access/throttle';
import { answerableError } from '../rest/domainErrors';
import { parseQuery } from '../rest/query';
import { createApplicationPassword, loadUserState, updateUser } from '../resources/users/operations';
import { loginPasswordNeedsRehash } from '../access/loginPassword';
import { renderForm, renderMessage, renderPassword, renderRejected } from './page';
import { readAuthorizationRequest, requestProblems, withQuery } from './request';
import type { AuthorizationRequest } from './request';
import { NONCE_COOKIE, TOKEN_LIFETIME_MS, isNonce, issueToken, newNonce, readCookie, tokenIsValid } from './token';

export const AUTHORIZE_PATH = '/wp-admin/authorize-application.php';
const MAX_FORM_BYTES = 64 * 1024;

/** Serves the page (src/http/outsideRoutes.ts routes its path here). */
export async function serveAuthorizationPage(site: Site, ctx: Koa.Context): Promise<void> {
  const path = `${new URL(site.settings.siteUrl).pathname.replace(/\/$/, '')}${AUTHORIZE_PATH}`;
  const page = new AuthorizationPage(site, ctx, path);
  if (ctx.method === 'GET' || ctx.method === 'HEAD') page.show(parseQuery(ctx.querystring));
  else if (ctx.method === 'POST') await page.submit();
  else {
    ctx.set('Allow', 'GET, HEAD, POST');
    page.send(405, renderMessage(site.settings.name, 'Method not allowed', ['This page only answers GET and POST.']));
  }
}

class AuthorizationPage {
  private readonly siteName: string;

  constructor(
    private readonly site: Site,
    private readonly ctx: Koa.Context,
    private readonly path: string,
  ) {
    this.siteName = site.settings.name;
  }

  show(params: Record<string, unknown>): void {
    const request = readAuthorizationRequest(params);
    if (!this.acceptable(request)) return;
    this.form(200, request, request.appName, '', []);
  }

  async submit(): Promise<void> {
    const form = await this.readForm();
    if (!form) return;
    const request = readAuthorizationRequest(form);
    if (!this.acceptable(request)) return;
    const nonce = readCookie(this.ctx.get('cookie'), NONCE_COOKIE);
    const token = typeof form.token === 'string' ? form.token : '';
    if (!tokenIsValid(this.site.settings.authSecret, nonce, token, this.site.clock.now(), bound(request))) {
      const retry = `${this.path}?${new URLSearchParams(Object.entries({ app_name: request.appName, app_id: request.appId, success_url: request.successUrl, reject_url: request.rejectUrl }).filter(([, v]) => v !== '')).toString()}`;
      this.send(
        403,
        renderMessage(
          this.siteName,
          'Please try again',
          ['This form has expired or was not sent from this site, so nothing was done.'],
          { href: retry, text: 'Load the authorization page again' },
        ),
      );
      return;
    }
    if (form.reject !== undefined) {
      if (request.rejectUrl === '') this.send(200, renderRejected(this.siteName));
      else this.redirect(withQuery(request.rejectUrl, { success: 'false' }));
      return;
    }
    await this.approve(request, form);
  }

  private async approve(request: AuthorizationRequest, form: Record<string, unknown>): Promise<void> {
    const login = typeof form.log === 'string' ? form.log.trim() : '';
    const password = typeof form.pwd === 'string' ? form.pwd : '';
    const passwordName = typeof form.app_name === 'string' ? form.app_name.trim() : '';
    if (login === '' || password === '') {
      this.form(400, request, passwordName, login, ['Enter your username (or email address) and your password.']);
      return;
    }
    let user: FoundUser['user'];
    try {
      ({ user } = await findSignInUser(this.site, login));
    } catch (error) {
      // Not judged, and not counted by the throttle.
      if (!(error instanceof SignInUnavailable)) throw error;
      this.ctx.set('Retry-After', String(SIGN_IN_UNAVAILABLE_RETRY_AFTER_SECONDS));
      this.form(503, request, passwordName, login, [
        'Sign-ins cannot be checked right now. Wait a few seconds, then try again.',
      ]);
      return;
    }
    // Counted per account, whichever of its names (login or email) is given.
    const admission = throttleFor(this.site).admit(user?.login ?? login, this.ctx.ip);
    if (!admission.admitted) {
      const seconds = retryAfterSeconds(admission.retryAfterMs);
      this.ctx.set('Retry-After', String(seconds));
      this.form(429, request, passwordName, login, [
        `Too many failed sign-in attempts. Wait ${seconds} seconds, then try again.`,
      ]);
      return;
    }
    const { attempt } = admission;
    let hash: string | null;
    let matches: boolean;
    try {
      hash = user ? ((await loadUserState(this.site, user.id)).user?.passwordHash ?? null) : null;
      matches = await loginChecksFor(this.site).matches(password, hash);
    } catch (error) {
      // Not judged: the attempt counts neither way.
      attempt.abandoned();
      if (!(error instanceof SignInChecksBusy)) throw error;
      this.ctx.set('Retry-After', String(CHECKS_BUSY_RETRY_AFTER_SECONDS));
      this.form(503, request, passwordName, login, [
        'Too many sign-ins are being checked right now. Wait a second, then try again.',
      ]);
      return;
    }
    if (!user || !hash || !matches) {
      this.form(403, request, passwordName, login, ['The username or password is not correct.']);
      return;
    }
    attempt.succeeded();
    const requestId = (this.ctx.get('x-request-id') || `authorize-${randomUUID()}`).slice(0, 100);
    // A hash of an older scheme or cost is replaced now, while the password is at hand.
    if (loginPasswordNeedsRehash(hash))
      await updateUser(this.site, user.id, { password }, { id: user.id, roles: user.roles }, requestId);
    if (passwordName === '') {
      this.form(400, request, passwordName, login, ['Give the new application password a name.']);
      return;
    }
    let created: Awaited<ReturnType<typeof createApplicationPassword>>;
    try {
      created = await createApplicationPassword(
        this.site,
        user.id,
        { name: passwordName, appId: request.appId },
        user.id,
        requestId,
      );
    } catch (error) {
      const refusal = answerableError(error);
      if (refusal === null) throw error;
      const message =
        refusal.code === 'application_password_duplicate_name'
          ? 'You already have an application password with this name. Choose another name.'
          : refusal.message;
      this.form(Math.min(refusal.status, 500), request, passwordName, login, [message]);
      return;
    }
    await this.site.settle(created.position);
    if (request.successUrl !== '') {
      this.redirect(
        withQuery(request.successUrl, {
          site_url: this.site.settings.siteUrl,
          user_login: user.login,
          password: created.password,
        }),
      );
    } else {
      this.send(200, renderPassword(this.siteName, passwordName, user.login, chunkPassword(created.password)));
    }
  }

  /** Refuses an invalid request with a page naming every problem; true when it is acceptable. */
  private acceptable(request: AuthorizationRequest): boolean {
    const problems = requestProblems(request);
    if (problems.length === 0) return true;
    this.send(400, renderMessage(this.siteName, 'This authorization request cannot be accepted', problems));
    return false;
  }

  private form(
    status: number,
    request: AuthorizationRequest,
    passwordName: string,
    login: string,
    errors: readonly string[],
  ): void {
    // Reuse the browser's nonce so several open tabs stay valid.
    const existing = readCookie(this.ctx.get('cookie'), NONCE_COOKIE);
    const nonce = isNonce(existing) ? existing : newNonce();
    const secure = this.site.settings.siteUrl.startsWith('https:') ? '; Secure' : '';
    this.ctx.set(
      'Set-Cookie',
      `${NONCE_COOKIE}=${nonce}; Path=${this.path}; Max-Age=${TOKEN_LIFETIME_MS / 1000}; HttpOnly; SameSite=Strict${secure}`,
    );
    const token = issueToken(this.site.settings.authSecret, nonce, this.site.clock.now(), bound(request));
    this.send(
      status,
      renderForm({
        siteName: this.siteName,
        siteUrl: this.site.settings.siteUrl,
        action: this.path,
        request,
        token,
        passwordName,
        login,
        errors,
      }),
    );
  }

  private async readForm(): Promise<Record<string, unknown> | null> {
    const type = (this.ctx.get('content-type') || '').toLowerCase();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        this.send(413, renderMessage(this.siteName, 'Request too large', ['The form sent was too large.']));
        return null;
      }
      chunks.push(chunk);
    }
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      this.send(
        415,
        renderMessage(this.siteName, 'Unsupported form', [
          'The form must be sent as application/x-www-form-urlencoded.',
        ]),
      );
      return null;
    }
    return parseQuery(Buffer.concat(chunks).toString('utf8'));
  }

  private redirect(location: string): void {
    this.setCommonHeaders();
    this.ctx.status = 302;
    this.ctx.set('Location', location);
    this.ctx.body = '';
  }

  send(status: number, html: string): void {
    this.setCommonHeaders();
    this.ctx.status = status;
    this.ctx.set('Content-Type', 'text/html; charset=utf-8');
    this.ctx.body = html;
  }

  private setCommonHeaders(): void {
    this.ctx.set('Cache-Control', 'no-store');
    this.ctx.set('X-Content-Type-Options', 'nosniff');
    this.ctx.set('X-Frame-Options', 'DENY');
    this.ctx.set('Referrer-Policy', 'no-referrer');
    this.ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  }
}

/** The request fields the token binds, so the redirect targets cannot be swapped after the page was shown. */
const bound = (request: AuthorizationRequest): string[] => [request.appId, request.successUrl, request.rejectUrl];
