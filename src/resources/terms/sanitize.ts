/**
 * What WordPress does to a term's name and description when it saves them, whoever the user is:
 * - the name: text-field sanitising (tags stripped, whitespace collapsed), then the basic-tags HTML filter,
 *   then `&`, `<` and `>` escaped without double-encoding, so "A & B" is stored (and served) as "A &amp; B";
 * - the description: the basic-tags HTML filter only (a, abbr, acronym, b, blockquote, cite, code, del, em, i,
 *   q, s, strike, strong, with a few attributes), so `<p>` goes, `<b>` stays, and `javascript:` URLs lose their
 *   scheme.
 *
 * The filter below follows WordPress's observable rules (its tag splitting, attribute parsing, entity
 * normalising and URL-scheme check), since clients compare stored text byte for byte.
 */
import { sanitizeTextField as textField } from '../../text/textField';
import { phpTrim } from '../../text/phpTrim';

/** Elements the basic filter keeps, with the attributes each may keep (lower case). */
const BASIC_TAGS: Record<string, readonly string[]> = {
  a: ['href', 'title'],
  abbr: ['title'],
  acronym: ['title'],
  b: [],
  blockquote: ['cite'],
  cite: [],
  code: [],
  del: ['datetime'],
  em: [],
  i: [],
  q: ['cite'],
  s: [],
  strike: [],
  strong: [],
};

/** Attributes holding a URL, whose scheme must be an allowed one. */
const URL_ATTRIBUTES = new Set([
  'action',
  'archive',
  'background',
  'cite',
  'classid',
  'codebase',
  'data',
  'formaction',
  'href',
  'icon',
  'longdesc',
  'manifest',
  'poster',
  'profile',
  'src',
  'usemap',
  'xmlns',
]);

const ALLOWED_PROTOCOLS = new Set([
  'http',
  'https',
  'ftp',
  'ftps',
  'mailto',
  'news',
  'irc',
  'irc6',
  'ircs',
  'gopher',
  'nntp',
  'feed',
  'telnet',
  'mms',
  'rtsp',
  'sms',
  'svn',
  'tel',
  'fax',
  'xmpp',
  'webcal',
  'urn',
]);

/** Named character references the filter leaves alone (HTML 4's set plus apos); others get their `&` escaped. */
const ENTITY_NAMES = new Set(
  (
    'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn acute micro para ' +
    'middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml ' +
    'Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml ' +
    'Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute ' +
    'icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn ' +
    'yuml quot amp lt gt apos OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp zwnj zwj lrm rlm ndash ' +
    'mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo euro fnof Alpha Beta Gamma Delta ' +
    'Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi Omega alpha ' +
    'beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon ' +
    'phi chi psi omega thetasym upsih piv bull hellip prime Prime oline frasl weierp image real trade alefsym larr ' +
    'uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla isin notin ni prod sum minus ' +
    'lowast radic prop infin ang and or cap cup int sim cong asymp ne equiv le ge sub sup nsub sube supe oplus ' +
    'otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams sup1 sup2 sup3 frac14 ' +
    'frac12 frac34 there4'
  ).split(' '),
);

/** PCRE's `\s` without the Unicode flag (JavaScript's `\s` also matches no-break and other Unicode spaces). */
const WS = '[ \\t\\n\\r\\f\\v]';

/** WordPress's text-field sanitising (the REST `name` and `search` arguments use it). */
export function sanitizeTextField(text: string): string {
  return textField(text, false);
}

/** A term name as WordPress stores it. */
export function sanitizeTermName(name: string): string {
  return escapeSpecialChars(filterBasicHtml(sanitizeTextField(name)));
}

/** A term description as WordPress stores it. */
export function sanitizeTermDescription(description: string): string {
  return filterBasicHtml(description);
}

