import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  MAX_SLUG_LENGTH,
  isReservedSlug,
  removeAccents,
  sanitizeSlug,
  truncateSlug,
  uniqueSlugCandidates,
} from '../../src/text/slug';

// Expected values were produced by WordPress 6.1.9's sanitize_title() on the reference install.
const CASES: Array<[string, string]> = [
  ['tęst-acceńted-chäræcters', 'test-accented-charaecters'],
  ['Hello World', 'hello-world'],
  [' Hello World!! ', 'hello-world'],
  ['Hello, World.', 'hello-world'],
  ["What's up? (2021)", 'whats-up-2021'],
  ['a.b.c', 'a-b-c'],
  ['x.y_z', 'x-y_z'],
  ['_a_', '_a_'],
  ['-a--b-', 'a-b'],
  ['  lead  ', 'lead'],
  ['AbC DEF', 'abc-def'],
  // Transliteration, default locale: ß → s (not ss), ä → a (not ae).
  ['Straße', 'strase'],
  ['Ærøskøbing', 'aeroskobing'],
  ['Œuvre', 'oeuvre'],
  ['Đakovo', 'dakovo'],
  ['Łódź', 'lodz'],
  ['Þingvellir', 'thingvellir'],
  ['ĳ ŉ ŋ', 'ij-n-n'],
  ['Ǎ ǖ Ơ ầ', 'a-u-o-a'],
  ['Tiếng Việt có dấu', 'tieng-viet-co-dau'],
  ['e\u0301', 'e'], // decomposed é is composed first
  ['€5 £5', 'e5-5'],
  ['ªº', 'ao'],
  // Letters without transliteration are percent-encoded, lower-cased first.
  ['ΑΒΓ Σ final ς', '%ce%b1%ce%b2%ce%b3-%cf%83-final-%cf%82'],
  ['Straße ß ẞ', 'strase-s-%c3%9f'], // ẞ is lower-cased after transliteration, so it stays ß
  ['日本', '%e6%97%a5%e6%9c%ac'],
  ['a¢b', 'a%c2%a2b'],
  ['a÷b', 'a%c3%b7b'],
  ['a‐b', 'a%e2%80%90b'], // U+2010 is not one of the dashes that become hyphens
  // Typographic characters: some become hyphens, some disappear.
  ['a\u00a0b', 'a-b'],
  ['a–b a—b', 'a-b-a-b'],
  ['a&nbsp;b', 'a-b'],
  ['a&#8211;b', 'a-b'],
  ['a/b/c', 'a-b-c'],
  ['“quoted” ‘single’', 'quoted-single'],
  ['ellipsis…', 'ellipsis'],
  ['™ © ® ° « » ¿ ¡ •', ''],
  ['a\u200bb\ufeff', 'ab'],
  ['a\u00adb', 'ab'],
  ['a×b', 'axb'],
  ['a%c3%97b', 'axb'],
  ['a%C2%A0b', 'a-b'],
  // Entities are dropped (non-greedy from "&" to the next ";").
  ['a&copy;b', 'ab'],
  ['a&times;b', 'ab'],
  ['a/b & c &amp; d', 'a-b-d'],
  ['C++ & C#', 'c-c'],
  // Tags are stripped; "<" followed by a space is text; an unclosed tag eats the rest.
  ['<b>bold</b> text', 'bold-text'],
  ['x <a href="y">link</a> z', 'x-link-z'],
  ['a < b', 'a-b'],
  ['a <b', 'a'],
  // %XX octets survive, a stray % does not.
  ['100% <b>bold</b> %41 %zz', '100-bold-%41-zz'],
  ['50% off', '50-off'],
  ['ab%', 'ab'],
  ['%', ''],
  ['a%4', 'a4'],
  ['%%41', '%41'],
  ['a---41---b', 'a%41b'],
  // Control whitespace is removed before spaces become hyphens.
  ['a\tb\nc', 'abc'],
  ['', ''],
  ['!!!', ''],
];

for (const [input, expected] of CASES) {
  test(`sanitizeSlug(${JSON.stringify(input)})`, () => {
    assert.is(sanitizeSlug(input), expected);
  });
}

test('sanitizeSlug is idempotent on its output', () => {
  for (const [input] of CASES) {
    const once = sanitizeSlug(input);
    assert.is(sanitizeSlug(once), once, input);
  }
});

