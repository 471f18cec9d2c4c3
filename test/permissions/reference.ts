/**
 * Checks the permission table against the reference WordPress 6.1 (see /work/shared/reference/README.md):
 * every cell is requested there with the reference's users, and each disagreement is printed. The fixtures it
 * makes (items, users, application passwords) are deleted at the end.
 *
 *   npx tsx test/permissions/reference.ts [route regex]
 *
 * Reads the site and credentials from $WPREF_CREDENTIALS (default /var/lib/wordpress-ref/credentials.json).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Role } from '../../src/access/capabilities';
import { TABLE } from './table';
import type { Who } from './table';
import { FixtureBook, expectations, runCell } from './runner';
import type { Target, TargetResponse } from './runner';

interface Credentials {
  base: string;
  users: Record<Role, { id: number; username: string; app_password: string }>;
}

function referenceTarget(credentials: Credentials): Target {
  const authorization = (who: Who | { login: string; password: string }): string | undefined => {
    if (who === 'anonymous') return undefined;
    const pair =
      typeof who === 'string'
        ? `${credentials.users[who].username}:${credentials.users[who].app_password}`
        : `${who.login}:${who.password}`;
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  };
  return {
    namespace: 'wp/v2',
    userId: (role) => credentials.users[role].id,
    login: (role) => credentials.users[role].username,
    async send(method, path, body, who, upload): Promise<TargetResponse> {
      const headers: Record<string, string> = {};
      const auth = authorization(who);
      if (auth) headers.authorization = auth;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (upload) {
        headers['content-type'] = upload.type;
        headers['content-disposition'] = `attachment; filename=${upload.filename}`;
      }
      const payload = upload ? upload.data : body === undefined ? undefined : JSON.stringify(body);
      const response = await fetch(`${credentials.base}${path}`, { method, headers, body: payload });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      const total = response.headers.get('x-wp-total');
      return { status: response.status, body: parsed, ...(total === null ? {} : { total: Number(total) }) };
    },
  };
}

async function main(): Promise<void> {
  const file = process.env.WPREF_CREDENTIALS ?? '/var/lib/wordpress-ref/credentials.json';
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  const target = referenceTarget(credentials);
  const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
  const book = new FixtureBook(target);
  let cells = 0;
  const mismatches: string[] = [];
  try {
    for (const row of TABLE) {
      if (only && !only.test(`${row.route} ${row.variant}`)) continue;
      if (row.localOnly) {
        console.log(`skipped: ${row.route} (${row.variant}): ${row.localOnly}`);
        continue;
      }
      for (const [who, expected] of expectations(row)) {
        cells++;
        const actual = await runCell(target, book, row, who, expected);
        if (actual !== expected) {
          const line = `${row.route} | ${row.variant} | ${who}: expected ${expected}, WordPress says ${actual}`;
          mismatches.push(line);
          console.log(line);
        }
      }
    }
  } finally {
    await book.cleanUp();
  }
  console.log(`${cells} cells checked against ${credentials.base}, ${mismatches.length} disagree`);
  process.exitCode = mismatches.length === 0 ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
