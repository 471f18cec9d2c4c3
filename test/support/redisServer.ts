/**
 * A redis-server of the test's own, on a free loopback port, for fault tests: it can be paused (SIGSTOP: connections
 * stay open and nothing answers, as a hung server or a partition looks to a client), resumed, and stopped. Nothing
 * is persisted. Needs `redis-server` on the PATH (REDIS_SERVER names another binary).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './processes';

export interface OwnRedis {
  url: string;
  port: number;
  /** SIGSTOP: the process stops answering; its connections stay open. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Ends the server (resuming it first if paused) and removes its directory. */
  stop(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER || 'redis-server';

export async function startOwnRedis(boundMs = 15_000): Promise<OwnRedis> {
  let lastError: unknown;
  // A port found free may be taken before the server binds it: a few tries.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-redis-'));
    const child = spawn(
      BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--loglevel',
        'warning',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await waitForPing(port, child, boundMs);
      return handle(child, port, dir);
    } catch (error) {
      lastError = new Error(`redis-server on port ${port} did not start: ${(error as Error).message}\n${output}`);
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  throw lastError;
}

async function waitForPing(port: number, child: ChildProcess, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    const probe = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 500,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // not yet
    } finally {
      probe.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`no PONG within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function handle(child: ChildProcess, port: number, dir: string): OwnRedis {
  let paused = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause() {
      paused = true;
      child.kill('SIGSTOP');
    },
    resume() {
      paused = false;
      child.kill('SIGCONT');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        if (paused) child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
