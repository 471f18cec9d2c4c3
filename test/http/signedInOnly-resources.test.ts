/**
 * `signedInOnly` on every write endpoint beyond posts' and pages' (terms, users, application passwords, media, menus
 * and menu items, revisions and autosaves, contact forms): each declared rule refuses every anonymous request, on
 * every kind of item and with assorted parameters; the only writes that do not declare it are those an anonymous
 * caller may use; and the `Allow` headers and OPTIONS every caller gets are exactly what the same routes give when
 * the rules are judged instead (a dispatcher over the routes with the declaration taken off). Runs on the second
 * instance, whose routes are the first's plus the contact forms.
 */
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { buildDispatcher } from '../../src/api';
import { THEME_DIRECTORY, VARIATIONS_STYLESHEET } from '../../src/resources/globalStyles/routes';
import { TEMPLATE_ID } from '../../src/resources/themes/routes';
import { Dispatcher } from '../../src/rest/dispatch';
import type { Actor } from '../../src/access/capabilities';
import type { Endpoint, HandlerContext, RestRequest, RouteDefinition } from '../../src/rest/route';

const test = suite('signed-in-only endpoints of every resource');
let t: TestSite;
let users: Record<'admin' | 'editor' | 'author' | 'contributor' | 'subscriber', TestUser>;
/** What each path capture is tried with: items of every kind, and ids and names that exist nowhere. */
let captureValues: Record<string, (string | number)[]>;
/** For a route with a parent: the ids tried under it (revisions, autosaves, none). */
let childIds: number[];
let imageUrl: string;

const actorOf = (user: TestUser, role: Actor['roles'][number]): Actor => ({ id: user.id, roles: [role] });

test.before(async () => {
  t = await startTestSite({ instance: 'second' });
  users = {
    admin: await t.createUser('boss', 'administrator'),
    editor: await t.createUser('ed', 'editor'),
    author: await t.createUser('au', 'author'),
    contributor: await t.createUser('co', 'contributor'),
    subscriber: await t.createUser('sub', 'subscriber'),
  };
  const as = users.admin;
  const make = async (path: string, body: Record<string, unknown>, expected = 201) => {
    const response = await t.request('POST', path, { as, body });
    assert.is(response.status, expected, `${path}: ${response.text}`);
    return response.body as { id: number };
  };
  const post = await make('/core/v2/posts', { title: 'Out', status: 'publish' });
  const draft = await make('/core/v2/posts', { title: 'Draft', status: 'draft' });
  const locked = await make('/core/v2/posts', { title: 'Locked', status: 'publish', password: 'secret' });
  const privatePost = await make('/core/v2/posts', { title: 'Mine', status: 'private' });
  const page = await make('/core/v2/pages', { title: 'Page', status: 'publish' });
  const authorsDraft = await t.request('POST', '/core/v2/posts', {
    as: users.author,
    body: { title: 'Hers', status: 'draft' },
  });
  assert.is(authorsDraft.status, 201);
  // A revision and an autosave of the published post.
  assert.is((await t.request('PATCH', `/core/v2/posts/${post.id}`, { as, body: { title: 'Out again' } })).status, 200);
  const autosave = await t.request('POST', `/core/v2/posts/${post.id}/autosaves`, {
    as,
    body: { content: 'Saved on the way' },
  });
  assert.is(autosave.status, 200, autosave.text);
  const revisions = await t.request('GET', `/core/v2/posts/${post.id}/revisions`, { as });
  const category = await make('/core/v2/categories', { name: 'Things' });
  const tag = await make('/core/v2/tags', { name: 'thing' });
  const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .toBuffer();
  const upload = (query: string) =>
    t.request('POST', `/core/v2/media${query}`, {
      as,
      raw: { data: jpeg, type: 'image/jpeg' },
      headers: { 'content-disposition': 'attachment; filename=red.jpg' },
    });
  const loose = await upload('');
  const attached = await upload(`?post=${draft.id}`);
  assert.is(loose.status, 201, loose.text);
  assert.is(attached.status, 201, attached.text);
  imageUrl = loose.body.source_url;
  const menu = await make('/core/v2/menus', { name: 'Main' });
  const menuItem = await make('/core/v2/menu-items', {
    title: 'Home',
    url: 'https://example.com/',
    menus: menu.id,
    status: 'publish',
  });
  const draftItem = await make('/core/v2/menu-items', {
    title: 'Later',
    url: 'https://example.com/later',
    menus: menu.id,
    status: 'draft',
  });
  const form = await make('/contact-form/v1/contact-forms?context=save', { title: 'Contact' }, 200);
  const comment = await make('/core/v2/comments', { post: post.id, content: 'A comment' });
  const passwords = await t.request('GET', `/core/v2/users/${users.subscriber.id}/application-passwords`, { as });
  assert.is(passwords.status, 200);

  const ids = [
    post.id,
    draft.id,
    locked.id,
    privatePost.id,
    page.id,
    authorsDraft.body.id as number,
    category.id,
    tag.id,
    1,
    loose.body.id as number,
    attached.body.id as number,
    menu.id,
    menuItem.id,
    draftItem.id,
    form.id,
    comment.id,
    ...Object.values(users).map((user) => user.id),
    0,
    999_999,
  ];
  childIds = [...(revisions.body as { id: number }[]).map((entry) => entry.id), 999_999];
  captureValues = {
    id: ids,
    parent: ids,
    user_id: [...Object.values(users).map((user) => user.id), 'me', 999_999],
    uuid: [...(passwords.body as { uuid: string }[]).map((p) => p.uuid), 'no-such-password'],
    location: ['primary'],
    stylesheet: ['palimpsest', 'twentytwentythree'],
    // A webhook delivery's id: what is judged is the caller, before any delivery is looked up.
    delivery: ['msg_no-such-delivery'],
  };
});
test.after(async () => t.close());

