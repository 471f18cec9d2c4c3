/** The memory read model's caseless search reads a chunk a window at a time: every match is found, also across windows. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCAN_WINDOW, caselessFinder } from '../../src/readModel/memory/textSearch';

const test = suite('caseless finder over windows');

/** Every position `find` reports, walking forward one byte past each match (as the scan does at least). */
function allMatches(bytes: Buffer, used: number, term: string): number[] {
  const find = caselessFinder(bytes, used, new RegExp(term, 'gi'), term.length);
  const found: number[] = [];
  for (let p = find(0); p >= 0 && p + term.length <= used; p = find(p + 1)) found.push(p);
  return found;
}

/** The same by decoding everything at once. */
function expected(bytes: Buffer, used: number, term: string): number[] {
  const text = bytes.toString('latin1', 0, used);
  const pattern = new RegExp(term, 'gi');
  const found: number[] = [];
  for (let m = pattern.exec(text); m !== null; pattern.lastIndex = m.index + 1, m = pattern.exec(text))
    found.push(m.index);
  return found;
}

test('matches before, across and after window boundaries, in any case', () => {
  const bytes = Buffer.alloc(4 * SCAN_WINDOW + 100, 'x');
  // Ends at a boundary, straddles one, starts in a window's last byte, starts at a boundary, ends at the end.
  const places = [
    0,
    17,
    SCAN_WINDOW - 6,
    2 * SCAN_WINDOW - 3,
    3 * SCAN_WINDOW - 1,
    4 * SCAN_WINDOW,
    4 * SCAN_WINDOW + 94,
  ];
  places.forEach((at, i) => {
    bytes.write(i % 2 === 0 ? 'ZePhYr' : 'zephyr', at, 'latin1');
  });
  assert.equal(allMatches(bytes, bytes.length, 'zephyr'), places);
  assert.equal(allMatches(bytes, bytes.length, 'zephyr'), expected(bytes, bytes.length, 'zephyr'));
});

test('nothing past the used bytes; a term cut by the end is not found', () => {
  const bytes = Buffer.alloc(SCAN_WINDOW + 50, 'y');
  bytes.write('zephyr', SCAN_WINDOW - 2, 'latin1');
  bytes.write('zephyr', SCAN_WINDOW + 20, 'latin1');
  assert.equal(allMatches(bytes, SCAN_WINDOW + 23, 'zephyr'), [SCAN_WINDOW - 2]);
  assert.equal(allMatches(bytes, SCAN_WINDOW + 26, 'zephyr'), [SCAN_WINDOW - 2, SCAN_WINDOW + 20]);
});

test('overlapping matches and a search that goes back to an earlier window', () => {
  const bytes = Buffer.alloc(2 * SCAN_WINDOW, 'z');
  const find = caselessFinder(bytes, bytes.length, /zz/gi, 2);
  assert.is(find(SCAN_WINDOW + 5), SCAN_WINDOW + 5);
  assert.is(find(3), 3);
  assert.is(find(2 * SCAN_WINDOW - 1), -1);
  assert.equal(allMatches(bytes, 1000, 'zz'), expected(bytes, 1000, 'zz'));
});

test.run();
