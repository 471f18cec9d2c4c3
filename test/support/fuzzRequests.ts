/**
 * Hostile HTTP requests generated from the index's route schemas, with fast-check (seeded, so a run is repeatable
 * and a failure shrinks to a small request), and the judgement of their answers. Used by the fuzz suite
 * (test/fuzz/fuzz.test.ts, a sample per route in CI) and its long mode against a real server process
 * (bench/fuzz.ts).
 *
 * Every generated URL is relative to the server under test; values that look like URLs name loopback addresses or
 * `.test` names only, so nothing a server might fetch leaves this machine.
 */
import fc from 'fast-check';
import type { ArgSchema, IndexedEndpoint } from './routeFixtures';
import { fillRoute, routeParameters } from './routeFixtures';
import { responseText } from './testSite';

export type Identity = 'anonymous' | 'admin' | 'author' | 'forged';

export interface FuzzRequest {
  method: string;
  /** Path and query string, starting with `/`. */
  url: string;
  headers: Record<string, string>;
  body?: { data: Buffer; type: string };
  as: Identity;
}

/** A marker every polluting key carries, so an answer or a prototype that picked it up is found. */
export const POLLUTION_MARKER = 'fuzzpolluted';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

/** Strings an attacker tries: sizes, encodings, traversal, markup, control characters, lone surrogates. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e400',
    '9007199254740993',
    'NaN',
    'null',
    'true',
    '../../../../etc/passwd',
    '..%2f..%2fetc%2fpasswd',
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "' OR 1=1 --",
    '%00',
    '\u0000',
    '\u202e\u0000\ud800',
    '%s%s%s%n',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as written.
    '${7*7}{{7*7}}',
    `__proto__[${POLLUTION_MARKER}]`,
    'http://127.0.0.1:1/',
    'http://localhost/wp-admin/',
    'http://[::1]/',
    'http://2130706433/',
    'https://example.test/page',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
  ),
  fc.integer({ min: 1, max: 20 }).map((n) => 'x'.repeat(n * 1000)),
);

const hostileNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MIN_VALUE),
);

/** JSON nested `depth` levels deep, built without recursion so that the generator itself cannot overflow. */
const deepJson = (depth: number, asArray: boolean): Json => {
  let value: Json = POLLUTION_MARKER;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
};

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 20, max: 2_000 }), fc.boolean()).map(([d, a]) => deepJson(d, a)) },
  { weight: 1, arbitrary: fc.array(fc.integer(), { minLength: 200, maxLength: 3_000 }) },
);

/** A value that is wrong (or merely odd) for the argument's schema; sometimes a valid-looking one. */
function valueFor(schema: ArgSchema): fc.Arbitrary<Json> {
  const choices: fc.Arbitrary<Json>[] = [anyJson];
  if (schema.enum && schema.enum.length > 0) choices.push(fc.constantFrom(...(schema.enum as Json[])));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') || types.includes('number')) choices.push(hostileNumber);
  if (types.includes('array')) choices.push(fc.array(anyJson, { maxLength: 5 }));
  if (types.includes('object'))
    choices.push(
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...FORBIDDEN_KEYS)), anyJson, { maxKeys: 4 }),
    );
  if (schema.format === 'date-time')
    choices.push(
      fc.constantFrom('2024-02-30T25:00:00', '99999-01-01T00:00:00', '0000-00-00 00:00:00', '2024-05-01T12:00:00Z'),
    );
  if (schema.format === 'uri')
    choices.push(
      fc.constantFrom('http://127.0.0.1:9/x', 'http://localhost/', 'http://0x7f000001/', 'https://example.test/'),
    );
  return fc.oneof(...choices);
}

