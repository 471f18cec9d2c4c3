/**
 * A Server-Sent Events client for tests: a real HTTP request (fetch) whose body is read as it arrives and parsed
 * into messages and comments as the SSE format defines them (fields `id`, `event`, `data`, `retry`; lines starting
 * with `:` are comments). `next()` waits for the next message; a wait is bounded so that a missing event fails the
 * test instead of hanging it.
 */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** The next message (comments are skipped); rejects when none comes within `waitMs` or the stream ends. */
  next(waitMs?: number): Promise<SseMessage>;
  /** The next `count` messages. */
  take(count: number, waitMs?: number): Promise<SseMessage[]>;
  /** Resolves with the next comment line's text. */
  nextComment(waitMs?: number): Promise<string>;
  /** Every message until the server ends the stream. */
  rest(waitMs?: number): Promise<SseMessage[]>;
  /** The `retry:` value last sent, if any. */
  retry: number | null;
  /** Disconnects. */
  close(): void;
}

const WAIT_MS = 10_000;

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const client: SseClient = {
    status: response.status,
    headers: response.headers,
    retry: null,
    next: (waitMs) => waitFor(() => messages.shift(), waitMs, 'a message'),
    async take(count, waitMs) {
      const taken: SseMessage[] = [];
      while (taken.length < count) taken.push(await client.next(waitMs));
      return taken;
    },
    nextComment: (waitMs) => waitFor(() => comments.shift(), waitMs, 'a comment'),
    async rest(waitMs = WAIT_MS) {
      const deadline = Date.now() + waitMs;
      while (!ended && failure === null) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('the stream did not end');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return messages.splice(0);
    },
    close: () => abort.abort(),
  };

  async function waitFor<T>(take: () => T | undefined, waitMs = WAIT_MS, what: string): Promise<T> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const taken = take();
      if (taken !== undefined) return taken;
      if (ended || failure !== null) throw new Error(`the stream ended before ${what} came`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} came within ${waitMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      let current: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let newline = buffer.search(/\r\n|\r|\n/);
          while (newline !== -1) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
            if (line === '') {
              if (current.data.length > 0)
                messages.push({ id: current.id, event: current.event, data: current.data.join('\n') });
              current = { id: null, event: 'message', data: [] };
            } else if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              const field = colon === -1 ? line : line.slice(0, colon);
              const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') current.id = value;
              else if (field === 'event') current.event = value;
              else if (field === 'data') current.data.push(value);
              else if (field === 'retry') client.retry = Number(value);
            }
            notify();
            newline = buffer.search(/\r\n|\r|\n/);
          }
        }
      } catch (error) {
        if (!abort.signal.aborted) failure = error;
      }
      ended = true;
      notify();
    })();
  }
  return client;
}

/** The JSON body of a response that is not a stream (an error answer). */
export async function jsonOf(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(WAIT_MS) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}
