/** One resource schema: write args derived from it, context filtering, `_fields`, and the context param. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { describeArgs, validateArgs } from '../../src/rest/args/routeArgs';
import type { ArgsResult, Context } from '../../src/rest/args/schema';
import { applyFields, argsFromSchema, contextParam, filterByContext, isFieldIncluded } from '../../src/rest/schema';
import type { ResourceSchema } from '../../src/rest/schema';
import type { RestError } from '../../src/rest/errors';

const test = suite('resource schema');

const ALL: Context[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: Context[] = ['view', 'edit'];
const EDIT: Context[] = ['edit'];

/** A small post-like resource. */
const note: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'note',
  type: 'object',
  properties: {
    id: { description: 'Identifier.', type: 'integer', context: ALL, readonly: true },
    date: { description: 'Publication date.', type: ['string', 'null'], format: 'date-time', context: ALL },
    modified: { description: 'Last change.', type: 'string', format: 'date-time', context: VIEW_EDIT, readonly: true },
    slug: { description: 'Identifier in URLs.', type: 'string', context: ALL },
    status: { description: 'State.', type: 'string', enum: ['publish', 'draft'], default: 'draft', context: VIEW_EDIT },
    password: { description: 'Protects the content.', type: 'string', context: EDIT },
    title: {
      description: 'Heading.',
      type: 'object',
      context: ALL,
      arg_options: { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
      properties: {
        raw: { description: 'As written.', type: 'string', context: EDIT },
        rendered: { description: 'As shown.', type: 'string', context: ALL, readonly: true },
      },
    },
    content: {
      description: 'Body.',
      type: 'object',
      context: VIEW_EDIT,
      properties: {
        raw: { description: 'As written.', type: 'string', context: EDIT },
        rendered: { description: 'As shown.', type: 'string', context: VIEW_EDIT, readonly: true },
        protected: { description: 'Whether hidden.', type: 'boolean', context: ALL, readonly: true },
      },
    },
    author: { description: 'Writer.', type: 'integer', context: ALL, required: true },
    tags: { description: 'Term ids.', type: 'array', items: { type: 'integer' }, context: VIEW_EDIT },
    meta: { description: 'Extra values.', type: 'object', properties: { secret: { type: 'string', context: EDIT } } },
    blocks: {
      description: 'Parsed blocks.',
      type: 'array',
      context: VIEW_EDIT,
      items: { type: 'object', context: EDIT, properties: { name: { type: 'string' } } },
    },
    sticky: { description: 'Pinned on top.', type: 'boolean', default: false, required: true, context: VIEW_EDIT },
  },
};

function values(result: ArgsResult): Record<string, unknown> {
  if ('error' in result) assert.unreachable(`unexpected error: ${JSON.stringify(result.error.toJSON())}`);
  return (result as { values: Record<string, unknown> }).values;
}

function failure(result: ArgsResult): RestError {
  if (!('error' in result)) assert.unreachable(`expected an error, got ${JSON.stringify(result)}`);
  return (result as { error: RestError }).error;
}

const sameJson = (actual: unknown, expected: unknown) => assert.is(JSON.stringify(actual), JSON.stringify(expected));

// ---------------------------------------------------------------------------------------------------------------
// Write args

test('every writable property becomes an arg, in schema order; readonly ones do not', () => {
  const create = argsFromSchema(note, 'create');
  assert.equal(Object.keys(create), [
    'date',
    'slug',
    'status',
    'password',
    'title',
    'content',
    'author',
    'tags',
    'meta',
    'blocks',
    'sticky',
  ]);
  assert.equal(Object.keys(argsFromSchema(note, 'update')), Object.keys(create));
});

test('create args keep default and required; the index shows default first and required last', () => {
  const described = describeArgs(argsFromSchema(note, 'create'));
  sameJson(described.status, {
    default: 'draft',
    description: 'State.',
    type: 'string',
    enum: ['publish', 'draft'],
    required: false,
  });
  sameJson(described.author, { description: 'Writer.', type: 'integer', required: true });
  sameJson(described.date, {
    description: 'Publication date.',
    type: ['string', 'null'],
    format: 'date-time',
    required: false,
  });
  sameJson(described.tags, { description: 'Term ids.', type: 'array', items: { type: 'integer' }, required: false });
});

test('update args carry neither default nor required', () => {
  const described = describeArgs(argsFromSchema(note, 'update'));
  sameJson(described.status, { description: 'State.', type: 'string', enum: ['publish', 'draft'], required: false });
  sameJson(described.author, { description: 'Writer.', type: 'integer', required: false });
});

test('arg_options only say how input is checked: the index shows the property itself; default/required count on create', () => {
  const create = describeArgs(argsFromSchema(note, 'create'));
  sameJson(create.title, {
    description: 'Heading.',
    type: 'object',
    properties: {
      raw: { description: 'As written.', type: 'string', context: ['edit'] },
      rendered: { description: 'As shown.', type: 'string', context: ['view', 'edit', 'embed'], readonly: true },
    },
    required: false,
  });
  sameJson(create.sticky, { default: false, description: 'Pinned on top.', type: 'boolean', required: true });
  const update = describeArgs(argsFromSchema(note, 'update'));
  sameJson(update.sticky, { description: 'Pinned on top.', type: 'boolean', required: false });
  // Checked against arg_options: a string is a title, a number is not.
  assert.equal(values(validateArgs(argsFromSchema(note, 'update'), { title: 'Plain' })), { title: 'Plain' });
});

