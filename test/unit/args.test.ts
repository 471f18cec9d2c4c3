/** Route argument validation: WordPress's codes, wording, order, aggregation and coercions. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileArgs, describeArgs, validateArgs } from '../../src/rest/args/routeArgs';
import { validateValue } from '../../src/rest/args/walkers';
import type { ArgSchema, ArgsResult, JsonSchema } from '../../src/rest/args/schema';
import { type RestError, restError } from '../../src/rest/errors';

const test = suite('route args');

function values(result: ArgsResult): Record<string, unknown> {
  if ('error' in result) assert.unreachable(`unexpected error: ${JSON.stringify(result.error.toJSON())}`);
  return (result as { values: Record<string, unknown> }).values;
}

function failure(result: ArgsResult): RestError {
  if (!('error' in result)) assert.unreachable(`expected an error, got ${JSON.stringify(result)}`);
  return (result as { error: RestError }).error;
}

/** The single invalid arg's detail: [code, message, data]. */
function inner(schema: ArgSchema, value: unknown, key = 'p'): [string, string, unknown] {
  const error = failure(validateArgs({ [key]: schema }, { [key]: value }));
  assert.is(error.code, 'rest_invalid_param');
  const detail = (error.data.details as Record<string, { code: string; message: string; data: unknown }>)[key]!;
  assert.is((error.data.params as Record<string, string>)[key], detail.message);
  return [detail.code, detail.message, detail.data];
}

const coerced = (schema: ArgSchema, value: unknown): unknown => values(validateArgs({ p: schema }, { p: value })).p;

/** A post-list-like set of args. */
const LIST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'any'];
const listArgs: Record<string, ArgSchema> = {
  context: { description: 'Response scope.', type: 'string', enum: ['view', 'embed', 'edit'], default: 'view' },
  page: { type: 'integer', default: 1, minimum: 1 },
  per_page: { type: 'integer', default: 10, minimum: 1, maximum: 100 },
  after: { type: 'string', format: 'date-time' },
  exclude: { type: 'array', items: { type: 'integer' }, default: [] },
  offset: { type: 'integer' },
  order: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
  orderby: { type: 'string', enum: ['author', 'date', 'id', 'title'], default: 'date' },
  status: { default: 'publish', type: 'array', items: { enum: LIST_STATUSES, type: 'string' } },
  sticky: { type: 'boolean' },
};