test('sanitizeSlug keeps at most 200 characters, never splitting an encoded character', () => {
  assert.is(sanitizeSlug('a'.repeat(250)), 'a'.repeat(200));
  assert.is(sanitizeSlug('ab '.repeat(100)), 'ab-'.repeat(67).slice(0, 200));
  assert.is(sanitizeSlug('é'.repeat(250)), 'e'.repeat(200));
  assert.is(sanitizeSlug('ж'.repeat(100)), '%d0%b6'.repeat(33));
  assert.is(sanitizeSlug('a'.repeat(190) + 'ж'.repeat(5)), 'a'.repeat(190) + '%d0%b6');
  assert.is(sanitizeSlug('x'.repeat(197) + 'ж'), 'x'.repeat(197));
});

test('removeAccents maps letters and leaves the rest', () => {
  assert.is(removeAccents('Ça va? Ünïcödé'), 'Ca va? Unicode');
  assert.is(removeAccents('Русский'), 'Русский');
  assert.is(removeAccents('plain ascii'), 'plain ascii');
  assert.is(removeAccents('×÷'), '×÷');
});

test('truncateSlug cuts plain slugs and re-encodes percent-encoded ones (values from _truncate_post_slug)', () => {
  assert.is(truncateSlug('a'.repeat(200), 198), 'a'.repeat(198));
  assert.is(truncateSlug('%d0%b6'.repeat(66), 198), '%d0%b6'.repeat(33));
  assert.is(truncateSlug('a'.repeat(196) + '-bc', 198), 'a'.repeat(196) + '-b');
  assert.is(truncateSlug('a'.repeat(196) + '-bc', 197), 'a'.repeat(196));
  assert.is(truncateSlug('ab%41cd'.repeat(40), 198).slice(-10), 'cdabAcdabA');
  assert.is(truncateSlug('ab%41cd'.repeat(40), 198).length, 198);
  assert.is(truncateSlug('abc%e2%80', 5), 'abc');
  assert.is(truncateSlug('abcdef%2F', 8), 'abcdef');
  assert.is(truncateSlug('short-', 10), 'short');
});

test('uniqueSlugCandidates yields base, base-2, base-3, …', () => {
  const it = uniqueSlugCandidates('hello-world');
  assert.equal([it.next().value, it.next().value, it.next().value], ['hello-world', 'hello-world-2', 'hello-world-3']);
});

test('uniqueSlugCandidates shortens long bases to fit the suffix (as WordPress names duplicates)', () => {
  const take = (base: string, n: number) => {
    const out: string[] = [];
    for (const s of uniqueSlugCandidates(base)) {
      out.push(s);
      if (out.length === n) break;
    }
    return out;
  };
  const long = sanitizeSlug('a'.repeat(250));
  assert.equal(take(long, 3), ['a'.repeat(200), 'a'.repeat(198) + '-2', 'a'.repeat(198) + '-3']);
  const cyr = sanitizeSlug('ж'.repeat(80));
  assert.equal(take(cyr, 2), ['%d0%b6'.repeat(33), '%d0%b6'.repeat(33) + '-2']);
  // A cut that ends on a hyphen drops it.
  const hyph = sanitizeSlug('a'.repeat(197) + '-b');
  assert.is(hyph, 'a'.repeat(197) + '-b');
  assert.is(take(hyph, 2)[1], 'a'.repeat(197) + '-2');
  // The tenth candidate needs one character more room.
  const ten = take('a'.repeat(200), 10);
  assert.is(ten[9], 'a'.repeat(197) + '-10');
  for (const s of ten) assert.ok(s.length <= MAX_SLUG_LENGTH);
});

test('isReservedSlug: feed names, embed, numbers (posts), pagination (pages)', () => {
  for (const s of ['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed']) {
    assert.ok(isReservedSlug(s, 'post'), s);
    assert.ok(isReservedSlug(s, 'hierarchical'), s);
  }
  assert.ok(isReservedSlug('2021', 'post'));
  assert.ok(isReservedSlug('12', 'post'));
  assert.not.ok(isReservedSlug('0', 'post'));
  assert.not.ok(isReservedSlug('page2', 'post'));
  assert.ok(isReservedSlug('page2', 'hierarchical'));
  assert.ok(isReservedSlug('7', 'hierarchical'));
  assert.not.ok(isReservedSlug('hello', 'post'));
  assert.not.ok(isReservedSlug('2021', 'attachment'));
});

test.run();
