/**
 * The malformed-input sweep: walks the index (`GET /?context=edit`: every route, method and argument with its schema)
 * and sends every route and method, as an administrator and as an anonymous caller, malformed input: arguments of
 * the wrong type, out-of-range and huge numbers, very long strings, invalid enum values, nested junk, arrays of
 * wrong items, ids that do not exist or cannot be ids, bodies that are not JSON objects or not JSON at all, wrong
 * content types, unknown `context`, odd `_fields`/`_embed`/`_envelope`, and batches of malformed sub-requests.
 *
 * Every answer must be JSON and not 5xx, and every 4xx must be a WordPress error `{code, message, data: {status}}`
 * with `data.status` equal to the HTTP status (the same for each sub-response of a batch). The values are a fixed
 * list per schema type (no randomness). Admin requests send every malformed value to every argument of every
 * endpoint; anonymous ones, which WordPress answers the same up to the permission check, send each malformed kind to
 * every endpoint once (all arguments at once). The fixtures must still read back afterwards (nothing lost).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { createRouteFixtures, fillRoute, routeParameters } from '../support/routeFixtures';
import type { ArgSchema, IndexedEndpoint as Endpoint } from '../support/routeFixtures';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Malformed {
  kind: string;
  value: Json;
}

const long = 'x'.repeat(70_000);
const beyondSafe = '9007199254740993';
const nested: Json = { a: { b: [{ c: { d: [[{}], null, { e: 'f' }] } }] } };

/** Wrong for integers and numbers: other types, out of range, not finite, beyond 2^53. */
const numeric: Malformed[] = [
  { kind: 'not a number', value: 'abc' },
  { kind: 'fraction', value: 1.5 },
  { kind: 'negative', value: -1 },
  { kind: 'beyond 2^53', value: beyondSafe },
  { kind: 'huge', value: 1e308 },
  { kind: 'overflow string', value: '1e400' },
  { kind: 'empty string', value: '' },
  { kind: 'boolean', value: true },
  { kind: 'array', value: [1, 'x'] },
  { kind: 'object', value: nested },
  { kind: 'null', value: null },
];
const malformedByType: Record<string, Malformed[]> = {
  integer: numeric,
  number: numeric.concat([
    { kind: 'NaN', value: 'NaN' },
    { kind: 'Infinity', value: '-Infinity' },
  ]),
  boolean: [
    { kind: 'not a boolean', value: 'maybe' },
    { kind: 'number', value: 2 },
    { kind: 'array', value: [true] },
    { kind: 'object', value: nested },
    { kind: 'null', value: null },
  ],
  string: [
    { kind: 'very long', value: long },
    { kind: 'number', value: 12345 },
    { kind: 'boolean', value: false },
    { kind: 'array', value: ['a', ['b']] },
    { kind: 'object', value: nested },
    { kind: 'null', value: null },
    { kind: 'control characters', value: '\u0000\u0001\u001f<script>\ud800' },
  ],
  array: [
    { kind: 'object for array', value: { x: 1, y: nested } },
    { kind: 'nested arrays', value: [[1, 2], [3]] },
    { kind: 'objects in array', value: [{}, { a: 1 }] },
    { kind: 'nulls in array', value: [null, null] },
    { kind: 'wrong items', value: ['abc', beyondSafe, -5, long] },
    { kind: 'long array', value: Array.from({ length: 2_000 }, (_, i) => i) },
    { kind: 'number', value: 7 },
  ],
  object: [
    { kind: 'string for object', value: 'not an object' },
    { kind: 'number', value: 5 },
    { kind: 'array for object', value: [1, 2] },
    { kind: 'nested junk', value: nested },
    { kind: 'null', value: null },
    { kind: 'boolean', value: true },
  ],
  null: [{ kind: 'string', value: 'x' }],
};
const malformedEnum: Malformed[] = [
  { kind: 'invalid enum value', value: 'definitely-not-allowed' },
  { kind: 'enum as array', value: ['definitely-not-allowed', 3] },
];
const malformedByFormat: Record<string, Malformed[]> = {
  'date-time': [
    { kind: 'not a date', value: 'not a date' },
    { kind: 'impossible date', value: '2024-13-45T25:61:61' },
    { kind: 'year zero', value: '0000-00-00T00:00:00' },
    { kind: 'five-digit year', value: '99999-01-01T00:00:00' },
  ],
  uri: [
    { kind: 'not a uri', value: 'not a uri at all' },
    { kind: 'script uri', value: 'javascript:alert(1)' },
    { kind: 'huge uri', value: `http://example.test/${long}` },
  ],
  email: [{ kind: 'not an email', value: 'not-an-email@' }],
  uuid: [{ kind: 'not a uuid', value: 'not-a-uuid' }],
};
/** An argument without a type (or of a type not listed) gets a sample of everything. */
const untyped: Malformed[] = [
  { kind: 'very long', value: long },
  { kind: 'nested junk', value: nested },
  { kind: 'array', value: [null, 'x'] },
  { kind: 'beyond 2^53', value: beyondSafe },
  { kind: 'negative', value: -1 },
];

