/** The compiled context filter of presented items gives exactly what the generic filterByContext gives. */
import v8 from 'node:v8';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filterByContext } from '../../src/rest/schema';
import type { Context, JsonSchema, ResourceSchema } from '../../src/rest/schema';
import { ContextFilter } from '../../src/resources/content/contextFilter';
import { contentSchema } from '../../src/resources/content/schema';
import { presentContent } from '../../src/resources/content/present';
import type { PresentOptions } from '../../src/resources/content/present';
import type { ContentDoc } from '../../projections/content';
import { contentDoc } from '../support/contentDoc';

const test = suite('compiled context filter');

const CONTEXTS: Context[] = ['view', 'edit', 'embed'];
const ALL: Context[] = ['view', 'edit', 'embed'];
const EDIT: Context[] = ['edit'];

/** Same value, same keys in the same order at every level (JSON text compares both). */
function assertSameAsGeneric(schema: ResourceSchema | JsonSchema, value: object, context: Context): void {
  const compiled = new ContextFilter(schema as JsonSchema, context).apply(value);
  assert.is(JSON.stringify(compiled), JSON.stringify(filterByContext(schema, value, context)));
  assert.equal(compiled, filterByContext(schema, value, context));
}

const doc = (overrides: Partial<ContentDoc> = {}): ContentDoc =>
  contentDoc(42, {
    slug: 'hello-world',
    title: 'Hello "world"',
    content: "<!-- wp:paragraph -->\n<p>It's -- here.</p>\n<!-- /wp:paragraph -->",
    author: 3,
    categories: [1, 5],
    revision_count: 2,
    latest_revision_id: 44,
    last_revision_id: 44,
    ...overrides,
  });

const options = (context: Context, extra: Partial<PresentOptions> = {}): PresentOptions => ({
  context,
  passwordAccepted: true,
  siteUrl: 'https://example.org',
  apiRoot: 'https://example.org/wp-json/',
  timezone: 'UTC',
  restBase: 'core/v2/posts',
  ...extra,
});

for (const postType of ['post', 'page'] as const) {
  for (const context of CONTEXTS) {
    test(`a presented ${postType} in ${context} context: as the generic filter gives it`, () => {
      const schema = contentSchema(postType);
      const filter = new ContextFilter(schema as JsonSchema, context);
      for (const d of [
        doc({ type: postType }),
        doc({ type: postType, password: 'secret', status: 'private', parent: 7 }),
      ]) {
        for (const extra of [
          {},
          { passwordAccepted: false, parentPath: 'up/', generatedSlug: 'hello-world-2', actions: ['publish'] },
        ]) {
          const generic = presentContent(d, schema, options(context, extra));
          const compiled = presentContent(d, schema, options(context, extra), filter);
          assert.is(JSON.stringify(compiled), JSON.stringify(generic));
        }
      }
    });
  }
}

test('fields the context drops are reported, so they need not be worked out', () => {
  const schema = contentSchema('post') as JsonSchema;
  assert.ok(new ContextFilter(schema, 'view').drops('generated_slug'));
  assert.ok(new ContextFilter(schema, 'view').drops('password'));
  assert.not.ok(new ContextFilter(schema, 'edit').drops('generated_slug'));
  assert.not.ok(new ContextFilter(schema, 'view').drops('title'));
  assert.not.ok(new ContextFilter(schema, 'view').drops('_links'));
});

/** A schema with every construct the generic walk knows about. */
const tricky: ResourceSchema = {
  title: 'tricky',
  type: 'object',
  properties: {
    plain: { type: 'string', context: ALL },
    editOnly: { type: 'string', context: EDIT },
    noContext: { type: 'object', properties: { secret: { type: 'string', context: EDIT } } },
    nested: {
      type: 'object',
      context: ALL,
      properties: {
        raw: { type: 'string', context: EDIT },
        deep: { type: 'object', context: ALL, properties: { x: { type: 'integer', context: EDIT } } },
      },
    },
    list: {
      type: 'array',
      context: ALL,
      items: { type: 'object', context: ALL, properties: { secret: { type: 'string', context: EDIT } } },
    },
    editItems: { type: 'array', context: ALL, items: { type: 'integer', context: EDIT } },
    bareItems: { type: 'array', context: ALL, items: { type: 'object' } },
    either: {
      type: ['object', 'array'],
      context: ALL,
      items: { type: 'object', context: ALL },
      properties: { secret: { type: 'string', context: EDIT } },
    },
    shape: {
      context: ALL,
      oneOf: [
        { type: 'string' },
        {
          type: 'object',
          properties: { note: { type: 'string', context: EDIT }, size: { type: 'integer', context: ALL } },
        },
      ],
    },
    patterned: { type: 'object', context: ALL, patternProperties: { '^x_': { type: 'string', context: EDIT } } },
    open: { type: 'object', context: ALL, additionalProperties: { type: 'string', context: EDIT } },
    leafWithObject: { type: ['string', 'null'], context: ALL },
    untyped: { context: ALL },
  },
};

