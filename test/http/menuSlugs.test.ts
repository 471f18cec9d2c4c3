/**
 * A menu's slug and description as WordPress 6.1 saves them (wp_update_nav_menu_object): every create and update
 * makes the slug anew from the name, whatever slug the request names, and an update that leaves out the description
 * empties it. Expected values are the reference site's answers to the same requests.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

let t: TestSite;
let admin: TestUser;

test.before.each(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
});
test.after.each(() => t.close());

const write = async (method: string, path: string, body: Record<string, unknown>) => {
  const response = await t.request(method, path, { as: admin, body });
  assert.ok(
    response.status === 200 || response.status === 201,
    `${method} ${path}: ${response.status} ${response.text}`,
  );
  return response.body as { id: number; name: string; slug: string; description: string; auto_add: boolean };
};
const shape = (menu: { name: string; slug: string; description: string; auto_add: boolean }) => [
  menu.name,
  menu.slug,
  menu.description,
  menu.auto_add,
];

test('the slug follows the name, and an update without a description empties it', async () => {
  const menu = await write('POST', '/core/v2/menus', { name: 'Menu Alpha', description: 'Main', slug: 'custom' });
  assert.equal(shape(menu), ['Menu Alpha', 'menu-alpha', 'Main', false]);
  const path = `/core/v2/menus/${menu.id}`;
  assert.equal(shape(await write('PUT', path, { name: 'Menu Beta' })), ['Menu Beta', 'menu-beta', '', false]);
  assert.equal(shape(await write('PUT', path, { description: 'Other' })), ['Menu Beta', 'menu-beta', 'Other', false]);
  assert.equal(shape(await write('PUT', path, { slug: 'elsewhere' })), ['Menu Beta', 'menu-beta', '', false]);
  assert.equal(shape(await write('PUT', path, { auto_add: true, description: 'Kept' })), [
    'Menu Beta',
    'menu-beta',
    'Kept',
    true,
  ]);
  assert.equal(shape(await write('PUT', path, {})), ['Menu Beta', 'menu-beta', '', true]);
  // Read back, and the old slugs are free again.
  assert.equal(shape((await t.request('GET', path, { as: admin })).body), ['Menu Beta', 'menu-beta', '', true]);
  const other = await write('POST', '/core/v2/menus', { name: 'Menu Alpha' });
  assert.is(other.slug, 'menu-alpha');
});

test('a name whose slug another menu holds is numbered, and each save renumbers it as WordPress does', async () => {
  const first = await write('POST', '/core/v2/menus', { name: 'a-b' });
  const second = await write('POST', '/core/v2/menus', { name: 'a b' });
  assert.equal([first.slug, second.slug], ['a-b', 'a-b-2']);
  // WordPress looks up the numbered slugs without leaving the menu out: its own `a-b-2` counts as taken.
  assert.is((await write('PUT', `/core/v2/menus/${second.id}`, { description: 'd' })).slug, 'a-b-3');
  assert.is((await write('PUT', `/core/v2/menus/${second.id}`, { description: 'd' })).slug, 'a-b-2');
  // Once the name's own slug is free, it takes it.
  await t.request('DELETE', `/core/v2/menus/${first.id}?force=true`, { as: admin });
  assert.is((await write('PUT', `/core/v2/menus/${second.id}`, {})).slug, 'a-b');
  // A menu renamed to its own name keeps its slug.
  assert.is((await write('PUT', `/core/v2/menus/${second.id}`, { name: 'a b' })).slug, 'a-b');
});

test.run();
