/**
 * Request bodies at the HTTP edge: limits judged before a body is buffered (declared lengths at once, chunked bodies
 * as they arrive), anonymous bodies left unread where no endpoint admits an anonymous caller, the bound on bodies in
 * flight, WordPress's and PHP's wording of a 413, and memory that stays flat under many large anonymous bodies.
 */
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('request bodies');
const MiB = 1024 * 1024;
let t: TestSite;
let admin: TestUser;

test.before(async () => {
  t = await startTestSite({
    bodyLimits: {
      json: 256 * 1024,
      form: 256 * 1024,
      upload: 2 * MiB,
      anonymous: 64 * 1024,
      inFlight: 4,
      anonymousInFlight: 2,
    },
  });
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Body bytes the client had written when the answer's head arrived. */
  sentBeforeAnswer: number;
}

/**
 * Sends `total` bytes of body in chunks of `chunk` (a Content-Length when `declare`, else chunked), stopping as soon as
 * an answer arrives, and gives the answer. `holdAfter`: stop sending after that many bytes and wait (for the gate).
 */
function send(
  path: string,
  options: {
    total: number;
    chunk?: number;
    type: string;
    auth?: string;
    declare?: boolean;
    holdAfter?: number;
    headers?: Record<string, string>;
    prefix?: string;
  },
): { answer: Promise<Answer>; finish(): void; abort(): void } {
  const url = new URL(path, t.url);
  const headers: Record<string, string> = { 'content-type': options.type, ...(options.headers ?? {}) };
  if (options.auth) headers.authorization = options.auth;
  if (options.declare !== false) headers['content-length'] = String(options.total);
  const request = http.request(url, { method: 'POST', headers, agent: false });
  const piece = Buffer.alloc(options.chunk ?? 64 * 1024, 0x61);
  let sent = 0;
  let answered = false;
  let held: (() => void) | null = null;
  const pump = () => {
    while (!answered && sent < options.total) {
      if (options.holdAfter !== undefined && sent >= options.holdAfter && held === null) {
        held = pump;
        return;
      }
      const size = Math.min(piece.length, options.total - sent);
      sent += size;
      if (!request.write(size === piece.length ? piece : piece.subarray(0, size))) {
        request.once('drain', pump);
        return;
      }
    }
    if (!answered && sent >= options.total) request.end();
  };
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.on('response', (response) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: response.statusCode!, headers: response.headers, body, sentBeforeAnswer });
        request.destroy();
      });
    });
  });
  if (options.prefix) {
    request.write(options.prefix);
    sent += Buffer.byteLength(options.prefix);
  }
  pump();
  return {
    answer,
    finish: () => {
      const resume = held;
      held = null;
      options.holdAfter = undefined;
      resume?.();
    },
    abort: () => request.destroy(),
  };
}

test('an anonymous write to a route no endpoint admits it to is refused before its body is read', async () => {
  const total = 512 * MiB;
  const { answer } = send('/core/v2/posts', { total, type: 'application/json' });
  const got = await answer;
  assert.is(got.status, 401);
  assert.is(got.body.code, 'rest_cannot_create');
  // The refusal came while the client was still sending: the server did not wait for (or buffer) the body.
  assert.ok(got.sentBeforeAnswer < 64 * MiB, `sent ${got.sentBeforeAnswer}`);
});

test('an anonymous write with invalid fields still gets the rule refusal, not a validation error', async () => {
  const response = await t.request('POST', '/core/v2/posts', { body: { status: 'no-such-status', title: 'x' } });
  assert.is(response.status, 401);
  assert.is(response.body.code, 'rest_cannot_create');
});

test('a declared body over the JSON limit answers 413 in PHP words before it is read', async () => {
  const { answer } = send('/core/v2/posts', { total: 64 * MiB, type: 'application/json', auth: admin.auth });
  const got = await answer;
  assert.is(got.status, 413);
  assert.equal(got.body, {
    code: 'rest_request_too_large',
    message: `POST Content-Length of ${64 * MiB} bytes exceeds the limit of ${256 * 1024} bytes`,
    data: { status: 413 },
  });
  assert.ok(got.sentBeforeAnswer < 32 * MiB, `sent ${got.sentBeforeAnswer}`);
});

test('a chunked body is counted as it arrives and refused past the limit', async () => {
  const { answer } = send('/core/v2/posts', {
    total: 64 * MiB,
    type: 'application/x-www-form-urlencoded',
    auth: admin.auth,
    declare: false,
  });
  const got = await answer;
  assert.is(got.status, 413);
  assert.is(got.body.code, 'rest_request_too_large');
  assert.ok(got.sentBeforeAnswer < 32 * MiB, `sent ${got.sentBeforeAnswer}`);
});