/** The arguments of one request: a few of the endpoint's own, plus the global ones and pollution. */
function paramsFor(endpoint: IndexedEndpoint): fc.Arbitrary<Record<string, Json>> {
  const own = Object.entries(endpoint.args).filter(([name]) => !routeParameters(endpoint.route).includes(name));
  const named =
    own.length === 0
      ? fc.constant({})
      : fc
          .subarray(own, { maxLength: Math.min(4, own.length) })
          .chain((picked) => fc.record(Object.fromEntries(picked.map(([name, schema]) => [name, valueFor(schema)]))));
  const globals = fc.record(
    {
      context: fc.constantFrom('view', 'edit', 'embed', 'bogus'),
      _fields: fc.oneof(hostileString, fc.constant('id,title,_links'), fc.constant('x,'.repeat(5_000))),
      _embed: fc.constantFrom('1', 'author', 'wp:term,up', ''),
      _method: fc.constantFrom('DELETE', 'PUT', 'PATCH', 'BOGUS', 'options'),
      _envelope: fc.constantFrom('1', ''),
      _jsonp: fc.constantFrom('cb', 'a.b', '<x>', ''),
      per_page: hostileNumber,
      page: hostileNumber,
    },
    { requiredKeys: [] },
  );
  const polluting = fc.oneof(
    fc.constant({}),
    fc.constant({}),
    fc.constantFrom(...FORBIDDEN_KEYS).map(
      (key) =>
        ({
          [key]: { [POLLUTION_MARKER]: POLLUTION_MARKER, 'X-Fuzzpolluted': 'yes', 'Content-Type': 'text/html' },
        }) as Record<string, Json>,
    ),
    fc.constant({ constructor: { prototype: { [POLLUTION_MARKER]: 'yes' } } } as Record<string, Json>),
  );
  return fc.tuple(named, globals, polluting).map(([a, b, c]) => withOwnKeys({ ...a, ...b }, c));
}

/** Copies `extra` in with plain property definitions, so that a `__proto__` key stays an own key of the result. */
function withOwnKeys(target: Record<string, Json>, extra: Record<string, Json>): Record<string, Json> {
  for (const key of Object.keys(extra))
    Object.defineProperty(target, key, { value: extra[key], enumerable: true, writable: true, configurable: true });
  return target;
}

/** PHP-style query encoding (`k[0]=`, `k[a][b]=`), iteratively, with some keys sent percent-encoded or with dots. */
export function encodeQuery(params: Record<string, Json>, style: 'brackets' | 'encoded' = 'brackets'): string {
  const parts: string[] = [];
  const stack: Array<[string, Json]> = Object.keys(params)
    .map((key) => [key, params[key]!] as [string, Json])
    .reverse();
  while (stack.length > 0) {
    const [key, value] = stack.pop()!;
    if (parts.length >= 1_200) break;
    if (value !== null && typeof value === 'object') {
      const entries = Array.isArray(value)
        ? value.slice(0, 40).map((v, i) => [String(i), v] as const)
        : Object.keys(value).map((k) => [k, (value as Record<string, Json>)[k]!] as const);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([`${key}[${entries[i]![0]}]`, entries[i]![1]]);
      continue;
    }
    const name = style === 'encoded' ? encodeText(key) : key.replace(/[^\w[\]._~-]/gu, (c) => encodeText(c));
    parts.push(`${name}=${encodeText(String(value ?? '').slice(0, 2_000))}`);
  }
  return parts.join('&');
}

/** Percent-encoding that cannot throw: a lone surrogate is sent as the bytes of one (invalid UTF-8, as PHP would receive). */
const encodeText = (text: string): string =>
  text
    .split(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
    .map((part) => encodeURIComponent(part))
    .join('%ED%A0%80');

/** Query-string shapes the PHP-style parser must survive: deep brackets, many variables, odd brackets. */
const rawQueryTail: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 3_000 }).map((depth) => `a${'[x]'.repeat(depth)}=1`) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 900, max: 1_500 })
      .map((n) => Array.from({ length: n }, (_, i) => `v${i}=${i}`).join('&')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a[=1&b]]=2&c[x][=3',
      '%zz=1&%=2',
      '[]=1&[a]=2',
      `__proto__.${POLLUTION_MARKER}=1`,
      `%5F%5Fproto%5F%5F%5B${POLLUTION_MARKER}%5D=1`,
      `constructor[prototype][${POLLUTION_MARKER}]=1`,
    ),
  },
);