function malformedFor(schema: ArgSchema): Malformed[] {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const values: Malformed[] = [];
  for (const type of types) values.push(...(malformedByType[type] ?? []));
  if (types.length === 0) values.push(...untyped);
  if (schema.enum) values.push(...malformedEnum);
  if (schema.format) values.push(...(malformedByFormat[schema.format] ?? []));
  // Items of an array: a wrong item of their own type.
  if (schema.items?.type)
    values.push(
      ...malformedFor({ type: schema.items.type })
        .slice(0, 2)
        .map((m) => ({ kind: `item ${m.kind}`, value: [m.value] })),
    );
  // Drop what a union type accepts (a null for `["string","null"]`).
  return values.filter((m) => !(m.value === null && types.includes('null')));
}

/**
 * A value in a URL: a lone surrogate as the bytes PHP would receive; a very long string cut to what a URL carries
 * (the HTTP server refuses a request line beyond 16 KB before the app sees it, as nginx does beyond 8 KB).
 */
function encodeText(text: string): string {
  const cut = text.length > 1_000 ? text.slice(0, 1_000) : text;
  return cut
    .split(/([\ud800-\udfff])/)
    .map((part, i) => (i % 2 === 1 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** PHP-style query encoding: arrays as `k[0]=`, objects as `k[a]=`, null as an empty value. */
function encodeQuery(params: Record<string, Json>): string {
  const parts: string[] = [];
  const add = (key: string, value: Json) => {
    if (value === null) parts.push(`${encodeURIComponent(key)}=`);
    else if (Array.isArray(value)) for (const [i, v] of value.slice(0, 50).entries()) add(`${key}[${i}]`, v);
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else parts.push(`${encodeURIComponent(key)}=${encodeText(String(value))}`);
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  return parts.join('&');
}

const test = suite('malformed input: never a 500, always a WordPress error');
let t: TestSite;
let admin: TestUser;
let endpoints: Endpoint[];
/** A real value for each path parameter, by route. */
let fixtures: Record<string, string>;
const failures: string[] = [];
let checked = 0;

/**
 * The one 5xx WordPress gives by design, mirrored on purpose: DELETE without `force` of what cannot be trashed (501).
 * (The errors of its term and user inserts, 500 with `data: null` there, are 400 here: bad input is never a 500.)
 */
function wordPressOwn5xx(status: number, body: any): boolean {
  return status === 501 && body?.code === 'rest_trash_not_supported' && body?.data?.status === 501;
}

function check(label: string, response: TestResponse): void {
  checked++;
  const problems: string[] = [];
  if (response.status >= 500 && !wordPressOwn5xx(response.status, response.body))
    problems.push(`status ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  // A live feed (Server-Sent Events) that accepted its arguments answers an event stream; every error is JSON.
  const feed = response.status === 200 && /^text\/event-stream\b/.test(type) && response.text.startsWith('retry:');
  if (!feed && !/^application\/json\b/.test(type)) problems.push(`content-type ${type}`);
  if (!feed && response.body === undefined) problems.push('body is not JSON');
  const errorProblems = (status: number, body: any, where: string) => {
    if (status < 400 || wordPressOwn5xx(status, body)) return;
    // WordPress's own answer to a bad `_jsonp` has no `data` (answered before its error machinery).
    if (status === 400 && body?.code === 'rest_callback_invalid' && body?.data === undefined) return;
    if (typeof body?.code !== 'string') problems.push(`${where}code is not a string`);
    if (typeof body?.message !== 'string') problems.push(`${where}message is not a string`);
    if (body?.data?.status !== status)
      problems.push(`${where}data.status ${JSON.stringify(body?.data?.status)} is not ${status}`);
  };
  errorProblems(response.status, response.body, '');
  // A batch's sub-responses carry their own statuses.
  if (response.status === 207 && Array.isArray(response.body?.responses)) {
    response.body.responses.forEach((sub: any, i: number) => {
      if (typeof sub?.status !== 'number') problems.push(`responses[${i}] has no status`);
      else if (sub.status >= 500) problems.push(`responses[${i}] status ${sub.status}`);
      else errorProblems(sub.status, sub.body, `responses[${i}].body.`);
    });
  }
  if (problems.length > 0)
    failures.push(`${label} -> ${response.status} ${problems.join(', ')}: ${response.text.slice(0, 200)}`);
}

/** A route's path with its parameters filled from `values` (by parameter name) or the fixtures. */
const fill = (route: string, values: Record<string, string> = {}): string => fillRoute(route, fixtures, values);

async function send(
  method: string,
  path: string,
  params: Record<string, Json>,
  as: TestUser | null,
): Promise<TestResponse> {
  if (method === 'GET' || method === 'DELETE') {
    const query = encodeQuery(params);
    return t.request(method, query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path, { as });
  }
  return t.request(method, path, { as, body: params });
}

const isDelete = (method: string) => method === 'DELETE';
/** Deleting these would sign the administrator out or drop what the other requests need: they go last. */
const lastOfAll = (e: Endpoint) => e.route === '/core/v2/users/me' || e.route.includes('application-passwords');
function ordered(): Array<[Endpoint, string]> {
  const pairs = endpoints.flatMap((e) => e.methods.map((m) => [e, m] as [Endpoint, string]));
  const rank = ([e, m]: [Endpoint, string]) => (isDelete(m) ? (lastOfAll(e) ? 2 : 1) : 0);
  return pairs.sort((a, b) => rank(a) - rank(b));
}

test.before(async () => {
  t = await startTestSite({ instance: 'second' });
  ({ admin, values: fixtures, endpoints } = await createRouteFixtures(t));
});
test.after(async () => t.close());

test('the index describes the routes the sweep walks', () => {
  assert.ok(endpoints.length > 80, `${endpoints.length} endpoints`);
  for (const route of [
    '/core/v2/posts',
    '/batch/v1',
    '/core/v2/users/me',
    '/contact-form/v1/contact-forms',
    '/audit/v1/events',
  ]) {
    assert.ok(
      endpoints.some((e) => e.route === route),
      route,
    );
  }
});

test('as an anonymous caller: every malformed kind at every route and method', async () => {
  for (const [endpoint, method] of ordered()) {
    const path = fill(endpoint.route);
    const byKind = new Map<string, Record<string, Json>>();
    for (const [name, schema] of Object.entries(endpoint.args)) {
      for (const { kind, value } of malformedFor(schema)) {
        if (!byKind.has(kind)) byKind.set(kind, {});
        byKind.get(kind)![name] = value;
      }
    }
    if (byKind.size === 0) byKind.set('junk', { junk: nested });
    for (const [kind, params] of byKind)
      check(`anonymous ${method} ${path} [${kind}]`, await send(method, path, params, null));
  }
});

test('as an administrator: every malformed value in every argument of every route and method', async () => {
  for (const [endpoint, method] of ordered()) {
    const path = fill(endpoint.route);
    const args = Object.entries(endpoint.args).filter(([name]) => !endpoint.route.includes(`<${name}>`));
    if (args.length === 0) check(`admin ${method} ${path} [junk]`, await send(method, path, { junk: nested }, admin));
    for (const [name, schema] of args) {
      for (const { kind, value } of malformedFor(schema)) {
        check(`admin ${method} ${path} ${name}=[${kind}]`, await send(method, path, { [name]: value }, admin));
      }
    }
  }
});

test('ids that do not exist, are negative, are not numbers or are beyond 2^53', async () => {
  const badIds = ['0', '999999', beyondSafe, '99999999999999999999999999', '-1', 'abc', '1.5', '%00'];
  for (const as of [null, admin]) {
    for (const [endpoint, method] of ordered()) {
      const names = routeParameters(endpoint.route);
      for (const name of names) {
        for (const bad of badIds) {
          const path = fill(endpoint.route, { [name]: bad });
          // Deleting with a bad id must not reach a real item; the body is a valid one.
          const params: Record<string, Json> =
            method === 'DELETE' ? { force: true, reassign: Number(fixtures.id) } : {};
          check(`${as ? 'admin' : 'anonymous'} ${method} ${path}`, await send(method, path, params, as));
        }
      }
    }
  }
});

test('bodies that are not JSON objects, not JSON at all, or of the wrong content type', async () => {
  const bodies: Array<{ kind: string; data: string | Buffer; type: string }> = [
    { kind: 'unterminated JSON', data: '{"title": "x", ', type: 'application/json' },
    { kind: 'unterminated string', data: '"abc', type: 'application/json' },
    { kind: 'invalid JSON', data: '{title: x}', type: 'application/json' },
    { kind: 'JSON array', data: '[1, 2, {"title": 3}]', type: 'application/json' },
    { kind: 'JSON string', data: '"just a string"', type: 'application/json' },
    { kind: 'JSON null', data: 'null', type: 'application/json' },
    { kind: 'JSON number', data: '42', type: 'application/json' },
    { kind: 'deeply nested JSON', data: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: 'application/json' },
    {
      kind: 'invalid UTF-8',
      data: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      type: 'application/json',
    },
    { kind: 'JSON as text/plain', data: '{"title": "x"}', type: 'text/plain' },
    { kind: 'XML', data: '<title>x</title>', type: 'application/xml' },
    { kind: 'junk form', data: 'a[=1&b]]=2&c[x][=3&%zz=4&title[]=5', type: 'application/x-www-form-urlencoded' },
    { kind: 'multipart without boundary', data: '--x\r\n\r\n', type: 'multipart/form-data' },
    {
      kind: 'broken multipart',
      data: '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx',
      type: 'multipart/form-data; boundary=b',
    },
    { kind: 'bogus content type', data: '{"title": "x"}', type: ';;;/;' },
  ];
  for (const as of [null, admin]) {
    for (const [endpoint, method] of ordered()) {
      if (method === 'GET') continue;
      const path = fill(endpoint.route);
      for (const body of bodies) {
        check(
          `${as ? 'admin' : 'anonymous'} ${method} ${path} [${body.kind}]`,
          await t.request(method, path, { as, raw: { data: body.data, type: body.type } }),
        );
      }
    }
  }
});

test('unknown context, odd _fields, _embed, _envelope, _method, rest_route', async () => {
  const queries = [
    'context=bogus',
    'context[]=view',
    'context[a][b]=edit',
    '_fields=,,,.,..',
    '_fields[]=id&_fields[x][y]=z',
    '_fields=a.b.c.d.e.f',
    `_fields=${'x,'.repeat(3000)}`,
    '_embed=bogus',
    '_embed[]=author&_embed[x]=1',
    '_embed=1&_fields=_links',
    '_envelope[]=1',
    '_envelope=1&_fields[]=',
    '_method=BOGUS',
    '_method[]=DELETE',
    'rest_route[]=/core/v2',
    '_jsonp[]=x',
    'page=1&per_page=0',
    'per_page=101&page=99999999999',
  ];
  for (const as of [null, admin]) {
    for (const [endpoint, method] of ordered()) {
      if (method === 'DELETE') continue;
      const path = fill(endpoint.route);
      for (const query of queries) {
        const response =
          method === 'GET'
            ? await t.request(method, `${path}?${query}`, { as })
            : await t.request(method, `${path}?${query}`, { as, body: {} });
        // `_jsonp` answers JavaScript by design; only its refusal is JSON.
        check(`${as ? 'admin' : 'anonymous'} ${method} ${path}?${query.slice(0, 60)}`, response);
      }
    }
  }
});

test('the batch endpoint with malformed sub-requests', async () => {
  const batches: Json[] = [
    { requests: 'not an array' },
    { requests: {} },
    { requests: [1, 'x', null, true, []] },
    { requests: [{}] },
    { requests: [{ path: 5 }, { path: null }, { path: ['/core/v2/posts'] }, { path: { a: 1 } }] },
    {
      requests: [
        { path: '/core/v2/posts', method: 'BOGUS' },
        { path: '/core/v2/posts', method: 7 },
      ],
    },
    {
      requests: [
        { path: 'http://elsewhere.test/core/v2/posts' },
        { path: '' },
        { path: '?' },
        { path: '/core/v2/posts?a[=1' },
      ],
    },
    {
      requests: [
        { path: '/core/v2/posts', body: 'not an object' },
        { path: '/core/v2/posts', body: [1] },
        { path: '/core/v2/posts', body: nested },
      ],
    },
    {
      requests: [
        { path: '/core/v2/posts', headers: 'x' },
        { path: '/core/v2/posts', headers: { 'content-type': 5 } },
        { path: '/core/v2/posts', headers: [1] },
      ],
    },
    { requests: [{ path: '/batch/v1', body: { requests: [{ path: '/core/v2/posts' }] } }] },
    {
      requests: [
        { path: `/core/v2/posts/${beyondSafe}`, method: 'PUT', body: { title: 'x' } },
        { path: '/core/v2/posts/-1', method: 'DELETE' },
      ],
    },
    { requests: Array.from({ length: 30 }, () => ({ path: '/core/v2/posts', body: { title: 'over the limit' } })) },
    {
      requests: [
        { path: '/core/v2/posts', body: { title: long, status: 'nope' } },
        { path: '/core/v2/posts', body: { categories: ['x'] } },
      ],
      validation: 'require-all-validate',
    },
    { requests: [{ path: '/core/v2/posts', body: { title: 'ok' } }], validation: 'bogus' },
    {
      requests: [
        { path: '/core/v2/posts', method: 'GET' },
        { path: '/core/v2/users/me', method: 'DELETE', body: { force: 'maybe' } },
      ],
    },
    { requests: [{ path: '/core/v2/posts', body: { title: 'x' } }], validation: nested },
  ];
  for (const as of [null, admin]) {
    for (const body of batches) {
      check(
        `${as ? 'admin' : 'anonymous'} POST /batch/v1 ${JSON.stringify(body).slice(0, 120)}`,
        await t.request('POST', '/batch/v1', { as, body }),
      );
    }
  }
});

test('every answer was JSON, no 5xx, every error WordPress-shaped; the fixtures are all still there', async () => {
  for (const path of [
    '/core/v2/posts/' + fixtures.id,
    '/core/v2/pages/' + fixtures['/core/v2/pages/(?P<id>[\\d]+)#id'],
    '/core/v2/media/' + fixtures['/core/v2/media/(?P<id>[\\d]+)#id'],
  ]) {
    const response = await t.request('GET', `${path}?context=edit`, { as: admin });
    assert.is(response.status, 200, `${path}: ${response.text.slice(0, 200)}`);
  }
  assert.ok(checked > 5_000, `${checked} requests`);
  if (process.env.SWEEP_VERBOSE) for (const failure of failures) console.log(failure);
  assert.equal(failures.slice(0, 25), [], `${failures.length} of ${checked} answers were wrong`);
});

test.run();