test('a create without a required property is refused; an update is not', () => {
  const error = failure(validateArgs(argsFromSchema(note, 'create'), { sticky: true }));
  assert.is(error.code, 'rest_missing_callback_param');
  assert.equal(error.data.params, ['author']);
  assert.equal(values(validateArgs(argsFromSchema(note, 'update'), { slug: 'x' })), { slug: 'x' });
});

test('defaults fill a create, not an update', () => {
  assert.equal(values(validateArgs(argsFromSchema(note, 'create'), { author: '3', sticky: 'false' })), {
    status: 'draft',
    author: 3,
    sticky: false,
  });
  assert.equal(values(validateArgs(argsFromSchema(note, 'update'), { author: '3' })), { author: 3 });
});

test('readonly fields sent in a body are ignored without error', () => {
  const v = values(
    validateArgs(argsFromSchema(note, 'update'), { id: 'not-a-number', modified: 'garbage', slug: 'hello' }),
  );
  assert.equal(v, { slug: 'hello' });
});

test('derived args validate with WordPress messages (title as string or {raw}, enum, nullable date)', () => {
  const args = argsFromSchema(note, 'update');
  assert.equal(values(validateArgs(args, { title: 'Hello' })), { title: 'Hello' });
  assert.equal(values(validateArgs(args, { title: { raw: 'Hi' } })), { title: { raw: 'Hi' } });
  assert.equal(values(validateArgs(args, { date: null })), { date: null });
  const error = failure(validateArgs(args, { title: 5, status: 'gone', date: '2010-60-01T02:00:00Z' }));
  assert.is(error.message, 'Invalid parameter(s): date, status, title');
  assert.equal(error.data.params, {
    date: 'Invalid date.',
    status: 'status is not one of publish and draft.',
    title: 'title is not of type string,object.',
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The context param

test('contextParam is the standard context arg, as the index shows it', () => {
  sameJson(describeArgs({ context: contextParam('view') }).context, {
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: ['view', 'embed', 'edit'],
    default: 'view',
    required: false,
  });
  assert.is(contextParam('edit').default, 'edit');
});

test('contextParam with a schema lists the contexts its properties use', () => {
  const viewEditOnly: ResourceSchema = {
    title: 'r',
    type: 'object',
    properties: { a: { type: 'string', context: ['edit', 'view'] } },
  };
  assert.equal(contextParam('view', viewEditOnly).enum, ['view', 'edit']);
  assert.equal(contextParam('view', note).enum, ['view', 'embed', 'edit']);
});

test('contextParam validates like any arg', () => {
  const error = failure(validateArgs({ context: contextParam() }, { context: 'banana' }));
  assert.equal(error.data.params, { context: 'context is not one of view, embed, and edit.' });
  assert.equal(values(validateArgs({ context: contextParam() }, {})), { context: 'view' });
});

// ---------------------------------------------------------------------------------------------------------------
// Context filtering

const item = () => ({
  id: 7,
  date: '2024-01-02T03:04:05',
  modified: '2024-01-03T00:00:00',
  slug: 'hello',
  status: 'publish',
  password: 'pw',
  title: { raw: 'Hello', rendered: 'Hello!' },
  content: { raw: '<p>x</p>', rendered: '<p>x</p>\n', protected: false },
  author: 2,
  tags: [3, 4],
  meta: { secret: 's' },
  blocks: [{ name: 'para' }],
  sticky: false,
  unknown_extra: 1,
  _links: { self: [{ href: 'https://example.org/wp-json/core/v2/notes/7' }] },
});

test('view context: edit-only fields and nested raw values go; links and undescribed keys stay', () => {
  const out = filterByContext(note, item(), 'view');
  assert.equal(out, {
    id: 7,
    date: '2024-01-02T03:04:05',
    modified: '2024-01-03T00:00:00',
    slug: 'hello',
    status: 'publish',
    title: { rendered: 'Hello!' },
    content: { rendered: '<p>x</p>\n', protected: false },
    author: 2,
    tags: [3, 4],
    // A property without a context is kept as it is, and not looked into.
    meta: { secret: 's' },
    // Items whose schema is out of context all go.
    blocks: [],
    sticky: false,
    unknown_extra: 1,
    _links: { self: [{ href: 'https://example.org/wp-json/core/v2/notes/7' }] },
  });
});

test('edit context keeps everything the schema allows in edit', () => {
  const out = filterByContext(note, item(), 'edit') as ReturnType<typeof item>;
  assert.equal(out.title, { raw: 'Hello', rendered: 'Hello!' });
  assert.equal(out.content, { raw: '<p>x</p>', rendered: '<p>x</p>\n', protected: false });
  assert.is(out.password, 'pw');
  assert.equal(out.blocks, [{ name: 'para' }]);
});

test('embed context keeps only the embed fields', () => {
  const out = filterByContext(note, item(), 'embed');
  assert.equal(Object.keys(out), ['id', 'date', 'slug', 'title', 'author', 'meta', 'unknown_extra', '_links']);
  assert.equal(out.title, { rendered: 'Hello!' });
});

test('filtering returns a copy and leaves the item alone', () => {
  const original = item();
  filterByContext(note, original, 'view');
  assert.equal(original, item());
});

test('a property typed object-or-array is filtered as what the value is', () => {
  const schema: ResourceSchema = {
    title: 'r',
    type: 'object',
    properties: {
      value: {
        type: ['object', 'array'],
        context: ALL,
        items: { type: 'object', context: ALL, properties: { secret: { type: 'string', context: EDIT } } },
        properties: { secret: { type: 'string', context: EDIT }, open: { type: 'string', context: ALL } },
      },
    },
  };
  assert.equal(filterByContext(schema, { value: [{ secret: 's', a: 1 }] }, 'view'), { value: [{ a: 1 }] });
  assert.equal(filterByContext(schema, { value: { secret: 's', open: 'o' } }, 'view'), { value: { open: 'o' } });
});

test('oneOf properties are filtered with the branch the value matches', () => {
  const schema: ResourceSchema = {
    title: 'r',
    type: 'object',
    properties: {
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
    },
  };
  assert.equal(filterByContext(schema, { shape: { note: 'n', size: 2 } }, 'view'), { shape: { size: 2 } });
  assert.equal(filterByContext(schema, { shape: 'round' }, 'view'), { shape: 'round' });
});

// ---------------------------------------------------------------------------------------------------------------
// _fields

const response = () => ({
  id: 7,
  title: { raw: 'Hello', rendered: 'Hello!' },
  content: { rendered: '<p>x</p>', protected: false },
  tags: [3, 4],
  _links: {
    self: [{ href: 'https://example.org/wp-json/core/v2/notes/7' }],
    author: [{ embeddable: true, href: 'https://example.org/u/2' }],
  },
  _embedded: { author: [{ id: 2, name: 'Ann' }] },
});

test('_fields keeps the listed top-level keys, in the response order, and drops links', () => {
  const out = applyFields(response(), ['title', 'id']);
  assert.equal(out, { id: 7, title: { raw: 'Hello', rendered: 'Hello!' } });
  assert.equal(Object.keys(out), ['id', 'title']);
});

test('_fields accepts the raw comma/space separated parameter', () => {
  assert.equal(applyFields(response(), 'id, tags'), { id: 7, tags: [3, 4] });
});

test('_fields with a nested path keeps only that branch', () => {
  assert.equal(applyFields(response(), ['content.rendered']), { content: { rendered: '<p>x</p>' } });
  assert.equal(applyFields(response(), ['title.raw', 'content.protected']), {
    title: { raw: 'Hello' },
    content: { protected: false },
  });
});

test('_fields: id is not added unless listed, and unknown names are ignored', () => {
  assert.equal(applyFields(response(), ['content.rendered', 'nope']), { content: { rendered: '<p>x</p>' } });
});

test('_fields keeps _links (and what was embedded from them) only when requested', () => {
  const { _links, _embedded } = response();
  assert.equal(applyFields(response(), ['id', '_links']), { id: 7, _links, _embedded });
  assert.equal(applyFields(response(), ['_embedded']), { _links, _embedded });
  // A path below _links still keeps all the links: WordPress adds them whole.
  assert.equal(applyFields(response(), ['_links.self']), { _links, _embedded });
});

test('_fields applies to each item of a collection', () => {
  const list = [response(), { ...response(), id: 8 }];
  assert.equal(applyFields(list, ['id']), [{ id: 7 }, { id: 8 }]);
});

test('_fields: a parent listed after its child takes the whole parent', () => {
  assert.equal(applyFields(response(), ['title.raw', 'title']), { title: { raw: 'Hello', rendered: 'Hello!' } });
});

test('_fields: a child listed after its parent stops WordPress reading the rest of the list', () => {
  assert.equal(applyFields(response(), ['title', 'title.raw', 'id']), { title: { raw: 'Hello', rendered: 'Hello!' } });
});

test('_fields on list values keeps the listed positions', () => {
  assert.equal(applyFields(response(), ['tags.0']), { tags: [3] });
  assert.equal(applyFields(response(), ['tags.1']), { tags: { 1: 4 } });
});

test('_fields: an empty list changes nothing', () => {
  const body = response();
  assert.is(applyFields(body, []), body);
  assert.is(applyFields(body, ' , '), body);
});

test('isFieldIncluded: the field itself, a parent of a listed child, or a child of a listed parent', () => {
  assert.ok(isFieldIncluded('title', ['title']));
  assert.ok(isFieldIncluded('title', ['title.raw']));
  assert.ok(isFieldIncluded('title.raw', ['title']));
  assert.not.ok(isFieldIncluded('title', ['titles']));
  assert.not.ok(isFieldIncluded('content', ['title']));
  assert.not.ok(isFieldIncluded('title.raw', ['title.rendered']));
});

test.run();
