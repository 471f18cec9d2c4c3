/** The posts/pages list language: search parsing and the translation of params into a plan. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildListPlan, contentListArgs, parseSearch } from '../../src/resources/content/listQuery';
import { validateArgs } from '../../src/rest/args/routeArgs';
import { RestError } from '../../src/rest/errors';

const test = suite('list query');

test('search terms: split on spaces, commas and plus; quotes kept whole; exclusions; stopwords and letters dropped', () => {
  assert.equal(parseSearch('apple banana'), { phrase: 'apple banana', includes: ['apple', 'banana'], excludes: [] });
  assert.equal(parseSearch('apple,banana+cherry'), {
    phrase: 'apple,banana+cherry',
    includes: ['apple', 'banana', 'cherry'],
    excludes: [],
  });
  assert.equal(parseSearch('"red apple" pie').includes, ['red apple', 'pie']);
  assert.equal(parseSearch('apple -pie'), { phrase: 'apple -pie', includes: ['apple'], excludes: ['pie'] });
  assert.equal(parseSearch('the apple of a tree').includes, ['apple', 'tree']);
  // Nothing left after dropping stopwords: the whole string is the one term.
  assert.equal(parseSearch('the of').includes, ['the of']);
  // More than nine terms: the whole string too.
  const many = 'one two three four five six seven eight nine ten';
  assert.equal(parseSearch(many).includes, [many]);
});

async function plan(query: Record<string, unknown>, postType: 'post' | 'page' = 'post', signedIn = false) {
  const validated = validateArgs(contentListArgs(postType), query);
  if ('error' in validated) throw validated.error;
  return buildListPlan(validated.values, {
    postType,
    timezone: 'Europe/Berlin',
    signedIn,
    descendants: async (ids) => ids.map((id) => id * 10),
  });
}

test('defaults: published items by date, newest first, first page of ten', async () => {
  assert.equal(await plan({}), {
    filters: [{ kind: 'any', field: 'status', values: ['publish'] }],
    order: { kind: 'field', field: 'date', direction: 'desc' },
    offset: 0,
    limit: 10,
  });
});

test('include wins over exclude; offset replaces paging; dates are exclusive local bounds', async () => {
  const p = await plan({
    include: '3,4',
    exclude: '4',
    page: '3',
    per_page: '5',
    offset: '2',
    after: '2024-01-01T00:00:00Z',
  });
  assert.equal(p.filters[1], { kind: 'any', field: 'id', values: [3, 4] });
  assert.ok(!p.filters.some((f) => f.kind === 'none'));
  assert.is(p.offset, 2);
  // Midnight UTC is 01:00 in Berlin in winter: the bound is site-local wall-clock time.
  assert.equal(p.filters[2], { kind: 'range', field: 'date', gt: Date.parse('2024-01-01T01:00:00Z') });
});

test('taxonomy queries: id lists, objects with operator and children, OR relation', async () => {
  const p = await plan({
    categories: { terms: ['2'], include_children: 'true' },
    tags: { terms: ['5', '6'], operator: 'AND' },
    tags_exclude: '9',
    tax_relation: 'OR',
  });
  assert.equal(p.filters[1], {
    kind: 'or',
    filters: [
      { kind: 'any', field: 'categories', values: [2, 20] },
      { kind: 'all', field: 'tags', values: [5, 6] },
      { kind: 'none', field: 'tags', values: [9] },
    ],
  });
  const bad = validateArgs(contentListArgs('post'), { categories: { terms: [1], colour: 'red' } });
  assert.ok('error' in bad && bad.error.code === 'rest_invalid_param');
  const slugs = validateArgs(contentListArgs('post'), { tags: ['my-tag'] });
  assert.ok('error' in slugs);
});

test('search: text filter over the chosen columns; anonymous searches skip protected items', async () => {
  const anonymous = await plan({ search: 'apple -pie', search_columns: 'post_title' });
  assert.equal(anonymous.filters.slice(1), [
    { kind: 'text', fields: ['title'], includes: ['apple'], excludes: ['pie'] },
    { kind: 'none', field: 'protected', values: [1] },
  ]);
  const signedIn = await plan({ search: 'apple' }, 'post', true);
  assert.is(signedIn.filters.length, 2);
});

test('orderby errors: relevance without search, include without include', async () => {
  for (const [query, code] of [
    [{ orderby: 'relevance' }, 'rest_no_search_term_defined'],
    [{ orderby: 'include' }, 'rest_orderby_include_missing_include'],
  ] as const) {
    try {
      await plan(query);
      assert.unreachable(code);
    } catch (error) {
      assert.instance(error, RestError);
      assert.is((error as RestError).code, code);
      assert.is((error as RestError).status, 400);
    }
  }
  const relevance = await plan({ orderby: 'relevance', search: 'apple pie' });
  assert.equal(relevance.order, {
    kind: 'relevance',
    phrase: 'apple pie',
    terms: ['apple', 'pie'],
    columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
    tieBreak: { field: 'date', direction: 'desc' },
  });
});

test('pages: parent filters, menu_order, no taxonomy or sticky params', async () => {
  const p = await plan(
    { parent: '0', parent_exclude: '7', menu_order: '2', orderby: 'menu_order', order: 'asc' },
    'page',
  );
  assert.equal(p.filters.slice(1), [
    { kind: 'any', field: 'parent', values: [0] },
    { kind: 'none', field: 'parent', values: [7] },
    { kind: 'range', field: 'menu_order', gte: 2, lte: 2 },
  ]);
  assert.equal(p.order, { kind: 'field', field: 'menu_order', direction: 'asc' });
  assert.ok(!('sticky' in contentListArgs('page')));
  assert.ok(!('categories' in contentListArgs('page')));
});

test.run();
