/** The menu and menu-item deciders and the menu-items projection, as pure functions. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/core/errors';
import { rejectsWith } from '../support/domainErrors';
import { menuDecider, menuItemDecider, menuItemNeedsSlug, menuItemSlugBase } from '../../src/resources/menus/decider';
import type { MenuItemState } from '../../src/resources/menus/decider';
import type { MenuItemEvent } from '../../src/resources/menus/events';
import menuItems from '../../projections/menuItems';
import menus from '../../projections/menus';
import type { RecordedEvent } from '../../src/ports/eventStore';

const facts = { menuExists: true, archiveTypeExists: true, linkedTitle: null };
const now = '2024-05-01T12:00:00';
const fold = (events: MenuItemEvent[]): MenuItemState =>
  events.reduce(menuItemDecider.evolve, menuItemDecider.initialState());

test('a custom link is its own object, with WordPress defaults; other statuses become drafts', () => {
  const [event] = menuItemDecider.decide(
    {
      kind: 'create',
      id: 7,
      input: { title: 'Home', url: 'https://e.x/', status: 'pending' },
      facts,
      slug: '',
      actorId: 1,
      now,
    },
    menuItemDecider.initialState(),
  );
  assert.equal(event, {
    type: 'MenuItemCreated',
    data: {
      id: 7,
      item: {
        title: 'Home',
        status: 'draft',
        url: 'https://e.x/',
        attr_title: '',
        description: '',
        type: 'custom',
        object: 'custom',
        object_id: 7,
        parent: 0,
        menu_order: 1,
        target: '',
        classes: '',
        xfn: '',
        menu: 0,
        slug: '',
        guid: '/?p=7',
        author: 1,
        date: now,
        modified: now,
      },
    },
  });
});

test('refusals: title and url of custom links (both reported), unknown menu, unknown archive type, missing item', () => {
  const create =
    (input: object, f = facts) =>
    () =>
      menuItemDecider.decide(
        { kind: 'create', id: 1, input, facts: f, slug: 'x', actorId: 1, now },
        menuItemDecider.initialState(),
      );
  const invalid = (fields: [string, ...string[]], rule: string) =>
    ({ code: 'invalid_value', subject: 'menuItem', fields, rule }) as const;
  rejectsWith(create({}), invalid(['title', 'url'], 'required'));
  rejectsWith(create({ title: 'x' }), invalid(['url'], 'required'));
  rejectsWith(create({ url: 'u' }), invalid(['title'], 'required'));
  rejectsWith(
    create({ title: 'x', url: 'u', menu: 3 }, { ...facts, menuExists: false }),
    invalid(['menu'], 'unknownReference'),
  );
  rejectsWith(
    create({ type: 'post_type_archive', object: 'nope' }, { ...facts, archiveTypeExists: false }),
    invalid(['object'], 'unknownReference'),
  );
  assert.is(create({ type: 'post_type', object: 'page', object_id: 5 })().length, 1);
  rejectsWith(() => menuItemDecider.decide({ kind: 'delete', id: 1 }, menuItemDecider.initialState()), {
    code: 'not_found',
    subject: 'menuItem',
  });
});

test('an update records only what changed, and the modification time', () => {
  const created = menuItemDecider.decide(
    { kind: 'create', id: 2, input: { title: 'A', url: 'u' }, facts, slug: 'a', actorId: 1, now },
    menuItemDecider.initialState(),
  );
  const state = fold(created);
  const [updated] = menuItemDecider.decide(
    { kind: 'update', id: 2, input: { title: 'A', menu_order: 4 }, facts, slug: '', now: '2024-05-02T00:00:00' },
    state,
  );
  assert.equal(updated!.data, { id: 2, changes: { menu_order: 4, modified: '2024-05-02T00:00:00' } });
  const [deleted] = menuItemDecider.decide({ kind: 'delete', id: 2 }, fold([...created, updated!]));
  assert.equal(deleted, { type: 'MenuItemDeleted', data: { id: 2, menu: 0 } });
});

test('menus: duplicate names and empty names are refused; an unchanged update appends nothing', () => {
  const fields = { name: 'Main', slug: 'main', description: '', autoAdd: false, locations: [] };
  rejectsWith(
    () => menuDecider.decide({ kind: 'create', id: 3, fields, nameConflict: 2 }, menuDecider.initialState()),
    {
      code: 'already_exists',
      subject: 'menu',
      by: 'name',
      details: { value: 'Main', existingId: 2 },
    },
  );
  rejectsWith(
    () =>
      menuDecider.decide(
        { kind: 'create', id: 3, fields: { ...fields, name: ' ' }, nameConflict: null },
        menuDecider.initialState(),
      ),
    {
      code: 'invalid_value',
      subject: 'menu',
      fields: ['name'],
      rule: 'empty',
    },
  );
  const created = menuDecider.decide({ kind: 'create', id: 3, fields, nameConflict: null }, menuDecider.initialState());
  const state = created.reduce(menuDecider.evolve, menuDecider.initialState());
  assert.equal(menuDecider.decide({ kind: 'update', id: 3, input: { name: 'Main' }, nameConflict: 3 }, state), []);
  assert.equal(menuDecider.decide({ kind: 'update', id: 3, input: { autoAdd: true }, nameConflict: null }, state), [
    { type: 'MenuUpdated', data: { id: 3, changes: { autoAdd: true } } },
  ]);
});

test("autosaves: the author's own draft is saved in place; otherwise one empty autosave per user, the next one discarding it", () => {
  const autosave = (actorId: number, autosaveId: number) => ({
    kind: 'autosave' as const,
    id: 5,
    actorId,
    autosaveId,
    now: '2024-05-03T11:00:00',
    nowGmt: '2024-05-03T09:00:00',
  });
  rejectsWith(() => menuItemDecider.decide(autosave(1, 50), menuItemDecider.initialState()), {
    code: 'not_found',
    subject: 'menuItem',
  });

  const draft = fold(
    menuItemDecider.decide(
      { kind: 'create', id: 5, input: { title: 'D', url: 'u', status: 'draft' }, facts, slug: '', actorId: 1, now },
      menuItemDecider.initialState(),
    ),
  );
  const savedInPlace = menuItemDecider.decide(autosave(1, 50), draft);
  assert.equal(savedInPlace, [
    { type: 'MenuItemUpdated', data: { id: 5, changes: { modified: '2024-05-03T11:00:00' }, autosave: true } },
  ]);
  // Marked as an autosave, it keeps the item's last save; an update moves it.
  assert.is(savedInPlace.reduce(menuItemDecider.evolve, draft).savedAt, draft.savedAt);
  const updated = menuItemDecider.decide(
    { kind: 'update', id: 5, input: {}, facts, slug: '', now: '2024-05-03T12:00:00' },
    draft,
  );
  assert.is(updated.reduce(menuItemDecider.evolve, draft).savedAt, '2024-05-03T12:00:00');
  assert.is(updated.reduce(menuItemDecider.evolve, draft).publishedAt, null, 'never published');

  const made = menuItemDecider.decide(autosave(2, 50), draft);
  assert.equal(made, [
    {
      type: 'MenuItemAutosaved',
      data: { id: 5, autosaveId: 50, userId: 2, date: '2024-05-03T11:00:00', date_gmt: '2024-05-03T09:00:00' },
    },
  ]);
  const withAutosave = made.reduce(menuItemDecider.evolve, draft);
  assert.equal(withAutosave.autosaves, { 2: 50 });
  const discarded = menuItemDecider.decide(autosave(2, 51), withAutosave);
  assert.equal(discarded, [{ type: 'MenuItemAutosaveDiscarded', data: { id: 5, autosaveId: 50, userId: 2 } }]);
  const after = discarded.reduce(menuItemDecider.evolve, withAutosave);
  assert.equal(after.autosaves, {});
  assert.is(menuItemDecider.decide(autosave(2, 52), after)[0]!.type, 'MenuItemAutosaved');

  // The projection keeps one entry per user and drops a discarded one.
  const item = {
    title: 'D',
    status: 'draft',
    url: 'u',
    attr_title: '',
    description: '',
    type: 'custom',
    object: 'custom',
    object_id: 5,
    parent: 0,
    menu_order: 1,
    target: '',
    classes: '',
    xfn: '',
    menu: 0,
    author: 1,
    date: now,
    modified: now,
  };
  let doc = menuItems.evolve(null, recorded('MenuItemCreated', { id: 5, item }))!;
  assert.equal(doc.autosaves, []);
  doc = menuItems.evolve(
    doc,
    recorded('MenuItemAutosaved', { id: 5, autosaveId: 50, userId: 2, date: 'd1', date_gmt: 'g1' }),
  )!;
  doc = menuItems.evolve(
    doc,
    recorded('MenuItemAutosaved', { id: 5, autosaveId: 53, userId: 3, date: 'd2', date_gmt: 'g2' }),
  )!;
  assert.equal(
    doc.autosaves.map((a) => [a.id, a.author]),
    [
      [50, 2],
      [53, 3],
    ],
  );
  doc = menuItems.evolve(doc, recorded('MenuItemAutosaveDiscarded', { id: 5, autosaveId: 50, userId: 2 }))!;
  assert.equal(doc.autosaves, [{ id: 53, author: 3, date: 'd2', date_gmt: 'g2' }]);
});

const recorded = (type: string, data: unknown): RecordedEvent => ({ type, data }) as unknown as RecordedEvent;

test('projections: menu items indexed by menu, order and text; menus keep auto_add', () => {
  // Recorded before items had a slug: once published, its id is its slug.
  const item = {
    title: 'About',
    status: 'publish',
    url: 'u',
    attr_title: 'at',
    description: 'desc',
    type: 'custom',
    object: 'custom',
    object_id: 9,
    parent: 0,
    menu_order: 2,
    target: '',
    classes: '',
    xfn: '',
    menu: 4,
    author: 1,
    date: now,
    modified: now,
  };
  const doc = menuItems.evolve(null, recorded('MenuItemCreated', { id: 9, item }))!;
  const index = menuItems.index!(doc, 'menu_item');
  assert.equal(index.sets, { status: 'publish', author: 1, slug: '9', parent: 0, menus: 4 });
  assert.equal(index.sort!.menu_order, 2);
  assert.equal(index.text, { title: 'About', excerpt: 'at', content: 'desc' });
  const moved = menuItems.evolve(doc, recorded('MenuItemUpdated', { id: 9, changes: { menu: 0 } }))!;
  assert.is(menuItems.index!(moved, 'menu_item').sets!.menus, 0);
  assert.is(menuItems.evolve(moved, recorded('MenuItemDeleted', { id: 9, menu: 0 })), null);

  const menu = menus.evolve(
    null,
    recorded('MenuCreated', { id: 4, name: 'Main', slug: 'main', description: '', autoAdd: false, locations: [] }),
  )!;
  assert.is(menu.auto_add, false);
  assert.is(menus.evolve(menu, recorded('MenuUpdated', { id: 4, changes: { autoAdd: true } }))!.auto_add, true);
});

test('slugs: named at first publication (given by the operations), kept after; the guid fixed at creation', () => {
  const create = (id: number, input: object, slug: string) =>
    menuItemDecider.decide({ kind: 'create', id, input, facts, slug, actorId: 1, now }, menuItemDecider.initialState());
  const published = fold(create(3, { title: 'Hello World', url: 'u' }, 'hello-world-2'));
  assert.equal([published.item!.slug, published.item!.guid], ['hello-world-2', '/hello-world-2/']);
  // Retitled, drafted and republished: the name stays, and no claim is asked for.
  const retitled = menuItemDecider.decide(
    { kind: 'update', id: 3, input: { title: 'Other', status: 'draft' }, facts, slug: '', now },
    published,
  );
  assert.equal(retitled[0]!.data, { id: 3, changes: { title: 'Other', status: 'draft', modified: now } });
  const republished = menuItemDecider.decide(
    { kind: 'update', id: 3, input: { status: 'publish' }, facts, slug: '', now },
    fold([...create(3, { title: 'Hello World', url: 'u' }, 'hello-world-2'), ...retitled]),
  );
  assert.equal(republished[0]!.data, { id: 3, changes: { status: 'publish', modified: now } });

  // A draft has no name and a ?p= guid; publishing it names it and keeps the guid.
  const draft = fold(create(4, { title: 'Later', url: 'u', status: 'draft' }, ''));
  assert.equal([draft.item!.slug, draft.item!.guid], ['', '/?p=4']);
  const [publishing] = menuItemDecider.decide(
    { kind: 'update', id: 4, input: { status: 'publish', title: 'Renamed' }, facts, slug: 'renamed', now },
    draft,
  );
  assert.equal(publishing!.data, {
    id: 4,
    changes: { title: 'Renamed', status: 'publish', slug: 'renamed', modified: now },
  });
  assert.equal(
    fold([...create(4, { title: 'Later', url: 'u', status: 'draft' }, ''), publishing!]).item!.guid,
    '/?p=4',
  );

  // A write that publishes without a claimed name is a bug in the caller, not a client's error.
  assert.throws(
    () => create(5, { title: 'X', url: 'u' }, ''),
    (error: unknown) => !(error instanceof DomainError),
  );
  // What the operations ask for: the item's own title made a slug, else its id.
  assert.is(menuItemSlugBase(6, 'Ça & va? <b>x</b> 日本 -- a_b  C.D'), 'ca-va-x-%e6%97%a5%e6%9c%ac-a_b-c-d');
  assert.is(menuItemSlugBase(6, '!!!'), '6');
  assert.is(menuItemSlugBase(6, ''), '6');
  assert.equal(
    [
      menuItemNeedsSlug('', { status: 'publish' }),
      menuItemNeedsSlug('', { status: 'draft' }),
      menuItemNeedsSlug('a', { status: 'publish' }),
    ],
    [true, false, false],
  );
});

test('slugs of events recorded before they were: a published item is named by its id, a draft when published', () => {
  const legacy = {
    title: 'Old',
    status: 'draft',
    url: 'u',
    attr_title: '',
    description: '',
    type: 'custom',
    object: 'custom',
    object_id: 8,
    parent: 0,
    menu_order: 1,
    target: '',
    classes: '',
    xfn: '',
    menu: 0,
    author: 1,
    date: now,
    modified: now,
  };
  const events = [
    { type: 'MenuItemCreated', data: { id: 8, item: legacy } },
    { type: 'MenuItemUpdated', data: { id: 8, changes: { status: 'publish', modified: now } } },
  ] as unknown as MenuItemEvent[];
  assert.equal([fold(events.slice(0, 1)).item!.slug, fold(events.slice(0, 1)).item!.guid], ['', '/?p=8']);
  assert.equal([fold(events).item!.slug, fold(events).item!.guid], ['8', '/?p=8']);
  let doc = menuItems.evolve(null, recorded('MenuItemCreated', events[0]!.data))!;
  assert.is(menuItems.index!(doc, 'menu_item').sets!.slug, '');
  doc = menuItems.evolve(doc, recorded('MenuItemUpdated', events[1]!.data))!;
  assert.is(menuItems.index!(doc, 'menu_item').sets!.slug, '8');
  // A draft recorded before, published now, is named from its title like any other.
  const [publishedNow] = menuItemDecider.decide(
    { kind: 'update', id: 8, input: { status: 'publish' }, facts, slug: 'old', now },
    fold(events.slice(0, 1)),
  );
  assert.is((publishedNow!.data as { changes: { slug?: string } }).changes.slug, 'old');
});

test.run();