/** "Integer array OR taxonomy query object", as the interface's categories / tags parameters. */
function termFilter(withOperator: boolean): ArgSchema {
  return {
    description: 'Term filter.',
    type: ['object', 'array'],
    oneOf: [
      { title: 'Term ID List', type: 'array', items: { type: 'integer' } },
      {
        title: 'Term ID Taxonomy Query',
        type: 'object',
        properties: {
          terms: { type: 'array', items: { type: 'integer' }, default: [] },
          include_children: { type: 'boolean', default: false },
          ...(withOperator ? { operator: { type: 'string', enum: ['AND', 'OR'], default: 'OR' } } : {}),
        },
        additionalProperties: false,
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Defaults and required

test('absent args get their defaults, coerced through their schema', () => {
  const v = values(validateArgs(listArgs, {}));
  assert.equal(v, {
    context: 'view',
    page: 1,
    per_page: 10,
    exclude: [],
    order: 'desc',
    orderby: 'date',
    status: ['publish'],
  });
});

test('defaults are copies: changing one result does not change the next', () => {
  const args: Record<string, ArgSchema> = { ids: { type: 'array', items: { type: 'integer' }, default: [] } };
  (values(validateArgs(args, {})).ids as number[]).push(5);
  assert.equal(values(validateArgs(args, {})).ids, []);
});

test('missing required args are listed together, in args order, with params as a list', () => {
  const args: Record<string, ArgSchema> = {
    url: { type: 'string', required: true },
    other: { type: 'string' },
    action: { type: 'string', required: true },
  };
  const error = failure(validateArgs(args, { other: 'x' }));
  assert.is(error.code, 'rest_missing_callback_param');
  assert.is(error.message, 'Missing parameter(s): url, action');
  assert.equal(error.data, { status: 400, params: ['url', 'action'] });
  assert.equal(error.toJSON(), {
    code: 'rest_missing_callback_param',
    message: 'Missing parameter(s): url, action',
    data: { status: 400, params: ['url', 'action'] },
  });
});

test('a null counts as missing; a default satisfies required', () => {
  const args: Record<string, ArgSchema> = {
    url: { type: 'string', required: true },
    mode: { type: 'string', required: true, default: 'a' },
  };
  assert.equal(failure(validateArgs(args, { url: null })).data.params, ['url']);
  assert.equal(values(validateArgs(args, { url: 'x' })), { url: 'x', mode: 'a' });
});

test('missing required args are reported before any invalid one', () => {
  const args: Record<string, ArgSchema> = { url: { type: 'string', required: true }, maxwidth: { type: 'integer' } };
  const error = failure(validateArgs(args, { maxwidth: 'wide' }));
  assert.is(error.code, 'rest_missing_callback_param');
});

test('unregistered params are ignored', () => {
  assert.equal(values(validateArgs({ a: { type: 'integer' } }, { a: '1', _fields: 'id', junk: { x: 1 } })), { a: 1 });
});

// ---------------------------------------------------------------------------------------------------------------
// The digest's list-parameter cases

test('per_page -1, 0 and 101 are out of bounds, worded without a final period', () => {
  for (const value of ['-1', '0', '101', -1, 101]) {
    const error = failure(validateArgs(listArgs, { per_page: value }));
    assert.is(error.message, 'Invalid parameter(s): per_page');
    assert.equal(error.data, {
      status: 400,
      params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' },
      details: {
        per_page: {
          code: 'rest_out_of_bounds',
          message: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
          data: null,
        },
      },
    });
  }
});

test('offset=moreplease is not an integer; the detail carries the param', () => {
  assert.equal(inner(listArgs.offset!, 'moreplease', 'offset'), [
    'rest_invalid_type',
    'offset is not of type integer.',
    { param: 'offset' },
  ]);
});

test('exclude=invalid fails on its first item, with the item path', () => {
  assert.equal(inner(listArgs.exclude!, 'invalid', 'exclude'), [
    'rest_invalid_type',
    'exclude[0] is not of type integer.',
    { param: 'exclude[0]' },
  ]);
  assert.equal(inner(listArgs.exclude!, '4,x', 'exclude'), [
    'rest_invalid_type',
    'exclude[1] is not of type integer.',
    { param: 'exclude[1]' },
  ]);
});

test('after=foo and an impossible date are invalid dates', () => {
  assert.equal(inner(listArgs.after!, 'foo', 'after'), ['rest_invalid_date', 'Invalid date.', null]);
  assert.equal(inner(listArgs.after!, '2010-60-01T02:00:00Z', 'after'), ['rest_invalid_date', 'Invalid date.', null]);
});

test('sticky=nothanks is not a boolean', () => {
  assert.equal(inner(listArgs.sticky!, 'nothanks', 'sticky'), [
    'rest_invalid_type',
    'sticky is not of type boolean.',
    { param: 'sticky' },
  ]);
});

test('context=banana is not in the enum (three values, with a final "and")', () => {
  assert.equal(inner(listArgs.context!, 'banana', 'context'), [
    'rest_not_in_enum',
    'context is not one of view, embed, and edit.',
    null,
  ]);
});

test('order=asc,id is not in the enum (two values)', () => {
  assert.equal(inner(listArgs.order!, 'asc,id', 'order'), [
    'rest_not_in_enum',
    'order is not one of asc and desc.',
    null,
  ]);
});

test('an unknown status fails on its item against the status enum', () => {
  assert.equal(inner(listArgs.status!, 'teststatus', 'status'), [
    'rest_not_in_enum',
    'status[0] is not one of publish, future, draft, pending, private, and any.',
    null,
  ]);
  assert.equal(values(validateArgs(listArgs, { status: 'draft,private' })).status, ['draft', 'private']);
});

test('tags=["my-tag"] matches neither the id list nor the taxonomy query', () => {
  assert.equal(inner(termFilter(true), ['my-tag'], 'tags'), [
    'rest_no_matching_schema',
    'tags is not a valid Term ID List and Term ID Taxonomy Query.',
    null,
  ]);
});

test('several invalid args are reported together, in args order, each with its first failure', () => {
  const error = failure(
    validateArgs(listArgs, {
      sticky: 'nothanks',
      per_page: '0',
      offset: 'moreplease',
      context: 'banana',
      after: 'foo',
      exclude: 'invalid',
      order: 'asc,id',
      orderby: 'content',
      page: '2',
    }),
  );
  assert.is(error.code, 'rest_invalid_param');
  assert.is(error.status, 400);
  assert.is(error.message, 'Invalid parameter(s): context, per_page, after, exclude, offset, order, orderby, sticky');
  assert.equal(Object.keys(error.data.params as object), [
    'context',
    'per_page',
    'after',
    'exclude',
    'offset',
    'order',
    'orderby',
    'sticky',
  ]);
  assert.equal(Object.keys(error.data.details as object), [
    'context',
    'per_page',
    'after',
    'exclude',
    'offset',
    'order',
    'orderby',
    'sticky',
  ]);
  assert.is(
    (error.data.params as Record<string, string>).orderby,
    'orderby is not one of author, date, id, and title.',
  );
  assert.equal(Object.keys(error.toJSON()), ['code', 'message', 'data']);
  assert.equal(Object.keys(error.data), ['status', 'params', 'details']);
});

// ---------------------------------------------------------------------------------------------------------------
// Coercion of loosely typed input

test('integers: "5" and "5.0" are 5, "1.5" and "five" are not integers', () => {
  const schema: ArgSchema = { type: 'integer' };
  assert.is(coerced(schema, '5'), 5);
  assert.is(coerced(schema, '5.0'), 5);
  assert.is(coerced(schema, ' 7'), 7);
  assert.is(coerced(schema, -3), -3);
  assert.equal(inner(schema, '1.5'), ['rest_invalid_type', 'p is not of type integer.', { param: 'p' }]);
  assert.equal(inner(schema, 'five'), ['rest_invalid_type', 'p is not of type integer.', { param: 'p' }]);
  assert.equal(inner(schema, true), ['rest_invalid_type', 'p is not of type integer.', { param: 'p' }]);
  assert.equal(inner(schema, '0x1A'), ['rest_invalid_type', 'p is not of type integer.', { param: 'p' }]);
});

test('numbers: numeric strings become numbers', () => {
  assert.is(coerced({ type: 'number' }, '2.5'), 2.5);
  assert.is(coerced({ type: 'number' }, '1e3'), 1000);
  assert.equal(inner({ type: 'number' }, 'abc'), ['rest_invalid_type', 'p is not of type number.', { param: 'p' }]);
});

test('booleans: true/false/"true"/"false"/"1"/"0" in any case, and 1/0', () => {
  const schema: ArgSchema = { type: 'boolean' };
  for (const yes of [true, 'true', 'TRUE', 'True', '1', 1]) assert.is(coerced(schema, yes), true, String(yes));
  for (const no of [false, 'false', 'FaLsE', '0', 0]) assert.is(coerced(schema, no), false, String(no));
  for (const bad of ['yes', 'on', '', 2, 'nothanks'])
    assert.is(inner(schema, bad)[0], 'rest_invalid_type', String(bad));
});

test('arrays: a comma or whitespace separated string, or a list, with items coerced', () => {
  const schema: ArgSchema = { type: 'array', items: { type: 'integer' } };
  assert.equal(coerced(schema, '1,2'), [1, 2]);
  assert.equal(coerced(schema, '1, 2 3'), [1, 2, 3]);
  assert.equal(coerced(schema, ['4', 5]), [4, 5]);
  assert.equal(coerced(schema, '7'), [7]);
  assert.equal(coerced(schema, 8), [8]);
  assert.equal(coerced(schema, ''), []);
  assert.equal(coerced({ type: 'array', items: { type: 'string' } }, 'apple,banana'), ['apple', 'banana']);
  // A PHP-style array with numeric keys is a list; one with named keys is not.
  assert.equal(coerced(schema, { 0: '1', 1: '2' }), [1, 2]);
  assert.equal(inner(schema, { a: 1 }), ['rest_invalid_type', 'p is not of type array.', { param: 'p' }]);
});

test('objects: "" is an empty object; properties are coerced', () => {
  const schema: ArgSchema = { type: 'object', properties: { n: { type: 'integer' }, b: { type: 'boolean' } } };
  assert.equal(coerced(schema, ''), {});
  assert.equal(coerced(schema, { n: '3', b: 'false', other: 'kept' }), { n: 3, b: false, other: 'kept' });
  assert.equal(inner(schema, 'text'), ['rest_invalid_type', 'p is not of type object.', { param: 'p' }]);
});

test('multiple types: the first type the value fits, "" preferring string, null allowed when listed', () => {
  const nullableDate: ArgSchema = { type: ['string', 'null'], format: 'date-time' };
  const v = values(validateArgs({ date: nullableDate }, { date: null }));
  assert.ok(Object.hasOwn(v, 'date'));
  assert.is(v.date, null);
  assert.is(coerced(nullableDate, '2016-12-12T14:00:00'), '2016-12-12T14:00:00');
  assert.equal(inner(nullableDate, 5, 'date'), [
    'rest_invalid_type',
    'date is not of type string,null.',
    { param: 'date' },
  ]);
  assert.is(coerced({ type: ['integer', 'string'] }, '5'), 5);
  assert.is(coerced({ type: ['integer', 'string'] }, '1.5'), '1.5');
  assert.is(coerced({ type: ['array', 'string'] }, ''), '');
  assert.equal(coerced({ type: ['string', 'object'], properties: { raw: { type: 'string' } } }, { raw: 'Hi' }), {
    raw: 'Hi',
  });
});

test('an explicit null is only accepted by a nullable type; with a default, the default is used', () => {
  assert.equal(inner({ type: 'string' }, null), ['rest_invalid_type', 'p is not of type string.', { param: 'p' }]);
  assert.equal(values(validateArgs({ n: { type: ['integer', 'null'], default: 3 } }, { n: null })), { n: 3 });
});

test('strings are not coerced from other JSON types', () => {
  assert.equal(inner({ type: 'string' }, 5), ['rest_invalid_type', 'p is not of type string.', { param: 'p' }]);
  assert.equal(inner({ type: 'string' }, ['a']), ['rest_invalid_type', 'p is not of type string.', { param: 'p' }]);
});

// ---------------------------------------------------------------------------------------------------------------
// Every inner code and its wording

test('rest_not_in_enum: one value, two values, many values, non-string values', () => {
  assert.equal(inner({ type: 'string', enum: ['create-image-subsizes'] }, 'x', 'action'), [
    'rest_not_in_enum',
    'action is not create-image-subsizes.',
    null,
  ]);
  assert.equal(inner({ type: 'string', enum: ['json', 'xml'] }, 'yaml', 'format'), [
    'rest_not_in_enum',
    'format is not one of json and xml.',
    null,
  ]);
  assert.equal(inner({ type: 'integer', enum: [1, 2, 3, 4] }, '5'), [
    'rest_not_in_enum',
    'p is not one of 1, 2, 3, and 4.',
    null,
  ]);
  assert.equal(inner({ type: 'array', enum: [[1, 2], ['a/b']] }, [3]), [
    'rest_not_in_enum',
    'p is not one of [1,2] and ["a\\/b"].',
    null,
  ]);
  // The comparison is on the coerced value.
  assert.is(coerced({ type: 'integer', enum: [1, 2] }, '2'), 2);
});

test('rest_out_of_bounds: every bound combination', () => {
  const cases: [JsonSchema, number, string][] = [
    [{ minimum: 1 }, 0, 'p must be greater than or equal to 1'],
    [{ minimum: 1, exclusiveMinimum: true }, 1, 'p must be greater than 1'],
    [{ maximum: 10 }, 11, 'p must be less than or equal to 10'],
    [{ maximum: 10, exclusiveMaximum: true }, 10, 'p must be less than 10'],
    [{ minimum: 1, maximum: 100 }, 101, 'p must be between 1 (inclusive) and 100 (inclusive)'],
    [
      { minimum: 0, maximum: 360, exclusiveMinimum: true, exclusiveMaximum: true },
      360,
      'p must be between 0 (exclusive) and 360 (exclusive)',
    ],
    [
      { minimum: 0, maximum: 360, exclusiveMinimum: true, exclusiveMaximum: true },
      0,
      'p must be between 0 (exclusive) and 360 (exclusive)',
    ],
    [{ minimum: 0, maximum: 5, exclusiveMinimum: true }, 0, 'p must be between 0 (exclusive) and 5 (inclusive)'],
    [{ minimum: 0, maximum: 5, exclusiveMaximum: true }, 5, 'p must be between 0 (inclusive) and 5 (exclusive)'],
  ];
  for (const [bounds, value, message] of cases) {
    assert.equal(inner({ type: 'integer', ...bounds }, value), ['rest_out_of_bounds', message, null], message);
  }
  // Inside the bounds, exclusive or not.
  assert.is(
    coerced({ type: 'integer', minimum: 0, maximum: 360, exclusiveMinimum: true, exclusiveMaximum: true }, '90'),
    90,
  );
  assert.is(coerced({ type: 'number', minimum: 0, maximum: 100 }, '100'), 100);
});

test('rest_out_of_bounds prints bounds as integers, as PHP %d does', () => {
  assert.equal(inner({ type: 'number', minimum: 0.5 }, 0.25), [
    'rest_out_of_bounds',
    'p must be greater than or equal to 0',
    null,
  ]);
});

test('rest_invalid_multiple', () => {
  assert.equal(inner({ type: 'integer', multipleOf: 5 }, '12'), [
    'rest_invalid_multiple',
    'p must be a multiple of 5.',
    null,
  ]);
  assert.equal(inner({ type: 'number', multipleOf: 0.5 }, 0.75), [
    'rest_invalid_multiple',
    'p must be a multiple of 0.5.',
    null,
  ]);
  assert.is(coerced({ type: 'integer', multipleOf: 5 }, '15'), 15);
  // Remainder arithmetic, as PHP's fmod: 0.5 is not a whole number of 0.1 steps there.
  assert.equal(inner({ type: 'number', multipleOf: 0.1 }, 0.5), [
    'rest_invalid_multiple',
    'p must be a multiple of 0.1.',
    null,
  ]);
});

test('rest_too_short / rest_too_long, singular and plural, counted in characters', () => {
  assert.equal(inner({ type: 'string', minLength: 1 }, ''), [
    'rest_too_short',
    'p must be at least 1 character long.',
    null,
  ]);
  assert.equal(inner({ type: 'string', minLength: 3 }, 'ab'), [
    'rest_too_short',
    'p must be at least 3 characters long.',
    null,
  ]);
  assert.equal(inner({ type: 'string', maxLength: 1 }, 'ab'), [
    'rest_too_long',
    'p must be at most 1 character long.',
    null,
  ]);
  assert.equal(inner({ type: 'string', maxLength: 2 }, 'abc'), [
    'rest_too_long',
    'p must be at most 2 characters long.',
    null,
  ]);
  assert.equal(inner({ type: 'string', maxLength: 2000 }, 'x'.repeat(2001)), [
    'rest_too_long',
    'p must be at most 2,000 characters long.',
    null,
  ]);
  assert.is(coerced({ type: 'string', maxLength: 2 }, '😀é'), '😀é');
});

test('rest_invalid_pattern: the pattern is matched unanchored', () => {
  assert.equal(inner({ type: 'string', pattern: '^[a-z]+$' }, 'ABC'), [
    'rest_invalid_pattern',
    'p does not match pattern ^[a-z]+$.',
    null,
  ]);
  assert.is(coerced({ type: 'string', pattern: '[0-9]' }, 'abc1'), 'abc1');
});

test('rest_too_few_items / rest_too_many_items / rest_duplicate_items', () => {
  assert.equal(inner({ type: 'array', minItems: 1 }, []), [
    'rest_too_few_items',
    'p must contain at least 1 item.',
    null,
  ]);
  assert.equal(inner({ type: 'array', minItems: 2 }, ['a']), [
    'rest_too_few_items',
    'p must contain at least 2 items.',
    null,
  ]);
  assert.equal(inner({ type: 'array', maxItems: 1 }, 'a,b'), [
    'rest_too_many_items',
    'p must contain at most 1 item.',
    null,
  ]);
  assert.equal(inner({ type: 'array', items: { type: 'integer' }, uniqueItems: true }, '1,2,1'), [
    'rest_duplicate_items',
    'p has duplicate items.',
    null,
  ]);
  assert.equal(
    inner({ type: 'array', uniqueItems: true }, [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ]),
    ['rest_duplicate_items', 'p has duplicate items.', null],
  );
});

test('rest_duplicate_items also appears once items are coerced ("1" and 1)', () => {
  assert.equal(inner({ type: 'array', items: { type: 'integer' }, uniqueItems: true }, ['1', 1]), [
    'rest_duplicate_items',
    'p has duplicate items.',
    null,
  ]);
});

test('rest_property_required (listed names and per-property flags) and rest_additional_properties_forbidden', () => {
  const listed: ArgSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
  assert.equal(inner(listed, { body: {} }, 'request'), [
    'rest_property_required',
    'path is a required property of request.',
    null,
  ]);
  const flagged: ArgSchema = { type: 'object', properties: { angle: { type: 'number', required: true } } };
  assert.equal(inner(flagged, {}, 'args'), ['rest_property_required', 'angle is a required property of args.', null]);
  const closed: ArgSchema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
  assert.equal(inner(closed, { a: 'x', extra: 1 }), [
    'rest_additional_properties_forbidden',
    'extra is not a valid property of Object.',
    null,
  ]);
  const typed: ArgSchema = { type: 'object', additionalProperties: { type: 'integer' } };
  assert.equal(inner(typed, { x: 'y' }, 'meta'), [
    'rest_invalid_type',
    'meta[x] is not of type integer.',
    { param: 'meta[x]' },
  ]);
});

test('rest_too_few_properties / rest_too_many_properties and patternProperties', () => {
  assert.equal(inner({ type: 'object', minProperties: 1 }, {}), [
    'rest_too_few_properties',
    'p must contain at least 1 property.',
    null,
  ]);
  assert.equal(inner({ type: 'object', maxProperties: 2 }, { a: 1, b: 2, c: 3 }), [
    'rest_too_many_properties',
    'p must contain at most 2 properties.',
    null,
  ]);
  const patterned: ArgSchema = {
    type: 'object',
    patternProperties: { '^[a-z]+$': { type: 'integer' } },
    additionalProperties: false,
  };
  assert.equal(coerced(patterned, { abc: '1' }), { abc: 1 });
  assert.equal(inner(patterned, { abc: 'x' }), [
    'rest_invalid_type',
    'p[abc] is not of type integer.',
    { param: 'p[abc]' },
  ]);
  assert.equal(inner(patterned, { A1: 1 }), [
    'rest_additional_properties_forbidden',
    'A1 is not a valid property of Object.',
    null,
  ]);
});

test('formats: email, ip, uuid and hex color, with their codes and wording', () => {
  assert.equal(inner({ type: 'string', format: 'email' }, 'not-an-email', 'email'), [
    'rest_invalid_email',
    'Invalid email address.',
    null,
  ]);
  assert.equal(inner({ type: 'string', format: 'email' }, 'a@b', 'email'), [
    'rest_invalid_email',
    'Invalid email address.',
    null,
  ]);
  assert.equal(inner({ type: 'string', format: 'email' }, 'me@-example.com', 'email'), [
    'rest_invalid_email',
    'Invalid email address.',
    null,
  ]);
  assert.is(coerced({ type: 'string', format: 'email' }, 'jane.doe+tag@example.org'), 'jane.doe+tag@example.org');
  assert.equal(inner({ type: 'string', format: 'ip' }, '256.1.1.1', 'ip'), [
    'rest_invalid_ip',
    'ip is not a valid IP address.',
    null,
  ]);
  assert.is(coerced({ type: 'string', format: 'ip' }, '192.168.0.1'), '192.168.0.1');
  assert.is(coerced({ type: 'string', format: 'ip' }, '2001:db8::1'), '2001:db8::1');
  assert.equal(inner({ type: 'string', format: 'uuid' }, 'not-a-uuid', 'id'), [
    'rest_invalid_uuid',
    'id is not a valid UUID.',
    null,
  ]);
  assert.is(
    coerced({ type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000'),
    '123e4567-e89b-12d3-a456-426614174000',
  );
  assert.equal(inner({ type: 'string', format: 'hex-color' }, '#12345'), [
    'rest_invalid_hex_color',
    'Invalid hex color.',
    null,
  ]);
  assert.is(coerced({ type: 'string', format: 'hex-color' }, '#A0b'), '#A0b');
});

test('date-time: the accepted shapes and the impossible dates', () => {
  const schema: ArgSchema = { type: 'string', format: 'date-time' };
  for (const ok of [
    '2016-12-12T14:00:00',
    '2016-12-12T14:00:00Z',
    '2016-12-12 14:00:00',
    '2016-12-12t14:00:00.123',
    '2016-12-12T18:00:00-01:00',
    '2016-12-12T18:00:00+0530'.replace('0530', '05'),
    '2016-12-31T23:59:60',
  ]) {
    assert.is(coerced(schema, ok), ok, ok);
  }
  for (const bad of [
    '2016-12-12',
    '16-12-12T14:00:00',
    '2016-13-01T00:00:00',
    '2016-12-32T00:00:00',
    '2016-12-12T25:00:00',
    '2016-12-12T10:61:00',
    '2016-12-12T14:00:00+1:00',
    'yesterday',
  ]) {
    assert.equal(inner(schema, bad), ['rest_invalid_date', 'Invalid date.', null], bad);
  }
});

test('format is only checked on strings: a null for a nullable date passes', () => {
  assert.is(coerced({ type: ['string', 'null'], format: 'date-time' }, null), null);
  assert.is(coerced({ type: 'integer', format: 'date-time' }, '3'), 3);
});

test('uri values are sanitized as WordPress stores URLs; unknown formats are ignored', () => {
  const schema: ArgSchema = { type: 'string', format: 'uri' };
  assert.is(coerced(schema, 'https://example.org/a b'), 'https://example.org/a%20b');
  assert.is(coerced(schema, 'example.org/page'), 'http://example.org/page');
  assert.is(coerced(schema, '/relative?x=1'), '/relative?x=1');
  assert.is(coerced(schema, 'javascript:alert(1)'), '');
  assert.is(coerced(schema, 'HTTP://Example.org/'), 'http://Example.org/');
  assert.is(coerced({ type: 'string', format: 'wordpress-does-not-know' }, 'kept'), 'kept');
});

test('text-field sanitizing strips tags and squeezes whitespace', () => {
  assert.is(coerced({ type: 'string', format: 'text-field' }, '  <b>Hello</b>\n  world  '), 'Hello world');
  assert.is(coerced({ type: 'string', format: 'textarea-field' }, 'line 1\nline 2'), 'line 1\nline 2');
});

// ---------------------------------------------------------------------------------------------------------------
// Check order

test('integers: the number checks come first, so a fraction below the minimum is out of bounds', () => {
  assert.equal(inner({ type: 'integer', minimum: 2 }, '1.5'), [
    'rest_out_of_bounds',
    'p must be greater than or equal to 2',
    null,
  ]);
  assert.equal(inner({ type: 'integer', minimum: 1 }, '1.5'), [
    'rest_invalid_type',
    'p is not of type integer.',
    { param: 'p' },
  ]);
  assert.equal(inner({ type: 'integer', multipleOf: 2, minimum: 10 }, '3'), [
    'rest_invalid_multiple',
    'p must be a multiple of 2.',
    null,
  ]);
});

test('type checks (with their bounds) come before enum, enum before format', () => {
  assert.equal(inner({ type: 'string', enum: ['abc'], minLength: 5 }, 'x'), [
    'rest_too_short',
    'p must be at least 5 characters long.',
    null,
  ]);
  assert.equal(inner({ type: 'integer', enum: [1, 2], minimum: 5 }, 3), [
    'rest_out_of_bounds',
    'p must be greater than or equal to 5',
    null,
  ]);
  assert.equal(inner({ type: 'string', enum: ['a'], format: 'email' }, 'b'), ['rest_not_in_enum', 'p is not a.', null]);
});

test('strings: length before pattern', () => {
  assert.equal(inner({ type: 'string', minLength: 3, pattern: '^[0-9]+$' }, 'a'), [
    'rest_too_short',
    'p must be at least 3 characters long.',
    null,
  ]);
});

test('arrays: items before minItems, minItems before uniqueItems', () => {
  assert.equal(inner({ type: 'array', items: { type: 'integer' }, minItems: 3 }, 'a'), [
    'rest_invalid_type',
    'p[0] is not of type integer.',
    { param: 'p[0]' },
  ]);
  assert.equal(inner({ type: 'array', minItems: 3, uniqueItems: true }, 'a,a'), [
    'rest_too_few_items',
    'p must contain at least 3 items.',
    null,
  ]);
});

test('objects: required first, then the properties in the order the value gives them', () => {
  const schema: ArgSchema = {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    required: ['c'],
    additionalProperties: false,
  };
  assert.equal(inner(schema, { b: 'x', a: 'y' }), ['rest_property_required', 'c is a required property of p.', null]);
  assert.equal(inner(schema, { b: 'x', a: 'y', c: 1 }), [
    'rest_invalid_type',
    'p[b] is not of type integer.',
    { param: 'p[b]' },
  ]);
  assert.equal(inner(schema, { z: 1, a: 'y', c: 1 }), [
    'rest_additional_properties_forbidden',
    'z is not a valid property of Object.',
    null,
  ]);
});

test('nested paths: a batch-like request list', () => {
  const requests: ArgSchema = {
    type: 'array',
    maxItems: 25,
    items: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
        path: { type: 'string', required: true },
        body: { type: 'object', properties: {}, additionalProperties: true },
        headers: {
          type: 'object',
          properties: {},
          additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
        },
      },
    },
  };
  assert.equal(inner(requests, [{ method: 'POST' }], 'requests'), [
    'rest_property_required',
    'path is a required property of requests[0].',
    null,
  ]);
  assert.equal(inner(requests, [{ path: '/a' }, { path: '/b', method: 'GET' }], 'requests'), [
    'rest_not_in_enum',
    'requests[1][method] is not one of POST, PUT, PATCH, and DELETE.',
    null,
  ]);
  const many = Array.from({ length: 26 }, () => ({ path: '/x' }));
  assert.equal(inner(requests, many, 'requests'), [
    'rest_too_many_items',
    'requests must contain at most 25 items.',
    null,
  ]);
  assert.equal(coerced(requests, [{ path: '/x', headers: { 'x-a': 'b', 'x-c': ['d'] } }]), [
    { path: '/x', headers: { 'x-a': 'b', 'x-c': ['d'] } },
  ]);
});

// ---------------------------------------------------------------------------------------------------------------
// oneOf / anyOf

test('term filter: an id list in any of its forms', () => {
  const schema = termFilter(true);
  assert.equal(coerced(schema, '1,2'), [1, 2]);
  assert.equal(coerced(schema, ['3', 4]), [3, 4]);
  assert.equal(coerced(schema, '5'), [5]);
});

test('term filter: a taxonomy query object, coerced property by property', () => {
  assert.equal(coerced(termFilter(true), { terms: '1,2', include_children: 'true', operator: 'AND' }), {
    terms: [1, 2],
    include_children: true,
    operator: 'AND',
  });
  assert.equal(coerced(termFilter(false), { terms: ['7'] }), { terms: [7] });
});

test('term filter: a failing object reports the object branch and its reason', () => {
  assert.equal(inner(termFilter(true), { terms: [1], operator: 'XOR' }, 'categories'), [
    'rest_no_matching_schema',
    'categories is not a valid Term ID Taxonomy Query. Reason: categories[operator] is not one of AND and OR.',
    { position: 1 },
  ]);
  // No operator on the exclude variants.
  assert.equal(inner(termFilter(false), { terms: [1], operator: 'AND' }, 'categories_exclude'), [
    'rest_no_matching_schema',
    'categories_exclude is not a valid Term ID Taxonomy Query. Reason: operator is not a valid property of Object.',
    { position: 1 },
  ]);
});

test('term filter: a slug string reports the list branch and its reason', () => {
  assert.equal(inner(termFilter(true), 'my-tag', 'tags'), [
    'rest_no_matching_schema',
    'tags is not a valid Term ID List. Reason: tags[0] is not of type integer.',
    { position: 0 },
  ]);
});

test('term filter: "" fits both an empty list and an empty object, which oneOf refuses', () => {
  assert.equal(inner(termFilter(true), '', 'categories'), [
    'rest_one_of_multiple_matches',
    'categories matches Term ID List and Term ID Taxonomy Query, but should match only one.',
    { positions: [0, 1] },
  ]);
});

test('oneOf without titles, and anyOf', () => {
  const untitled: ArgSchema = { oneOf: [{ type: 'integer' }, { type: 'number' }] };
  assert.equal(inner(untitled, '5'), [
    'rest_one_of_multiple_matches',
    'p matches more than one of the expected formats.',
    { positions: [0, 1] },
  ]);
  assert.equal(inner({ oneOf: [{ type: 'integer' }, { type: 'boolean' }] }, 'x'), [
    'rest_no_matching_schema',
    'p does not match any of the expected formats.',
    null,
  ]);
  const anyOf: ArgSchema = { anyOf: [{ type: 'integer' }, { type: 'string', minLength: 2 }] };
  assert.is(coerced(anyOf, '5'), 5);
  assert.is(coerced(anyOf, 'ab'), 'ab');
  // The integer branch fails on type at this level, so the string branch's failure is the telling one.
  assert.equal(inner(anyOf, 'a'), [
    'rest_no_matching_schema',
    'p does not match the expected format. Reason: p must be at least 2 characters long.',
    { position: 1 },
  ]);
});

test('oneOf between objects: the branch sharing most property names explains the failure', () => {
  const modifier: ArgSchema = {
    type: 'object',
    oneOf: [
      {
        title: 'Rotation',
        properties: {
          type: { type: 'string', enum: ['rotate'] },
          args: { type: 'object', properties: { angle: { type: 'number', required: true } } },
        },
        required: ['type', 'args'],
      },
      {
        title: 'Crop',
        properties: {
          type: { type: 'string', enum: ['crop'] },
          args: {
            type: 'object',
            properties: { left: { type: 'number', required: true }, top: { type: 'number', required: true } },
          },
          extra: { type: 'string' },
        },
        required: ['type', 'args'],
      },
    ],
  };
  assert.equal(coerced(modifier, { type: 'rotate', args: { angle: '90' } }), { type: 'rotate', args: { angle: 90 } });
  assert.equal(inner(modifier, { type: 'crop', args: { left: 1 }, extra: 'x' }, 'modifiers[0]'), [
    'rest_no_matching_schema',
    'modifiers[0] is not a valid Crop. Reason: top is a required property of modifiers[0][args].',
    { position: 1 },
  ]);
});

// ---------------------------------------------------------------------------------------------------------------
// Hooks and rounds

test('a validate hook: false is "Invalid parameter." without details; a RestError keeps its code and data', () => {
  const seen: unknown[] = [];
  const args: Record<string, ArgSchema<{ userId: number | null }>> = {
    template: { type: 'string', validate: (value) => value === '' || value === 'wide.php' },
    status: {
      type: 'array',
      items: { type: 'string', enum: ['publish', 'draft'] },
      default: 'publish',
      validate: (value, ctx) => {
        seen.push([value, ctx.key, ctx.request?.userId]);
        const statuses = value as string[];
        return (
          statuses.every((s) => s === 'publish') ||
          restError('rest_forbidden_status', 'Status is forbidden.', ctx.request?.userId == null ? 401 : 403)
        );
      },
    },
  };
  const error = failure(validateArgs(args, { template: 'nope.php', status: 'draft' }, { request: { userId: null } }));
  assert.is(error.message, 'Invalid parameter(s): template, status');
  assert.equal(error.data.params, { template: 'Invalid parameter.', status: 'Status is forbidden.' });
  assert.equal(error.data.details, {
    status: { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status: 401 } },
  });
  assert.equal(seen, [[['draft'], 'status', null]]);
  // The hook also sees the default, coerced.
  assert.equal(values(validateArgs(args, {}, { request: { userId: 1 } })), { status: ['publish'] });
  assert.equal(seen.at(-1), [['publish'], 'status', 1]);
});

test('args checked late are reported only when every other arg passed, in the order of the input', () => {
  const args: Record<string, ArgSchema> = {
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    after: { type: 'string', format: 'date-time', lateValidation: true },
    offset: { type: 'integer', lateValidation: true },
  };
  const first = failure(validateArgs(args, { after: 'foo', per_page: '0', offset: 'x' }));
  assert.equal(Object.keys(first.data.params as object), ['per_page']);
  const second = failure(validateArgs(args, { offset: 'x', after: 'foo', per_page: '5' }));
  assert.is(second.message, 'Invalid parameter(s): offset, after');
  assert.equal(values(validateArgs(args, { after: '2020-01-01T00:00:00', offset: '3' })), {
    after: '2020-01-01T00:00:00',
    offset: 3,
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Index, compilation, and the fast path agreeing with the walker

test('describeArgs keeps the allowed keywords in registration order and appends required', () => {
  const described = describeArgs({
    context: {
      description: 'Scope under which the request is made; determines fields present in response.',
      type: 'string',
      enum: ['view', 'embed', 'edit'],
      default: 'view',
    },
    per_page: {
      description: 'Maximum number of items to be returned in result set.',
      type: 'integer',
      default: 10,
      minimum: 1,
      maximum: 100,
    },
    status: {
      default: 'publish',
      description: 'Statuses.',
      type: 'array',
      items: { enum: ['publish', 'any'], type: 'string' },
      lateValidation: true,
    },
    url: { required: true, type: 'string', format: 'uri', validate: () => true },
    bare: { default: 'view' },
    nested: {
      type: 'object',
      properties: { raw: { type: 'string', context: ['edit'] } },
      context: ['view'],
      readonly: false,
    },
  });
  assert.equal(
    JSON.stringify(described.context),
    JSON.stringify({
      description: 'Scope under which the request is made; determines fields present in response.',
      type: 'string',
      enum: ['view', 'embed', 'edit'],
      default: 'view',
      required: false,
    }),
  );
  assert.equal(
    JSON.stringify(described.per_page),
    JSON.stringify({
      description: 'Maximum number of items to be returned in result set.',
      type: 'integer',
      default: 10,
      minimum: 1,
      maximum: 100,
      required: false,
    }),
  );
  assert.equal(
    JSON.stringify(described.status),
    JSON.stringify({
      default: 'publish',
      description: 'Statuses.',
      type: 'array',
      items: { enum: ['publish', 'any'], type: 'string' },
      required: false,
    }),
  );
  assert.equal(JSON.stringify(described.url), JSON.stringify({ type: 'string', format: 'uri', required: true }));
  assert.equal(JSON.stringify(described.bare), JSON.stringify({ default: 'view', required: false }));
  // Nested schemas stay as registered; only the arg's own unknown keys go.
  assert.equal(
    JSON.stringify(described.nested),
    JSON.stringify({ type: 'object', properties: { raw: { type: 'string', context: ['edit'] } }, required: false }),
  );
});

test('compileArgs accepts WordPress vocabulary and refuses a misspelt keyword', () => {
  compileArgs({
    title: {
      type: 'object',
      context: ['view', 'edit'],
      properties: { rendered: { type: 'string', readonly: true, context: ['view'] } },
    },
  });
  assert.throws(() => compileArgs({ n: { type: 'integer', minimun: 1 } as ArgSchema }));
});

test('the compiled fast path and the WordPress walker agree', () => {
  const schemas: ArgSchema[] = [
    { type: 'integer', minimum: 1, maximum: 100 },
    { type: 'integer', minimum: 0, maximum: 360, exclusiveMinimum: true, exclusiveMaximum: true },
    { type: 'number', multipleOf: 0.5 },
    { type: 'boolean' },
    { type: 'string', enum: ['asc', 'desc'] },
    { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
    { type: 'string', format: 'date-time' },
    { type: ['string', 'null'], format: 'date-time' },
    { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3, uniqueItems: true },
    { type: 'array', items: { type: 'string', enum: ['publish', 'draft'] } },
    {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'boolean', required: true } },
      additionalProperties: false,
    },
    { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
    { type: 'object', patternProperties: { '^x': { type: 'integer' } } },
  ];
  const inputs: unknown[] = [
    '5',
    '5.0',
    '1.5',
    '0',
    '101',
    '360',
    '90',
    0.5,
    0.75,
    'x',
    '',
    'true',
    'FALSE',
    'nothanks',
    1,
    2,
    'asc',
    'desc',
    'asc,id',
    'ab',
    'abcde',
    'AB',
    '2016-12-12T14:00:00',
    '2010-60-01T02:00:00Z',
    null,
    '1,2',
    '1,1',
    '1,2,3,4',
    'a,b',
    ['1', 2],
    'publish,draft',
    'publish,trash',
    { a: '1', b: 'true' },
    { b: 0 },
    { a: 1 },
    { b: true, c: 1 },
    { raw: 'x' },
    { raw: 5 },
    { x1: '2' },
    { x1: 'y' },
    [],
    {},
    [{}],
  ];
  for (const schema of schemas) {
    for (const input of inputs) {
      if (input === null) continue;
      const walker = validateValue(input, schema, 'p') === null;
      const result = validateArgs({ p: schema }, { p: input });
      assert.is(!('error' in result), walker, `${JSON.stringify(schema)} with ${JSON.stringify(input)}`);
    }
  }
});

test('an integer that overflows to Infinity ("1e400") is 0, as PHP casts it', () => {
  assert.is(coerced({ type: 'integer' }, '1e400'), 0);
  assert.is(coerced({ type: 'integer' }, '-1e400'), 0);
  assert.is(coerced({ type: 'integer' }, '12'), 12);
});

test.run();
