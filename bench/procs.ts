/**
 * Process and HTTP plumbing for the benchmark: every process it starts is registered here, so that an error,
 * Ctrl-C or a normal end stops them all (the bench must never leave a server running).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Started {
  name: string;
  proc: ChildProcess;
  /** Last lines of stdout and stderr, for error messages. */
  lines: string[];
  exited: Promise<number | null>;
  /** Milliseconds from spawn until `readyPattern` appeared (set by `waitForLine`). */
  spawnedAt: number;
}

const live = new Set<Started>();

/**
 * Starts `node [nodeArgs] <script> [args]` from the repository root, with `--import tsx` before the script when it
 * is TypeScript (`bin/palimpsest.js` runs the build of the sources on plain node, as `npm start` does).
 */
export function startNode(
  name: string,
  script: string,
  options: { args?: string[]; nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): Started {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, script, ...(options.args ?? [])], {
    cwd: ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = {
    name,
    proc,
    lines: [],
    spawnedAt: performance.now(),
    exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  live.add(started);
  void started.exited.then(() => live.delete(started));
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      started.lines.push(line);
      if (started.lines.length > 200) started.lines.shift();
    }
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  return started;
}

/** Resolves with the first line matching `pattern` and the milliseconds since spawn; rejects on exit or timeout. */
export function waitForLine(
  started: Started,
  pattern: RegExp,
  timeoutMs: number,
): Promise<{ match: RegExpMatchArray; ms: number }> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = buffered.match(pattern);
      if (match) {
        finish();
        resolve({ match, ms: performance.now() - started.spawnedAt });
      }
    };
    const onExit = (code: number | null) => {
      finish();
      reject(
        new Error(`${started.name} exited (code ${code}) before it was ready:\n${started.lines.slice(-20).join('\n')}`),
      );
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${started.name} not ready after ${timeoutMs} ms:\n${started.lines.slice(-20).join('\n')}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      started.proc.stdout!.off('data', onData);
      started.proc.stderr!.off('data', onData);
      started.proc.off('exit', onExit);
    };
    started.proc.stdout!.on('data', onData);
    started.proc.stderr!.on('data', onData);
    started.proc.once('exit', onExit);
  });
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stop(started: Started, graceMs = 15_000): Promise<void> {
  if (started.proc.exitCode !== null || started.proc.signalCode !== null) return;
  started.proc.kill('SIGTERM');
  const timer = setTimeout(() => started.proc.kill('SIGKILL'), graceMs);
  await started.exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((started) => stop(started, 5_000)));
}

/** Last resort on process exit: nothing asynchronous can run any more. */
export function killAllNow(): void {
  for (const started of live) started.proc.kill('SIGKILL');
}

/** Runs a node script to completion, returning its stdout (rejects on a non-zero exit). */
export async function runNode(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  nodeArgs: string[] = [],
): Promise<string> {
  const started = startNode(name, script, { args, env, nodeArgs });
  let stdout = '';
  started.proc.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const timer = setTimeout(() => started.proc.kill('SIGKILL'), timeoutMs);
  const code = await started.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${name} failed (exit ${code}):\n${started.lines.slice(-20).join('\n')}`);
  return stdout;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in MB, from /proc (Linux); null where unavailable. */
export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(
  port: number,
  method: string,
  urlPath: string,
  options: { body?: unknown; auth?: string; timeoutMs?: number } = {},
): Promise<Reply> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: http.OutgoingHttpHeaders = {};
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (options.auth) headers.authorization = options.auth;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, headers, agent, timeout: options.timeoutMs ?? 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export function closeHttpAgent(): void {
  agent.destroy();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
