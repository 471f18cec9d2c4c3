/**
 * Read-model document -> WordPress item, for one context and caller. Pure: everything it needs comes in.
 */
import type { ContentDoc } from '../../../projections/content';
import type { Context, JsonSchema, ResourceSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import { formatGmt, parseRestDate } from '../../text/dates';
import { renderContentAndExcerpt, renderTitle } from '../../text/render';
import { sanitizeSlug as slugFromTitle } from '../../text/slug';
import { keptAsJson, serializedLength } from '../../rest/serialized';
import { AdmissionWindow } from '../../core/admissionWindow';
import { permalinkPath } from './decider';
import { ContextFilter } from './contextFilter';
import { CacheBudget } from '../../caches/budget';
import type { CacheSize } from '../../caches/budget';

export interface PresentOptions {
  context: 'view' | 'edit' | 'embed';
  /** Whether the caller may see protected content (edit context with edit rights, or the right password). */
  passwordAccepted: boolean;
  siteUrl: string;
  apiRoot: string;
  timezone: string;
  /** The REST base of the type, e.g. `core/v2/posts`. */
  restBase: string;
  /** A page's ancestors' slugs as a path (`grandparent/parent/`), which its permalink starts with. */
  parentPath?: string;
  /** The slug the title would give, made unique (edit context; see generatedSlugs in routes). */
  generatedSlug?: string;
  /** The `https://api.w.org/action-*` relations the caller has on the item (edit context). */
  actions?: readonly string[];
  /** Leave `_links` out (the `previous` of a delete has none). */
  withoutLinks?: boolean;
}

const TYPE_PLURAL: Record<string, string> = { post: 'posts', page: 'pages', wp_block: 'blocks' };

/** WordPress computes the UTC date of a floating draft from its local date. */
function gmtOf(doc: ContentDoc, timezone: string): string {
  if (doc.date_gmt !== null) return doc.date_gmt;
  const ms = parseRestDate(doc.date, timezone);
  return ms === null ? doc.date : formatGmt(ms);
}

export function permalink(doc: ContentDoc, siteUrl: string, parentPath = ''): string {
  return `${siteUrl}${permalinkPath(doc.type, doc.id, doc.status, doc.slug, parentPath)}`;
}

/**
 * The editable URL pattern WordPress shows: pretty with the slug as a placeholder (a page's under its
 * ancestors), except for a trashed post, which only has its plain URL (a trashed page keeps the pattern).
 */
function permalinkTemplate(doc: ContentDoc, siteUrl: string, parentPath: string): string {
  if (doc.status === 'trash' && doc.type !== 'page')
    return `${siteUrl}${permalinkPath(doc.type, doc.id, doc.status, '')}`;
  return `${siteUrl}/${parentPath}${doc.type === 'page' ? '%pagename%' : '%postname%'}/`;
}

/**
 * The item for `options.context`. `filter` is the schema's context filter for that context (see
 * compileContextFilter); without one the schema is walked generically. Fields the filter drops are not worked
 * out at all.
 */
export function presentContent(
  doc: ContentDoc,
  schema: ResourceSchema,
  options: PresentOptions,
  filter?: ContextFilter,
  /** Whether the rendering may be memoised (see renderContentAndExcerpt): not for an item that is not kept. */
  memoise = true,
): Record<string, unknown> {
  if (doc.type === 'wp_block') return presentBlock(doc, schema, options, filter);
  const { siteUrl, apiRoot, timezone, context } = options;
  const isProtected = doc.password !== '';
  const hidden = isProtected && !options.passwordAccepted;
  const guid = `${siteUrl}${doc.guid}`;
  const rendered = hidden ? null : renderContentAndExcerpt(doc.content, doc.excerpt, { siteUrl }, memoise);
  const item: Record<string, unknown> = {
    id: doc.id,
    date: doc.date,
    date_gmt: gmtOf(doc, timezone),
    guid: { rendered: guid, raw: guid },
    modified: doc.modified,
    modified_gmt: doc.modified_gmt,
    slug: doc.slug,
    status: doc.status,
    type: doc.type,
    link: permalink(doc, siteUrl, options.parentPath),
    title: { raw: doc.title, rendered: renderTitle(doc.title, { private: doc.status === 'private' }) },
    content: {
      raw: doc.content,
      rendered: rendered === null ? '' : rendered.content,
      protected: isProtected,
      block_version: doc.content.includes('<!-- wp:') ? 1 : 0,
    },
    excerpt: {
      raw: doc.excerpt,
      rendered: rendered === null ? '' : rendered.excerpt,
      protected: isProtected,
    },
    author: doc.author,
    featured_media: doc.featured_media,
    comment_status: doc.comment_status,
    ping_status: doc.ping_status,
    template: doc.template,
    meta: { footnotes: doc.meta?.footnotes ?? '' },
    ...(doc.type === 'post'
      ? { format: doc.format, sticky: doc.sticky, categories: doc.categories, tags: doc.tags }
      : { parent: doc.parent, menu_order: doc.menu_order }),
    password: doc.password,
    permalink_template: wanted(filter, 'permalink_template')
      ? permalinkTemplate(doc, siteUrl, options.parentPath ?? '')
      : undefined,
    generated_slug: wanted(filter, 'generated_slug') ? (options.generatedSlug ?? sanitizeForDisplay(doc)) : undefined,
  };
  const filtered = (filter === undefined ? filterByContext(schema, item, context) : filter.apply(item)) as Record<
    string,
    unknown
  >;
  if (options.withoutLinks) return filtered;
  filtered._links = contentLinks(doc, apiRoot, options.restBase, options.actions);
  return filtered;
}

/**
 * A reusable block: its fields in WordPress's order, title and content raw only (a block is inserted as its markup,
 * never shown rendered), even a protected block's content (WordPress withholds nothing of a block: reading one already
 * takes edit rights). A title left with no field (the embed context) is an empty list, as PHP encodes an empty array.
 */
function presentBlock(
  doc: ContentDoc,
  schema: ResourceSchema,
  options: PresentOptions,
  filter?: ContextFilter,
): Record<string, unknown> {
  const guid = `${options.siteUrl}${doc.guid}`;
  const item: Record<string, unknown> = {
    id: doc.id,
    date: doc.date,
    date_gmt: gmtOf(doc, options.timezone),
    guid: { rendered: guid, raw: guid },
    modified: doc.modified,
    modified_gmt: doc.modified_gmt,
    password: doc.password,
    slug: doc.slug,
    status: doc.status,
    type: doc.type,
    link: permalink(doc, options.siteUrl),
    title: { raw: doc.title },
    content: {
      raw: doc.content,
      protected: doc.password !== '',
      block_version: doc.content.includes('<!-- wp:') ? 1 : 0,
    },
    template: doc.template,
  };
  const filtered = (
    filter === undefined ? filterByContext(schema, item, options.context) : filter.apply(item)
  ) as Record<string, unknown>;
  const title = filtered.title;
  if (title !== null && typeof title === 'object' && Object.keys(title).length === 0) filtered.title = [];
  if (options.withoutLinks) return filtered;
  filtered._links = contentLinks(doc, options.apiRoot, options.restBase, options.actions);
  return filtered;
}

/** Whether the item needs a top-level field: always, unless the context filter drops it. */
function wanted(filter: ContextFilter | undefined, field: string): boolean {
  return filter === undefined || !filter.drops(field);
}

/**
 * A kept document: its presented variants, the bytes of their JSON, and its place in the recency list. Nearly every
 * document is presented in one variant only, so the first is held in two fields and a Map is made for the others:
 * a Map of one entry took ~600 bytes of heap, a fifth of what a kept item cost besides its JSON.
 */
interface Kept {
  doc: ContentDoc;
  firstVariant: string;
  firstItem: Record<string, unknown>;
  /** The other variants, once there are any. */
  variants: Map<string, Record<string, unknown>> | null;
  bytes: number;
  /** Less recently used neighbour (toward the oldest), and more recently used one. */
  older: Kept | null;
  newer: Kept | null;
}

export interface PresentationCacheLimits {
  /** Bytes of JSON kept at most, over all documents and variants; 0 keeps none. */
  maxBytes?: number;
  /** Once the cache is full, how many documents presented once (and not kept) are remembered for admission. */
  admissionWindow?: number;
}

/**
 * Presented items, kept per document and variant (context, whether protected content is shown, site URLs,
 * timezone, the page's parent path, the caller's action links…) so that a document is rendered,
 * context-filtered and serialised once, not on every request. Documents are keyed by identity: a document it keeps
 * is said to the read model (`keepIdentity`, ReadModel.keepIdentity), which then hands out that same frozen object
 * until the document changes (a new version is a new object), so an entry can never be stale. The item depends on nothing else about the caller than its options: visibility is judged
 * before presenting. Kept items are their JSON behind a read-only stand-in (keptAsJson, src/rest/serialized.ts):
 * as frozen objects they took about 6 KB of heap each besides their 2.8 KB of JSON (a benchmark post). Bounded by the bytes of the JSON kept (`maxBytes`), the least
 * recently used documents going first. Until it first has to drop one, every presented document is kept. From
 * then on, a document is kept only when presented a second time within the last `admissionWindow` documents that were
 * not: on a site much larger than the cache read at random, most reads are first touches that would only push
 * out another entry, and every entry pushed out is garbage in the old generation, which the collector pays for
 * in proportion to the whole heap. Such a read is presented (and serialised by the response) without being kept.
 * A document first presented in the edit context waits for its second touch even before the cache is full: that
 * is mostly a write's own answer (create and update answer in the edit context), which nobody asks for again, and
 * seeding a large site kept one per post (87 MB of heap after 100,000 creates).
 */
export class PresentationCache {
  private readonly byDoc = new Map<ContentDoc, Kept>();
  /** The recency list, from the least recently used entry to the most recently used one. */
  private oldest: Kept | null = null;
  private newest: Kept | null = null;
  private bytes = 0;
  /** Set at the first eviction: from then on, a kept document pushes another out. */
  private full = false;
  private readonly maxBytes: number;
  private readonly seenOnce: AdmissionWindow;
  /** The schema's context filter per context, compiled on first use. */
  private readonly filters = new Map<Context, ContextFilter>();
  /** The variant keys seen, each as one flat string (sharedKey). */
  private readonly variantKeys = new Map<string, string>();

  constructor(
    private readonly schema: ResourceSchema,
    limits: PresentationCacheLimits = {},
    /** Told of every document it starts keeping, so that reads give back that object while it is current. */
    private readonly keepIdentity: (doc: ContentDoc) => void = () => {},
  ) {
    // By default a post type's share of the default cache budget: every item of a 10,000-post site of the
    // benchmark's posts (~2.8 KB of JSON each).
    this.maxBytes = limits.maxBytes ?? CacheBudget.defaults('memory').bytes('presentations');
    this.seenOnce = new AdmissionWindow(limits.admissionWindow ?? 8192);
  }

  present(doc: ContentDoc, options: PresentOptions): Record<string, unknown> {
    const variant = this.sharedKey(variantKey(doc, options));
    let kept = this.byDoc.get(doc);
    if (kept !== undefined) {
      this.touch(kept);
      const hit = kept.firstVariant === variant ? kept.firstItem : kept.variants?.get(variant);
      if (hit !== undefined) return hit;
    } else if (!((!this.full && options.context !== 'edit') || this.seenOnce.admits(doc.id)) || this.maxBytes === 0) {
      return presentContent(doc, this.schema, options, this.filterFor(options.context), false);
    }
    // Kept as JSON. Answered without rebuilding the item: `link` (a single item's Link header) and `then` (an item
    // is awaited, which asks whether it is a promise; an item has no such field).
    const item = keptAsJson(presentContent(doc, this.schema, options, this.filterFor(options.context)), [
      'id',
      'link',
      'then',
    ]);
    const size = serializedLength(item);
    if (kept === undefined) {
      kept = { doc, firstVariant: variant, firstItem: item, variants: null, bytes: 0, older: this.newest, newer: null };
      if (this.newest !== null) this.newest.newer = kept;
      else this.oldest = kept;
      this.newest = kept;
      this.byDoc.set(doc, kept);
      this.keepIdentity(doc);
    } else (kept.variants ??= new Map()).set(variant, item);
    kept.bytes += size;
    this.bytes += size;
    this.evictBeyondLimit();
    return item;
  }

  /** The bytes of JSON kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** The documents and bytes of JSON kept now. */
  held(): CacheSize {
    return { entries: this.byDoc.size, bytes: this.bytes };
  }

  /** Whether a document is kept now, in any variant. */
  keeps(doc: ContentDoc): boolean {
    return this.byDoc.has(doc);
  }

  /** Moves an entry to the most recently used end. */
  private touch(kept: Kept): void {
    if (kept === this.newest) return;
    this.unlink(kept);
    kept.older = this.newest;
    kept.newer = null;
    this.newest!.newer = kept;
    this.newest = kept;
  }

  private unlink(kept: Kept): void {
    if (kept.older !== null) kept.older.newer = kept.newer;
    else this.oldest = kept.newer;
    if (kept.newer !== null) kept.newer.older = kept.older;
    else this.newest = kept.older;
  }

  /** Drops the least recently used documents until the JSON kept fits, sparing the one just presented (the newest). */
  private evictBeyondLimit(): void {
    while (this.bytes > this.maxBytes && this.oldest !== this.newest) {
      this.full = true;
      const oldest = this.oldest!;
      this.unlink(oldest);
      this.byDoc.delete(oldest.doc);
      this.bytes -= oldest.bytes;
    }
  }

  /**
   * One string per distinct variant key. A key is built by concatenation, and V8 keeps such a string as a tree of
   * pieces even once flattened (~12 pieces, ~370 bytes of heap): every kept item held its own. Almost every request
   * has one of a few keys; past VARIANT_KEYS_KEPT distinct ones the table starts over.
   */
  private sharedKey(key: string): string {
    const known = this.variantKeys.get(key);
    if (known !== undefined) return known;
    if (this.variantKeys.size >= VARIANT_KEYS_KEPT) this.variantKeys.clear();
    const flat = flatString(key);
    this.variantKeys.set(flat, flat);
    return flat;
  }

  private filterFor(context: Context): ContextFilter {
    let filter = this.filters.get(context);
    if (filter === undefined)
      this.filters.set(context, (filter = new ContextFilter(this.schema as JsonSchema, context)));
    return filter;
  }
}

/** Distinct variant keys kept as shared strings (PresentationCache.sharedKey). */
const VARIANT_KEYS_KEPT = 1_024;

/** A copy of `text` in one piece, whatever pieces it was concatenated from. */
const flatString = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/** Every option, in the order the variant key lists them; the check below fails to compile if one is missing. */
const VARIANT_OPTIONS = [
  'context',
  'passwordAccepted',
  'siteUrl',
  'apiRoot',
  'timezone',
  'restBase',
  'parentPath',
  'generatedSlug',
  'actions',
  'withoutLinks',
] as const satisfies readonly (keyof PresentOptions)[];
const everyOptionInTheKey: Exclude<keyof PresentOptions, (typeof VARIANT_OPTIONS)[number]> extends never
  ? true
  : never = true;
void everyOptionInTheKey;

/**
 * Every option is part of the variant (whatever options are added later: see VARIANT_OPTIONS), except that
 * whether the password was accepted makes no difference for an item without one. An absent option (or an
 * undefined one) has its own marker, so it never shares a key with an empty string.
 */
function variantKey(doc: ContentDoc, options: PresentOptions): string {
  let key = '';
  for (let i = 0; i < VARIANT_OPTIONS.length; i++) {
    const name = VARIANT_OPTIONS[i]!;
    const value = options[name];
    if (value === undefined || (name === 'passwordAccepted' && doc.password === '')) key += '\u0002\u0001';
    else key += `${Array.isArray(value) ? value.join(',') : String(value)}\u0001`;
  }
  return key;
}

function sanitizeForDisplay(doc: ContentDoc): string {
  return doc.title === '' ? String(doc.id) : slugFromTitle(doc.title) || String(doc.id);
}

export function contentLinks(
  doc: ContentDoc,
  apiRoot: string,
  restBase: string,
  actions: readonly string[] = [],
): Record<string, unknown[]> {
  const self = `${apiRoot}${restBase}/${doc.id}`;
  const links: Record<string, unknown[]> = {
    self: [{ href: self }],
    collection: [{ href: `${apiRoot}${restBase}` }],
    about: [{ href: `${apiRoot}core/v2/types/${doc.type}` }],
  };
  // A reusable block supports neither authors nor comments.
  const block = doc.type === 'wp_block';
  if (doc.author !== 0 && !block) links.author = [{ embeddable: true, href: `${apiRoot}core/v2/users/${doc.author}` }];
  if (!block) links.replies = [{ embeddable: true, href: `${apiRoot}core/v2/comments?post=${doc.id}` }];
  links['version-history'] = [{ count: doc.revision_count, href: `${self}/revisions` }];
  if (doc.revision_count > 0 && doc.latest_revision_id !== null) {
    links['predecessor-version'] = [
      { id: doc.latest_revision_id, href: `${self}/revisions/${doc.latest_revision_id}` },
    ];
  }
  if (doc.type === 'page' && doc.parent > 0)
    links.up = [{ embeddable: true, href: `${apiRoot}${restBase}/${doc.parent}` }];
  if (doc.featured_media > 0)
    links['wp:featuredmedia'] = [{ embeddable: true, href: `${apiRoot}core/v2/media/${doc.featured_media}` }];
  links['wp:attachment'] = [{ href: `${apiRoot}core/v2/media?parent=${doc.id}` }];
  if (doc.type === 'post') {
    links['wp:term'] = [
      { taxonomy: 'category', embeddable: true, href: `${apiRoot}core/v2/categories?post=${doc.id}` },
      { taxonomy: 'post_tag', embeddable: true, href: `${apiRoot}core/v2/tags?post=${doc.id}` },
    ];
  }
  for (const action of actions) links[`wp:action-${action}`] = [{ href: self }];
  links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}

export const restBaseOf = (type: string): string => `core/v2/${TYPE_PLURAL[type] ?? type}`;
