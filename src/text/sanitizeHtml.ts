/**
 * The HTML filter WordPress applies on save to the title, content and excerpt of users without
 * `unfiltered_html`: only the allowed elements and attributes (allowedHtml.ts) survive; event handlers,
 * scripts and URLs with other protocols go. sanitize-html does the parsing and the filtering; this module
 * configures it with the allow-list and adds what WordPress does beyond an allow-list:
 * - HTML comments survive (block delimiters `<!-- wp:… -->` above all), their text filtered like the rest;
 * - a disallowed URL protocol is cut off (`javascript:alert(1)` → `alert(1)`), not the whole attribute;
 * - `style` keeps only the declarations of allowed properties with harmless values;
 * - the text of a removed element stays (`<script>x</script>` → `x`).
 * Unlike WordPress's string filter, the output is re-serialised: tags closed and lower-cased, attributes
 * double-quoted, void elements written `<br />`.
 */
import sanitize from 'sanitize-html';
import type { IOptions } from 'sanitize-html';
import {
  BARE_POST_ELEMENTS,
  CSS_FUNCTIONS,
  CSS_GRADIENT_PROPERTIES,
  CSS_PROPERTIES,
  CSS_URL_PROPERTIES,
  FLAG_ONLY_ATTRIBUTES,
  GLOBAL_ATTRIBUTES,
  POST_ELEMENTS,
  TITLE_ELEMENTS,
  URL_ATTRIBUTES,
  URL_PROTOCOLS,
  VALUELESS_ATTRIBUTES,
} from './allowedHtml';

/** `post`: content and excerpts; `title`: titles, which allow far less. */
export type HtmlContext = 'post' | 'title';

const protocols = new Set(URL_PROTOCOLS);
const urlAttributes = new Set(URL_ATTRIBUTES);
const cssProperties = new Set(CSS_PROPERTIES);
const cssUrlProperties = new Set(CSS_URL_PROPERTIES);
const cssGradientProperties = new Set(CSS_GRADIENT_PROPERTIES);

/** Named and numeric character references, decoded only as far as telling a URL's scheme needs. */
function decodeForScheme(text: string): string {
  return text
    .replace(/&#x0*([0-9a-f]+);?/gi, (_, hex: string) =>
      String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff)),
    )
    .replace(/&#0*([0-9]+);?/g, (_, dec: string) => String.fromCodePoint(Math.min(Number(dec), 0x10ffff)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n');
}

/** A colon as written: literally or as a character reference. */
const COLON = /:|&#0*58;?|&#x0*3a;?|&colon;/i;

/**
 * Cuts disallowed protocols off a URL, again until none is left (`javascript:javascript:x` → `x`), and writes
 * an allowed one plainly (`HTTPS:` → `https:`). Whatever precedes the first colon is a scheme unless it holds
 * `/`, `?` or `#` (then the colon belongs to a path or query).
 */