test('uploads over the upload limit answer 413 as WordPress words a file over upload_max_filesize', async () => {
  const raw = await send('/core/v2/media', {
    total: 3 * MiB,
    type: 'image/png',
    auth: admin.auth,
    headers: { 'content-disposition': 'attachment; filename=big.png' },
  }).answer;
  assert.equal(raw.body, {
    code: 'rest_upload_sideload_error',
    message: 'The uploaded file exceeds the upload_max_filesize directive in php.ini.',
    data: { status: 413 },
  });
  const boundary = 'x-boundary';
  const prefix = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`;
  const multipart = await send('/core/v2/media', {
    total: 3 * MiB,
    type: `multipart/form-data; boundary=${boundary}`,
    auth: admin.auth,
    prefix,
  }).answer;
  assert.equal(multipart.body, {
    code: 'rest_upload_unknown_error',
    message: 'The uploaded file exceeds the upload_max_filesize directive in php.ini.',
    data: { status: 413 },
  });
  // Chunked, so only the count can catch it.
  const chunked = await send('/core/v2/media', {
    total: 64 * MiB,
    type: `multipart/form-data; boundary=${boundary}`,
    auth: admin.auth,
    declare: false,
    prefix,
  }).answer;
  assert.is(chunked.status, 413);
  assert.is(chunked.body.code, 'rest_upload_unknown_error');
  assert.ok(chunked.sentBeforeAnswer < 32 * MiB, `sent ${chunked.sentBeforeAnswer}`);
});

test('an anonymous body where an endpoint admits one is read within the anonymous limit', async () => {
  const small = await t.request('POST', '/batch/v1', {
    body: { requests: [{ method: 'POST', path: '/core/v2/posts', body: { title: 'x' } }] },
  });
  assert.is(small.status, 207);
  const { answer } = send('/batch/v1', { total: 8 * MiB, type: 'application/json', declare: false });
  const got = await answer;
  assert.is(got.status, 413);
  assert.ok(got.sentBeforeAnswer < 4 * MiB, `sent ${got.sentBeforeAnswer}`);
});

test('bodies in flight are bounded: past the bound, 503 with Retry-After, without reading', async () => {
  // Two anonymous bodies held open take the anonymous slots; a third anonymous one is refused, a signed-in one is not.
  const held = [0, 1].map(() =>
    send('/batch/v1', { total: 32 * 1024, chunk: 512, type: 'application/json', holdAfter: 1024 }),
  );
  // Until both are inside (their first bytes read), a probe may still find a free slot.
  let full = false;
  for (let i = 0; i < 200 && !full; i++) full = await gateFull();
  assert.ok(full);
  const refused = await send('/batch/v1', { total: 1024, type: 'application/json' }).answer;
  assert.is(refused.status, 503);
  assert.is(refused.headers['retry-after'], '1');
  assert.is(refused.body.code, 'rest_server_busy');
  const signedIn = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'still served' } });
  assert.is(signedIn.status, 201);
  for (const request of held) request.finish();
  for (const request of held) assert.is.not((await request.answer).status, 503);
  const after = await t.request('POST', '/batch/v1', { body: { requests: [] } });
  assert.is.not(after.status, 503);
});

/** Whether a probe request now meets a full anonymous gate (it sends an empty JSON object, harmless). */
async function gateFull(): Promise<boolean> {
  const probe = await send('/batch/v1', { total: 2, type: 'application/json' }).answer;
  return probe.status === 503;
}

test('many concurrent large anonymous bodies do not grow memory with their size', async () => {
  const clients = 24;
  const each = 24 * MiB;
  const before = memory();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, memory())), 5);
  try {
    const answers = await Promise.all(
      Array.from(
        { length: clients },
        (_, i) =>
          send(i % 2 === 0 ? '/core/v2/posts' : '/batch/v1', {
            total: each,
            type: 'application/json',
            declare: i % 4 < 2,
            chunk: 256 * 1024,
          }).answer,
      ),
    );
    for (const answer of answers) assert.ok([401, 413, 503].includes(answer.status), String(answer.status));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, memory());
  // The bodies total clients × each = 576 MiB; what the server may hold is a few anonymous limits.
  assert.ok(peak - before < 96 * MiB, `grew by ${Math.round((peak - before) / MiB)} MiB`);
});

/** What this process holds in JavaScript: heap and the buffers outside it. */
function memory(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

test.run();
