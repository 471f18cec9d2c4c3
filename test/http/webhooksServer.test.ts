/**
 * The server as users run it (`palimpsest serve`, compiled, embedded default) delivers webhooks to a receiver that
 * WEBHOOK_ALLOWED_HOSTS allows, and refuses one it does not.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { ROOT as root, freePort, kill9, startPalimpsest } from '../support/processes';
import { startReceiver } from '../support/webhookReceiver';

const test = suite('webhooks from the real server');

test('palimpsest serve delivers a signed post creation to an allowed loopback receiver', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-webhooks-server-'));
  const receiver = await startReceiver();
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    REDIS_URL: '',
    EVENTSTORE_URL: '',
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
  };
  const server = await startPalimpsest(['serve'], env, 'palimpsest serving', 30_000);
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'],
      { cwd: root, env },
    );
    const { app_password: password } = JSON.parse(stdout.trim()) as { app_password: string };
    const headers = {
      authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`,
      'content-type': 'application/json',
    };
    const post = (route: string, body: unknown) =>
      fetch(`${server.base}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    // The server learns of the CLI's user through the shared log.
    const deadline = Date.now() + 20_000;
    let made = await post('/hooks/v1/webhooks', { url: receiver.url, events: ['PostCreated'] });
    while (made.status === 401 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      made = await post('/hooks/v1/webhooks', { url: receiver.url, events: ['PostCreated'] });
    }
    assert.is(made.status, 201);
    const { secret } = (await made.json()) as { secret: string };
    // Another port of the same address is not allowed.
    const refused = await post('/hooks/v1/webhooks', { url: `http://127.0.0.1:${receiver.port + 1}/` });
    assert.is(refused.status, 400);
    assert.is(((await refused.json()) as { code: string }).code, 'rest_invalid_param');

    assert.is((await post('/core/v2/posts', { title: 'Served', status: 'publish' })).status, 201);
    await receiver.waitFor((all) => all.length >= 1, 20_000);
    const delivery = receiver.received[0]!;
    const entry = new Webhook(secret).verify(delivery.body, delivery.headers) as {
      type: string;
      data: { post: { title: string } };
    };
    assert.equal([entry.type, entry.data.post.title], ['PostCreated', 'Served']);
  } finally {
    await kill9(server);
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
