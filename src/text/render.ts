/**
 * The `rendered` strings of the WordPress 6.1 REST API (title, content, excerpt), reimplemented from observed
 * behaviour of the reference install: the same input gives the same bytes.
 *
 * content.rendered = blocks → texturize → autop (classic content only) → shortcode unwrapping →
 *                    image/iframe attributes → "WordPress" capitalisation → smilies.
 * title.rendered   = texturize → bare "&" escaped → trimmed → "WordPress" capitalisation.
 * excerpt.rendered = explicit excerpt, or 55 words generated from the content (text before <!--more-->),
 *                    then texturize → smilies → bare "&" escaped → autop → shortcode unwrapping →
 *                    image attributes.
 *
 * The REST API renders the stored post_content as is, so `<!--more-->` and `<!--nextpage-->` stay verbatim
 * in content.rendered; RenderContentOptions.more gives the theme's full-post view instead.
 *
 * Not reproduced (they need state outside the text): running shortcodes ([gallery], [caption], [embed] …),
 * oEmbed of bare URLs, dynamic blocks and the layout classes WordPress adds to group/columns/buttons
 * (`is-layout-flow`, `wp-container-N`), srcset/sizes of media-library images.
 *
 * The pipeline is here; its stages are their own modules: blocks.ts, texturize.ts, autop.ts, shortcodes.ts,
 * contentFilters.ts (the smaller filters) and words.ts (excerpt words, word counts).
 */

import { autop } from './autop';
import { excerptBlocksOnly, hasBlocks, isExcerptBlock, parseBlocks, renderBlock, stripBlockDelimiters } from './blocks';
import { addMediaAttributes, capitalPDangit, convertChars, convertSmilies, stripAllTags } from './contentFilters';
import { phpTrim } from './phpTrim';
import { DEFAULT_SHORTCODES, shortcodesIn, shortcodeUnautop, stripShortcodes } from './shortcodes';
import { replaceAll } from './textPatterns';
import { texturize } from './texturize';
import { leadingWordsJoined } from './words';
import { CacheBudget } from '../caches/budget';
import type { CacheSize } from '../caches/budget';

// Rendering is deterministic, and the same texts are rendered again (a post's other variants, a post whose
// other fields changed, its revisions), so results are memoised: one table per kind of rendering and set of
// options, keyed by the raw text itself. A string keeps its hash once computed, so a text held by a document
// is hashed once, rather than copied into a longer key and hashed again on every call. Very large inputs are
// not kept.
const MEMO_MAX_INPUT = 200_000;
const MEMO_TABLES = 64;
const memoTables = new Map<string, RenderMemo>();
/**
 * Entries of one generation of a table: half the cache budget's bound per table (src/caches/budget.ts), process-wide,
 * set by boundRenderedText.
 */
let memoGeneration = Math.floor(CacheBudget.defaults('memory').entries('renderedText') / 2);

/** Sets how many rendered texts each table keeps, over its two generations (the site's cache budget; 0 keeps none). */
export function boundRenderedText(entries: number): void {
  const generation = Math.floor(entries / 2);
  if (generation === memoGeneration) return;
  memoGeneration = generation;
  memoTables.clear();
}

/** The rendered texts kept now, over every table, and the tables they are in. */
export function renderedTextHeld(): CacheSize {
  let entries = 0;
  for (const table of memoTables.values()) entries += table.size;
  return { entries, instances: memoTables.size };
}

/**
 * A bounded memo in two generations: entries go into the current one; when it is full it becomes the previous
 * one (the one before is dropped whole), and an entry found in the previous one moves up. No eviction walks the
 * map (deleting the oldest entry of one Map leaves a gap that finding the next oldest walks over).
 */
