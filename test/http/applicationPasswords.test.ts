/**
 * Application passwords over HTTP, black-box, as WordPress 6.1 answers (wp/v2 renamed core/v2): list, create
 * (the password answered once), read, rename, delete one, delete all, introspect; who may manage whose;
 * revocation taking effect on the next request; `last_used` / `last_ip` recorded at most daily, off the
 * request's path; and throttling of failed Basic authentication.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { configureThrottle } from '../../src/access/throttle';

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
const keys = (value: object) => Object.keys(value).sort();
const DAY = 24 * 60 * 60 * 1000;

/** Waits (bounded) until `check` holds: usage is recorded after the answer, so tests poll for it. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.unreachable(`timed out waiting for ${what}`);
}

// ---------------------------------------------------------------------------------------------------------------

const crud = suite('application passwords: routes');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let subscriber: TestUser;

crud.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
crud.after(async () => t.close());

crud('create: 201, Location, edit context with the chunked password shown once; it authenticates at once', async () => {
  const response = await t.request('POST', '/core/v2/users/me/application-passwords', {
    as: subscriber,
    body: { name: 'Phone', app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' },
  });
  assert.is(response.status, 201, response.text);
  const item = response.body;
  assert.equal(keys(item), ['_links', 'app_id', 'created', 'last_ip', 'last_used', 'name', 'password', 'uuid']);
  assert.match(item.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(item.app_id, '1b4e28ba-2fa1-11d2-883f-0016d3cca427');
  assert.is(item.name, 'Phone');
  assert.is(item.created, '2024-05-01T12:00:00');
  assert.is(item.last_used, null);
  assert.is(item.last_ip, null);
  assert.match(item.password, /^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
  const self = `${t.url}/core/v2/users/${subscriber.id}/application-passwords/${item.uuid}`;
  assert.is(response.headers.get('location'), self);
  assert.equal(item._links, { self: [{ href: self }] });
  // The password works (spaces and all) and is never shown again.
  const me = await t.request('GET', '/core/v2/users/me', {
    headers: { authorization: basic('subscriber', item.password) },
  });
  assert.is(me.status, 200);
  const read = await t.request('GET', `/core/v2/users/me/application-passwords/${item.uuid}?context=edit`, {
    as: subscriber,
  });
  assert.is(read.status, 200);
  assert.not.ok('password' in read.body);
  const events = await t.site.store.readStream(`user-${subscriber.id}`);
  assert.not.ok(JSON.stringify(events).includes(item.password.replace(/ /g, '')));
});

crud('list and read: view context fields; embed drops the dates', async () => {
  const list = await t.request('GET', `/core/v2/users/${editor.id}/application-passwords`, { as: editor });
  assert.is(list.status, 200);
  assert.equal(
    list.body.map((p: { name: string }) => p.name),
    ['tests'],
  );
  assert.equal(keys(list.body[0]), ['_links', 'app_id', 'created', 'last_ip', 'last_used', 'name', 'uuid']);
  assert.is(list.body[0].app_id, '');
  const embed = await t.request('GET', `/core/v2/users/${editor.id}/application-passwords?context=embed`, {
    as: editor,
  });
  assert.equal(keys(embed.body[0]), ['_links', 'app_id', 'name', 'uuid']);
  const uuid = list.body[0].uuid;
  const one = await t.request('GET', `/core/v2/users/${editor.id}/application-passwords/${uuid}`, { as: editor });
  assert.equal(one.body.uuid, uuid);
  const missing = await t.request('GET', `/core/v2/users/${editor.id}/application-passwords/no-such-uuid`, {
    as: editor,
  });
  assert.is(missing.status, 404);
  assert.equal(missing.body, {
    code: 'rest_application_password_not_found',
    message: 'Application password not found.',
    data: { status: 404 },
  });
});

crud('names: required, not blank, unique per user regardless of case (409); app_id must be a UUID', async () => {
  const missing = await t.request('POST', '/core/v2/users/me/application-passwords', { as: editor, body: {} });
  assert.equal(missing.body, {
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): name',
    data: { status: 400, params: ['name'] },
  });
  const blank = await t.request('POST', '/core/v2/users/me/application-passwords', {
    as: editor,
    body: { name: '   ' },
  });
  assert.is(blank.status, 400);
  assert.is(blank.body.data.details.name.code, 'rest_invalid_pattern');
  const duplicate = await t.request('POST', '/core/v2/users/me/application-passwords', {
    as: editor,
    body: { name: 'TESTS' },
  });
  assert.is(duplicate.status, 409);
  assert.equal(duplicate.body, {
    code: 'application_password_duplicate_name',
    message: 'Each application name should be unique.',
    data: { status: 409 },
  });
  const appId = await t.request('POST', '/core/v2/users/me/application-passwords', {
    as: editor,
    body: { name: 'x', app_id: 'not-a-uuid' },
  });
  assert.is(appId.body.data.details.app_id.code, 'rest_invalid_uuid');
  // Another user may use the same name.
  assert.is(
    (await t.request('POST', '/core/v2/users/me/application-passwords', { as: admin, body: { name: 'Phone' } })).status,
    201,
  );
});

crud('rename: only the name changes (no uniqueness check on rename, as in 6.1); answered in edit context', async () => {
  const created = (
    await t.request('POST', '/core/v2/users/me/application-passwords', { as: editor, body: { name: 'Laptop' } })
  ).body;
  const renamed = await t.request('PUT', `/core/v2/users/me/application-passwords/${created.uuid}`, {
    as: editor,
    body: { name: 'Old laptop', app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' },
  });
  assert.is(renamed.status, 200, renamed.text);
  assert.is(renamed.body.name, 'Old laptop');
  assert.is(renamed.body.app_id, '');
  assert.not.ok('password' in renamed.body);
  const same = await t.request('PATCH', `/core/v2/users/me/application-passwords/${created.uuid}`, {
    as: editor,
    body: { name: 'tests' },
  });
  assert.is(same.body.name, 'tests');
});

crud('delete one: deleted and previous (without links); the password stops working on the next request', async () => {
  const created = (
    await t.request('POST', '/core/v2/users/me/application-passwords', { as: editor, body: { name: 'Short-lived' } })
  ).body;
  const auth = basic('editor', created.password);
  assert.is((await t.request('GET', '/core/v2/users/me', { headers: { authorization: auth } })).status, 200);
  const response = await t.request('DELETE', `/core/v2/users/me/application-passwords/${created.uuid}`, {
    headers: { authorization: auth },
  });
  assert.is(response.status, 200);
  assert.is(response.body.deleted, true);
  assert.equal(keys(response.body.previous), ['app_id', 'created', 'last_ip', 'last_used', 'name', 'uuid']);
  const after = await t.request('GET', '/core/v2/users/me', { headers: { authorization: auth } });
  assert.is(after.status, 401);
  assert.is(after.body.code, 'incorrect_password');
  assert.is(
    (await t.request('DELETE', `/core/v2/users/me/application-passwords/${created.uuid}`, { as: editor })).status,
    404,
  );
});

crud('delete all: the count, and none is left', async () => {
  const user = await t.createUser('many', 'author');
  await t.request('POST', '/core/v2/users/me/application-passwords', { as: user, body: { name: 'second' } });
  const response = await t.request('DELETE', `/core/v2/users/${user.id}/application-passwords`, { as: admin });
  assert.is(response.status, 200);
  assert.equal(response.body, { deleted: true, count: 2 });
  assert.is((await t.request('GET', '/core/v2/users/me', { as: user })).status, 401);
  assert.equal((await t.request('GET', `/core/v2/users/${user.id}/application-passwords`, { as: admin })).body, []);
  assert.equal((await t.request('DELETE', `/core/v2/users/${user.id}/application-passwords`, { as: admin })).body, {
    deleted: true,
    count: 0,
  });
});

crud(
  'others’ passwords need edit_users: each endpoint’s own code; `me` needs a signed-in caller; unknown users 404',
  async () => {
    const path = `/core/v2/users/${subscriber.id}/application-passwords`;
    const uuid = (await t.request('GET', path, { as: subscriber })).body[0].uuid;
    const cases: [string, string, unknown, string, string][] = [
      [
        'GET',
        path,
        undefined,
        'rest_cannot_list_application_passwords',
        'Sorry, you are not allowed to list application passwords for this user.',
      ],
      [
        'POST',
        path,
        { name: 'x' },
        'rest_cannot_create_application_passwords',
        'Sorry, you are not allowed to create application passwords for this user.',
      ],
      [
        'DELETE',
        path,
        undefined,
        'rest_cannot_delete_application_passwords',
        'Sorry, you are not allowed to delete application passwords for this user.',
      ],
      [
        'GET',
        `${path}/${uuid}`,
        undefined,
        'rest_cannot_read_application_password',
        'Sorry, you are not allowed to read this application password.',
      ],
      [
        'POST',
        `${path}/${uuid}`,
        { name: 'x' },
        'rest_cannot_edit_application_password',
        'Sorry, you are not allowed to edit this application password.',
      ],
      [
        'DELETE',
        `${path}/${uuid}`,
        undefined,
        'rest_cannot_delete_application_password',
        'Sorry, you are not allowed to delete this application password.',
      ],
    ];
    for (const [method, url, body, code, message] of cases) {
      const asEditor = await t.request(method, url, { as: editor, body });
      assert.is(asEditor.status, 403, `${method} ${url}`);
      assert.equal(asEditor.body, { code, message, data: { status: 403 } });
      const anonymous = await t.request(method, url, { body });
      assert.equal(anonymous.body, { code, message, data: { status: 401 } });
    }
    assert.is((await t.request('GET', path, { as: admin })).status, 200);
    const me = await t.request('GET', '/core/v2/users/me/application-passwords');
    assert.is(me.status, 401);
    assert.equal(me.body, {
      code: 'rest_not_logged_in',
      message: 'You are not currently logged in.',
      data: { status: 401 },
    });
    const unknown = await t.request('GET', '/core/v2/users/999/application-passwords', { as: admin });
    assert.equal(unknown.body, { code: 'rest_user_invalid_id', message: 'Invalid user ID.', data: { status: 404 } });
    assert.is((await t.request('GET', '/core/v2/users/0/application-passwords', { as: admin })).status, 404);
  },
);

crud('introspect: the password of this request, for oneself only', async () => {
  const created = (
    await t.request('POST', '/core/v2/users/me/application-passwords', { as: admin, body: { name: 'Introspected' } })
  ).body;
  const auth = basic('admin', created.password);
  const own = await t.request('GET', '/core/v2/users/me/application-passwords/introspect', {
    headers: { authorization: auth },
  });
  assert.is(own.status, 200);
  assert.is(own.body.uuid, created.uuid);
  assert.is(own.body.name, 'Introspected');
  assert.is(
    (
      await t.request('GET', `/core/v2/users/${admin.id}/application-passwords/introspect`, {
        headers: { authorization: auth },
      })
    ).body.uuid,
    created.uuid,
  );
  const other = await t.request('GET', `/core/v2/users/${editor.id}/application-passwords/introspect`, {
    headers: { authorization: auth },
  });
  assert.is(other.status, 403);
  assert.equal(other.body, {
    code: 'rest_cannot_introspect_app_password_for_non_authenticated_user',
    message: 'The authenticated application password can only be introspected for the current user.',
    data: { status: 403 },
  });
  assert.is((await t.request('GET', `/core/v2/users/${editor.id}/application-passwords/introspect`)).status, 401);
  assert.is(
    (await t.request('GET', '/core/v2/users/me/application-passwords/introspect')).body.code,
    'rest_not_logged_in',
  );
});

crud('the index lists the routes, with introspect before the uuid route', async () => {
  const routes = Object.keys((await t.request('GET', '/core/v2')).body.routes);
  const base = '/core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords';
  const at = (path: string) => routes.indexOf(path);
  assert.ok(at(base) >= 0);
  assert.ok(at(`${base}/introspect`) > at(base));
  assert.ok(at(`${base}/(?P<uuid>[\\w\\-]+)`) > at(`${base}/introspect`));
});

// ---------------------------------------------------------------------------------------------------------------

const usage = suite('application passwords: last_used and last_ip');

usage('the first use is recorded after the answer, then at most once a day, with the client address', async () => {
  const site = await startTestSite();
  try {
    const user = await site.createUser('user', 'author');
    const stream = `user-${user.id}`;
    const used = async () =>
      (await site.site.store.readStream(stream)).filter((e) => e.type === 'ApplicationPasswordUsed');
    assert.is((await used()).length, 0);
    assert.is((await site.request('GET', '/core/v2/users/me', { as: user })).status, 200);
    await eventually(async () => (await used()).length === 1, 'the first use');
    const [first] = await used();
    assert.equal(first!.data, {
      userId: user.id,
      uuid: (first!.data as { uuid: string }).uuid,
      at: '2024-05-01T12:00:00.000Z',
      ip: '127.0.0.1',
    });
    await eventually(async () => {
      const list = (await site.request('GET', '/core/v2/users/me/application-passwords', { as: user })).body;
      return list[0].last_used === '2024-05-01T12:00:00' && list[0].last_ip === '127.0.0.1';
    }, 'the read model');
    // Within the day: no new record, however many requests.
    site.clock.advance(DAY - 1000);
    await Promise.all([1, 2, 3].map(() => site.request('GET', '/core/v2/users/me', { as: user })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is((await used()).length, 1);
    // A day after the last record: recorded again, once, even for concurrent requests.
    site.clock.advance(1000);
    await Promise.all([1, 2, 3, 4].map(() => site.request('GET', '/core/v2/users/me', { as: user })));
    await eventually(async () => (await used()).length === 2, 'the next day’s use');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is((await used()).length, 2);
    assert.is(((await used())[1]!.data as { at: string }).at, '2024-05-02T12:00:00.000Z');
  } finally {
    await site.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------

const throttling = suite('application passwords: throttling failed Basic authentication');

/** The test site behind a proxy on loopback, so X-Forwarded-For names the (pretended) clients. */
const BEHIND_PROXY = { trustedProxies: ['127.0.0.1'] };

