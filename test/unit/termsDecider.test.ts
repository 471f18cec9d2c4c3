/** Given events / when command / then events: WordPress's term write rules, without any I/O. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_CATEGORY_ID,
  findNameConflict,
  initialTermState,
  termDecider,
} from '../../src/resources/terms/decider';
import type { NameConflictQuery, TermCommand, TermState } from '../../src/resources/terms/decider';
import type { TermCreated, TermEvent, TermFields, TermUpdated } from '../../src/resources/terms/events';
import { termSlugCandidates } from '../../src/resources/terms/operations';
import { rejectsWith } from '../support/domainErrors';

const test = suite('terms decider');

function given(events: TermEvent[]): TermState {
  return events.reduce(termDecider.evolve, initialTermState());
}

const created = (
  id: number,
  fields: Partial<TermFields> = {},
  taxonomy: 'category' | 'post_tag' = 'category',
): TermEvent => ({
  type: 'TermCreated',
  data: { id, taxonomy, name: 'News', slug: 'news', description: '', parent: 0, ...fields },
});

const rejects = rejectsWith;

const decide = (command: TermCommand, events: TermEvent[] = []) => termDecider.decide(command, given(events));
const fields = (extra: Partial<TermFields> = {}): TermFields => ({
  name: 'News',
  slug: 'news',
  description: '',
  parent: 0,
  ...extra,
});

test('creating a term records every stored field', () => {
  const [event] = decide({
    kind: 'create',
    id: 5,
    taxonomy: 'category',
    fields: fields({ parent: 2, description: 'd' }),
    nameConflict: null,
  });
  assert.equal(event, {
    type: 'TermCreated',
    data: { id: 5, taxonomy: 'category', name: 'News', slug: 'news', description: 'd', parent: 2 },
  });
});

test('a tag never has a parent', () => {
  const [event] = decide({
    kind: 'create',
    id: 5,
    taxonomy: 'post_tag',
    fields: fields({ parent: 3 }),
    nameConflict: null,
  });
  assert.is((event!.data as TermCreated).parent, 0);
});

test('an empty or blank name is refused', () => {
  rejects(
    () => decide({ kind: 'create', id: 5, taxonomy: 'post_tag', fields: fields({ name: ' \t' }), nameConflict: null }),
    { code: 'invalid_value', subject: 'term', fields: ['name'], rule: 'empty' },
  );
  rejects(
    () =>
      decide({ kind: 'update', id: 4, taxonomy: 'category', input: { name: '' }, parentAncestors: [] }, [created(4)]),
    { code: 'invalid_value', subject: 'term', fields: ['name'], rule: 'empty' },
  );
});

test('a duplicate name names the existing term, unique among siblings for categories and in the taxonomy for tags', () => {
  rejects(() => decide({ kind: 'create', id: 5, taxonomy: 'category', fields: fields(), nameConflict: 3 }), {
    code: 'already_exists',
    subject: 'term',
    by: 'name',
    details: { existingId: 3, scope: 'parent' },
  });
  rejects(() => decide({ kind: 'create', id: 5, taxonomy: 'post_tag', fields: fields(), nameConflict: 9 }), {
    code: 'already_exists',
    subject: 'term',
    by: 'name',
    details: { existingId: 9, scope: 'taxonomy' },
  });
});

test('an update records only the fields that changed; an update changing nothing records nothing', () => {
  const [event] = decide(
    { kind: 'update', id: 4, taxonomy: 'category', input: { name: 'News', description: 'new' }, parentAncestors: [] },
    [created(4)],
  );
  assert.equal((event!.data as TermUpdated).changes, { description: 'new' });
  assert.equal(
    decide(
      { kind: 'update', id: 4, taxonomy: 'category', input: { name: 'News', slug: 'news' }, parentAncestors: [] },
      [created(4)],
    ),
    [],
  );
});

test('a parent that would make a loop makes the term top-level instead', () => {
  const history = [created(4, { parent: 2 })];
  const self = decide(
    { kind: 'update', id: 4, taxonomy: 'category', input: { parent: 4 }, parentAncestors: [4, 2] },
    history,
  );
  assert.equal((self[0]!.data as TermUpdated).changes, { parent: 0 });
  // 7 sits below 4: putting 4 under 7 would close a loop.
  const below = decide(
    { kind: 'update', id: 4, taxonomy: 'category', input: { parent: 7 }, parentAncestors: [7, 4, 2] },
    history,
  );
  assert.equal((below[0]!.data as TermUpdated).changes, { parent: 0 });
  const fine = decide(
    { kind: 'update', id: 4, taxonomy: 'category', input: { parent: 9 }, parentAncestors: [9] },
    history,
  );
  assert.equal((fine[0]!.data as TermUpdated).changes, { parent: 9 });
});

test('updating or deleting a missing, deleted or other-taxonomy term is rest_term_invalid 404', () => {
  rejects(() => decide({ kind: 'update', id: 4, taxonomy: 'category', input: { name: 'x' }, parentAncestors: [] }), {
    code: 'not_found',
    subject: 'term',
  });
  rejects(
    () =>
      decide({ kind: 'delete', id: 4, taxonomy: 'category' }, [
        created(4),
        { type: 'TermDeleted', data: { id: 4, taxonomy: 'category', parent: 0 } },
      ]),
    { code: 'not_found', subject: 'term' },
  );
  rejects(() => decide({ kind: 'delete', id: 4, taxonomy: 'category' }, [created(4, {}, 'post_tag')]), {
    code: 'not_found',
    subject: 'term',
  });
});

test('deleting records the parent the children move to; the default category cannot be deleted', () => {
  assert.equal(decide({ kind: 'delete', id: 4, taxonomy: 'category' }, [created(4, { parent: 2 })]), [
    { type: 'TermDeleted', data: { id: 4, taxonomy: 'category', parent: 2 } },
  ]);
  rejects(
    () => decide({ kind: 'delete', id: DEFAULT_CATEGORY_ID, taxonomy: 'category' }, [created(DEFAULT_CATEGORY_ID)]),
    { code: 'forbidden', subject: 'term', rule: 'defaultTerm' },
  );
});

test('a child moves up only while it is still under the deleted term', () => {
  const moved = decide({ kind: 'reparent', id: 6, taxonomy: 'category', from: 4, to: 2 }, [created(6, { parent: 4 })]);
  assert.equal(moved, [{ type: 'TermUpdated', data: { id: 6, taxonomy: 'category', changes: { parent: 2 } } }]);
  assert.equal(
    decide({ kind: 'reparent', id: 6, taxonomy: 'category', from: 4, to: 2 }, [created(6, { parent: 5 })]),
    [],
  );
  assert.equal(decide({ kind: 'reparent', id: 6, taxonomy: 'category', from: 4, to: 2 }), []);
});

test('creating over an existing stream is refused', () => {
  rejects(
    () => decide({ kind: 'create', id: 4, taxonomy: 'category', fields: fields(), nameConflict: null }, [created(4)]),
    { code: 'already_exists', subject: 'term', by: 'id' },
  );
});

const query = (extra: Partial<NameConflictQuery>): NameConflictQuery => ({
  hierarchical: true,
  name: 'News',
  parent: 0,
  explicitSlug: null,
  slug: 'news',
  nameMatch: { id: 3, slug: 'news' },
  exactSibling: true,
  slugMatch: { id: 3, parent: 0 },
  ...extra,
});

test('name conflicts: none without a same-level name match', () => {
  assert.is(findNameConflict(query({ nameMatch: null, exactSibling: false })), null);
});

test('name conflicts: the same name at the same level, no slug given', () => {
  assert.is(findNameConflict(query({})), 3);
  assert.is(findNameConflict(query({ hierarchical: false })), 3);
});

test('name conflicts: a name differing in case is caught through its slug (categories) or directly (tags)', () => {
  const differentCase = query({ name: 'news', exactSibling: false });
  assert.is(findNameConflict(differentCase), 3);
  assert.is(findNameConflict({ ...differentCase, hierarchical: false }), 3);
  // The match has a custom slug and nothing has the derived one: a category may be created, a tag may not.
  const customSlug = query({
    name: 'NEWS',
    exactSibling: false,
    nameMatch: { id: 3, slug: 'custom' },
    slugMatch: null,
  });
  assert.is(findNameConflict(customSlug), null);
  assert.is(findNameConflict({ ...customSlug, hierarchical: false }), 3);
});

test("name conflicts: a free slug of the client's own allows the same name", () => {
  assert.is(findNameConflict(query({ explicitSlug: 'news-again', slug: 'news-again', slugMatch: null })), null);
  assert.is(
    findNameConflict(query({ hierarchical: false, explicitSlug: 'news-again', slug: 'news-again', slugMatch: null })),
    null,
  );
  // Its own slug is taken, at the same level: the taken one is reported.
  assert.is(findNameConflict(query({ explicitSlug: 'other', slug: 'other', slugMatch: { id: 8, parent: 0 } })), 8);
  // Taken elsewhere in the tree: the category is created (with a de-duplicated slug).
  assert.is(findNameConflict(query({ explicitSlug: 'other', slug: 'other', slugMatch: { id: 8, parent: 5 } })), null);
});

test("slug candidates: base, then the ancestors' slugs one by one, then numbers on the longest form", () => {
  const take = (iterable: Iterable<string>, n: number) => {
    const out: string[] = [];
    for (const s of iterable) {
      out.push(s);
      if (out.length === n) break;
    }
    return out;
  };
  assert.equal(take(termSlugCandidates('news', []), 3), ['news', 'news-2', 'news-3']);
  assert.equal(take(termSlugCandidates('news', ['sport', 'world']), 5), [
    'news',
    'news-sport',
    'news-sport-world',
    'news-sport-world-2',
    'news-sport-world-3',
  ]);
});

test.run();