/** `&`, `<` and `>` escaped; character references already in the text are kept (after normalising). */
export function escapeSpecialChars(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return normaliseEntities(text)
    .replace(/&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** The basic-tags HTML filter: unknown elements and attributes go, text and known markup stay. */
export function filterBasicHtml(input: string): string {
  let text = input.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '');
  text = normaliseEntities(text);
  return text.replace(/(<!--.*?(?:-->|$))|(<[^>]*(?:>|$)|>)/g, (piece) => filterPiece(piece));
}

function filterPiece(raw: string): string {
  const piece = raw.replace(/\\"/g, '"');
  if (!piece.startsWith('<')) return '&gt;';
  if (piece.startsWith('<!--')) {
    let inner = piece.split('<!--').join('').split('-->').join('');
    for (let next = filterBasicHtml(inner); next !== inner; next = filterBasicHtml(inner)) inner = next;
    if (inner === '') return '';
    inner = inner.replace(/--+/g, '-').replace(/-$/, '');
    return `<!--${inner}-->`;
  }
  const tag = new RegExp(`^<${WS}*(/${WS}*)?([a-zA-Z0-9-]+)([^>]*)>?$`).exec(piece);
  if (!tag) return '';
  const [, slash, element, attributes] = tag as unknown as [string, string | undefined, string, string];
  const allowed = BASIC_TAGS[element.toLowerCase()];
  if (!allowed) return '';
  if (slash !== undefined && phpTrim(slash) !== '') return `</${element}>`;
  const xhtmlSlash = new RegExp(`${WS}*/${WS}*$`).test(attributes) ? ' /' : '';
  if (allowed.length === 0) return `<${element}${xhtmlSlash}>`;
  let kept = '';
  for (const attribute of parseAttributes(attributes)) {
    if (allowed.includes(attribute.name.toLowerCase())) kept += ` ${attribute.whole}`;
  }
  return `<${element}${kept.replace(/[<>]/g, '')}${xhtmlSlash}>`;
}

interface Attribute {
  name: string;
  whole: string;
}

/** Splits an attribute list the forgiving way WordPress does: malformed parts are skipped, first name wins. */
function parseAttributes(list: string): Attribute[] {
  const found = new Map<string, Attribute>();
  const add = (name: string, whole: string) => {
    if (!found.has(name)) found.set(name, { name, whole });
  };
  const urlChecked = (name: string, value: string) =>
    URL_ATTRIBUTES.has(name.toLowerCase()) ? stripBadProtocols(value) : value;
  let rest = list;
  let mode: 'name' | 'equals' | 'value' = 'name';
  let name = '';
  while (rest.length > 0) {
    let progressed = false;
    if (mode === 'name') {
      const m = /^[_a-zA-Z][-_a-zA-Z0-9:.]*/.exec(rest);
      if (m) {
        name = m[0];
        rest = rest.slice(m[0].length);
        mode = 'equals';
        progressed = true;
      }
    } else if (mode === 'equals') {
      const eq = new RegExp(`^${WS}*=${WS}*`).exec(rest);
      if (eq) {
        rest = rest.slice(eq[0].length);
        mode = 'value';
        progressed = true;
      } else {
        const space = new RegExp(`^${WS}+`).exec(rest);
        if (space) {
          add(name, name);
          rest = rest.slice(space[0].length);
          mode = 'name';
          progressed = true;
        }
      }
    } else {
      const forms: [RegExp, RegExp, (value: string) => string][] = [
        [new RegExp(`^"([^"]*)"(?:${WS}+|/?$)`), new RegExp(`^"[^"]*"(?:${WS}+|$)`), (v) => `${name}="${v}"`],
        [new RegExp(`^'([^']*)'(?:${WS}+|/?$)`), new RegExp(`^'[^']*'(?:${WS}+|$)`), (v) => `${name}='${v}'`],
        [
          new RegExp(`^([^ \\t\\n\\r\\f\\v"']+)(?:${WS}+|/?$)`),
          new RegExp(`^[^ \\t\\n\\r\\f\\v"']+(?:${WS}+|$)`),
          (v) => `${name}="${v}"`,
        ],
      ];
      for (const [match, consume, whole] of forms) {
        const m = match.exec(rest);
        if (!m) continue;
        add(name, whole(urlChecked(name, m[1]!)));
        const eaten = consume.exec(rest);
        if (eaten) rest = rest.slice(eaten[0].length);
        mode = 'name';
        progressed = true;
        break;
      }
    }
    if (!progressed) {
      // Not well-formed: drop up to the next whitespace-separated chunk and start over with a name.
      rest = rest.replace(new RegExp(`^(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^ \\t\\n\\r\\f\\v])*${WS}*`), '');
      mode = 'name';
    }
  }
  if (mode === 'equals') add(name, name);
  return [...found.values()];
}

/** Removes URL schemes that are not allowed ("javascript:alert(1)" -> "alert(1)"); gives up on deep nesting. */
function stripBadProtocols(value: string): string {
  let text = value.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '').replace(/\\+0+/g, '');
  let previous: string;
  let iterations = 0;
  do {
    previous = text;
    text = stripProtocolOnce(text, 1);
  } while (previous !== text && ++iterations < 6);
  return previous !== text ? '' : text;
}

function stripProtocolOnce(value: string, depth: number): string {
  let text = value.replace(/(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))/gi, '$1;');
  const split = /:|&#0*58;|&#x0*3a;|&colon;/i.exec(text);
  if (!split) return text;
  const before = text.slice(0, split.index);
  if (before.includes('/?')) return text;
  let after = phpTrim(text.slice(split.index + split[0].length));
  const protocol = allowedProtocolOf(before);
  if (protocol === 'feed:') {
    if (depth > 2) return '';
    after = stripProtocolOnce(after, depth + 1);
    if (after === '') return after;
  }
  text = protocol + after;
  return text;
}

function allowedProtocolOf(candidate: string): string {
  const decoded = candidate
    .replace(/&#([0-9]+);/g, (_, n: string) => String.fromCharCode(Number(n) % 256))
    .replace(/&#[Xx]([0-9A-Fa-f]+);/g, (_, h: string) => String.fromCharCode(parseInt(h, 16) % 256));
  const name = decoded
    .replace(/[ \t\n\r\f\v]/g, '')
    .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '')
    .replace(/\\+0+/g, '')
    .toLowerCase();
  return ALLOWED_PROTOCOLS.has(name) ? `${name}:` : '';
}

/** Every `&` escaped, except in well-formed references to known names and valid code points. */
function normaliseEntities(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/&amp;([A-Za-z]{2,8}[0-9]{0,2});/g, (_, name: string) =>
      ENTITY_NAMES.has(name) ? `&${name};` : `&amp;${name};`,
    )
    .replace(/&amp;#(0*[0-9]{1,7});/g, (_, digits: string) => {
      if (digits === '0') return '';
      return isValidCodePoint(Number(digits)) ? `&#${digits.replace(/^0+/, '').padStart(3, '0')};` : `&amp;#${digits};`;
    })
    .replace(/&amp;#[Xx](0*[0-9A-Fa-f]{1,6});/g, (_, hex: string) => {
      if (hex === '0') return '';
      return isValidCodePoint(parseInt(hex, 16)) ? `&#x${hex.replace(/^0+/, '')};` : `&amp;#x${hex};`;
    });
}

function isValidCodePoint(n: number): boolean {
  return (
    n === 0x9 ||
    n === 0xa ||
    n === 0xd ||
    (n >= 0x20 && n <= 0xd7ff) ||
    (n >= 0xe000 && n <= 0xfffd) ||
    (n >= 0x10000 && n <= 0x10ffff)
  );
}