/** A request from another loopback address than the proxy's (127.0.0.1): a client connecting directly. */
function requestFrom(
  localAddress: string,
  site: TestSite,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(site.url);
    const request = http.request(
      { host: '127.0.0.1', port: Number(port), localAddress, path, headers, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

throttling(
  'ten failures for one login in a minute: the eleventh attempt is 429 with Retry-After, until the window passes',
  async () => {
    const site = await startTestSite(BEHIND_PROXY);
    try {
      const user = await site.createUser('victim', 'author');
      for (let i = 0; i < 10; i++) {
        const response = await site.request('GET', '/core/v2/users/me', {
          headers: { authorization: basic('victim', `guess-${i}`), 'x-forwarded-for': '203.0.113.9' },
        });
        assert.is(response.status, 401);
        site.clock.advance(1000);
      }
      const refused = await site.request('GET', '/core/v2/users/me', {
        headers: { authorization: basic('victim', user.password), 'x-forwarded-for': '203.0.113.9' },
      });
      assert.is(refused.status, 429);
      assert.equal(refused.body, {
        code: 'rest_too_many_requests',
        message: 'Too many failed sign-in attempts. Try again in 50 seconds.',
        data: { status: 429 },
      });
      assert.is(refused.headers.get('retry-after'), '50');
      // Another address is refused for that login as well (it never signed in from there)…
      const elsewhere = await site.request('GET', '/core/v2/users/me', {
        headers: { authorization: basic('victim', user.password), 'x-forwarded-for': '198.51.100.7' },
      });
      assert.is(elsewhere.status, 429);
      // …but other logins from the first address are not.
      const other = await site.createUser('bystander', 'author');
      assert.is(
        (
          await site.request('GET', '/core/v2/users/me', {
            headers: { authorization: other.auth, 'x-forwarded-for': '203.0.113.9' },
          })
        ).status,
        200,
      );
      // Once the oldest failure leaves the window, the login may be tried again.
      site.clock.advance(50_000);
      const later = await site.request('GET', '/core/v2/users/me', {
        headers: { authorization: user.auth, 'x-forwarded-for': '203.0.113.9' },
      });
      assert.is(later.status, 200);
    } finally {
      await site.close();
    }
  },
);

throttling(
  'one account is one login to the throttle, whether named by its login or its email address, in any case',
  async () => {
    const site = await startTestSite(BEHIND_PROXY);
    try {
      const user = await site.createUser('aliased', 'author');
      const names = ['aliased', 'aliased@example.test', 'ALIASED', 'Aliased@Example.test'];
      for (let i = 0; i < 10; i++) {
        const response = await site.request('GET', '/core/v2/users/me', {
          headers: { authorization: basic(names[i % 4]!, `guess-${i}`), 'x-forwarded-for': `198.51.100.${i}` },
        });
        assert.is(response.status, 401);
      }
      const refused = await site.request('GET', '/core/v2/users/me', {
        headers: { authorization: user.auth, 'x-forwarded-for': '198.51.100.99' },
      });
      assert.is(refused.status, 429);
      assert.is(refused.headers.get('retry-after'), '60');
    } finally {
      await site.close();
    }
  },
);

throttling(
  'an address where the user signed in keeps working while their login is attacked from elsewhere',
  async () => {
    const site = await startTestSite(BEHIND_PROXY);
    try {
      const user = await site.createUser('target', 'author');
      const home = { 'x-forwarded-for': '192.0.2.10' };
      assert.is(
        (await site.request('GET', '/core/v2/users/me', { headers: { authorization: user.auth, ...home } })).status,
        200,
      );
      for (let i = 0; i < 30; i++) {
        await site.request('GET', '/', {
          headers: { authorization: basic('target', `guess-${i}`), 'x-forwarded-for': `203.0.113.${i}` },
        });
      }
      const attacker = await site.request('GET', '/', {
        headers: { authorization: basic('target', 'guess'), 'x-forwarded-for': '203.0.113.99' },
      });
      assert.is(attacker.status, 429);
      assert.is(
        (await site.request('GET', '/core/v2/users/me', { headers: { authorization: user.auth, ...home } })).status,
        200,
      );
    } finally {
      await site.close();
    }
  },
);

throttling(
  'per address: failures across logins block the address; the attacker’s own sign-ins do not clear them',
  async () => {
    const site = await startTestSite(BEHIND_PROXY);
    try {
      configureThrottle(site.site, {
        perAddress: { failures: 5, windowMs: 60_000 },
        perLogin: { failures: 100, windowMs: 60_000 },
        trustAddressMs: 60_000,
        maxEntries: 100,
      });
      const attacker = await site.createUser('attacker', 'author');
      const from = { 'x-forwarded-for': '203.0.113.50' };
      for (let i = 0; i < 4; i++)
        assert.is(
          (await site.request('GET', '/', { headers: { authorization: basic(`victim${i}`, 'x'), ...from } })).status,
          401,
        );
      // The attacker's own account signs in between guesses…
      assert.is((await site.request('GET', '/', { headers: { authorization: attacker.auth, ...from } })).status, 200);
      // …which forgives nothing of the guesses against other logins: the fifth failure fills the window.
      assert.is(
        (await site.request('GET', '/', { headers: { authorization: basic('victim4', 'x'), ...from } })).status,
        401,
      );
      const refused = await site.request('GET', '/', { headers: { authorization: attacker.auth, ...from } });
      assert.is(refused.status, 429);
      assert.is(refused.headers.get('retry-after'), '60');
      // Other addresses are unaffected, and requests without credentials are never throttled.
      assert.is(
        (
          await site.request('GET', '/', {
            headers: { authorization: attacker.auth, 'x-forwarded-for': '203.0.113.51' },
          })
        ).status,
        200,
      );
      assert.is((await site.request('GET', '/', { headers: from })).status, 200);
    } finally {
      await site.close();
    }
  },
);

throttling('a user’s own typos are forgiven at the address where they then sign in', async () => {
  const site = await startTestSite(BEHIND_PROXY);
  try {
    configureThrottle(site.site, {
      perAddress: { failures: 3, windowMs: 60_000 },
      perLogin: { failures: 3, windowMs: 60_000 },
      trustAddressMs: 60_000,
      maxEntries: 100,
    });
    const user = await site.createUser('typist', 'author');
    const from = { 'x-forwarded-for': '203.0.113.60' };
    for (let i = 0; i < 2; i++)
      assert.is(
        (await site.request('GET', '/', { headers: { authorization: basic('typist', `typo${i}`), ...from } })).status,
        401,
      );
    assert.is((await site.request('GET', '/', { headers: { authorization: user.auth, ...from } })).status, 200);
    for (let i = 0; i < 2; i++)
      assert.is(
        (await site.request('GET', '/', { headers: { authorization: basic('typist', `typo${i}`), ...from } })).status,
        401,
      );
    assert.is((await site.request('GET', '/', { headers: { authorization: user.auth, ...from } })).status, 200);
  } finally {
    await site.close();
  }
});

throttling('a burst of concurrent guesses against one login: no more are judged than the limit allows', async () => {
  const site = await startTestSite(BEHIND_PROXY);
  try {
    await site.createUser('burst', 'author');
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        site
          .request('GET', '/core/v2/users/me', {
            headers: { authorization: basic('burst', `guess-${i}`), 'x-forwarded-for': `198.51.100.${i}` },
          })
          .then((r) => r.status),
      ),
    );
    assert.is(statuses.filter((status) => status === 401).length, 10);
    assert.is(statuses.filter((status) => status === 429).length, 15);
  } finally {
    await site.close();
  }
});

throttling(
  'without TRUSTED_PROXIES, X-Forwarded-For is not believed: 50 forged failures do not lock the administrator out',
  async () => {
    const site = await startTestSite();
    try {
      const admin = await site.createUser('admin', 'administrator');
      // The administrator signs in from 127.0.0.1; an attacker connecting from 127.0.0.2 names that address as theirs.
      assert.is(await requestFrom('127.0.0.1', site, '/core/v2/users/me', { authorization: admin.auth }), 200);
      for (let i = 0; i < 50; i++) {
        assert.is(
          await requestFrom('127.0.0.2', site, '/', {
            authorization: basic(`guess${i}`, 'x'),
            'x-forwarded-for': '127.0.0.1',
          }),
          401,
        );
      }
      assert.is(await requestFrom('127.0.0.1', site, '/core/v2/users/me', { authorization: admin.auth }), 200);
      // The failures counted against the attacker's real address.
      assert.is(await requestFrom('127.0.0.2', site, '/core/v2/users/me', { authorization: admin.auth }), 429);
    } finally {
      await site.close();
    }
  },
);

throttling('with TRUSTED_PROXIES, the client is the rightmost address not of a trusted proxy', async () => {
  const site = await startTestSite({ trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });
  try {
    configureThrottle(site.site, {
      perAddress: { failures: 3, windowMs: 60_000 },
      perLogin: { failures: 100, windowMs: 60_000 },
      trustAddressMs: 60_000,
      maxEntries: 100,
    });
    const user = await site.createUser('someone', 'author');
    // Whatever the client writes on the left, the hop our proxies report is the one counted.
    for (let i = 0; i < 3; i++) {
      const forwarded = `192.0.2.${i}, 203.0.113.70, 10.1.2.3`;
      assert.is(
        (
          await site.request('GET', '/', {
            headers: { authorization: basic(`nobody${i}`, 'x'), 'x-forwarded-for': forwarded },
          })
        ).status,
        401,
      );
    }
    assert.is(
      (await site.request('GET', '/', { headers: { authorization: user.auth, 'x-forwarded-for': '203.0.113.70' } }))
        .status,
      429,
    );
    assert.is(
      (
        await site.request('GET', '/', {
          headers: { authorization: user.auth, 'x-forwarded-for': '203.0.113.70, 10.9.9.9' },
        })
      ).status,
      429,
    );
    // Another client behind the same proxies, even one naming the blocked address on the left, is not refused.
    assert.is(
      (
        await site.request('GET', '/', {
          headers: { authorization: user.auth, 'x-forwarded-for': '203.0.113.70, 203.0.113.71' },
        })
      ).status,
      200,
    );
  } finally {
    await site.close();
  }
});

crud.run();
usage.run();
throttling.run();
