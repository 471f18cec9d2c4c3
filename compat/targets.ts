/**
 * The two servers under comparison: the reference WordPress (already running; its users come from the
 * credentials file its set-up script writes) and palimpsest, started here in a child process on a fresh data
 * directory with the reference's time zone and one user per role.
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROLES } from './step';
import type { Caller, HttpMethod, Outcome, Role } from './step';

const run = promisify(execFile);

export interface Account {
  id: number;
  login: string;
  password: string;
}

export interface Target {
  side: 'reference' | 'palimpsest';
  siteUrl: string;
  /** The API root without its trailing slash. */
  apiRoot: string;
  /** Path of the content namespace under the API root. */
  namespace: '/wp/v2' | '/core/v2';
  users: Record<Role, Account>;
}

export const REFERENCE_CREDENTIALS = '/var/lib/wordpress-ref/credentials.json';

export async function referenceTarget(
  file = REFERENCE_CREDENTIALS,
): Promise<Target & { version: string; timezone: string }> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new Error(
      `cannot read the reference credentials (${file}): ${error.message}; name another WordPress's file with --reference, or start the local reference with sudo /work/shared/reference/wordpress.sh`,
    );
  });
  const credentials = JSON.parse(text) as {
    base: string;
    site: string;
    wp_version: string;
    timezone?: string;
    users: Record<Role, { id: number; username: string; app_password: string }>;
  };
  const users = {} as Record<Role, Account>;
  for (const role of ROLES) {
    const u = credentials.users[role];
    if (!u) throw new Error(`the reference credentials name no ${role}`);
    users[role] = { id: u.id, login: u.username, password: u.app_password };
  }
  return {
    side: 'reference',
    siteUrl: credentials.site.replace(/\/+$/, ''),
    apiRoot: credentials.base.replace(/\/+$/, ''),
    namespace: '/wp/v2',
    users,
    version: credentials.wp_version,
    timezone: credentials.timezone ?? 'Europe/Berlin',
  };
}

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

export interface RunningPalimpsest {
  target: Target;
  dataDir: string;
  stop(): Promise<void>;
}

/** Creates the users (the CLI, as a user would), then serves palimpsest from `checkout` until stop(). */
export async function startPalimpsest(
  checkout: string,
  timezone: string,
  log: (line: string) => void,
): Promise<RunningPalimpsest> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'palimpsest-compat-'));
  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SITE_URL: siteUrl,
    SITE_TIMEZONE: timezone,
  };
  delete env.REDIS_URL;
  delete env.EVENTSTORE_URL;
  const cli = path.join(checkout, 'bin', 'palimpsest.js');
  const users = {} as Record<Role, Account>;
  for (const role of ROLES) {
    const { stdout } = await run(process.execPath, [cli, 'user', 'create', '--login', role, '--role', role, '--json'], {
      cwd: checkout,
      env,
    });
    const created = JSON.parse(stdout.trim().split('\n').pop()!) as {
      id: number;
      username: string;
      app_password: string;
    };
    users[role] = { id: created.id, login: created.username, password: created.app_password };
  }
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve'], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${siteUrl}/`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
      throw new Error(`palimpsest did not start on ${siteUrl}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`palimpsest serving ${siteUrl}/ (data in ${dataDir})`);
  return {
    target: { side: 'palimpsest', siteUrl, apiRoot: siteUrl, namespace: '/core/v2', users },
    dataDir,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpRequest {
  method: HttpMethod;
  /** Full URL. */
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | FormData;
}

export function authorization(target: Target, caller: Caller): string | undefined {
  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  if (caller === 'anonymous') return undefined;
  if (caller === 'wrong-password') return basic(target.users.administrator.login, 'WrongWrongWrongWrong1234');
  if (caller === 'unknown-user') return basic('no-such-user-here', 'WrongWrongWrongWrong1234');
  const account = target.users[caller];
  return basic(account.login, account.password);
}

export async function send(request: HttpRequest): Promise<Outcome> {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  const text = request.method === 'HEAD' ? '' : await response.text();
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body =
        (headers['content-type'] ?? '').includes('xml') || text.startsWith('<?xml') ? (xmlFields(text) ?? text) : text;
    }
  }
  return { status: response.status, headers, body };
}

/**
 * A flat XML document (oEmbed's `format=xml`: one root, one level of text elements) as an object of its
 * root's name and its elements' decoded text, so that its fields compare as the JSON answer's do.
 */
export function xmlFields(text: string): Record<string, string> | null {
  const root = /^\s*(?:<\?xml[^>]*\?>)?\s*<([\w:-]+)>([\s\S]*)<\/\1>\s*$/.exec(text);
  if (!root) return null;
  const decode = (s: string) =>
    s
      .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
      .replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (_e, n: string) =>
        n === 'lt'
          ? '<'
          : n === 'gt'
            ? '>'
            : n === 'quot'
              ? '"'
              : n === 'apos'
                ? "'"
                : n === 'amp'
                  ? '&'
                  : String.fromCodePoint(n[1] === 'x' ? parseInt(n.slice(2), 16) : Number(n.slice(1))),
      );
  const fields: Record<string, string> = { '#root': root[1]! };
  for (const m of root[2]!.matchAll(/<([\w:-]+)>([\s\S]*?)<\/\1>/g)) fields[m[1]!] = decode(m[2]!);
  return fields;
}