/** Every path of a route pattern with its captures filled in from captureValues (a parent's children from childIds). */
function pathsOf(route: RouteDefinition): string[] {
  const names = [...route.path.matchAll(/\(\?P<(\w+)>/g)].map((m) => m[1]!);
  let paths = [route.path];
  for (const name of names) {
    const values = name === 'id' && names.includes('parent') ? childIds : captureValues[name];
    assert.ok(values, `no values for the capture ${name} of ${route.path}`);
    paths = paths.flatMap((path) =>
      values.map((value) => path.replace(new RegExp(`\\(\\?P<${name}>(?:[^()]|\\([^()]*\\))*\\)`), String(value))),
    );
  }
  return paths;
}

function capturesOf(route: RouteDefinition, path: string): Record<string, string> {
  const pattern = new RegExp(`^${route.path.replace(/\(\?P</g, '(?<')}$`, 'i');
  return { ...(pattern.exec(path)?.groups ?? {}) };
}

const request = (method: string, path: string, actor: Actor | null): RestRequest => ({
  method,
  path,
  query: {},
  json: null,
  form: null,
  headers: {},
  actor,
  requestId: 'signed-in-only',
});

/** A rule's verdict; a RestError it throws (e.g. `me` without a caller) is a refusal, as the dispatcher takes it. */
async function judge(endpoint: Endpoint, ctx: HandlerContext): Promise<unknown> {
  try {
    return await endpoint.permission(ctx);
  } catch (error) {
    return error;
  }
}

const isWrite = (endpoint: Endpoint) => endpoint.methods.some((method) => method !== 'GET');
const label = (route: RouteDefinition, endpoint: Endpoint) => `${endpoint.methods.join(',')} ${route.path}`;

test('every write rule declared signed-in-only refuses anonymous callers, whatever the item and the parameters', async () => {
  const paramSets: Record<string, unknown>[] = [
    {},
    { context: 'edit' },
    { context: 'save' },
    { force: true },
    { force: true, reassign: false },
    { reassign: 1 },
    { author: 0, sticky: true },
    { roles: ['administrator'] },
    { status: 'publish', template: '' },
    { name: 'renamed', title: 'Renamed' },
    { post: captureValues.id![0] },
    { action: 'create-image-subsizes' },
    { src: imageUrl, modifiers: [{ type: 'rotate', args: { angle: 90 } }] },
  ];
  const dispatcher = buildDispatcher(t.site);
  const declared = new Set<string>();
  let judged = 0;
  for (const route of dispatcher.routes) {
    for (const endpoint of route.endpoints) {
      if (endpoint.signedInOnly !== true) continue;
      declared.add(label(route, endpoint));
      for (const path of pathsOf(route)) {
        for (const params of paramSets) {
          const req = request(endpoint.methods[0]!, path, null);
          const all = { ...params, ...capturesOf(route, path) };
          const verdict = await judge(endpoint, { request: req, params: all, actor: null, memo: new Map() });
          assert.ok(
            verdict !== true,
            `${label(route, endpoint)} let an anonymous caller through with ${JSON.stringify(all)}`,
          );
          judged++;
        }
      }
    }
  }
  const expected = [
    'POST /core/v2/posts',
    'POST,PUT,PATCH /core/v2/posts/(?P<id>[\\d]+)',
    'DELETE /core/v2/posts/(?P<id>[\\d]+)',
    'DELETE /core/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
    'POST /core/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore',
    'POST /core/v2/posts/(?P<id>[\\d]+)/autosaves',
    'POST /core/v2/pages',
    'POST,PUT,PATCH /core/v2/pages/(?P<id>[\\d]+)',
    'DELETE /core/v2/pages/(?P<id>[\\d]+)',
    'DELETE /core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
    'POST /core/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore',
    'POST /core/v2/pages/(?P<id>[\\d]+)/autosaves',
    'POST /core/v2/media',
    'POST,PUT,PATCH /core/v2/media/(?P<id>[\\d]+)',
    'DELETE /core/v2/media/(?P<id>[\\d]+)',
    'POST /core/v2/media/(?P<id>[\\d]+)/post-process',
    'POST /core/v2/media/(?P<id>[\\d]+)/edit',
    'POST /core/v2/categories',
    'POST,PUT,PATCH /core/v2/categories/(?P<id>[\\d]+)',
    'DELETE /core/v2/categories/(?P<id>[\\d]+)',
    'POST /core/v2/tags',
    'POST,PUT,PATCH /core/v2/tags/(?P<id>[\\d]+)',
    'DELETE /core/v2/tags/(?P<id>[\\d]+)',
    'POST /core/v2/menu-items',
    'POST,PUT,PATCH /core/v2/menu-items/(?P<id>[\\d]+)',
    'DELETE /core/v2/menu-items/(?P<id>[\\d]+)',
    'POST /core/v2/menu-items/(?P<id>[\\d]+)/autosaves',
    'POST /core/v2/menus',
    'POST,PUT,PATCH /core/v2/menus/(?P<id>[\\d]+)',
    'DELETE /core/v2/menus/(?P<id>[\\d]+)',
    'POST /contact-form/v1/contact-forms',
    'POST,PUT,PATCH /contact-form/v1/contact-forms/(?P<id>\\d+)',
    'DELETE /contact-form/v1/contact-forms/(?P<id>\\d+)',
    'POST /core/v2/comments',
    'POST,PUT,PATCH /core/v2/comments/(?P<id>[\\d]+)',
    'DELETE /core/v2/comments/(?P<id>[\\d]+)',
    'POST /core/v2/users',
    'POST,PUT,PATCH /core/v2/users/(?P<id>[\\d]+)',
    'DELETE /core/v2/users/(?P<id>[\\d]+)',
    'POST,PUT,PATCH /core/v2/users/me',
    'DELETE /core/v2/users/me',
    'POST /core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords',
    'DELETE /core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords',
    'POST,PUT,PATCH /core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords/(?P<uuid>[\\w\\-]+)',
    'DELETE /core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords/(?P<uuid>[\\w\\-]+)',
    // Reading the settings, too, takes an administrator.
    'GET /core/v2/settings',
    'POST,PUT,PATCH /core/v2/settings',
    'POST /core/v2/blocks',
    'POST,PUT,PATCH /core/v2/blocks/(?P<id>[\\d]+)',
    'DELETE /core/v2/blocks/(?P<id>[\\d]+)',
    'DELETE /core/v2/blocks/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
    'POST /core/v2/blocks/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore',
    'POST /core/v2/blocks/(?P<id>[\\d]+)/autosaves',
    // The reads of the block editor's theme, styles, patterns and templates take editing something, or theme options.
    `GET /core/v2/themes`,
    `GET /core/v2/themes/(?P<stylesheet>${THEME_DIRECTORY})`,
    `GET /core/v2/global-styles/themes/(?P<stylesheet>${VARIATIONS_STYLESHEET})/variations`,
    `GET /core/v2/global-styles/themes/(?P<stylesheet>${THEME_DIRECTORY})`,
    'GET /core/v2/global-styles/(?P<id>[\\/\\w-]+)',
    'POST,PUT,PATCH /core/v2/global-styles/(?P<id>[\\/\\w-]+)',
    'GET /core/v2/block-patterns/patterns',
    'GET /core/v2/block-patterns/categories',
    'GET /core/v2/templates',
    'GET /core/v2/templates/lookup',
    `GET /core/v2/templates/(?P<id>${TEMPLATE_ID})`,
    'POST /hooks/v1/webhooks',
    'POST,PUT,PATCH /hooks/v1/webhooks/(?P<id>[\\d]+)',
    'DELETE /hooks/v1/webhooks/(?P<id>[\\d]+)',
    'POST /hooks/v1/webhooks/(?P<id>[\\d]+)/deliveries/(?P<delivery>msg_[\\w-]{1,64})/redeliver',
  ];
  assert.equal([...declared].sort(), [...expected].sort());
  assert.ok(judged > 10_000, `judged ${judged}`);
});

test('the writes that do not declare it are the ones anonymous callers may use', async () => {
  const dispatcher = buildDispatcher(t.site);
  const open: string[] = [];
  for (const route of dispatcher.routes) {
    for (const endpoint of route.endpoints) {
      if (!isWrite(endpoint) || endpoint.signedInOnly === true) continue;
      open.push(label(route, endpoint));
      const path = pathsOf(route)[0]!;
      const verdict = await judge(endpoint, {
        request: request(endpoint.methods[0]!, path, null),
        params: capturesOf(route, path),
        actor: null,
        memo: new Map(),
      });
      assert.is(verdict, true, `${label(route, endpoint)} refuses anonymous callers but does not declare signedInOnly`);
    }
  }
  // A batch checks each of its requests on its own; anyone may send a contact form.
  assert.equal(open.sort(), ['POST /batch/v1', 'POST /contact-form/v1/contact-forms/(?P<id>\\d+)/feedback']);
});

test('Allow headers and OPTIONS are those the rules give, for anonymous and signed-in callers', async () => {
  const dispatcher = buildDispatcher(t.site);
  // The same routes, each endpoint judged by its rule.
  const judging = new Dispatcher(
    dispatcher.routes.map((route) => ({
      ...route,
      endpoints: route.endpoints.map(({ signedInOnly: _, ...endpoint }) => endpoint),
    })),
    { apiRoot: t.site.apiRoot },
  );
  const actors: (Actor | null)[] = [
    null,
    actorOf(users.admin, 'administrator'),
    actorOf(users.editor, 'editor'),
    actorOf(users.author, 'author'),
    actorOf(users.contributor, 'contributor'),
    actorOf(users.subscriber, 'subscriber'),
  ];
  let compared = 0;
  let anonymousLeftOut = 0;
  for (const route of dispatcher.routes) {
    if (!route.endpoints.some((endpoint) => endpoint.signedInOnly === true)) continue;
    const methods = [...(route.endpoints.some((e) => e.methods.includes('GET')) ? ['GET'] : []), 'OPTIONS'];
    for (const path of pathsOf(route)) {
      for (const actor of actors) {
        for (const method of methods) {
          const [ours, judged] = await Promise.all([
            dispatcher.dispatch(request(method, path, actor)),
            judging.dispatch(request(method, path, actor)),
          ]);
          const context = `${method} ${path} as ${actor ? actor.roles[0] : 'anonymous'}`;
          assert.is(ours.status, judged.status, context);
          assert.is(ours.headers?.Allow, judged.headers?.Allow, context);
          compared++;
        }
      }
      // An anonymous write is refused by its own rule, with the same header.
      for (const endpoint of route.endpoints) {
        if (endpoint.signedInOnly !== true) continue;
        const method = endpoint.methods[0]!;
        const [ours, judged] = await Promise.all([
          dispatcher.dispatch(request(method, path, null)),
          judging.dispatch(request(method, path, null)),
        ]);
        assert.ok(
          ours.status === 401 || ours.status === 403 || ours.status === 404 || ours.status === 400,
          `${method} ${path}: ${ours.status}`,
        );
        assert.equal(ours.body, judged.body, `${method} ${path}`);
        assert.is(ours.status, judged.status, `${method} ${path}`);
        assert.is(ours.headers?.Allow, judged.headers?.Allow, `${method} ${path}`);
        if (!(ours.headers?.Allow ?? '').includes(method)) anonymousLeftOut++;
        compared++;
      }
    }
  }
  assert.ok(compared > 2_000, `compared ${compared}`);
  assert.ok(anonymousLeftOut > 500, `left out ${anonymousLeftOut}`);

  // What the reference WordPress 6.1 answers an anonymous OPTIONS with (no Allow header when nothing is allowed), and
  // the methods an administrator gets.
  const expected: [string, string | null, string][] = [
    ['/core/v2/categories', 'GET', 'GET, POST'],
    ['/core/v2/categories/1', 'GET', 'GET, POST, PUT, PATCH'],
    ['/core/v2/tags', 'GET', 'GET, POST'],
    ['/core/v2/users', 'GET', 'GET, POST'],
    ['/core/v2/users/me', 'GET', 'GET, POST, PUT, PATCH, DELETE'],
    ['/core/v2/media', 'GET', 'GET, POST'],
    ['/core/v2/menus', null, 'GET, POST'],
    ['/core/v2/menu-items', null, 'GET, POST'],
    [`/core/v2/users/${users.admin.id}/application-passwords`, null, 'GET, POST, DELETE'],
    ['/contact-form/v1/contact-forms', null, 'GET, POST'],
  ];
  for (const [path, anonymous, admin] of expected) {
    assert.is((await t.request('OPTIONS', path)).headers.get('allow'), anonymous, path);
    assert.is((await t.request('OPTIONS', path, { as: users.admin })).headers.get('allow'), admin, path);
  }
});

test.run();