export function stripDisallowedProtocols(url: string): string {
  let current = url;
  for (let round = 0; round < 10; round++) {
    const colon = COLON.exec(current);
    if (!colon) return current;
    const before = decodeForScheme(current.slice(0, colon.index));
    if (/[/?#]/.test(before)) return current;
    const rest = current.slice(colon.index + colon[0].length).trim();
    const scheme = before.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
    if (protocols.has(scheme)) return `${scheme}:${rest}`;
    current = rest;
  }
  return '';
}

/** Removes the allowed functions (innermost first) so that what is left can be checked for anything risky. */
function withoutAllowedFunctions(value: string): string {
  const pattern = new RegExp(`\\b(?:${CSS_FUNCTIONS.join('|')})\\((?:[^()]|\\([^()]*\\))*\\)`, 'gi');
  let current = value;
  for (let previous = ''; previous !== current; ) {
    previous = current;
    current = current.replace(pattern, '');
  }
  return current;
}

/** One `property: value` declaration, if WordPress would keep it. */
function keepDeclaration(declaration: string): boolean {
  const colon = declaration.indexOf(':');
  // A declaration without a property does nothing in a browser; dropping it is the safe reading.
  if (colon === -1) return false;
  const property = declaration.slice(0, colon).trim();
  let value = declaration.slice(colon + 1).trim();
  const custom = /^--[a-zA-Z0-9_-]+$/.test(property);
  if (!custom && !cssProperties.has(property)) return false;
  if (custom || cssUrlProperties.has(property)) {
    let badUrl = false;
    value = value.replace(/\burl\(\s*(['"]?)(.*?)\1\s*\)/gi, (_, _quote: string, url: string) => {
      const trimmed = url.trim();
      if (trimmed === '' || stripDisallowedProtocols(trimmed) !== trimmed) badUrl = true;
      return '';
    });
    if (badUrl) return false;
  }
  if (cssGradientProperties.has(property)) {
    value = value.replace(/\b(?:repeating-)?(?:linear|radial|conic)-gradient\((?:[^()]|\([^()]*\))*\)/gi, '');
  }
  value = withoutAllowedFunctions(value);
  // Escapes, leftover function calls, entities, assignments, closing braces and comments can all smuggle code.
  return !/[\\(&=}]|\/\*/.test(value);
}

/** A `style` attribute with only the declarations WordPress keeps, joined as it joins them. */
export function filterStyle(style: string): string {
  return style
    .split(';')
    .map((declaration) => declaration.trim())
    .filter((declaration) => declaration !== '' && keepDeclaration(declaration))
    .join(';');
}

/** sanitize-html takes `allowedEmptyAttributes`, which its type definitions do not list yet. */
type Options = IOptions & { allowedEmptyAttributes: string[] };

function sanitizerOptions(context: HtmlContext): Options {
  const elements = context === 'post' ? POST_ELEMENTS : TITLE_ELEMENTS;
  const allowedAttributes: Record<string, string[]> = {};
  for (const [element, attributes] of Object.entries(elements)) {
    allowedAttributes[element] = context === 'post' ? [...attributes, ...GLOBAL_ATTRIBUTES, 'data-*'] : [...attributes];
  }
  const allowedTags = [...Object.keys(elements), ...(context === 'post' ? BARE_POST_ELEMENTS : [])];
  const everyAttribute = [...new Set(Object.values(allowedAttributes).flat())];
  return {
    allowedTags,
    allowedAttributes,
    // sanitize-html checks schemes too: the same protocols, after the cut below has already been made.
    allowedSchemes: [...URL_PROTOCOLS],
    allowedSchemesAppliedToAttributes: [...URL_ATTRIBUTES],
    allowProtocolRelative: true,
    // Empty values are kept; flags stay valueless, other attributes keep their `=""`.
    nonBooleanAttributes: [],
    allowedEmptyAttributes: everyAttribute.filter((attribute) => !VALUELESS_ATTRIBUTES.includes(attribute)),
    // WordPress keeps the text of the elements it removes, scripts and styles included (as inert text).
    nonTextTags: [],
    disallowedTagsMode: 'discard',
    // Entities are kept as written; only a bare `&` becomes `&amp;`, as WordPress normalises it.
    parser: { decodeEntities: false },
    // `style` is filtered by the rules above and kept as written, not re-serialised.
    parseStyleAttributes: false,
    transformTags: {
      '*': (tagName, attribs) => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(attribs)) {
          if (FLAG_ONLY_ATTRIBUTES.includes(name) && value !== '') continue;
          if (urlAttributes.has(name)) {
            kept[name] = stripDisallowedProtocols(value);
            continue;
          }
          if (name === 'style') {
            const style = filterStyle(value);
            if (style !== '') kept[name] = style;
            continue;
          }
          kept[name] = value;
        }
        return { tagName, attribs: kept };
      },
    },
  };
}

const OPTIONS: Record<HtmlContext, Options> = { post: sanitizerOptions('post'), title: sanitizerOptions('title') };

/**
 * Filters HTML for saving by a user without `unfiltered_html`. Comments are set aside before parsing (as
 * placeholders), their text filtered on its own, and put back only where the placeholder ended up in text:
 * one that ended up inside a tag (a comment written in an attribute value) is dropped, since putting it back
 * there could open the attribute up.
 */
export function filterHtml(html: string, context: HtmlContext): string {
  if (html === '') return html;
  let salt = 0;
  while (html.includes(`kses${salt}c`)) salt++;
  const placeholder = (index: number) => `kses${salt}c${index}e`;
  const comments: string[] = [];
  const withPlaceholders = html.replace(/<!--([\s\S]*?)-->/g, (_, inner: string) => {
    comments.push(filterCommentText(inner, context));
    return placeholder(comments.length - 1);
  });
  const filtered = sanitize(withPlaceholders, OPTIONS[context]);
  if (comments.length === 0) return filtered;
  const pattern = new RegExp(`kses${salt}c(\\d+)e`, 'g');
  let out = '';
  let inTag = false;
  let last = 0;
  // In sanitize-html's output every raw `<` opens a tag and the next raw `>` closes it (text and attribute
  // values have theirs escaped), so the tag state at each placeholder can be read off by scanning.
  for (const match of filtered.matchAll(pattern)) {
    const before = filtered.slice(last, match.index);
    for (const char of before) {
      if (char === '<') inTag = true;
      else if (char === '>') inTag = false;
    }
    out += before;
    const comment = comments[Number(match[1])];
    if (!inTag && comment !== undefined && comment !== '') out += `<!--${comment}-->`;
    last = match.index + match[0].length;
  }
  return out + filtered.slice(last);
}

/** A comment's text, filtered like markup, with no `--` left that could end it early. */
function filterCommentText(inner: string, context: HtmlContext): string {
  const text = sanitize(inner, OPTIONS[context]).replace(/-{2,}/g, '-').replace(/-$/, '');
  return text;
}
