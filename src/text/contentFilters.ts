/**
 * The smaller filters of `the_content` and of titles and excerpts: "WordPress" capitalisation, character
 * conversion, smilies, image/iframe attributes, and tag stripping.
 */

import { phpTrim } from './phpTrim';
import { stripTagsLikePhp } from './slug';
import { escapeRegExp, SPACE, WS } from './textPatterns';

/** WordPress's capital_P_dangit: "Wordpress" → "WordPress" after a space, an opening quote, ">" or "(". */
export function capitalPDangit(text: string): string {
  if (!text.includes('Wordpress')) return text;
  return text.replace(/( |&#8216;|&#8220;|>|\()Wordpress/g, '$1WordPress');
}

/** convert_chars: "&" followed by anything but "#" and not an entity name becomes "&#038;". */
export function convertChars(text: string): string {
  return text.includes('&') ? text.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1') : text;
}

// Smilies WordPress replaces by default: emoji, except two that are images.
const SMILIES: Readonly<Record<string, string>> = {
  ':mrgreen:': 'mrgreen.png',
  ':roll:': '\u{1F644}',
  ':neutral:': '\u{1F610}',
  ':twisted:': '\u{1F608}',
  ':arrow:': '\u27A1',
  ':shock:': '\u{1F62F}',
  ':smile:': '\u{1F642}',
  ':???:': '\u{1F615}',
  ':cool:': '\u{1F60E}',
  ':evil:': '\u{1F47F}',
  ':grin:': '\u{1F600}',
  ':idea:': '\u{1F4A1}',
  ':oops:': '\u{1F633}',
  ':razz:': '\u{1F61B}',
  ':wink:': '\u{1F609}',
  ':cry:': '\u{1F625}',
  ':eek:': '\u{1F62E}',
  ':lol:': '\u{1F606}',
  ':mad:': '\u{1F621}',
  ':sad:': '\u{1F641}',
  '8-)': '\u{1F60E}',
  '8-O': '\u{1F62F}',
  ':-(': '\u{1F641}',
  ':-)': '\u{1F642}',
  ':-?': '\u{1F615}',
  ':-D': '\u{1F600}',
  ':-P': '\u{1F61B}',
  ':-o': '\u{1F62E}',
  ':-x': '\u{1F621}',
  ':-|': '\u{1F610}',
  ';-)': '\u{1F609}',
  '8O': '\u{1F62F}',
  ':(': '\u{1F641}',
  ':)': '\u{1F642}',
  ':?': '\u{1F615}',
  ':D': '\u{1F600}',
  ':P': '\u{1F61B}',
  ':o': '\u{1F62E}',
  ':x': '\u{1F621}',
  ':|': '\u{1F610}',
  ';)': '\u{1F609}',
  ':!:': '\u2757',
  ':?:': '\u2753',
};
// A smiley stands alone: a space (newlines included) or the start before it, a space or the end after it.
const SMILEY_ALTERNATIVES = Object.keys(SMILIES)
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
const SMILEY_RE = new RegExp(`(?<=${SPACE}|^)(?:${SMILEY_ALTERNATIVES})(?=${SPACE}|$)`, 'g');
/**
 * Whether a smiley could stand somewhere: every smiley starts with ":", ";" or "8", and SMILEY_RE wants the
 * start of a piece between tags (the start, or after a tag's ">"), or a space, a tab, a newline, a no-break
 * space or "&nbsp;" (ending in ";") right before it, and a smiley's text from there. Three indexOf walks
 * instead of trying the smiley alternatives at every character ("post 8" is no smiley: "8" alone is none).
 */
export function maySmile(text: string): boolean {
  for (const first of SMILEY_FIRST_CHARACTERS) {
    for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
      if (at > 0) {
        const before = text.charCodeAt(at - 1);
        if (
          before !== 32 &&
          before !== 10 &&
          before !== 9 &&
          before !== 13 &&
          before !== 0xa0 &&
          before !== 59 &&
          before !== 62
        )
          continue;
      }
      if (smileyStartsAt(text, at)) return true;
    }
  }
  return false;
}
const SMILEY_FIRST_CHARACTERS = [':', ';', '8'] as const;
const SMILEY_TEXTS = Object.keys(SMILIES);

/** Whether some smiley's text starts at `at` (what follows it is left to SMILEY_RE). */
function smileyStartsAt(text: string, at: number): boolean {
  for (let i = 0; i < SMILEY_TEXTS.length; i++) if (text.startsWith(SMILEY_TEXTS[i]!, at)) return true;
  return false;
}
const SMILEY_IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/;

function escAttr(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** convert_smilies: smileys outside tags (and outside code, pre, style, script, textarea) → emoji or image. */
export function convertSmilies(text: string, siteUrl: string): string {
  if (!maySmile(text)) return text;
  const parts = text.split(/(<[^>]*>)/);
  let ignoring = '';
  let out = '';
  for (const part of parts) {
    let piece = part;
    if (ignoring === '') {
      const m = SMILEY_IGNORED.exec(piece);
      if (m) ignoring = m[1]!;
    }
    if (ignoring === '' && piece.length > 0 && piece[0] !== '<') {
      piece = piece.replace(SMILEY_RE, (smiley) => {
        const target = SMILIES[smiley]!;
        if (!/\.(?:jpe?g|jpe|gif|png|webp)$/i.test(target)) return target;
        const src = `${siteUrl.replace(/\/+$/, '')}/wp-includes/images/smilies/${target}`;
        return `<img src="${escAttr(src)}" alt="${escAttr(smiley)}" class="wp-smiley" style="height: 1em; max-height: 1em;" />`;
      });
    }
    if (ignoring !== '' && piece === `</${ignoring}>`) ignoring = '';
    out += piece;
  }
  return out;
}

/**
 * The attributes WordPress 6.1 adds to images and iframes in content: decoding="async" on every <img> with a
 * double-quoted src, loading="lazy" on <img>/<iframe> with src, width and height (not on embed fallbacks).
 * Images of attachments (class wp-image-N) also get srcset/sizes in WordPress; that needs the media library
 * and is not done here.
 */
export function addMediaAttributes(html: string): string {
  if (!html.includes('<img') && !html.includes('<iframe')) return html;
  return html.replace(new RegExp(`<(img|iframe)${WS}[^>]+>`, 'g'), (tag, name: string) => {
    let out = tag;
    const sized = out.includes(' src="') && out.includes(' width="') && out.includes(' height="');
    if (name === 'img') {
      if (sized && !out.includes(' loading=')) out = out.replace('<img', '<img loading="lazy"');
      if (!out.includes(' decoding=') && out.includes(' src="')) out = out.replace('<img ', '<img decoding="async" ');
    } else if (sized && !out.includes(' loading=') && !out.includes(' data-secret="')) {
      out = out.replace('<iframe', '<iframe loading="lazy"');
    }
    return out;
  });
}

/** PHP strip_tags-like removal of tags and comments (script/style elements removed with their text). */
export function stripAllTags(html: string): string {
  return phpTrim(stripTagsLikePhp(mayHoldScriptOrStyle(html) ? html.replace(SCRIPT_OR_STYLE_ELEMENT, '') : html));
}

const SCRIPT_OR_STYLE_ELEMENT = /<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi;

/** Whether "<script" or "<style" (in any ASCII case) occurs: the element pattern cannot match otherwise. */
function mayHoldScriptOrStyle(html: string): boolean {
  for (let lt = html.indexOf('<'); lt >= 0; lt = html.indexOf('<', lt + 1)) {
    const c = html.charCodeAt(lt + 1) | 0x20; // ASCII lower case
    if (c !== 0x73) continue; // s
    const name = html.slice(lt + 1, lt + 7).toLowerCase();
    if (name === 'script' || name.startsWith('style')) return true;
  }
  return false;
}
