/**
 * The permission table (table.ts) as black-box tests: one test per row, each caller's answer compared with the
 * cell WordPress 6.1 gives (the same rows run against the reference with `npx tsx test/permissions/reference.ts`).
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import type { Role } from '../../src/access/capabilities';
import { ROLES } from '../../src/access/capabilities';
import { TABLE } from './table';
import { FixtureBook, expectations, runCell } from './runner';
import type { Target } from './runner';
import { ensureDefaultCategory } from '../../src/resources/terms/operations';
import { renderPermissions } from './render';

const test = suite('permission table');
let site: TestSite;
let book: FixtureBook;
let target: Target;
const users = new Map<Role, TestUser>();

test.before(async () => {
  site = await startTestSite();
  // Every site has its default category (the table proves nobody may delete it).
  await site.site.settle((await ensureDefaultCategory(site.site)).position);
  for (const role of ROLES) users.set(role, await site.createUser(role === 'administrator' ? 'admin' : role, role));
  target = {
    namespace: 'core/v2',
    userId: (role) => users.get(role)!.id,
    login: (role) => users.get(role)!.login,
    async send(method, path, body, who, upload) {
      const as =
        who === 'anonymous'
          ? null
          : typeof who === 'string'
            ? users.get(who)!
            : {
                id: 0,
                login: who.login,
                password: who.password,
                auth: `Basic ${Buffer.from(`${who.login}:${who.password}`).toString('base64')}`,
              };
      const response = upload
        ? await site.request(method, path, {
            as,
            raw: { data: upload.data, type: upload.type },
            headers: { 'content-disposition': `attachment; filename=${upload.filename}` },
          })
        : await site.request(method, path, { as, body });
      const total = response.headers.get('x-wp-total');
      return { status: response.status, body: response.body, ...(total === null ? {} : { total: Number(total) }) };
    },
  };
  book = new FixtureBook(target);
});
test.after(async () => site.close());

for (const row of TABLE) {
  test(`${row.route} | ${row.variant}`, async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    for (const [who, cell] of expectations(row)) {
      expected[who] = cell;
      actual[who] = await runCell(target, book, row, who, cell);
    }
    assert.equal(actual, expected);
  });
}

test('the table covers every route the site serves, each method of it', async () => {
  const index = await site.request('GET', '/');
  const served = new Set<string>();
  for (const [pattern, route] of Object.entries(
    index.body.routes as Record<string, { endpoints: { methods: string[] }[] }>,
  )) {
    const path = templateOf(pattern);
    for (const endpoint of route.endpoints) for (const method of endpoint.methods) served.add(`${method} ${path}`);
  }
  const covered = new Set(
    TABLE.flatMap((row) => [
      row.route.replace(/^POST \/batch\/v1 → /, ''),
      ...(row.viaBatch ? ['POST /batch/v1'] : []),
    ]),
  );
  const missing = [...served].filter((route) => !covered.has(route));
  assert.equal(missing, []);
});

test('docs/permissions.md is the table as it is now (npx tsx test/permissions/render.ts)', () => {
  const written = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8');
  assert.ok(
    written === renderPermissions(),
    'docs/permissions.md is out of date: run npx tsx test/permissions/render.ts',
  );
});

/** `/users/(?P<user_id>(?:[\\d]+|me))/x` → `/users/{user_id}/x` (groups may nest). */
function templateOf(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const group = /^\(\?P<(\w+)>/.exec(pattern.slice(i));
    if (!group) {
      out += pattern[i++];
      continue;
    }
    let depth = 1;
    let j = i + group[0].length;
    while (depth > 0 && j < pattern.length) {
      if (pattern[j] === '\\') j++;
      else if (pattern[j] === '(') depth++;
      else if (pattern[j] === ')') depth--;
      j++;
    }
    out += `{${group[1]}}`;
    i = j;
  }
  return out;
}

test.run();
