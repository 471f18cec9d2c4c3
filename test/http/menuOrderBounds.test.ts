/**
 * `menu_order` past its column's range: WordPress stores it in a signed 32-bit column, so MySQL keeps a larger or
 * smaller value at the nearer bound, and that is what the write answers and what reads show (checked against the
 * reference instance: "99999999999999999999", 1e20 and 3000000000 come back as 2147483647, -99999999999999999999 as
 * -2147483648, on pages and menu items alike).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('menu_order bounds');
let t: TestSite;
let admin: TestUser;
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after(async () => t.close());

const json = (data: string) => ({ as: admin, raw: { data, type: 'application/json' } });

test('a page keeps menu_order within a signed 32-bit column, on create and on update', async () => {
  for (const [sent, kept] of [
    ['"99999999999999999999"', INT32_MAX],
    ['1e20', INT32_MAX],
    ['3000000000', INT32_MAX],
    ['-99999999999999999999', INT32_MIN],
    ['2147483647', INT32_MAX],
    ['-2147483648', INT32_MIN],
    ['7', 7],
  ] as const) {
    const created = await t.request('POST', '/core/v2/pages', json(`{"title":"page","menu_order":${sent}}`));
    assert.is(created.status, 201, sent);
    assert.is(created.body.menu_order, kept, sent);
    const read = await t.request('GET', `/core/v2/pages/${created.body.id}?context=edit`, { as: admin });
    assert.is(read.body.menu_order, kept, sent);
  }
  const page = await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'updated' } });
  const updated = await t.request('POST', `/core/v2/pages/${page.body.id}`, json('{"menu_order":2147483648}'));
  assert.is(updated.status, 200);
  assert.is(updated.body.menu_order, INT32_MAX);
});

test('a menu item keeps menu_order within a signed 32-bit column, on create and on update', async () => {
  const menu = await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'bounds' } });
  const created = await t.request(
    'POST',
    '/core/v2/menu-items',
    json(`{"title":"item","url":"https://example.com/","menus":${menu.body.id},"menu_order":99999999999999999999}`),
  );
  assert.is(created.status, 201);
  assert.is(created.body.menu_order, INT32_MAX);
  assert.is(
    (await t.request('GET', `/core/v2/menu-items/${created.body.id}`, { as: admin })).body.menu_order,
    INT32_MAX,
  );
  const updated = await t.request(
    'POST',
    `/core/v2/menu-items/${created.body.id}`,
    json('{"menu_order":"3000000000"}'),
  );
  assert.is(updated.status, 200);
  assert.is(updated.body.menu_order, INT32_MAX);
});

test.run();
