/**
 * /core/v2/menu-items, /core/v2/menus and /core/v2/menu-locations, black-box through the app. Expected values
 * follow WordPress 6.1 (checked against the reference site). The list suite runs on both read models.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { ReadModel } from '../../src/ports/readModel';

const ids = (response: TestResponse): number[] => (response.body as { id: number }[]).map((item) => item.id);

async function make(t: TestSite, user: TestUser, path: string, body: Record<string, unknown>): Promise<any> {
  const response = await t.request('POST', path, { as: user, body });
  assert.is(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

// ---------------------------------------------------------------------------------------------------------------

const menus = suite('menus: the nav_menu taxonomy');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let contributor: TestUser;
let subscriber: TestUser;

menus.before.each(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
menus.after.each(async () => t.close());

menus('create, read, update and delete a menu with auto_add and locations', async () => {
  const created = await t.request('POST', '/core/v2/menus', {
    as: admin,
    body: { name: 'Main Menu', auto_add: true, description: 'd <b>x</b>' },
  });
  assert.is(created.status, 201);
  assert.is(created.headers.get('location'), `${t.url}/core/v2/menus/${created.body.id}`);
  assert.equal(
    { ...created.body, _links: undefined },
    {
      id: created.body.id,
      description: 'd <b>x</b>',
      name: 'Main Menu',
      slug: 'main-menu',
      meta: [],
      locations: [],
      auto_add: true,
      _links: undefined,
    },
  );
  assert.equal(created.body._links['wp:post_type'], [{ href: `${t.url}/core/v2/menu-items?menus=${created.body.id}` }]);
  assert.equal(created.body._links.about, [{ href: `${t.url}/core/v2/taxonomies/nav_menu` }]);

  const embed = await t.request('GET', `/core/v2/menus/${created.body.id}?context=embed`, { as: contributor });
  assert.equal(
    Object.keys(embed.body).filter((k) => k !== '_links'),
    ['id', 'name', 'slug'],
  );

  // As WordPress saves a menu: the slug is made from the name (not the one asked for), and the description left out
  // is emptied.
  const updated = await t.request('POST', `/core/v2/menus/${created.body.id}`, {
    as: admin,
    body: { name: 'Renamed', auto_add: false, slug: 'nav' },
  });
  assert.is(updated.status, 200);
  assert.is(updated.body.name, 'Renamed');
  assert.is(updated.body.slug, 'renamed');
  assert.is(updated.body.description, '');
  assert.is(updated.body.auto_add, false);

  const trash = await t.request('DELETE', `/core/v2/menus/${created.body.id}`, { as: admin });
  assert.is(trash.status, 501);
  assert.is(trash.body.code, 'rest_trash_not_supported');
  assert.is(trash.body.message, "Menus do not support trashing. Set 'force=true' to delete.");
  const deleted = await t.request('DELETE', `/core/v2/menus/${created.body.id}?force=true`, { as: admin });
  assert.is(deleted.status, 200);
  assert.equal(deleted.body, {
    deleted: true,
    previous: {
      id: created.body.id,
      description: '',
      name: 'Renamed',
      slug: 'renamed',
      meta: [],
      locations: [],
      auto_add: false,
    },
  });
  assert.is(
    (await t.request('GET', `/core/v2/menus/${created.body.id}`, { as: admin })).body.code,
    'rest_term_invalid',
  );
});

menus('errors: duplicate name, empty name, unknown location, unknown menu', async () => {
  const first = await make(t, admin, '/core/v2/menus', { name: 'Footer' });
  const duplicate = await t.request('POST', '/core/v2/menus', { as: admin, body: { name: 'footer' } });
  assert.is(duplicate.status, 400);
  assert.equal(duplicate.body, {
    code: 'menu_exists',
    message: 'The menu name <strong>footer</strong> conflicts with another menu name. Please try another.',
    data: { status: 400, term_id: first.id },
    additional_data: [first.id],
  });
  const empty = await t.request('POST', '/core/v2/menus', { as: admin, body: { name: '' } });
  assert.equal(empty.body, {
    code: 'empty_term_name',
    message: 'A name is required for this term.',
    data: { status: 400 },
  });
  const location = await t.request('POST', '/core/v2/menus', {
    as: admin,
    body: { name: 'Side', locations: ['primary'] },
  });
  assert.is(location.status, 400);
  assert.is(location.body.code, 'rest_invalid_param');
  assert.equal(location.body.data.details.locations, {
    code: 'rest_invalid_menu_location',
    message: 'Invalid menu location.',
    data: { location: 'primary' },
  });
  const missing = await t.request('GET', '/core/v2/menus/999', { as: admin });
  assert.is(missing.status, 404);
  assert.is(missing.body.code, 'rest_term_invalid');
});

menus('who may read and write menus and locations', async () => {
  const menu = await make(t, admin, '/core/v2/menus', { name: 'Main' });
  assert.is((await t.request('GET', '/core/v2/menus')).body.code, 'rest_cannot_view');
  assert.is((await t.request('GET', '/core/v2/menus')).status, 401);
  assert.is((await t.request('GET', '/core/v2/menus', { as: subscriber })).status, 403);
  assert.equal(ids(await t.request('GET', '/core/v2/menus', { as: contributor })), [menu.id]);
  const editContext = await t.request('GET', '/core/v2/menus?context=edit', { as: contributor });
  assert.is(editContext.body.code, 'rest_forbidden_context');
  const create = await t.request('POST', '/core/v2/menus', { as: editor, body: { name: 'x' } });
  assert.equal([create.status, create.body.code], [403, 'rest_cannot_create']);
  const update = await t.request('POST', `/core/v2/menus/${menu.id}`, { as: editor, body: { name: 'x' } });
  assert.equal([update.status, update.body.code], [403, 'rest_cannot_update']);
  const remove = await t.request('DELETE', `/core/v2/menus/${menu.id}?force=true`, { as: editor });
  assert.equal([remove.status, remove.body.code], [403, 'rest_cannot_delete']);

  const locations = await t.request('GET', '/core/v2/menu-locations', { as: admin });
  assert.equal([locations.status, locations.body], [200, []]);
  assert.equal((await t.request('GET', '/core/v2/menu-locations', { as: editor })).body.code, 'rest_cannot_view');
  const one = await t.request('GET', '/core/v2/menu-locations/primary', { as: admin });
  assert.equal([one.status, one.body.code], [404, 'rest_menu_location_invalid']);
});

menus('deleting a menu deletes its items', async () => {
  const menu = await make(t, admin, '/core/v2/menus', { name: 'Main' });
  const item = await make(t, admin, '/core/v2/menu-items', { title: 'A', url: 'https://example.com/', menus: menu.id });
  await t.request('DELETE', `/core/v2/menus/${menu.id}?force=true`, { as: admin });
  assert.is((await t.request('GET', `/core/v2/menu-items/${item.id}`, { as: admin })).status, 404);
});

menus.run();

// ---------------------------------------------------------------------------------------------------------------

const items = suite('menu items: writes and presentation');

items.before.each(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
items.after.each(async () => t.close());

items('a custom link: defaults, every field, 201 with Location', async () => {
  const menu = await make(t, admin, '/core/v2/menus', { name: 'Main' });
  const created = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { title: 'X', url: 'https://example.com/a', menus: menu.id },
  });
  assert.is(created.status, 201);
  const id = created.body.id;
  assert.is(created.headers.get('location'), `${t.url}/core/v2/menu-items/${id}`);
  const { _links, ...fields } = created.body;
  assert.equal(fields, {
    id,
    title: { raw: 'X', rendered: 'X' },
    status: 'publish',
    url: 'https://example.com/a',
    attr_title: '',
    description: '',
    type: 'custom',
    type_label: 'Custom Link',
    object: 'custom',
    object_id: id,
    parent: 0,
    menu_order: 1,
    target: '',
    classes: [''],
    xfn: [''],
    invalid: false,
    meta: [],
    menus: menu.id,
  });
  assert.equal(Object.keys(_links), [
    'self',
    'collection',
    'about',
    'wp:term',
    'wp:action-publish',
    'wp:action-unfiltered-html',
    'wp:action-create-menus',
    'wp:action-assign-menus',
    'curies',
  ]);
  assert.equal(_links['wp:term'], [
    { taxonomy: 'nav_menu', embeddable: true, href: `${t.url}/core/v2/menus?post=${id}` },
  ]);

  const view = await t.request('GET', `/core/v2/menu-items/${id}`, { as: contributor });
  assert.equal(view.body.title, { rendered: 'X' });
  assert.not.ok(view.body._links['wp:action-publish']);
  const embed = await t.request('GET', `/core/v2/menu-items/${id}?context=embed`, { as: admin });
  assert.not.ok('menus' in embed.body);
  assert.not.ok('meta' in embed.body);
  assert.equal(ids(await t.request('GET', `/core/v2/menus?post=${id}`, { as: admin })), [menu.id]);
});

items(
  'an item in no menu has no menus field; status other than publish is a draft; classes are sanitised',
  async () => {
    const item = await make(t, admin, '/core/v2/menu-items', {
      title: 'x',
      url: 'notaurl',
      status: 'pending',
      classes: ['a b', 'c'],
      xfn: ['me'],
      target: '_blank',
    });
    assert.not.ok('menus' in item);
    assert.is(item.status, 'draft');
    assert.is(item.url, 'http://notaurl');
    assert.equal(item.classes, ['ab', 'c']);
    assert.equal(item.xfn, ['me']);
    assert.is(item.target, '_blank');
  },
);

items(
  'post-type and taxonomy items take their title and url from the object, and turn invalid when it goes',
  async () => {
    const page = (
      await t.request('POST', '/core/v2/pages', { as: admin, body: { title: 'Sample Page', status: 'publish' } })
    ).body;
    const category = (await t.request('POST', '/core/v2/categories', { as: admin, body: { name: 'News' } })).body;
    const pageItem = await make(t, admin, '/core/v2/menu-items', { type: 'post_type', object_id: page.id, title: '' });
    assert.equal(
      [pageItem.title.raw, pageItem.url, pageItem.type_label, pageItem.object, pageItem.invalid],
      ['Sample Page', page.link, 'Page', 'page', false],
    );
    assert.equal(pageItem._links['wp:menu-item-object'], [
      { post_type: 'page', embeddable: true, href: `${t.url}/core/v2/pages/${page.id}` },
    ]);
    const termItem = await make(t, admin, '/core/v2/menu-items', {
      type: 'taxonomy',
      object: 'category',
      object_id: category.id,
    });
    assert.equal(
      [termItem.title.raw, termItem.url, termItem.type_label, termItem.invalid],
      ['News', category.link, 'Category', false],
    );

    const own = await t.request('POST', `/core/v2/menu-items/${pageItem.id}`, {
      as: admin,
      body: { title: 'Own', menu_order: 7 },
    });
    assert.equal([own.body.title.raw, own.body.menu_order, own.body.url], ['Own', 7, page.link]);

    await t.request('DELETE', `/core/v2/pages/${page.id}?force=true`, { as: admin });
    await t.request('DELETE', `/core/v2/categories/${category.id}?force=true`, { as: admin });
    const gone = await t.request('GET', `/core/v2/menu-items/${termItem.id}?context=edit`, { as: admin });
    assert.equal([gone.body.title.raw, gone.body.url, gone.body.invalid], [`#${category.id} (no title)`, '', true]);
    assert.not.ok(gone.body._links['wp:menu-item-object']);
    assert.is((await t.request('GET', `/core/v2/menu-items/${pageItem.id}`, { as: admin })).body.invalid, true);

    const missing = await make(t, admin, '/core/v2/menu-items', {
      type: 'post_type',
      object: 'page',
      object_id: 99999,
    });
    assert.equal([missing.title.raw, missing.url, missing.invalid], ['#99999 (no title)', '', true]);
  },
);

items('errors of writes, in WordPress’s shapes', async () => {
  const none = await t.request('POST', '/core/v2/menu-items', { as: admin, body: {} });
  assert.equal(none.body, {
    code: 'rest_title_required',
    message: 'The title is required when using a custom menu item type.',
    data: { status: 400 },
    additional_errors: [
      {
        code: 'rest_url_required',
        message: 'The url is required when using a custom menu item type.',
        data: { status: 400 },
      },
    ],
  });
  assert.is(
    (await t.request('POST', '/core/v2/menu-items', { as: admin, body: { title: 'x' } })).body.code,
    'rest_url_required',
  );
  assert.is(
    (await t.request('POST', '/core/v2/menu-items', { as: admin, body: { url: 'https://x.y' } })).body.code,
    'rest_title_required',
  );
  const array = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { title: 'x', url: 'https://x.y', menus: [1] },
  });
  assert.equal(
    [array.status, array.body.code, array.body.data.details.menus.code],
    [400, 'rest_invalid_param', 'rest_invalid_type'],
  );
  const unknownMenu = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { title: 'x', url: 'https://x.y', menus: 999 },
  });
  assert.equal(
    [unknownMenu.status, unknownMenu.body.code, unknownMenu.body.message],
    [400, 'invalid_menu_id', 'Invalid menu ID.'],
  );
  const archive = await t.request('POST', '/core/v2/menu-items', {
    as: admin,
    body: { type: 'post_type_archive', object: 'nope' },
  });
  assert.equal([archive.status, archive.body.code], [400, 'rest_post_invalid_type']);
  for (const order of [0, -9, 'ddddd']) {
    const bad = await t.request('POST', '/core/v2/menu-items', {
      as: admin,
      body: { title: 'x', url: 'https://x.y', menu_order: order },
    });
    assert.equal([bad.status, bad.body.code], [400, 'rest_invalid_param']);
  }
  assert.is(
    (
      await t.request('POST', '/core/v2/menu-items', {
        as: admin,
        body: { title: 'x', url: 'https://x.y', parent: -9 },
      })
    ).status,
    400,
  );

  const item = await make(t, admin, '/core/v2/menu-items', { title: 'x', url: 'https://x.y' });
  const trash = await t.request('DELETE', `/core/v2/menu-items/${item.id}`, { as: admin });
  assert.equal(
    [trash.status, trash.body.code, trash.body.message],
    [501, 'rest_trash_not_supported', "Menu items do not support trashing. Set 'force=true' to delete."],
  );
  const deleted = await t.request('DELETE', `/core/v2/menu-items/${item.id}?force=true`, { as: admin });
  assert.equal([deleted.status, deleted.body.deleted, deleted.body.previous.title], [200, true, { rendered: 'x' }]);
  assert.not.ok('_links' in deleted.body.previous);
  const again = await t.request('DELETE', `/core/v2/menu-items/${item.id}?force=true`, { as: admin });
  assert.equal([again.status, again.body.code], [404, 'rest_post_invalid_id']);
});

items('who may read and write menu items', async () => {
  const item = await make(t, admin, '/core/v2/menu-items', { title: 'x', url: 'https://x.y' });
  const anonymous = await t.request('GET', '/core/v2/menu-items');
  assert.equal(
    [anonymous.status, anonymous.body.code, anonymous.body.message],
    [401, 'rest_cannot_view', 'Sorry, you are not allowed to view menu items.'],
  );
  assert.is((await t.request('GET', `/core/v2/menu-items/${item.id}`, { as: subscriber })).status, 403);
  assert.equal(ids(await t.request('GET', '/core/v2/menu-items', { as: contributor })), [item.id]);
  assert.is(
    (await t.request('GET', '/core/v2/menu-items?context=edit', { as: contributor })).body.code,
    'rest_forbidden_context',
  );
  const create = await t.request('POST', '/core/v2/menu-items', {
    as: editor,
    body: { title: 'x', url: 'https://x.y' },
  });
  assert.equal([create.status, create.body.code], [403, 'rest_cannot_create']);
  const update = await t.request('POST', `/core/v2/menu-items/${item.id}`, { as: editor, body: { title: 'y' } });
  assert.equal([update.status, update.body.code], [403, 'rest_cannot_edit']);
  const remove = await t.request('DELETE', `/core/v2/menu-items/${item.id}?force=true`);
  assert.equal([remove.status, remove.body.code], [401, 'rest_cannot_delete']);
});

items('menu items are batchable', async () => {
  const batch = await t.request('POST', '/batch/v1', {
    as: admin,
    body: { requests: [{ path: '/core/v2/menu-items', body: { title: 'B', url: 'https://b.c' } }] },
  });
  assert.is(batch.status, 207);
  assert.is(batch.body.responses[0].status, 201);
});

items.run();

// ---------------------------------------------------------------------------------------------------------------

const adapters: [string, () => { readModel: ReadModel; cleanup(): Promise<void> }][] = [
  ['memory', () => ({ readModel: createMemoryReadModel(), cleanup: async () => {} })],
  ['redis', testRedisReadModel],
];

for (const [adapterName, open] of adapters) {
  const lists = suite(`menu items: lists (${adapterName} read model)`);
  let cleanup: () => Promise<void>;
  let m: Record<string, number>;
  let it: Record<string, number>;

  lists.before.each(async () => {
    const opened = open();
    cleanup = opened.cleanup;
    t = await startTestSite({ readModel: opened.readModel });
    admin = await t.createUser('admin', 'administrator');
    const main = await make(t, admin, '/core/v2/menus', { name: 'Main' });
    const footer = await make(t, admin, '/core/v2/menus', { name: 'Footer' });
    m = { main: main.id, footer: footer.id };
    const home = await make(t, admin, '/core/v2/menu-items', {
      title: 'Home',
      url: 'https://e.x/',
      menus: main.id,
      menu_order: 3,
    });
    const about = await make(t, admin, '/core/v2/menu-items', {
      title: 'About us',
      url: 'https://e.x/about',
      menus: main.id,
      menu_order: 1,
    });
    const legal = await make(t, admin, '/core/v2/menu-items', {
      title: 'Legal',
      url: 'https://e.x/legal',
      menus: footer.id,
      menu_order: 2,
    });
    const draft = await make(t, admin, '/core/v2/menu-items', {
      title: 'Draft',
      url: 'https://e.x/d',
      menus: main.id,
      status: 'draft',
    });
    const loose = await make(t, admin, '/core/v2/menu-items', {
      title: 'Loose',
      url: 'https://e.x/l',
      menu_order: 5,
      description: 'about nothing',
    });
    it = { home: home.id, about: about.id, legal: legal.id, draft: draft.id, loose: loose.id };
  });
  lists.after.each(async () => {
    await t.close();
    await cleanup();
  });

  const list = async (query: string) => {
    const response = await t.request('GET', `/core/v2/menu-items${query}`, { as: admin });
    assert.is(response.status, 200, JSON.stringify(response.body));
    return response;
  };

  lists('defaults: published only, by menu_order ascending, per_page 100', async () => {
    const all = await list('');
    assert.equal(ids(all), [it.about, it.legal, it.home, it.loose]);
    assert.is(all.headers.get('x-wp-total'), '4');
    assert.equal(ids(await list('?order=desc')), [it.loose, it.home, it.legal, it.about]);
    assert.equal(ids(await list('?status=draft')), [it.draft]);
    assert.equal(ids(await list('?orderby=title')), [it.about, it.home, it.legal, it.loose]);
    assert.equal(ids(await list('?orderby=id&order=desc&per_page=2&page=2')), [it.about, it.home]);
    assert.equal(ids(await list('?menu_order=2')), [it.legal]);
    assert.equal(ids(await list(`?include[]=${it.home}&include[]=${it.about}&orderby=include`)), [it.home, it.about]);
  });

  lists('menus and menus_exclude as id lists and as taxonomy queries', async () => {
    assert.equal(ids(await list(`?menus=${m.main}`)), [it.about, it.home]);
    assert.equal(ids(await list(`?menus[]=${m.main}&menus[]=${m.footer}`)), [it.about, it.legal, it.home]);
    assert.equal(ids(await list(`?menus[terms][]=${m.main}&menus[terms][]=${m.footer}&menus[operator]=AND`)), []);
    assert.equal(ids(await list(`?menus_exclude=${m.main}`)), [it.legal, it.loose]);
    assert.equal(ids(await list(`?menus_exclude[terms][]=${m.footer}`)), [it.about, it.home, it.loose]);
    assert.equal(
      ids(await list(`?menus=${m.main}&menus_exclude=${m.footer}&tax_relation=OR`)),
      [it.about, it.legal, it.home, it.loose].filter((id) => id !== it.legal),
    );
  });

  lists('search looks at title, attribute title and description', async () => {
    assert.equal(ids(await list('?search=about')), [it.about, it.loose]);
    assert.equal(ids(await list('?search=about&search_columns[]=post_title')), [it.about]);
    const relevance = await t.request('GET', '/core/v2/menu-items?orderby=relevance', { as: admin });
    assert.is(relevance.body.code, 'rest_no_search_term_defined');
  });

  lists('menus list, count order and hide_empty', async () => {
    const response = await t.request('GET', '/core/v2/menus', { as: admin });
    assert.equal(ids(response), [m.footer, m.main]);
    assert.equal(ids(await t.request('GET', '/core/v2/menus?orderby=count&order=desc', { as: admin })), [
      m.main,
      m.footer,
    ]);
    const empty = await make(t, admin, '/core/v2/menus', { name: 'Empty' });
    assert.equal(ids(await t.request('GET', '/core/v2/menus?hide_empty=true', { as: admin })), [m.footer, m.main]);
    assert.equal(ids(await t.request('GET', '/core/v2/menus?search=emp', { as: admin })), [empty.id]);
  });

  lists.run();
}
