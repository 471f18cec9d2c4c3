/**
 * Read-model document -> WordPress item, for one context and caller. Pure: everything it needs comes in.
 */
import type { ContentDoc } from '../../../projections/content';
import type { ResourceSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import { formatGmt, parseRestDate } from '../../text/dates';
import { renderContent, renderExcerpt, renderTitle } from '../../text/render';
import { sanitizeSlug as slugFromTitle } from '../../text/slug';
import { withSerializedJson } from '../../rest/serialized';
import { permalinkPath } from './decider';

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

const TYPE_PLURAL: Record<string, string> = { post: 'posts', page: 'pages' };

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
  if (doc.status === 'trash' && doc.type !== 'page') return `${siteUrl}${permalinkPath(doc.type, doc.id, doc.status, '')}`;
  return `${siteUrl}/${parentPath}${doc.type === 'page' ? '%pagename%' : '%postname%'}/`;
}

export function presentContent(doc: ContentDoc, schema: ResourceSchema, options: PresentOptions): Record<string, unknown> {
  const { siteUrl, apiRoot, timezone, context } = options;
  const isProtected = doc.password !== '';
  const hidden = isProtected && !options.passwordAccepted;
  const guid = `${siteUrl}${doc.guid}`;
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
      rendered: hidden ? '' : renderContent(doc.content, { siteUrl }),
      protected: isProtected,
      block_version: doc.content.includes('<!-- wp:') ? 1 : 0,
    },
    excerpt: {
      raw: doc.excerpt,
      rendered: hidden ? '' : renderExcerpt(doc.excerpt, doc.content, { siteUrl }),
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
    permalink_template: permalinkTemplate(doc, siteUrl, options.parentPath ?? ''),
    generated_slug: options.generatedSlug ?? sanitizeForDisplay(doc),
  };
  const filtered = filterByContext(schema, item, context) as Record<string, unknown>;
  if (options.withoutLinks) return filtered;
  filtered._links = contentLinks(doc, apiRoot, options.restBase, options.actions);
  return filtered;
}

/**
 * Presented items, kept per document and variant (context, whether protected content is shown, site URLs,
 * timezone, the page's parent path, the caller's action links…) so that a document is rendered, context-filtered and serialised once, not on every request.
 * Documents are keyed by identity: both read models hand out the same frozen object until the document
 * changes (a new version is a new object), so an entry can never be stale. The item depends on nothing else
 * about the caller than its options: visibility is judged before presenting. Cached
 * items are frozen and carry their JSON (src/rest/serialized.ts). Bounded: the least recently used documents
 * are dropped beyond `maxDocuments`.
 */
export class PresentationCache {
  private readonly byDoc = new Map<ContentDoc, Map<string, Record<string, unknown>>>();

  constructor(
    private readonly schema: ResourceSchema,
    private readonly maxDocuments = 20_000,
  ) {}

  present(doc: ContentDoc, options: PresentOptions): Record<string, unknown> {
    const variant = variantKey(doc, options);
    let variants = this.byDoc.get(doc);
    if (variants !== undefined) {
      const hit = variants.get(variant);
      // Most recently used last.
      this.byDoc.delete(doc);
      this.byDoc.set(doc, variants);
      if (hit !== undefined) return hit;
    } else {
      if (this.byDoc.size >= this.maxDocuments) this.byDoc.delete(this.byDoc.keys().next().value!);
      this.byDoc.set(doc, (variants = new Map()));
    }
    const item = withSerializedJson(presentContent(doc, this.schema, options));
    variants.set(variant, item);
    return item;
  }
}

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
const everyOptionInTheKey: Exclude<keyof PresentOptions, (typeof VARIANT_OPTIONS)[number]> extends never ? true : never = true;
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

export function contentLinks(doc: ContentDoc, apiRoot: string, restBase: string, actions: readonly string[] = []): Record<string, unknown[]> {
  const self = `${apiRoot}${restBase}/${doc.id}`;
  const links: Record<string, unknown[]> = {
    self: [{ href: self }],
    collection: [{ href: `${apiRoot}${restBase}` }],
    about: [{ href: `${apiRoot}core/v2/types/${doc.type}` }],
  };
  if (doc.author !== 0) links.author = [{ embeddable: true, href: `${apiRoot}core/v2/users/${doc.author}` }];
  links.replies = [{ embeddable: true, href: `${apiRoot}core/v2/comments?post=${doc.id}` }];
  links['version-history'] = [{ count: doc.revision_count, href: `${self}/revisions` }];
  if (doc.revision_count > 0 && doc.latest_revision_id !== null) {
    links['predecessor-version'] = [{ id: doc.latest_revision_id, href: `${self}/revisions/${doc.latest_revision_id}` }];
  }
  if (doc.type === 'page' && doc.parent > 0) links.up = [{ embeddable: true, href: `${apiRoot}${restBase}/${doc.parent}` }];
  if (doc.featured_media > 0) links['wp:featuredmedia'] = [{ embeddable: true, href: `${apiRoot}core/v2/media/${doc.featured_media}` }];
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
