/**
 * Real child processes for black-box tests that need them (SIGKILL durability, several API nodes and a projector):
 * a free loopback port, starting `bin/palimpsest.js` and waiting for its ready line, and killing it hard.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Running {
  child: ChildProcess;
  /** `http://127.0.0.1:{env.PORT}` */
  base: string;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `palimpsest <args>` and resolves once it prints `ready`; fails if it exits or takes longer than `boundMs`. */
export async function startPalimpsest(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
  boundMs = 60_000,
): Promise<Running> {
  const child = spawn(process.execPath, ['bin/palimpsest.js', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + boundMs;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`palimpsest ${args.join(' ')} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, base: `http://127.0.0.1:${env.PORT}`, output: () => output };
}

/** SIGKILL, and wait for the exit; a no-op for a process that already ended. */
export async function kill9(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGKILL');
  await exited;
}

/** Polls `probe` every `everyMs` until it returns a value, within a generous bound (processes take their time). */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  boundMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The environment of palimpsest processes sharing one Redis read model (under `prefix`) and one embedded log. */
export function sharedRedisEnv(
  dataDir: string,
  prefix: string,
  redisUrl: string,
  authSecret: string,
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    EVENTSTORE_URL: '',
    AUTH_SECRET: authSecret,
  };
}
