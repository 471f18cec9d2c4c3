/**
 * The page's side of the API: credentials (an application password, kept in sessionStorage only, sent as HTTP
 * Basic), JSON requests whose errors become ApiError, and the live feed of the audit log read with fetch and a
 * stream reader (an EventSource cannot send an Authorization header).
 */

const STORAGE_KEY = 'palimpsest-audit-credentials';

/** The API root: the page is served at SITE_URL/audit/, the API at SITE_URL/. */
const API_ROOT = new URL('../', window.location.href);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The signed-in user's name and password, or null. */
export function credentials() {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    return stored && typeof stored.username === 'string' && typeof stored.password === 'string' ? stored : null;
  } catch {
    return null;
  }
}

export function keepCredentials(username, password) {
  window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ username, password }));
}

export function forgetCredentials() {
  window.sessionStorage.removeItem(STORAGE_KEY);
}

/** `Basic base64(user:password)` of the UTF-8 bytes, so names outside Latin-1 work too. */
function basic({ username, password }) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${window.btoa(binary)}`;
}

/** The URL of an API path (`core/v2/posts`) with a query; array values are sent as `name[]`. */
export function apiUrl(path, query = {}) {
  const url = new URL(path, API_ROOT);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(`${name}[]`, String(item));
    else url.searchParams.set(name, String(value));
  }
  return url;
}

function authHeaders(given) {
  const signedIn = given ?? credentials();
  return signedIn ? { Authorization: basic(signedIn) } : {};
}

/** A GET of the API: `{ body, headers }`, or an ApiError with the API's code and message. */
export async function get(path, query = {}, given = null) {
  let response;
  try {
    response = await fetch(apiUrl(path, query), {
      headers: { Accept: 'application/json', ...authHeaders(given) },
      cache: 'no-store',
    });
  } catch (error) {
    throw new ApiError(0, 'network', `The site could not be reached (${error.message}).`);
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && typeof body.message === 'string' ? body.message : `The site answered ${response.status}.`;
    throw new ApiError(response.status, body && typeof body.code === 'string' ? body.code : 'http', message);
  }
  return { body, headers: response.headers };
}

/** The `rel="next"` URL of a Link header, or null. */
export function nextLink(headers) {
  const link = headers.get('Link') ?? '';
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /\brel="?next"?/.test(match[2])) return new URL(match[1]);
  }
  return null;
}

/** How long to wait before reconnecting a feed that ended or failed. */
const RECONNECT_MS = 2000;

/**
 * Follows `GET /audit/v1/stream` with the given filters after `afterPosition` (null: from now on), calling
 * `onEvent(entry)` for each event and `onState(state, message, status)` with 'live', 'reconnecting' or 'stopped'. It
 * reconnects after a dropped connection with `last_event_id`, so nothing is missed or repeated. Returns stop().
 */
export function follow(filters, afterPosition, onEvent, onState) {
  let lastId = afterPosition;
  let stopped = false;
  let controller = null;
  let timer = null;

  const connect = async () => {
    controller = new AbortController();
    let response;
    try {
      const query = { ...filters, ...(lastId === null ? {} : { last_event_id: lastId }) };
      response = await fetch(apiUrl('audit/v1/stream', query), {
        headers: { Accept: 'text/event-stream', ...authHeaders() },
        cache: 'no-store',
        signal: controller.signal,
      });
    } catch {
      return retry();
    }
    if (!response.ok || response.body === null) {
      let message = `The live feed answered ${response.status}.`;
      try {
        const body = await response.json();
        if (body && typeof body.message === 'string') message = body.message;
      } catch {
        // Not JSON: the status says enough.
      }
      // Refusals that waiting does not change stop the feed; a busy site (429) or an outage (503) is retried.
      if (response.status === 429 || response.status >= 500) return retry(message);
      stopped = true;
      onState('stopped', message, response.status);
      return;
    }
    onState('live');
    try {
      await readMessages(response.body, (message) => {
        if (message.id !== '') lastId = message.id;
        if (message.data === '') return;
        let entry;
        try {
          entry = JSON.parse(message.data);
        } catch {
          return;
        }
        onEvent(entry);
      });
    } catch {
      // The connection broke, or was aborted by stop().
    }
    retry();
  };

  const retry = (message) => {
    if (stopped) return;
    onState('reconnecting', message);
    timer = setTimeout(connect, RECONNECT_MS);
  };

  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller?.abort();
  };
}

/**
 * The messages of a Server-Sent Events body as the format defines them: lines end with CRLF, LF or CR; a blank line
 * ends a message; `field: value` (one space after the colon dropped), several `data` lines joined by LF, lines that
 * start with a colon are comments (heartbeats).
 */
async function readMessages(body, onMessage) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let message = { id: '', event: '', data: [] };
  const line = (text) => {
    if (text === '') {
      if (message.data.length > 0) onMessage({ id: message.id, event: message.event, data: message.data.join('\n') });
      message = { id: message.id, event: '', data: [] };
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') message.data.push(value);
    else if (field === 'event') message.event = value;
    else if (field === 'id' && !value.includes('\0')) message.id = value;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (buffer[end] === '\r' && end === buffer.length - 1) break;
      const newline = buffer.startsWith('\r\n', end) ? 2 : 1;
      line(buffer.slice(0, end));
      buffer = buffer.slice(end + newline);
    }
  }
}
