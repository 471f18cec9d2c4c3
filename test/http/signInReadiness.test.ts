/**
 * Sign-ins judged only by a users read model fit for it: while the users projection is rebuilt, sign-ins (HTTP Basic
 * and the authorization page) answer 503 with Retry-After and count nothing for the throttle; an account another
 * process (the CLI) has just created is found, the name being looked up again once the read model has reached the
 * log's head; a name nobody has is still refused, and counted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite, testAdapters } from '../support/testSite';
import type { TestSite } from '../support/testSite';
import { until } from '../support/rebuildGate';
import type { EventStore, SubscribeToAllOptions } from '../../src/ports/eventStore';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';
import { createSite } from '../../src/site';
import { manualClock } from '../../src/ports/clock';
import { createApplicationPassword, registerUser } from '../../src/resources/users/operations';
import { DEFAULT_THROTTLE } from '../../src/access/throttle';

const test = suite('signing in while the users read model is not ready');

const PAGE = '/wp-admin/authorize-application.php';
const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

/**
 * The store, with a subscription from the start of the log (a rebuild's) held at its first batch once `arm`ed, until
 * released (or after 30 s, so a failing test does not hang).
 */
function armedGate(store: EventStore) {
  let open = () => {};
  const released = new Promise<void>((resolve) => (open = resolve));
  const state = { armed: false, held: false };
  const safety = setTimeout(() => open(), 30_000);
  const view: EventStore = new Proxy(store, {
    get(target, property) {
      if (property !== 'subscribeToAll') return Reflect.get(target, property);
      return (subscription: SubscribeToAllOptions) =>
        target.subscribeToAll(
          !state.armed || (subscription.after ?? 0) > 0
            ? subscription
            : {
                ...subscription,
                onEvents: async (events) => {
                  state.held = true;
                  await released;
                  return subscription.onEvents(events);
                },
              },
        );
    },
  });
  return {
    store: view,
    state,
    release() {
      clearTimeout(safety);
      open();
    },
  };
}

test('while the users projection is rebuilt: 503 with Retry-After, never 401, and no attempt counts for the throttle', async () => {
  const gate = armedGate(createMemoryEventStore());
  const t = await startTestSite({ store: gate.store, readModel: createMemoryReadModel() });
  try {
    const admin = await t.createUser('admin', 'administrator');
    const created = await t.request('POST', '/core/v2/users', {
      as: admin,
      body: { username: 'ada', email: 'ada@example.test', password: 'analytical engine', roles: ['author'] },
    });
    assert.is(created.status, 201, created.text);
    gate.state.armed = true;
    const rebuilt = t.site.projector.rebuild('users');
    await until(() => gate.state.held, 'the rebuild is held at its first batch');

    // More wrong guesses than the per-login limit allows, then the right password: none of them is judged.
    for (let i = 0; i <= DEFAULT_THROTTLE.perLogin.failures; i++) {
      const guess = await t.request('GET', '/core/v2/users/me', {
        headers: { authorization: basic('admin', `wrong-${i}`) },
      });
      assert.is(guess.status, 503, guess.text);
      assert.is(guess.body.code, 'rest_sign_in_unavailable');
      assert.is(guess.headers.get('retry-after'), '5');
    }
    const right = await t.request('GET', '/core/v2/users/me', { as: admin });
    assert.is(right.status, 503);
    assert.is((await t.request('GET', '/core/v2/posts')).status, 200, 'anonymous reads are served meanwhile');

    const page = await fetch(`${t.url}${PAGE}?app_name=Calculator`);
    const html = await page.text();
    const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const form = await fetch(`${t.url}${PAGE}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({
        token,
        app_name: 'Calculator',
        log: 'ada',
        pwd: 'analytical engine',
        approve: '1',
      }).toString(),
    });
    assert.is(form.status, 503);
    assert.is(form.headers.get('retry-after'), '5');
    assert.match(await form.text(), /Sign-ins cannot be checked right now/);

    gate.release();
    await rebuilt;
    const after = await t.request('GET', '/core/v2/users/me', { as: admin });
    assert.is(after.status, 200, `judged once the rebuild is over, and not throttled: ${after.text}`);
    const wrong = await t.request('GET', '/core/v2/users/me', {
      headers: { authorization: basic('admin', 'wrong-again') },
    });
    assert.is(wrong.status, 401, 'judged again');
  } finally {
    gate.release();
    await t.close();
  }
});

test("an account the CLI has just created, before the server's projector polled for it: found, not refused", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-sign-in-'));
  const file = path.join(dir, 'events.sqlite');
  // The server hears of other processes' appends only when it polls: once a second here.
  const t: TestSite = await startTestSite({
    store: openSqliteEventStore({ file, pollIntervalMs: 1_000 }),
    readModel: createMemoryReadModel(),
  });
  // The CLI: a site of its own on the same file, which appends and projects nothing.
  const cli = createSite(
    {
      siteUrl: t.url,
      name: 'CLI',
      description: '',
      timezone: 'UTC',
      authSecret: 'test-secret',
      idBlockSize: 5,
      readYourWritesTimeoutMs: 5_000,
    },
    {
      store: openSqliteEventStore({ file }),
      readModel: createMemoryReadModel(),
      clock: manualClock(Date.parse('2024-05-01T12:00:00Z')),
      ...testAdapters(),
    },
  );
  try {
    for (const login of ['grace', 'linus']) {
      const { id } = await registerUser(
        cli,
        { login, role: 'administrator', email: `${login}@example.test` },
        null,
        'cli',
      );
      const { password } = await createApplicationPassword(cli, id, { name: 'cli' }, null, 'cli');
      const me = await t.request('GET', '/core/v2/users/me', { headers: { authorization: basic(login, password) } });
      assert.is(me.status, 200, `${login}: ${me.text}`);
      assert.is(me.body.slug, login);
    }
    const unknown = await t.request('GET', '/core/v2/users/me', { headers: { authorization: basic('nobody', 'x') } });
    assert.is(unknown.status, 401);
    assert.is(unknown.body.code, 'invalid_username');
  } finally {
    await cli.close();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a name nobody has is refused after the catch-up, and counts for the throttle', async () => {
  const t = await startTestSite();
  try {
    for (let i = 0; i < DEFAULT_THROTTLE.perLogin.failures; i++) {
      const refused = await t.request('GET', '/core/v2/users/me', {
        headers: { authorization: basic('nobody', `guess-${i}`) },
      });
      assert.is(refused.status, 401);
    }
    const throttled = await t.request('GET', '/core/v2/users/me', {
      headers: { authorization: basic('nobody', 'one more') },
    });
    assert.is(throttled.status, 429);
  } finally {
    await t.close();
  }
});

test.run();
