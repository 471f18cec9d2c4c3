/** The save filters of comments and the database-like text comparison the duplicate check uses. Pure. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedAuthorFields, storedCommentText, withUgcRel } from '../../src/resources/comments/filters';
import { collationEquals, collationKey } from '../../src/text/collation';

const SITE = 'http://blog.example.test:8080';

test('links to other hosts gain rel="nofollow ugc"; the site\'s own http(s) links and anchors without attributes do not', () => {
  assert.is(
    withUgcRel('<a href="https://e.test/">x</a>', 'blog.example.test'),
    '<a href="https://e.test/" rel="nofollow ugc">x</a>',
  );
  assert.is(
    withUgcRel('<a href="http://BLOG.example.test/p">x</a>', 'blog.example.test'),
    '<a href="http://BLOG.example.test/p">x</a>',
  );
  assert.is(
    withUgcRel('<a href="ftp://blog.example.test/f">x</a>', 'blog.example.test'),
    '<a href="ftp://blog.example.test/f" rel="nofollow ugc">x</a>',
  );
  assert.is(
    withUgcRel('<a>bare</a> <abbr title="t">a</abbr>', 'blog.example.test'),
    '<a>bare</a> <abbr title="t">a</abbr>',
  );
  assert.is(withUgcRel('<a name="q">e</a>', null), '<a name="q" rel="nofollow ugc">e</a>');
});

test('an existing rel keeps its values and gains the two; the attributes are then written double-quoted', () => {
  assert.is(
    withUgcRel(`<a href='https://e.test' rel="me" download>b</a>`, 'blog.example.test'),
    '<a href="https://e.test" download rel="me nofollow ugc">b</a>',
  );
  assert.is(
    withUgcRel('<a href="https://e.test" rel="nofollow">b</a>', null),
    '<a href="https://e.test" rel="nofollow ugc">b</a>',
  );
  assert.is(
    withUgcRel('<a title="a &amp; &quot;b&quot;" rel=x>b</a>', null),
    '<a title="a &amp; &quot;b&quot;" rel="x nofollow ugc">b</a>',
  );
});

test('a writer without unfiltered_html keeps the basic tags only; one with it keeps everything but links are marked', () => {
  const text = '<p onclick="x">Hi <b>there</b> <img src=x onerror=y><a href="javascript:alert(1)">l</a></p>';
  assert.is(storedCommentText(text, false, SITE), 'Hi <b>there</b> <a href="alert(1)" rel="nofollow ugc">l</a>');
  assert.is(
    storedCommentText(text, true, SITE),
    '<p onclick="x">Hi <b>there</b> <img src=x onerror=y><a href="javascript:alert(1)" rel="nofollow ugc">l</a></p>',
  );
});

test('author names are stored as plain, escaped text; email and URL trimmed', () => {
  assert.equal(
    storedAuthorFields({
      author_name: "  <b>Bob's</b> & co ",
      author_email: ' a@x.test ',
      author_url: ' https://x.test/ ',
    }),
    {
      author_name: "Bob's &amp; co",
      author_email: 'a@x.test',
      author_url: 'https://x.test/',
    },
  );
  assert.equal(storedAuthorFields({ author_name: 'A\n\tB <script>x</script>' }), { author_name: 'A B' });
  assert.equal(storedAuthorFields({}), {});
});

test('collation: case, accents, compatibility forms and trailing spaces aside; other differences count', () => {
  for (const [a, b] of [
    ['Café', 'cafe'],
    ['DUP TEST', 'dup test  '],
    ['Straße', 'STRASSE'],
    ['ﬁne', 'fine'],
    ['É', 'e'],
  ]) {
    assert.ok(collationEquals(a!, b!), `${a} = ${b}`);
    assert.is(collationKey(a!), collationKey(b!));
  }
  for (const [a, b] of [
    [' lead', 'lead'],
    ['a b', 'ab'],
    ['x\n', 'x'],
    ['1', 'l'],
  ])
    assert.not.ok(collationEquals(a!, b!), `${a} != ${b}`);
});

test.run();
