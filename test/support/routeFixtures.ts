/**
 * A site with one item of every kind the API serves, made through the API, and the index's endpoints: what the
 * route sweeps (malformed input, fuzzing) need to fill every route's path parameters with something that exists.
 */
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import type { TestSite, TestUser } from './testSite';

export interface ArgSchema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  items?: ArgSchema;
  properties?: Record<string, ArgSchema>;
  minimum?: number;
  maximum?: number;
}

export interface IndexedEndpoint {
  route: string;
  methods: string[];
  args: Record<string, ArgSchema>;
}

export interface RouteFixtures {
  admin: TestUser;
  /** An author other than the administrator, with an application password the administrator made. */
  victim: TestUser;
  /** A value for each path parameter: by `route#name` where routes differ, else by name. */
  values: Record<string, string>;
  /** Every endpoint of the index (`GET /?context=edit`), one per route and method list. */
  endpoints: IndexedEndpoint[];
}

/** Makes the fixtures on a second-instance test site (so the contact-form routes are there too). */
export async function createRouteFixtures(t: Pick<TestSite, 'request' | 'createUser'>): Promise<RouteFixtures> {
  const admin = await t.createUser('admin', 'administrator');
  const victim = await t.createUser('victim', 'author');
  const created = async (path: string, body: unknown, extra: Parameters<TestSite['request']>[2] = {}) => {
    const response = await t.request('POST', path, { as: admin, body, ...extra });
    assert.ok(response.status === 201 || response.status === 200, `${path}: ${response.text}`);
    return response.body;
  };
  const post = await created('/core/v2/posts', { title: 'Fixture', content: 'c', status: 'publish' });
  await created(`/core/v2/posts/${post.id}`, { title: 'Fixture again' });
  const revision = (await t.request('GET', `/core/v2/posts/${post.id}/revisions`, { as: admin })).body[0];
  const autosave = await created(`/core/v2/posts/${post.id}/autosaves`, { title: 'Autosaved', content: 'a' });
  const page = await created('/core/v2/pages', { title: 'Fixture page', status: 'publish' });
  await created(`/core/v2/pages/${page.id}`, { title: 'Fixture page again' });
  const pageRevision = (await t.request('GET', `/core/v2/pages/${page.id}/revisions`, { as: admin })).body[0];
  const jpeg = await sharp({ create: { width: 20, height: 10, channels: 3, background: { r: 1, g: 2, b: 3 } } })
    .jpeg()
    .toBuffer();
  const media = await created('/core/v2/media', undefined, {
    raw: { data: jpeg, type: 'image/jpeg' },
    headers: { 'content-disposition': 'attachment; filename=a.jpg' },
  });
  const category = await created('/core/v2/categories', { name: 'Fixture category' });
  const tag = await created('/core/v2/tags', { name: 'Fixture tag' });
  const menu = await created('/core/v2/menus', { name: 'Fixture menu' });
  const menuItem = await created('/core/v2/menu-items', {
    title: 'Item',
    url: 'https://example.test/',
    menus: menu.id,
  });
  const password = await created(`/core/v2/users/${victim.id}/application-passwords`, { name: 'fixture' });
  const form = await created('/contact-form/v1/contact-forms', {});
  const locations = (await t.request('GET', '/core/v2/menu-locations', { as: admin })).body;
  const values = {
    id: String(post.id),
    parent: String(post.id),
    '/core/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)#id': String(revision.id),
    '/core/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore#id': String(revision.id),
    '/core/v2/posts/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)#id': String(autosave.id),
    '/core/v2/pages/(?P<id>[\\d]+)#id': String(page.id),
    '/core/v2/pages/(?P<id>[\\d]+)/autosaves#id': String(page.id),
    '/core/v2/pages/(?P<id>[\\d]+)/history#id': String(page.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/revisions#parent': String(page.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)#parent': String(page.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)#id': String(pageRevision.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore#parent': String(page.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore#id': String(pageRevision.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)#parent': String(page.id),
    '/core/v2/pages/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)#id': String(page.id),
    '/core/v2/media/(?P<id>[\\d]+)#id': String(media.id),
    '/core/v2/media/(?P<id>[\\d]+)/post-process#id': String(media.id),
    '/core/v2/media/(?P<id>[\\d]+)/edit#id': String(media.id),
    '/core/v2/media/(?P<id>[\\d]+)/history#id': String(media.id),
    '/core/v2/categories/(?P<id>[\\d]+)#id': String(category.id),
    '/core/v2/tags/(?P<id>[\\d]+)#id': String(tag.id),
    '/core/v2/menus/(?P<id>[\\d]+)#id': String(menu.id),
    '/core/v2/menu-items/(?P<id>[\\d]+)#id': String(menuItem.id),
    '/core/v2/menu-items/(?P<id>[\\d]+)/autosaves#id': String(menuItem.id),
    '/core/v2/menu-items/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)#parent': String(menuItem.id),
    '/core/v2/menu-items/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)#id': String(menuItem.id),
    '/core/v2/users/(?P<id>[\\d]+)#id': String(victim.id),
    user_id: String(victim.id),
    uuid: password.uuid,
    location: Object.keys(locations)[0] ?? 'primary',
    '/contact-form/v1/contact-forms/(?P<id>\\d+)#id': String(form.id),
    '/contact-form/v1/contact-forms/(?P<id>\\d+)/feedback#id': String(form.id),
    '/contact-form/v1/contact-forms/(?P<id>\\d+)/refill#id': String(form.id),
  };
  const index = await t.request('GET', '/?context=edit', { as: admin });
  const endpoints: IndexedEndpoint[] = Object.entries<any>(index.body.routes).flatMap(([route, described]) =>
    described.endpoints.map((e: any) => ({ route, methods: e.methods, args: e.args ?? {} })),
  );
  return { admin, victim, values, endpoints };
}

/** A route's path with its parameters filled from `given` (by parameter name) or the fixtures' values. */
export function fillRoute(route: string, fixtures: Record<string, string>, given: Record<string, string> = {}): string {
  return route.replace(
    /\(\?P<(\w+)>[^()]*(?:\([^()]*\)[^()]*)*\)/g,
    (_, name: string) => given[name] ?? fixtures[`${route}#${name}`] ?? fixtures[name] ?? '1',
  );
}

/** The path parameters a route pattern names, in order. */
export const routeParameters = (route: string): string[] => [...route.matchAll(/\(\?P<(\w+)>/g)].map((m) => m[1]!);