/** A multipart body with a file whose name, type and bytes are hostile. */
const multipartBody: fc.Arbitrary<{ data: Buffer; type: string }> = fc
  .record({
    filename: fc.oneof(
      hostileString,
      fc.constantFrom('a.png', '../../evil.php', 'x.'.repeat(1_000) + 'png', '\u0000.jpg', 'a"b.jpg', '.htaccess'),
    ),
    type: fc.constantFrom('image/png', 'image/jpeg', 'text/html', 'application/x-php', '', 'image/svg+xml'),
    bytes: fc.oneof(
      fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)),
      fc.constant(Buffer.from('not a png')),
      // A PNG header claiming 16000×16000 pixels, with no image data after it.
      fc.constant(pngHeader(16_000, 16_000)),
      fc.constant(pngHeader(30_000, 30_000)),
    ),
    field: fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 10 }),
        fc.constantFrom(`__proto__[${POLLUTION_MARKER}]`, 'title', 'alt_text[x][y]'),
      ),
      hostileString,
    ),
  })
  .map(({ filename, type, bytes, field }) => {
    const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
    const head = (disposition: string, contentType?: string) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`}\r\n`,
        'utf8',
      );
    const quoted = filename.replace(/[\r\n"]/g, '_');
    const data = Buffer.concat([
      head(`name="${field[0].replace(/[\r\n"]/g, '_')}"`),
      Buffer.from(field[1].slice(0, 5_000), 'utf8'),
      Buffer.from('\r\n'),
      head(`name="file"; filename="${quoted}"`, type),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { data, type: `multipart/form-data; boundary=${boundary}` };
  });

/** The 8-byte signature and an IHDR chunk declaring `width`×`height`, without a valid CRC or any pixel data. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.writeUInt8(8, 16);
  ihdr.writeUInt8(6, 17);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

function bodyFor(params: Record<string, Json>): fc.Arbitrary<{ data: Buffer; type: string } | undefined> {
  const json = (text: string) => ({ data: Buffer.from(text, 'utf8'), type: 'application/json' });
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(json(JSON.stringify(params))) },
    // JSON.stringify drops a `__proto__` own key's meaning nowhere: it is written out as a plain key.
    {
      weight: 1,
      arbitrary: fc.constant(
        json(
          `{"__proto__":{"${POLLUTION_MARKER}":"yes","X-Fuzzpolluted":"yes"},"constructor":{"prototype":{"${POLLUTION_MARKER}":"yes"}}}`,
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100, max: 20_000 })
        .map((depth) => json(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{"title": "x", ', '{title: x}', '[1,2]', 'null', '"s"', '\u00ff\u00fe').map(json),
    },
    {
      weight: 1,
      arbitrary: fc
        .constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]))
        .map((data) => ({ data, type: 'application/json' })),
    },
    {
      weight: 2,
      arbitrary: rawQueryTail.map((tail) => ({
        data: Buffer.from([encodeQuery(params), tail].filter(Boolean).join('&'), 'utf8'),
        type: 'application/x-www-form-urlencoded',
      })),
    },
    { weight: 2, arbitrary: multipartBody },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.uint8Array({ maxLength: 512 }),
          fc.constantFrom(
            'image/png',
            'application/octet-stream',
            'text/plain',
            ';;;/;',
            'application/json; charset=utf-16',
          ),
        )
        .map(([a, type]) => ({ data: Buffer.from(a), type })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Header values fetch will send (no CR, LF or NUL; Latin-1). */
const headerValue = hostileString.map((s) => s.replace(/[^\x20-\x7e\x80-\xff]/g, '?').slice(0, 4_000));

const headersArb: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET', 'BOGUS', ''),
    'x-forwarded-for': fc.constantFrom('127.0.0.1', '1.2.3.4, 127.0.0.1', 'not-an-address', ''),
    'content-disposition': headerValue.map((name) => `attachment; filename="${name.replace(/"/g, '')}"`),
    origin: fc.constantFrom('http://localhost:3000', 'null', 'http://evil.test'),
    'x-request-id': headerValue,
    'x-wp-nonce': headerValue,
  },
  { requiredKeys: [] },
);

/** Every request of one endpoint's sample: its path filled, its method, who sends it, and what. */
export function requestsFor(
  endpoint: IndexedEndpoint,
  method: string,
  fixtures: Record<string, string>,
): fc.Arbitrary<FuzzRequest> {
  const pathParams = routeParameters(endpoint.route);
  const pathValues = fc.record(
    Object.fromEntries(
      pathParams.map((name) => [
        name,
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('0', '999999999', '9007199254740993', '-1', '1.5', 'abc', '%00', '..%2F..'),
          },
        ),
      ]),
    ),
  );
  return fc
    .record({
      as: fc.constantFrom<Identity>('anonymous', 'anonymous', 'admin', 'admin', 'author', 'forged'),
      params: paramsFor(endpoint),
      pathValues,
      style: fc.constantFrom<'brackets' | 'encoded'>('brackets', 'encoded'),
      tail: rawQueryTail,
      headers: headersArb,
    })
    .chain((r) =>
      method === 'GET' || method === 'HEAD'
        ? fc.constant({ ...r, body: undefined })
        : bodyFor(r.params).map((body) => ({ ...r, body })),
    )
    .map(({ as, params, pathValues: given, style, tail, headers, body }) => {
      const filled = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >;
      const path = fillRoute(endpoint.route, fixtures, filled).replace(/\\/g, '');
      // Query parameters on every request (WordPress merges them under the body), the body's on writes.
      const query = [body === undefined ? encodeQuery(params, style) : '', tail].filter(Boolean).join('&');
      const request: FuzzRequest = { method, url: query ? `${path}?${query}` : path, headers, body, as };
      // fast-check prints a counterexample with this: a short line, not kilobytes of brackets.
      return Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request) });
    });
}

