/**
 * The embedded default as users run it: the real server process on a fresh DATA_DIR, a user created by the
 * CLI while it runs (its events reach the server through the shared SQLite file), a batch of answered
 * creates, SIGKILL, restart on the same DATA_DIR, and every answered write still there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT as root, freePort, kill9, startPalimpsest } from '../support/processes';

const test = suite('durability of the embedded server');

test('answered writes survive SIGKILL and a restart; the CLI creates users beside a running server', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-durability-'));
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    REDIS_URL: '',
    EVENTSTORE_URL: '',
  };
  let server = await startPalimpsest(['serve'], env, 'palimpsest serving', 20_000);
  try {
    // A fresh site already has its default category, before any post needs it.
    const uncategorized = await fetch(`${server.base}/core/v2/categories/1`);
    assert.is(uncategorized.status, 200);
    assert.is(((await uncategorized.json()) as { name: string }).name, 'Uncategorized');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
      { cwd: root, env },
    );
    const created = JSON.parse(stdout.trim()) as { id: number; username: string; app_password: string };
    assert.is(created.id, 1);
    assert.is(created.username, 'admin');
    assert.match(created.app_password, /^[A-Za-z0-9]{24}$/);
    const auth = `Basic ${Buffer.from(`admin:${created.app_password}`).toString('base64')}`;

    // The server learns of the CLI's user through its subscription to the shared store.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = await fetch(`${server.base}/core/v2/posts?context=edit`, { headers: { authorization: auth } });
      if (probe.status === 200) break;
      if (Date.now() > deadline)
        assert.unreachable(`the CLI's user never reached the server (last status ${probe.status})`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const answered: { id: number; title: string }[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const results = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const title = `Durable ${batch}-${i}`;
          const response = await fetch(`${server.base}/core/v2/posts`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({ title, status: 'publish', content: 'kept' }),
          });
          assert.is(response.status, 201);
          const body = (await response.json()) as { id: number };
          return { id: body.id, title };
        }),
      );
      answered.push(...results);
    }

    await kill9(server);
    server = await startPalimpsest(['serve'], env, 'palimpsest serving', 20_000);
    // Killed, it wrote no read-model snapshot: the start replayed the whole log, and says how long that took.
    assert.match(server.output(), /\(ready in \d+ ms, \d+ ms of it replaying the whole log; data in /);

    const everyWriteThere = async () => {
      for (const { id, title } of answered) {
        const response = await fetch(`${server.base}/core/v2/posts/${id}`);
        assert.is(response.status, 200, `post ${id} lost`);
        const body = (await response.json()) as { title: { rendered: string } };
        assert.is(body.title.rendered, title);
      }
      const list = await fetch(`${server.base}/core/v2/posts?per_page=100`);
      assert.is(list.headers.get('x-wp-total'), String(answered.length));
    };
    await everyWriteThere();

    // A clean stop writes the snapshot; the next start loads it and replays nothing from the start of the log.
    const stopped = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await stopped;
    server = await startPalimpsest(['serve'], env, 'palimpsest serving', 20_000);
    assert.match(server.output(), /read model snapshot loaded/);
    assert.match(server.output(), /\(ready in \d+ ms; data in /);
    await everyWriteThere();
  } finally {
    if (server.child.exitCode === null) await kill9(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