const trickyValues: Record<string, unknown>[] = [
  {
    plain: 'p',
    editOnly: 'e',
    noContext: { secret: 's' },
    nested: { raw: 'r', rendered: 'x', deep: { x: 1, y: 2 } },
    list: [{ secret: 's', a: 1 }, 3, null],
    editItems: [1, 2],
    bareItems: [{ a: 1 }],
    either: { secret: 's', open: 'o' },
    shape: { note: 'n', size: 2 },
    patterned: { x_a: 'gone in view', y: 'kept' },
    open: { anything: 'edit only' },
    leafWithObject: { a: { b: 1 } },
    untyped: { z: 1 },
    _links: { self: [{ href: 'x' }] },
    undescribed: [1, { a: 2 }],
  },
  { either: [{ secret: 's' }], shape: 'round', nested: null, list: [], editItems: [], plain: null, nested2: 1 },
  { nested: [1, 2], list: { 0: { secret: 's' } } },
];

for (const context of CONTEXTS) {
  test(`every schema construct in ${context} context: as the generic filter gives it`, () => {
    for (const value of trickyValues) assertSameAsGeneric(tricky, value, context);
  });
}

test('an own "__proto__" key is kept as a property, as in a copy', () => {
  const value = JSON.parse('{"__proto__": {"a": 1}, "plain": "p"}') as object;
  for (const context of CONTEXTS) {
    const compiled = new ContextFilter(tricky as JsonSchema, context).apply(value) as Record<string, unknown>;
    assert.ok(Object.hasOwn(compiled, '__proto__'));
    assert.is(Object.getPrototypeOf(compiled), Object.prototype);
    assert.is(JSON.stringify(compiled), JSON.stringify(filterByContext(tricky, value, context)));
  }
});

// V8's own answer to whether an object keeps fast properties (a dictionary-mode item is slower to stringify).
v8.setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('value', 'return %HasFastProperties(value)') as (value: object) => boolean;

test('an object of many keys comes out with fast properties, as JSON.stringify takes them fastest', () => {
  // Keys no other code in this process builds objects of: a shape made elsewhere (say by JSON.parse of an item)
  // would let an object built key by key follow it and stay fast, which the server does not see.
  const keys = ['plain', 'editOnly', ...Array.from({ length: 22 }, (_, i) => `wideFilterKey${i}`)];
  for (const context of CONTEXTS) {
    const filter = new ContextFilter(tricky as JsonSchema, context);
    for (let n = 0; n < 3; n++) {
      const value = Object.fromEntries(keys.map((key, i) => [key, i + n]));
      const filtered = filter.apply(value) as Record<string, unknown>;
      assert.ok(hasFastProperties(filtered), context);
      assert.is(JSON.stringify(filtered), JSON.stringify(filterByContext(tricky, value, context)));
    }
  }
});

test('one filter on objects whose keys differ in number, order and kind: as the generic filter gives it', () => {
  const many = (keys: string[]) =>
    Object.fromEntries(keys.map((key, i) => [key, key === 'nested' ? { raw: 'r', rendered: i } : i]));
  const names = [
    'plain',
    'editOnly',
    'nested',
    'untyped',
    'a',
    'b',
    'c',
    'd',
    'e',
    'f',
    'g',
    'h',
    'i',
    'j',
    'k',
    'l',
    'm',
    'n',
  ];
  const sequences = [
    names,
    [...names].reverse(),
    names.slice(0, 9), // just over the planned size
    names.slice(0, 8), // filtered key by key
    [...names, '7', '12'], // integer-like keys come first in any object
    ['__proto__', ...names], // never planned: a copy would not carry it as an own key
    names,
  ];
  for (const context of CONTEXTS) {
    const filter = new ContextFilter(tricky as JsonSchema, context);
    for (const keys of [...sequences, ...sequences]) {
      const value =
        keys[0] === '__proto__'
          ? JSON.parse(JSON.stringify(many(keys.slice(1))).replace('{', '{"__proto__": 5,'))
          : many(keys);
      const compiled = filter.apply(value) as Record<string, unknown>;
      assert.is(
        JSON.stringify(compiled),
        JSON.stringify(filterByContext(tricky, value, context)),
        `${context} ${keys.join(',')}`,
      );
      assert.equal(Object.keys(compiled), Object.keys(filterByContext(tricky, value, context) as object));
      assert.is(Object.getPrototypeOf(compiled), Object.prototype);
    }
  }
});

test('the filtered item is a copy: the input is left alone', () => {
  const value = structuredClone(trickyValues[0]!);
  new ContextFilter(tricky as JsonSchema, 'view').apply(value);
  assert.equal(value, trickyValues[0]);
});

test.run();
