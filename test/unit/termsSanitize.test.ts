/** Term names and descriptions as WordPress 6.1 stores them (expected values observed on the reference site). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filterBasicHtml, sanitizeTermDescription, sanitizeTermName } from '../../src/resources/terms/sanitize';

const test = suite('terms sanitize');

test('names: tags stripped, whitespace collapsed, & < > escaped, known references kept', () => {
  assert.is(sanitizeTermName(`ZZ Probe A & B "q" 'x' <b>t</b> <`), `ZZ Probe A &amp; B "q" 'x' t &lt;`);
  assert.is(
    sanitizeTermName('zz a > b & c &amp; d &copy; &#169; &bogus; "x" \t tab  two'),
    'zz a &gt; b &amp; c &amp; d &copy; &#169; &amp;bogus; "x" tab two',
  );
  assert.is(sanitizeTermName('  Plain  '), 'Plain');
  assert.is(sanitizeTermName('<b></b>'), '');
});

test('names: sanitising twice changes nothing more', () => {
  const once = sanitizeTermName('A & B <i>c</i> > d');
  assert.is(sanitizeTermName(once), once);
});

test('descriptions: only basic inline tags and their allowed attributes stay', () => {
  assert.is(
    sanitizeTermDescription(
      '<p>Hi</p> <b>bold</b> <script>x()</script> & <a href="javascript:x" onclick="y">l</a> <a href="http://e.com" title="t">ok</a>',
    ),
    'Hi <b>bold</b> x() &amp; <a href="x">l</a> <a href="http://e.com" title="t">ok</a>',
  );
});

test('descriptions: quoting, case, comments, stray brackets and URL schemes as WordPress leaves them', () => {
  const input =
    '<p class="x">p</p><a href="/rel" target="_blank" title=\'t\'>r</a><b onclick=x>b</b><!-- c --> 1 < 2 > 0 &nbsp; &bogus; AT&T <br/> <img src=x> ' +
    '<strong>s</strong> <blockquote cite="http://q">q</blockquote> <a href="mailto:a@b">m</a> <a href="data:x">d</a> ' +
    '<a href="HTTPS://E.com/?a=1&b=2">e</a> <ABBR TITLE="T">ab</ABBR> <q cite="javascript:alert(1)">j</q> <del datetime="2020">x</del> ' +
    '<a href="http://a.com" rel="nofollow">rel</a> </b> <b>unclosed  \n line2\n\n para';
  const expected =
    'p<a href="/rel" title=\'t\'>r</a><b>b</b><!-- c --> 1  0 &nbsp; &amp;bogus; AT&amp;T   <strong>s</strong> ' +
    '<blockquote cite="http://q">q</blockquote> <a href="mailto:a@b">m</a> <a href="x">d</a> <a href="https://E.com/?a=1&amp;b=2">e</a> ' +
    '<ABBR TITLE="T">ab</ABBR> <q cite="alert(1)">j</q> <del datetime="2020">x</del> <a href="http://a.com">rel</a> </b> <b>unclosed  \n line2\n\n para';
  assert.is(sanitizeTermDescription(input), expected);
});

test('basic filter: unquoted values are quoted, duplicate attributes keep the first, self-closing slash kept', () => {
  assert.is(filterBasicHtml('<a title=one title="two" href=/x>t</a>'), '<a title="one" href="/x">t</a>');
  assert.is(filterBasicHtml('<b />'), '<b />');
  assert.is(filterBasicHtml('a > b'), 'a &gt; b');
  assert.is(filterBasicHtml('&#65; &#x41; &#0; &#xZZ;'), '&#065; &#x41;  &amp;#xZZ;');
});

test.run();
