/**
 * The HTML filter for users without unfiltered_html. Expected outputs marked "as WordPress" are what the
 * reference WordPress 6.1.9 stored for a contributor given the same input; the others state where our
 * re-serialising filter differs on purpose, or what must never get through.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filterHtml, filterStyle, stripDisallowedProtocols } from '../../src/text/sanitizeHtml';
import { filterTextFields } from '../../src/resources/content/operations';

const test = suite('kses');

/** The tags of filtered output (whose attribute values are always double-quoted) with their attributes. */
function tagsOf(html: string): { tag: string; attributes: [string, string][] }[] {
  return [...html.matchAll(/<([a-z][a-z0-9-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/gi)].map((match) => ({
    tag: match[1]!.toLowerCase(),
    attributes: [...match[2]!.matchAll(/\s+([^\s=>/]+)(?:="([^"]*)")?/g)].map(
      (a) => [a[1]!.toLowerCase(), a[2] ?? ''] as [string, string],
    ),
  }));
}
const post = (html: string) => filterHtml(html, 'post');

test('as WordPress: scripts and event handlers go, the text of removed elements stays', () => {
  assert.is(post('<p onclick="x" title="t">t</p>'), '<p title="t">t</p>');
  assert.is(
    post('<style>p{color:red}</style><script>alert(1)</script><textarea>t</textarea><noscript>n</noscript>'),
    'p{color:red}alert(1)<textarea>t</textarea>n',
  );
  assert.is(post('<iframe src="https://x"></iframe><form action="x"><input name=a></form>'), '');
  assert.is(post('<svg><circle/></svg><math><mi>x</mi></math>'), 'x');
  assert.is(post('<custom-el a="1">c</custom-el><div data-wp-foo="1">d</div>'), 'c<div data-wp-foo="1">d</div>');
  assert.is(post('<embed src="x"><object data="x.pdf" type="application/pdf"></object>'), '<object></object>');
});

test('as WordPress: block comments survive, comments lose any "--"', () => {
  const block = '<!-- wp:paragraph {"a":1} -->\n<p>x</p>\n<!-- /wp:paragraph -->';
  assert.is(post(block), block);
  assert.is(post('<!-- a -- b --->'), '<!-- a - b -->');
  assert.is(
    post('<!-- wp:heading {"level":2} -->\n<h2 class="wp-block-heading">T</h2>\n<!-- /wp:heading -->'),
    '<!-- wp:heading {"level":2} -->\n<h2 class="wp-block-heading">T</h2>\n<!-- /wp:heading -->',
  );
});

test('as WordPress: disallowed protocols are cut off, allowed ones written plainly', () => {
  assert.is(post('<a href="javascript:alert(1)">x</a>'), '<a href="alert(1)">x</a>');
  assert.is(
    post(
      '<a href="HTTPS://x.test/">1</a><a href="//x.test/">2</a><a href="mailto:x@y.z">3</a><a href="data:text/html,x">4</a><a href=" javascript:x">5</a><a href="jav&#x09;ascript:x">6</a><a href="/rel/path?a=1&b=2">7</a><a href="#frag">8</a><a href="tel:123">9</a><a href="ftp://f">10</a><a href="vbscript:x">11</a>',
    ),
    '<a href="https://x.test/">1</a><a href="//x.test/">2</a><a href="mailto:x@y.z">3</a><a href="text/html,x">4</a><a href="x">5</a><a href="x">6</a><a href="/rel/path?a=1&amp;b=2">7</a><a href="#frag">8</a><a href="tel:123">9</a><a href="ftp://f">10</a><a href="x">11</a>',
  );
  assert.is(stripDisallowedProtocols('javascript:javascript:alert(1)'), 'alert(1)');
  assert.is(stripDisallowedProtocols('&#106;avascript&colon;alert(1)'), 'alert(1)');
  assert.is(stripDisallowedProtocols('java&Tab;script&#x3A;alert(1)'), 'alert(1)');
  assert.is(stripDisallowedProtocols('/wiki/a:b'), '/wiki/a:b', 'a colon after a slash is part of a path');
  assert.is(stripDisallowedProtocols('webcal://x'), 'webcal://x');
});

test('as WordPress: style keeps the allowed properties with harmless values', () => {
  assert.is(post('<p style="color:red;background:url(javascript:x)">s</p>'), '<p style="color:red">s</p>');
  assert.is(
    post(
      '<p style="color: red; position: fixed; top: 0; background-image: url(http://e.x/a.png); width: calc(100% - 2px); display:none; margin:var(--x)">s</p>',
    ),
    '<p style="color: red;background-image: url(http://e.x/a.png);width: calc(100% - 2px);margin:var(--x)">s</p>',
  );
  assert.is(
    post('<p style="">empty style</p><p style="text-align:center">ok</p><p style="color:red;;">dbl</p>'),
    '<p>empty style</p><p style="text-align:center">ok</p><p style="color:red">dbl</p>',
  );
  assert.is(filterStyle('grid-template-columns: minmax(10px, 1fr)'), 'grid-template-columns: minmax(10px, 1fr)');
  assert.is(filterStyle('grid-template-columns: repeat(2, 1fr)'), '');
  assert.is(filterStyle('color: rgb(1,2,3)'), '');
  assert.is(
    filterStyle('background-image: linear-gradient(red, blue)'),
    'background-image: linear-gradient(red, blue)',
  );
  assert.is(filterStyle('color: linear-gradient(red, blue)'), '');
  assert.is(filterStyle('width: expression(alert(1))'), '');
  assert.is(filterStyle('color: red /* c */'), '');
  assert.is(filterStyle('--wp--preset--color--x: 1px'), '--wp--preset--color--x: 1px');
  assert.is(filterStyle('COLOR: red'), '', 'property names are matched as written');
});

test('as WordPress: text, entities and well-formed markup are kept', () => {
  assert.is(post('Tom & Jerry &amp; &nbsp; &copy; &#169; &#x41;'), 'Tom &amp; Jerry &amp; &nbsp; &copy; &#169; &#x41;');
  assert.is(post('<p>line1\nline2</p>\n\n<p>para</p>'), '<p>line1\nline2</p>\n\n<p>para</p>');
  assert.is(post('<table><tr><td>c</td></tr></table>'), '<table><tr><td>c</td></tr></table>');
  assert.is(post('<a href="https://x/?a=1&amp;b=2&c=3">amp</a>'), '<a href="https://x/?a=1&amp;b=2&amp;c=3">amp</a>');
  assert.is(
    post('<p title="a &quot;q&quot; b" data-x="&lt;script&gt;">e</p>'),
    '<p title="a &quot;q&quot; b" data-x="&lt;script&gt;">e</p>',
  );
  assert.is(
    post('<a href="x" download>d</a><a href="x" download="file.txt">e</a>'),
    '<a href="x" download>d</a><a href="x">e</a>',
  );
  assert.is(
    post('<video controls src="https://x/v.mp4"></video><img src="a.png" alt="">'),
    '<video controls src="https://x/v.mp4"></video><img src="a.png" alt="" />',
  );
  assert.is(post('Grüße — “quoted”'), 'Grüße — “quoted”');
});

test('titles allow only the inline set, without global attributes', () => {
  assert.is(filterHtml('<script>x</script>T<b onclick="1">B</b><p>p</p>', 'title'), 'xT<b>B</b>p', 'as WordPress');
  assert.is(
    filterHtml('<a href="h" title="t" class="c">a</a><span>s</span><q cite="c">q</q>', 'title'),
    '<a href="h" title="t">a</a>s<q cite="c">q</q>',
  );
});

test('our re-serialisation: void elements, quotes, case and unclosed tags (WordPress keeps them as written)', () => {
  assert.is(post('a<br>b<br/>c<br />d'), 'a<br />b<br />c<br />d');
  assert.is(post("<p class='single' title=unquoted>q</p>"), '<p class="single" title="unquoted">q</p>');
  assert.is(post('<P ALIGN="center" OnClick="x">up</P>'), '<p align="center">up</p>');
  assert.is(post('<p>unclosed'), '<p>unclosed</p>');
  assert.is(post('a < b > c'), 'a &lt; b &gt; c');
});

test('nothing executable gets through', () => {
  const attacks = [
    '<img src=x onerror=alert(1)>',
    '<svg onload=alert(1)>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
    '<a href="javascript&colon;alert(1)">x</a>',
    '<p title="<!-- " onclick="alert(1) -->">x</p>',
    '<!-- a --!><img src=x onerror=alert(1)> -->',
    '<!--><img src=x onerror=alert(1)>-->',
    '<scr<script>ipt>alert(1)</script>',
    '<div style="background-image: url(jav&#x09;ascript:alert(1))">x</div>',
    '<a href="x" title="</a><img src=x onerror=alert(1)>">y</a>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  ];
  for (const attack of attacks) {
    const out = post(attack);
    for (const { tag, attributes } of tagsOf(out)) {
      assert.not.ok(['script', 'svg', 'iframe', 'math', 'style'].includes(tag), `${attack} → ${out}`);
      for (const [name, value] of attributes) {
        assert.not.ok(name.startsWith('on'), `${attack} → ${out}`);
        // What a browser would make of the value: references decoded, control characters and spaces dropped.
        const seen = value
          .replace(/&#x([0-9a-f]+);?/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
          .replace(/&#(\d+);?/g, (_, d) => String.fromCodePoint(Number(d)))
          .replace(/&colon;/gi, ':')
          .replace(/&tab;/gi, '')
          .replace(/[\s\u0000-\u001f]/g, '');
        assert.not.match(seen, /javascript:/i, `${attack} → ${out}`);
      }
    }
    // A comment cannot end early and let markup out.
    assert.not.match(out, /--!>/, `${attack} → ${out}`);
  }
  assert.is(
    post('<p title="<!-- " onclick="alert(1) -->">x</p>'),
    '<p title="">x</p>',
    'a comment inside an attribute is dropped, not restored',
  );
  assert.is(post('<!-- a --!><img src=x onerror=alert(1)> -->'), '<!-- a -!&gt;<img src="x" /> -->');
});

test('editors and administrators keep their HTML; the rest are filtered, field by field', () => {
  const input = {
    title: '<b onclick="x">T</b>',
    content: '<script>s</script>',
    excerpt: '<a href="javascript:e">e</a>',
    slug: '<b>',
  };
  for (const role of ['editor', 'administrator'] as const)
    assert.is(filterTextFields(input, { id: 1, roles: [role] }), input);
  for (const role of ['author', 'contributor', 'subscriber'] as const) {
    assert.equal(filterTextFields(input, { id: 1, roles: [role] }), {
      title: '<b>T</b>',
      content: 's',
      excerpt: '<a href="e">e</a>',
      slug: '<b>',
    });
  }
  assert.equal(
    filterTextFields({ content: '<p>only</p>' }, { id: 1, roles: ['author'] }),
    { content: '<p>only</p>' },
    'absent fields stay absent',
  );
});

test.run();
