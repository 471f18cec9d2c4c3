/**
 * No request can reach a prototype: every way of naming `__proto__`, `constructor.prototype` or `prototype` is sent
 * through every way input enters the app (query strings, JSON, urlencoded and multipart bodies, batch sub-request
 * paths, bodies and headers, the authorization page's query and form, also when it refuses with 403), anonymously
 * and signed in, over HTTP. After each, Object.prototype, Array.prototype and Function.prototype have gained nothing,
 * a later ordinary answer carries no planted header and its own Content-Type, the namespace index and /users/me answer
 * as before, and property descriptors still work (a planted `get` makes every defineProperty with a value throw, which
 * is how loading sharp crashed). At the end sharp is loaded and an image uploaded and sized.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('prototype pollution');
let t: TestSite;
let admin: TestUser;

const PAGE = '/wp-admin/authorize-application.php';
/** A 1×1 PNG, written out so that sharp is first loaded by the app, after every attack. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype } as Record<
  string,
  object
>;
const before = Object.fromEntries(Object.entries(PROTOTYPES).map(([name, proto]) => [name, Reflect.ownKeys(proto)]));

/** Keys each prototype gained since the start (removed again, so one failure does not spread to the next check). */
function gained(): string[] {
  const found: string[] = [];
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    for (const key of Reflect.ownKeys(proto)) {
      if (before[name]!.includes(key)) continue;
      found.push(`${name}.prototype[${String(key)}]`);
      delete (proto as Record<PropertyKey, unknown>)[key];
    }
  }
  return found;
}

/** The markers a planted value carries: header names and values the checks look for. */
const MARK = 'x-polluted';

let round = 0;
async function assertUnharmed(label: string): Promise<void> {
  const planted = gained();
  assert.equal(planted, [], `${label}: prototypes gained ${planted.join(', ')}`);
  // A URL of its own each time, so the answer is not one the response cache kept before the attack.
  round += 1;
  const list = await t.request('GET', `/core/v2/posts?per_page=1&round=${round}`);
  assert.is(list.status, 200, `${label}: the posts list`);
  assert.is(list.headers.get('content-type'), 'application/json; charset=UTF-8', `${label}: Content-Type`);
  const names = [...list.headers.keys()].filter((name) => name.includes(MARK) || name === '0');
  assert.equal(names, [], `${label}: planted headers`);
  assert.not.ok(
    [...list.headers.values()].some((value) => value.includes('planted')),
    `${label}: planted header values`,
  );
  const index = await t.request('GET', `/core/v2?round=${round}`);
  assert.equal([index.status, index.body?.namespace], [200, 'core/v2'], `${label}: the namespace index`);
  const me = await t.request('GET', `/core/v2/users/me?round=${round}`);
  assert.equal([me.status, me.body?.code], [401, 'rest_not_logged_in'], `${label}: /users/me`);
  const signedIn = await t.request('GET', '/core/v2/users/me', { as: admin });
  assert.equal([signedIn.status, signedIn.body?.id], [200, admin.id], `${label}: /users/me signed in`);
  assert.not.throws(() => Object.defineProperty({}, 'x', { value: 1 }), `${label}: defineProperty`);
}

/** Query strings that name a prototype, each planting a header `x-polluted-N: planted` if it gets through. */
const queries = (n: number): string[] => [
  `__proto__[${MARK}-${n}a]=planted`,
  `__proto__[Content-Type]=text/html`,
  `%5F%5Fproto%5F%5F[${MARK}-${n}b]=planted`,
  `__proto__%5B${MARK}-${n}c%5D=planted`,
  `constructor[prototype][${MARK}-${n}d]=planted`,
  `a[__proto__][${MARK}-${n}e]=planted`,
  `a[constructor][prototype][${MARK}-${n}f]=planted`,
  `__proto__.${MARK}-${n}g=planted`,
  `constructor.prototype.${MARK}-${n}h=planted`,
  `__proto__[]=planted`,
  `prototype[${MARK}-${n}i]=planted`,
  `a[]=1&a[__proto__][${MARK}-${n}j]=planted`,
];

/** JSON bodies that name a prototype. */
const jsonBodies = (n: number): unknown[] => [
  JSON.parse(`{"title":"x","__proto__":{"${MARK}-${n}a":"planted","get":"planted"}}`),
  { title: 'x', constructor: { prototype: { [`${MARK}-${n}b`]: 'planted' } } },
  JSON.parse(`{"title":"x","meta":{"__proto__":{"${MARK}-${n}c":"planted"}},"categories":{"__proto__":[1]}}`),
  JSON.parse(`{"title":"x","\\u005f_proto__":{"${MARK}-${n}d":"planted"}}`),
];

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  const created = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Existing', status: 'publish' },
  });
  assert.is(created.status, 201);
});
test.after(async () => t.close());

