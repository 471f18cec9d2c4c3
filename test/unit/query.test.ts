/**
 * parseQuery reads names as PHP does (each case as the reference WordPress echoes it in its paging links): mangled
 * base names, unclosed brackets, appends after the largest integer key, the 1000-variable limit, and the
 * 64-level nesting limit that drops the variable with everything under its base name.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_INPUT_NESTING_LEVEL, MAX_INPUT_VARS, parseFields, parseQuery } from '../../src/rest/query';

const test = suite('query');
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

test('lists, maps and repeated keys as before', () => {
  assert.equal(plain(parseQuery('a[]=1&a[]=2&b[terms][]=3&b[operator]=AND&c=1&c=2&e[0]=a&e[1]=b&f')), {
    a: ['1', '2'],
    b: { terms: ['3'], operator: 'AND' },
    c: '2',
    e: ['a', 'b'],
    f: '',
  });
});

test('names as PHP reads them', () => {
  const parsed = parseQuery(
    'a[b=1&c.d=2&e%20f=3&g[h]i=4&j[k][l=5&m[%20]=6&m[%20]=7&[n]=8&o[5]=1&o[]=2&q[-3]=1&q[]=2&r.s[t.u]=1&%20v=1&w[]]=1',
  );
  assert.equal(plain(parsed), {
    a_b: '1',
    c_d: '2',
    e_f: '3',
    g: { h: '4' },
    j: { k: '5' },
    m: ['6', '7'],
    o: { 5: '1', 6: '2' },
    q: { '-3': '1', '-2': '2' },
    r_s: { 't.u': '1' },
    v: '1',
    w: ['1'],
  });
});

test('a variable nested deeper than 64 levels is dropped, and its base name with it', () => {
  const deepest = `a${'[x]'.repeat(MAX_INPUT_NESTING_LEVEL)}=2`;
  let leaf: any = parseQuery(`a[b]=1&${deepest}`).a;
  assert.is(leaf.b, '1');
  for (let i = 0; i < MAX_INPUT_NESTING_LEVEL; i++) leaf = leaf.x;
  assert.is(leaf, '2');
  assert.equal(plain(parseQuery(`a[b]=1&a${'[x]'.repeat(MAX_INPUT_NESTING_LEVEL + 1)}=2&c=3`)), { c: '3' });
  assert.equal(plain(parseQuery(`t=1&a${'[x]'.repeat(100_000)}=1&a[y]=2`)), { t: '1', a: { y: '2' } });
});

test('past 1000 variables the rest is ignored; empty parts do not count, unusable names do', () => {
  const vars = Array.from({ length: MAX_INPUT_VARS - 2 }, (_, i) => `x${i}=1`).join('&');
  assert.equal(Object.keys(parseQuery(`${vars}&&&y=1&z=1&w=1`)).slice(-2), ['y', 'z']);
  assert.equal(Object.keys(parseQuery(`${vars}&[y]=1&z=1&w=1`)).slice(-1), ['z']);
  assert.is(
    Object.keys(parseFields(Array.from({ length: 2000 }, (_, i) => [`f${i}`, 'v'] as const))).length,
    MAX_INPUT_VARS,
  );
});

test('no name reaches a prototype; the record has none', () => {
  const parsed = parseQuery(
    '__proto__[x]=1&constructor[prototype][y]=2&prototype=3&a[__proto__][z]=1&b[c][constructor]=1&%5F%5Fproto%5F%5F[k]=1&ok=1',
  );
  assert.equal(Object.keys(parsed), ['ok']);
  assert.is(Object.getPrototypeOf(parsed), null);
  assert.is(({} as Record<string, unknown>).x, undefined);
  assert.equal(
    Object.keys(
      parseFields([
        ['a[__proto__][x]', '1'],
        ['a[b]', '2'],
        ['__proto__', '3'],
      ]),
    ),
    ['a'],
  );
});

test.run();