/** The 500s WordPress answers by design for a failure of its own, which we mirror (an image edit that failed, say). */
const WORDPRESS_OWN_500 = new Set([
  'rest_application_password_not_found',
  'rest_image_rotation_failed',
  'rest_image_crop_failed',
  'wpcf7_cannot_save',
]);

/** WordPress's own 5xx: DELETE without `force` of what cannot be trashed (501), and the 500s above. */
export function isWordPressOwn5xx(status: number, body: any): boolean {
  if (status === 501) return body?.code === 'rest_trash_not_supported';
  return status === 500 && WORDPRESS_OWN_500.has(body?.code);
}

/** What is wrong with an answer: a 5xx not WordPress's own, an error that is not WordPress-shaped, a polluted header. */
export function problemsWith(status: number, headers: Headers, text: string): string[] {
  const problems: string[] = [];
  let body: any;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (status >= 500 && !isWordPressOwn5xx(status, body)) problems.push(`status ${status}`);
  for (const [name, value] of headers) {
    if (name.includes(POLLUTION_MARKER) || value.includes(POLLUTION_MARKER))
      problems.push(`polluted header ${name}: ${value}`);
  }
  const type = headers.get('content-type') ?? '';
  if (/text\/html/.test(type)) problems.push(`content-type ${type}`);
  if (
    status >= 400 &&
    body !== undefined &&
    !isWordPressOwn5xx(status, body) &&
    body?.code !== 'rest_callback_invalid'
  ) {
    if (typeof body?.code !== 'string' || typeof body?.message !== 'string' || body?.data?.status !== status)
      problems.push(`not a WordPress error: ${text.slice(0, 160)}`);
  }
  return problems;
}

/** The names the built-in prototypes have: a request that adds one has polluted the process. */
export function prototypeNames(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((proto) => Reflect.ownKeys(proto).map(String).sort().join(','))
    .join('|');
}

/** Sends a generated request to `base` with the identity's Authorization header. */
export async function sendFuzz(
  base: string,
  request: FuzzRequest,
  auth: Record<Identity, string | undefined>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...request.headers };
  const authorization = auth[request.as];
  if (authorization) headers.authorization = authorization;
  if (request.body) headers['content-type'] = request.body.type;
  const response = await fetch(`${base}${request.url}`, { method: request.method, headers, body: request.body?.data });
  return { status: response.status, headers: response.headers, text: await responseText(response) };
}

/** A one-line description of a request, for failure messages. */
export const describeRequest = (request: FuzzRequest): string =>
  `${request.as} ${request.method} ${request.url.slice(0, 300)}${request.body ? ` [${request.body.type}, ${request.body.data.length} bytes: ${request.body.data.subarray(0, 120).toString('latin1')}]` : ''} ${JSON.stringify(request.headers).slice(0, 200)}`;
