/**
 * An application's authorization request (`app_name`, `app_id`, `success_url`, `reject_url`) and the rules it
 * must follow. Redirect targets must be https, or http on a loopback host (an app on the same machine); the
 * app id, when given, a UUID. Pure.
 */

export interface AuthorizationRequest {
  appName: string;
  appId: string;
  successUrl: string;
  /** The explicit reject URL, or the success URL with `success=false`, or '' for none. */
  rejectUrl: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function readAuthorizationRequest(params: Record<string, unknown>): AuthorizationRequest {
  const successUrl = text(params.success_url).trim();
  const explicitReject = text(params.reject_url).trim();
  return {
    appName: text(params.app_name).trim(),
    appId: text(params.app_id).trim(),
    successUrl,
    rejectUrl:
      explicitReject !== ''
        ? explicitReject
        : successUrl !== '' && URL.canParse(successUrl)
          ? withQuery(successUrl, { success: 'false' })
          : '',
  };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Why a redirect target is refused, or null when it is acceptable. */
export function redirectProblem(url: string, label: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `The ${label} is not a valid absolute URL.`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `The ${label} must be an https address.`;
  if (parsed.hostname === '') return `The ${label} is not a valid absolute URL.`;
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
    return `The ${label} must use https (plain http is only accepted for this computer, such as localhost).`;
  }
  return null;
}

/** Every problem of a request, in the order a reader would fix them; empty when it is valid. */
export function requestProblems(request: AuthorizationRequest): string[] {
  const problems: string[] = [];
  if (request.successUrl !== '') {
    const problem = redirectProblem(request.successUrl, 'success URL (success_url)');
    if (problem) problems.push(problem);
  }
  if (request.rejectUrl !== '') {
    const problem = redirectProblem(request.rejectUrl, 'rejection URL (reject_url)');
    if (problem) problems.push(problem);
  }
  if (request.appId !== '' && !UUID.test(request.appId)) problems.push('The application id (app_id) must be a UUID.');
  return problems;
}

/** The URL with the parameters set (added, or replaced when already there), keeping everything else. */
export function withQuery(url: string, params: Record<string, string>): string {
  const parsed = new URL(url);
  for (const [key, value] of Object.entries(params)) parsed.searchParams.set(key, value);
  return parsed.toString();
}