class RenderMemo {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  get(raw: string): string | undefined {
    const hit = this.current.get(raw);
    if (hit !== undefined) return hit;
    const old = this.previous.get(raw);
    return old === undefined ? undefined : this.put(raw, old);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  put(raw: string, value: string): string {
    if (raw.length > MEMO_MAX_INPUT || memoGeneration === 0) return value;
    if (this.current.size >= memoGeneration) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(raw, value);
    return value;
  }
}

function memoTable(kind: string): RenderMemo {
  let table = memoTables.get(kind);
  if (table === undefined) {
    if (memoTables.size >= MEMO_TABLES) memoTables.clear();
    memoTables.set(kind, (table = new RenderMemo()));
  }
  return table;
}

/** The options as a short key: a flag, the shortcode names (JSON) or "-", NUL, then the site URL. */
function optionsKey(options: RenderOptions): string {
  return `${options.smilies === false ? 0 : 1}${options.shortcodes ? JSON.stringify(options.shortcodes) : '-'}\u0000${options.siteUrl ?? ''}`;
}

export interface RenderOptions {
  /** Site URL (for the two smilies that are images). Default "" (a root-relative path). */
  siteUrl?: string;
  /** Whether smilies become emoji/images (the use_smilies option, on by default). */
  smilies?: boolean;
  /** Registered shortcode names. Default: DEFAULT_SHORTCODES. */
  shortcodes?: readonly string[];
}

export interface RenderContentOptions extends RenderOptions {
  /**
   * Full-post view of a theme (not what the REST API does): the first `<!--more-->` becomes
   * `<span id="more-ID"></span>` (and `<!--noteaser-->` drops the part before it).
   */
  more?: { postId: number /** 1-based page of a paginated post (default 1). */; page?: number };
}

const MORE_TAG = /<!--more(.*?)?-->/;

/** The post's text up to `<!--more-->` (the teaser), or all of it; core/more block delimiters removed. */
function splitAtMore(content: string): { teaser: string; rest: string | null } {
  const m = MORE_TAG.exec(content);
  if (!m) return { teaser: content, rest: null };
  let text = content;
  if (text.includes('<!-- wp:more ')) text = text.replace(/<!-- \/?wp:more(.*?) -->/g, '');
  const marker = m[0];
  const at = text.indexOf(marker);
  return { teaser: text.slice(0, at), rest: text.slice(at + marker.length) };
}

/**
 * The pages of a post split at `<!--nextpage-->` (newlines around the marker and core/nextpage block
 * delimiters removed, a marker at the very start ignored), as WordPress sets them up for display.
 */
export function splitPages(content: string): string[] {
  if (!content.includes('<!--nextpage-->')) return [content];
  let text = content;
  text = replaceAll(text, '\n<!--nextpage-->\n', '<!--nextpage-->');
  text = replaceAll(text, '\n<!--nextpage-->', '<!--nextpage-->');
  text = replaceAll(text, '<!--nextpage-->\n', '<!--nextpage-->');
  text = replaceAll(replaceAll(text, '<!-- wp:nextpage -->', ''), '<!-- /wp:nextpage -->', '');
  if (text.startsWith('<!--nextpage-->')) text = text.slice('<!--nextpage-->'.length);
  return text.split('<!--nextpage-->');
}

/** The `the_content` filter chain applied to a string. */
function theContent(raw: string, options: RenderOptions): string {
  const blocks = hasBlocks(raw);
  return afterTexturize(texturize(blocks ? stripBlockDelimiters(raw) : raw, options), !blocks, options);
}

/** The rest of `the_content` once the text is texturized: paragraphs (classic content only) and the smaller filters. */
function afterTexturize(texturized: string, paragraphs: boolean, options: RenderOptions): string {
  let html = paragraphs ? autop(texturized) : texturized;
  html = shortcodeUnautop(html, options.shortcodes ?? DEFAULT_SHORTCODES);
  html = addMediaAttributes(html);
  html = capitalPDangit(html);
  if (options.smilies !== false) html = convertSmilies(html, options.siteUrl ?? '');
  return html;
}

/** content.rendered of a post whose stored content is `raw` (as the REST API returns it). */
export function renderContent(raw: string, options: RenderContentOptions = {}): string {
  const table = memoTable(
    `c${options.more ? `${options.more.postId}|${options.more.page ?? 1}` : ''}|${optionsKey(options)}`,
  );
  return table.get(raw) ?? table.put(raw, renderContentUncached(raw, options));
}

function renderContentUncached(raw: string, options: RenderContentOptions): string {
  let source = raw;
  if (options.more) {
    const pages = splitPages(raw);
    const page = Math.min(Math.max(1, options.more.page ?? 1), pages.length);
    source = pages[page - 1]!;
    const { teaser, rest } = splitAtMore(source);
    if (rest !== null) {
      // <!--noteaser--> hides the teaser in the full view (on the first page of a paginated post).
      const keepTeaser = !(raw.includes('<!--noteaser-->') && (pages.length === 1 || page === 1));
      source = (keepTeaser ? teaser : '') + `<span id="more-${options.more.postId}"></span>` + rest;
    }
  }
  return theContent(source, options);
}

export interface RenderTitleOptions {
  /** A private post's title gets the "Private: " prefix in the REST API. */
  private?: boolean;
}

/** title.rendered: texturized, bare "&" escaped, trimmed; never wrapped in paragraphs. */
export function renderTitle(raw: string, options: RenderTitleOptions = {}): string {
  const title = options.private ? `Private: ${raw}` : raw;
  return replaceAll(phpTrim(convertChars(texturize(title))), 'Wordpress', 'WordPress');
}

export const EXCERPT_LENGTH = 55;
export const EXCERPT_MORE = ' [&hellip;]';

/** The excerpt text WordPress generates from content: first 55 words of the rendered teaser, " [&hellip;]" when cut. */
export function generateExcerptText(rawContent: string, options: RenderOptions = {}): string {
  let text = splitAtMore(splitPages(rawContent)[0]!).teaser;
  text = stripShortcodes(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  text = excerptBlocksOnly(text);
  return excerptWords(theContent(text, options));
}

/** The first 55 words of the excerpt's source once through `the_content`, with " [&hellip;]" when cut. */
function excerptWords(html: string): string {
  return leadingWordsJoined(stripAllTags(replaceAll(html, ']]>', ']]&gt;')), EXCERPT_LENGTH, EXCERPT_MORE);
}

/**
 * content.rendered and excerpt.rendered of one post: the same as renderContent and renderExcerpt (and memoised
 * with them), but a generated excerpt shares the work both would do on the same text when it can (see
 * renderBothUncached).
 */
export function renderContentAndExcerpt(
  rawContent: string,
  rawExcerpt: string,
  options: RenderOptions = {},
  /** False for a text unlikely to be rendered again soon: it is neither looked up nor kept. */
  memoise = true,
): { content: string; excerpt: string } {
  if ((options as RenderContentOptions).more) {
    return { content: renderContent(rawContent, options), excerpt: renderExcerpt(rawExcerpt, rawContent, options) };
  }
  if (!memoise) {
    return (
      (phpTrim(rawExcerpt) === '' ? renderBothUncached(rawContent, options) : null) ?? {
        content: renderContentUncached(rawContent, options),
        excerpt: renderExcerptUncached(rawExcerpt, rawContent, options),
      }
    );
  }
  const contentTable = memoTable(`c|${optionsKey(options)}`);
  const explicit = phpTrim(rawExcerpt) !== '';
  const excerptTable = memoTable(`${explicit ? 'x' : 'g'}${optionsKey(options)}`);
  const excerptKey = explicit ? rawExcerpt : rawContent;
  const content = contentTable.get(rawContent);
  const excerpt = excerptTable.get(excerptKey);
  if (content === undefined && excerpt === undefined && !explicit) {
    const both = renderBothUncached(rawContent, options);
    if (both !== null) {
      contentTable.put(rawContent, both.content);
      excerptTable.put(rawContent, both.excerpt);
      return both;
    }
  }
  return {
    content: content ?? contentTable.put(rawContent, renderContentUncached(rawContent, options)),
    excerpt: excerpt ?? excerptTable.put(excerptKey, renderExcerptUncached(rawExcerpt, rawContent, options)),
  };
}

/**
 * The content and its generated excerpt together, when the excerpt's source is the content itself: one page,
 * no `<!--more-->`, no shortcode to strip, and (for block content) only top-level blocks that excerpts keep,
 * none with inner blocks, so that the excerpt's source, once its blocks are rendered, is exactly what
 * content.rendered texturizes. Both then texturize the same string: it is done once. Classic content goes
 * through `the_content` identically for both: content.rendered is the excerpt's source as is. Null otherwise
 * (the two are then rendered apart).
 */
function renderBothUncached(raw: string, options: RenderOptions): { content: string; excerpt: string } | null {
  if (raw.includes('<!--nextpage-->') || MORE_TAG.test(raw)) return null;
  if (shortcodesIn(raw, options.shortcodes ?? DEFAULT_SHORTCODES, false).length > 0) return null;
  if (!hasBlocks(raw)) {
    const content = theContent(raw, options);
    return { content, excerpt: excerptHtml(excerptWords(content), options) };
  }
  const blocks = parseBlocks(raw);
  let source = '';
  for (const block of blocks) {
    if (!isExcerptBlock(block.name) || block.innerBlocks.length > 0) return null;
    source += renderBlock(block);
  }
  // The excerpt's `the_content` would strip block delimiters again (and skip paragraphs) if some were left.
  if (hasBlocks(source)) return null;
  const texturized = texturize(source, options);
  return {
    content: afterTexturize(texturized, false, options),
    excerpt: excerptHtml(excerptWords(afterTexturize(texturized, true, options)), options),
  };
}

/**
 * excerpt.rendered: the explicit excerpt when it has non-blank text, otherwise one generated from the content;
 * then texturized, smilies, bare "&" escaped, paragraphs (`<p>…</p>\n`); "" when both are empty.
 */
export function renderExcerpt(rawExcerpt: string, rawContent: string, options: RenderOptions = {}): string {
  const explicit = phpTrim(rawExcerpt) !== '';
  const table = memoTable(`${explicit ? 'x' : 'g'}${optionsKey(options)}`);
  const raw = explicit ? rawExcerpt : rawContent;
  return table.get(raw) ?? table.put(raw, renderExcerptUncached(rawExcerpt, rawContent, options));
}

function renderExcerptUncached(rawExcerpt: string, rawContent: string, options: RenderOptions): string {
  return excerptHtml(phpTrim(rawExcerpt) === '' ? generateExcerptText(rawContent, options) : rawExcerpt, options);
}

/** excerpt.rendered of the excerpt's text (explicit, or generated from the content). */
function excerptHtml(excerptText: string, options: RenderOptions): string {
  let text = texturize(excerptText, options);
  if (options.smilies !== false) text = convertSmilies(text, options.siteUrl ?? '');
  text = convertChars(text);
  text = autop(text);
  text = shortcodeUnautop(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  return addMediaAttributes(text);
}
