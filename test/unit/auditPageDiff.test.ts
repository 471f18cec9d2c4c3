/**
 * The audit page's word diff (src/auditPage/static/diff.mjs, a browser module with no browser API, so node runs it
 * as it is): its runs rebuild both texts, and small edits in long texts stay small.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';

interface Run {
  kind: 'same' | 'del' | 'ins';
  text: string;
}

const { wordDiff } = (await import(new URL('../../src/auditPage/static/diff.mjs', import.meta.url).href)) as {
  wordDiff: (before: string, after: string) => Run[];
};

const before = (runs: Run[]) =>
  runs
    .filter((run) => run.kind !== 'ins')
    .map((run) => run.text)
    .join('');
const after = (runs: Run[]) =>
  runs
    .filter((run) => run.kind !== 'del')
    .map((run) => run.text)
    .join('');

const test = suite('audit page: word diff');

test('a changed word, an added one, whitespace kept', () => {
  assert.equal(wordDiff('The quick brown fox', 'The quick red fox jumps'), [
    { kind: 'same', text: 'The quick ' },
    { kind: 'del', text: 'brown' },
    { kind: 'ins', text: 'red' },
    { kind: 'same', text: ' fox' },
    { kind: 'ins', text: ' jumps' },
  ]);
  assert.equal(wordDiff('', 'new'), [{ kind: 'ins', text: 'new' }]);
  assert.equal(wordDiff('gone', ''), [{ kind: 'del', text: 'gone' }]);
  assert.equal(wordDiff('same\n\ntext', 'same\n\ntext'), [{ kind: 'same', text: 'same\n\ntext' }]);
  assert.equal(wordDiff('', ''), []);
});

test('any two texts: the runs rebuild both, no two neighbours of a kind, nothing empty', () => {
  const text = fc
    .array(fc.constantFrom('a', 'b', 'c', ' ', '\n', '<b>', '&amp;', 'é', '  '), { maxLength: 40 })
    .map((parts) => parts.join(''));
  fc.assert(
    fc.property(text, text, (a, b) => {
      const runs = wordDiff(a, b);
      assert.is(before(runs), a);
      assert.is(after(runs), b);
      for (let i = 0; i < runs.length; i++) {
        assert.ok(runs[i]!.text !== '');
        if (i > 0) assert.is.not(runs[i]!.kind, runs[i - 1]!.kind);
      }
      if (a === b) assert.ok(runs.every((run) => run.kind === 'same'));
    }),
    { numRuns: 500 },
  );
});

test('long texts: one word changed in 100,000 is one word marked; past the bound, the middle is replaced whole', () => {
  const words = Array.from({ length: 100_000 }, (_, i) => `w${i}`);
  const changed = [...words];
  changed[50_000] = 'changed';
  const runs = wordDiff(words.join(' '), changed.join(' '));
  assert.equal(
    runs.filter((run) => run.kind !== 'same'),
    [
      { kind: 'del', text: 'w50000' },
      { kind: 'ins', text: 'changed' },
    ],
  );
  // Two texts with nothing in common, too long for the table: shown as a removal and an addition.
  const left = Array.from({ length: 3000 }, (_, i) => `l${i}`).join(' ');
  const right = Array.from({ length: 3000 }, (_, i) => `r${i}`).join(' ');
  const whole = wordDiff(left, right);
  assert.equal(
    whole.map((run) => run.kind),
    ['del', 'ins'],
  );
  assert.is(before(whole), left);
  assert.is(after(whole), right);
});

test.run();