test('query strings, anonymous and signed in, on the API and the authorization page', async () => {
  let n = 0;
  for (const query of queries(++n)) {
    for (const as of [null, admin]) {
      await t.request('GET', `/core/v2/posts?${query}`, { as });
      await assertUnharmed(`GET ?${query} as ${as ? 'admin' : 'anonymous'}`);
    }
    await t.request('GET', `/?${query}`);
    await t.request('GET', `/?rest_route=/core/v2/posts&${query}`);
    await assertUnharmed(`GET /?${query}`);
    await fetch(`${t.url}${PAGE}?app_name=App&${query}`);
    await assertUnharmed(`authorization page ?${query}`);
  }
});

test('JSON bodies, anonymous and signed in', async () => {
  for (const body of jsonBodies(1)) {
    for (const as of [null, admin]) {
      await t.request('POST', '/core/v2/posts', { as, body });
      await t.request('POST', `/core/v2/posts?__proto__[${MARK}-q]=planted`, { as, body });
      await assertUnharmed(`JSON ${JSON.stringify(body)} as ${as ? 'admin' : 'anonymous'}`);
    }
  }
});

test('urlencoded bodies, anonymous and signed in', async () => {
  for (const query of queries(2)) {
    for (const as of [null, admin]) {
      await t.request('POST', '/core/v2/posts', {
        as,
        raw: { data: `title=x&${query}`, type: 'application/x-www-form-urlencoded' },
      });
      await assertUnharmed(`form ${query} as ${as ? 'admin' : 'anonymous'}`);
    }
  }
});

test('multipart fields and file names, anonymous and signed in', async () => {
  for (const query of queries(3)) {
    const form = new FormData();
    for (const pair of query.split('&')) {
      const [name, value] = pair.split('=') as [string, string];
      form.append(decodeURIComponent(name), value);
    }
    form.append('__proto__', new Blob(['planted'], { type: 'text/plain' }), 'planted.txt');
    for (const as of [null, admin]) {
      await fetch(`${t.url}/core/v2/media`, {
        method: 'POST',
        body: form,
        headers: as ? { authorization: as.auth } : {},
      });
      await assertUnharmed(`multipart ${query} as ${as ? 'admin' : 'anonymous'}`);
    }
  }
});

test('batch sub-request paths, bodies and headers, sent as JSON and as a form', async () => {
  for (const query of queries(4)) {
    for (const as of [null, admin]) {
      const requests = [
        { path: `/core/v2/posts?${query}`, body: { title: 'x' } },
        {
          path: `/core/v2/posts?${query}`,
          body: jsonBodies(5)[0],
          headers: JSON.parse(`{"__PROTO__":["planted"],"__proto__":{"${MARK}-h":"planted"}}`),
        },
        ...jsonBodies(6).map((body) => ({ path: '/core/v2/posts', body })),
      ];
      await t.request('POST', '/batch/v1', { as, body: { requests } });
      await t.request('POST', '/batch/v1', { as, body: { validation: 'require-all-validate', requests } });
      const form = `requests[0][path]=${encodeURIComponent(`/core/v2/posts?${query}`)}&requests[0][body][title]=x&requests[0][body][${query.split('=')[0]}]=planted&${query}`;
      await t.request('POST', '/batch/v1', { as, raw: { data: form, type: 'application/x-www-form-urlencoded' } });
      await assertUnharmed(`batch ${query} as ${as ? 'admin' : 'anonymous'}`);
    }
  }
});

test('the authorization form, refused (403, bad token) and rejected as malformed (400)', async () => {
  for (const query of queries(7)) {
    for (const fields of [`app_name=App&token=nope&log=a&pwd=b&${query}`, query]) {
      const response = await fetch(`${t.url}${PAGE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields,
      });
      assert.ok([400, 403].includes(response.status), `authorization form answered ${response.status}`);
      await assertUnharmed(`authorization form ${fields}`);
    }
  }
  const refused = await fetch(`${t.url}${PAGE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `app_name=App&token=nope&${queries(8)[0]}`,
  });
  assert.is(refused.status, 403);
  assert.is(refused.headers.get('content-type'), 'text/html; charset=utf-8');
});

test('the dropped names are not parameters: a title sent beside them is kept, the planted ones are not', async () => {
  const created = await t.request('POST', `/core/v2/posts?__proto__[status]=publish`, {
    as: admin,
    body: JSON.parse(
      '{"title":"Plain","__proto__":{"status":"publish"},"constructor":{"prototype":{"status":"publish"}}}',
    ),
  });
  assert.is(created.status, 201);
  assert.is(created.body.title.raw, 'Plain');
  assert.is(created.body.status, 'draft');
  await assertUnharmed('post with planted status');
});

test('sharp loads and sizes an upload after every attack', async () => {
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
  form.append('__proto__[get]', 'planted');
  const response = await fetch(`${t.url}/core/v2/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: admin.auth },
  });
  const item = (await response.json()) as any;
  assert.is(response.status, 201);
  assert.equal([item.media_details.width, item.media_details.height], [1, 1]);
  const sharp = (await import('sharp')).default;
  const made = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  assert.ok(made.length > 0);
  await assertUnharmed('sharp');
});

test.run();
