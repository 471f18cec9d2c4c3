/**
 * The HTML of the authorization page: a plain, accessible document (one h1, labelled fields, a real form that
 * works without JavaScript, errors announced with role="alert"). Pure: every dynamic value is escaped here.
 */
import type { AuthorizationRequest } from './request';

export const escapeHtml = (value: string): string =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; padding: 2rem 1rem; background: Canvas; color: CanvasText; }
  main { max-width: 34rem; margin: 0 auto; }
  h1 { font-size: 1.6rem; margin: 0 0 1rem; }
  .site { color: GrayText; margin: 0 0 1.5rem; }
  .alert { border: 2px solid #b32d2e; border-radius: 4px; padding: 0 1rem; margin: 0 0 1.5rem; }
  .done { border: 2px solid #008a20; border-radius: 4px; padding: 0 1rem 1rem; margin: 0 0 1.5rem; }
  fieldset { border: 1px solid GrayText; border-radius: 4px; margin: 0 0 1.25rem; padding: 0.75rem 1rem 1rem; }
  label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
  input[type=text], input[type=password] { width: 100%; box-sizing: border-box; font: inherit; padding: 0.5rem; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 4px; cursor: pointer; border: 2px solid #2271b1; }
  button.approve { background: #2271b1; color: #fff; }
  button.reject { background: transparent; color: inherit; }
  button:focus-visible, input:focus-visible { outline: 3px solid #f0b849; outline-offset: 2px; }
  .note { font-size: 0.9rem; margin: 0.25rem 0 0; overflow-wrap: anywhere; }
  code { overflow-wrap: anywhere; }
`;

function document(title: string, siteName: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · ${escapeHtml(siteName)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p class="site">${escapeHtml(siteName)}</p>
${body}
</main>
</body>
</html>
`;
}

const alert = (messages: readonly string[]): string =>
  messages.length === 0
    ? ''
    : `<div class="alert" role="alert">${messages.map((m) => `<p>${escapeHtml(m)}</p>`).join('')}</div>`;

export interface FormPage {
  siteName: string;
  siteUrl: string;
  /** Where the form posts to (this page). */
  action: string;
  request: AuthorizationRequest;
  token: string;
  /** The name the new password will get (editable). */
  passwordName: string;
  login: string;
  errors: readonly string[];
}

export function renderForm(page: FormPage): string {
  const { request } = page;
  const who = request.appName !== '' ? `<strong>${escapeHtml(request.appName)}</strong>` : 'An application';
  const approveNote =
    request.successUrl !== ''
      ? `If you approve, you will be sent back to <code>${escapeHtml(request.successUrl)}</code> with a new application password.`
      : 'If you approve, a new application password is shown on the next page, for you to copy into the application.';
  const rejectNote =
    request.rejectUrl !== ''
      ? `If you reject, you will be sent to <code>${escapeHtml(request.rejectUrl)}</code> and nothing changes.`
      : 'If you reject, nothing changes.';
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const body = `${alert(page.errors)}
<p>${who} asks to use your account on this site through the API. Approve it only if you trust the application: it will be able to do everything you can do.</p>
<form method="post" action="${escapeHtml(page.action)}">
${hidden('token', page.token)}
${hidden('app_id', request.appId)}
${hidden('success_url', request.successUrl)}
${hidden('reject_url', request.rejectUrl)}
<fieldset>
<legend>Sign in to confirm it is you</legend>
<label for="log">Username or email address</label>
<input type="text" id="log" name="log" value="${escapeHtml(page.login)}" autocomplete="username" autocapitalize="off" spellcheck="false" required>
<label for="pwd">Password</label>
<input type="password" id="pwd" name="pwd" autocomplete="current-password" required>
</fieldset>
<label for="app_name">Name of the new application password</label>
<input type="text" id="app_name" name="app_name" value="${escapeHtml(page.passwordName)}" required aria-describedby="app-name-note">
<p class="note" id="app-name-note">Shown in your list of application passwords, where you can revoke it at any time.</p>
<div class="actions">
<button type="submit" class="approve" name="approve" value="1" aria-describedby="approve-note">Approve</button>
<button type="submit" class="reject" name="reject" value="1" formnovalidate aria-describedby="reject-note">Reject</button>
</div>
<p class="note" id="approve-note">${approveNote}</p>
<p class="note" id="reject-note">${rejectNote}</p>
</form>`;
  return document('Authorize an application', page.siteName, body);
}

export function renderPassword(siteName: string, appName: string, login: string, chunkedPassword: string): string {
  const body = `<div class="done" role="status">
<h2>Approved</h2>
<label for="new-password">Application password for ${escapeHtml(appName)} (user ${escapeHtml(login)})</label>
<input type="text" id="new-password" value="${escapeHtml(chunkedPassword)}" readonly aria-describedby="new-password-note">
<p class="note" id="new-password-note">Copy it into the application now: it is shown only this once. Spaces do not matter.</p>
</div>`;
  return document('Authorize an application', siteName, body);
}

export function renderMessage(
  siteName: string,
  title: string,
  messages: readonly string[],
  link?: { href: string; text: string },
): string {
  const body = `${alert(messages)}${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}`;
  return document(title, siteName, body);
}

export function renderRejected(siteName: string): string {
  return document(
    'Authorize an application',
    siteName,
    '<p role="status">You rejected the request. The application was given no access.</p>',
  );
}
