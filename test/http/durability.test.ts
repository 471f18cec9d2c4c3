/**
 * The embedded default as users run it: the real server process on a fresh DATA_DIR, a user created by the
 * CLI while it runs (its events reach the server through the shared SQLite file), a batch of answered
 * creates, SIGKILL, restart on the same DATA_DIR, and every answered write still there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const test = suite('durability of the embedded server');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Running {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startServer(env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 20_000;
  while (!output.includes('palimpsest serving')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base: `http://127.0.0.1:${env.PORT}`, output: () => output };
}

async function kill9(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGKILL');
  await exited;
}

test('answered writes survive SIGKILL and a restart; the CLI creates users beside a running server', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-durability-'));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, REDIS_URL: '', EVENTSTORE_URL: '' };
  let server = await startServer(env);
  try {
    // A fresh site already has its default category, before any post needs it.
    const uncategorized = await fetch(`${server.base}/core/v2/categories/1`);
    assert.is(uncategorized.status, 200);
    assert.is(((await uncategorized.json()) as { name: string }).name, 'Uncategorized');
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/palimpsest.js', 'user', 'create', '--login', 'admin', '--role', 'administrator', '--json'], { cwd: root, env });
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
      if (Date.now() > deadline) assert.unreachable(`the CLI's user never reached the server (last status ${probe.status})`);
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
    server = await startServer(env);

    for (const { id, title } of answered) {
      const response = await fetch(`${server.base}/core/v2/posts/${id}`);
      assert.is(response.status, 200, `post ${id} lost`);
      const body = (await response.json()) as { title: { rendered: string } };
      assert.is(body.title.rendered, title);
    }
    const list = await fetch(`${server.base}/core/v2/posts?per_page=100`);
    assert.is(list.headers.get('x-wp-total'), String(answered.length));
  } finally {
    if (server.child.exitCode === null) await kill9(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
