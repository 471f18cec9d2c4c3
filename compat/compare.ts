/**
 * Pure comparison of one step's two outcomes. Each side's body is first put in a canonical form, so that
 * what must differ does not show: hosts and API roots become `{site}` / `{api}`, the `wp/v2` namespace
 * becomes `core/v2`, and ids become the symbols the sequence gave them (`@p1`; `@?` for an id the sequence
 * never named). Then status, error code, the pagination and routing headers, and the bodies (key sets
 * everywhere, values where they must agree) are compared.
 */
import type { Difference, IdKind, Outcome, Step } from './step';

/** How one side writes its URLs and ids. */
export interface SideView {
  side: 'reference' | 'palimpsest';
  /** e.g. `http://127.0.0.1:8081` */
  siteUrl: string;
  /** The API root without its trailing slash, e.g. `http://127.0.0.1:8081/wp-json`. */
  apiRoot: string;
  /** The symbol the sequence gave this side's id of that kind, if any. */
  symbolOf(kind: IdKind, id: number): string | undefined;
}

/** Fields whose values must agree between the two sides (every other field: only its presence and type). */
const VALUE_KEYS = new Set([
  'status',
  'type',
  'slug',
  'generated_slug',
  'raw',
  'rendered',
  'protected',
  'block_version',
  'comment_status',
  'ping_status',
  'format',
  'sticky',
  'template',
  'menu_order',
  'password',
  'code',
  'message',
  'deleted',
  'id',
  'author',
  'parent',
  'featured_media',
  'categories',
  'tags',
  'href',
  'link',
  'permalink_template',
  'taxonomy',
  'embeddable',
  'count',
  'templated',
  'date',
  'date_gmt',
  'modified',
  'modified_gmt',
  'failed',
  'namespace',
  'methods',
  'namespaces',
  'timezone_string',
  'gmt_offset',
  'v1',
  'meta',
  'footnotes',
  // media: the kind of file, its dimensions, names and URLs (the sizes' names are their keys, compared as keys)
  'mime_type',
  'media_type',
  'width',
  'height',
  'file',
  'source_url',
  'alt_text',
  'post',
  'missing_image_sizes',
  // menu items
  'url',
  'object',
  'object_id',
  'type_label',
  'attr_title',
  'target',
  'classes',
  'xfn',
  'invalid',
  'menus',
  'auto_add',
  'locations',
  // oEmbed answers (where `title` is a string; elsewhere it is an object of compared parts). Not the provider's
  // and authors' names: the site title and users' display names are not set alike on the two sites.
  'version',
  'title',
  'provider_url',
  'thumbnail_url',
  'thumbnail_width',
  'thumbnail_height',
  // header values inside `_envelope` and batch responses
  'Allow',
  'Location',
  'X-WP-Total',
  'X-WP-TotalPages',
]);
const DATE_KEYS = new Set(['date', 'date_gmt', 'modified', 'modified_gmt']);
/** Dates set from "now" on each side agree within this margin; a time-zone mistake is a whole hour. */
const DATE_TOLERANCE_MS = 120_000;
/** Fields compared only in objects of one kind, where the name is not shared with site-wide prose. */
function holderValueKeys(holder: Record<string, unknown>): ReadonlySet<string> {
  // A menu: its name and description are the data itself, not the site's.
  if ('auto_add' in holder && 'locations' in holder) return new Set(['name', 'description']);
  return NO_KEYS;
}
const NO_KEYS: ReadonlySet<string> = new Set();

/** Human-readable text of the index: the interface says it is not part of the contract. */
const PROSE_KEYS = new Set(['description', 'title']);

const COMPARED_HEADERS = ['X-WP-Total', 'X-WP-TotalPages', 'Link', 'Allow', 'Location'] as const;

type Mode = 'selected' | 'all' | 'keys';

// ---------------------------------------------------------------------------------------------------------
// canonical form

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const API_PREFIXES = /^\/(core\/v2|batch\/v1|oembed\/1\.0|site-health\/v1|block-editor\/v1)(?=[/?]|$)/;

/** Hosts, roots and the namespace of one string, then the ids its URL paths and queries carry. */
export function canonicalString(value: string, view: SideView): string {
  // Revision and autosave slugs carry their parent's id.
  const revisionSlug = /^(\d+)-(revision|autosave)-v(\d+)$/.exec(value);
  if (revisionSlug) return `${symbol(view, 'content', Number(revisionSlug[1]))}-${revisionSlug[2]}-v${revisionSlug[3]}`;
  let s = value;
  if (view.side === 'reference') {
    s = s.split(`${view.apiRoot}/wp/v2`).join('{api}/core/v2');
    s = s.replace(
      new RegExp(`${escapeRegExp(view.apiRoot)}/wp-(site-health|block-editor)/v1(?=[/?"]|$)`, 'g'),
      '{api}/$1/v1',
    );
    s = s.split(view.apiRoot).join('{api}');
    s = s.split(view.siteUrl).join('{site}');
    if (s === 'wp/v2') s = 'core/v2';
    else if (s === 'wp-site-health/v1') s = 'site-health/v1';
    else if (s === 'wp-block-editor/v1') s = 'block-editor/v1';
    s = s
      .replace(/^\/wp\/v2(?=[/?]|$)/, '/core/v2')
      .replace(/^\/wp-(site-health|block-editor)\/v1(?=[/?]|$)/, '/$1/v1');
  } else {
    // The API root is the site root here, so a URL is the API's when its path is a namespace or `/` itself.
    s = s.replace(
      new RegExp(`${escapeRegExp(view.siteUrl)}(/[^\\s"'<>,;]*)?`, 'g'),
      (_all, path: string | undefined) => {
        const p = path ?? '';
        // The bare site URL (no path) is the site's, as WordPress's home URL is.
        return p === '/' || API_PREFIXES.test(p) ? `{api}${p}` : `{site}${p}`;
      },
    );
  }
  if (!s.includes('{api}') && !s.includes('{site}') && !s.startsWith('/core/v2')) return s;
  return s
    .replace(
      /\/(posts|pages|blocks|global-styles|revisions|autosaves|media|comments|menu-items)\/(\d+)/g,
      (_a, seg: string, id: string) => `/${seg}/${symbol(view, 'content', Number(id))}`,
    )
    .replace(/\/users\/(\d+)/g, (_a, id: string) => `/users/${symbol(view, 'user', Number(id))}`)
    .replace(
      /\/(categories|tags|menus)\/(\d+)/g,
      (_a, seg: string, id: string) => `/${seg}/${symbol(view, 'term', Number(id))}`,
    )
    .replace(
      /([?&](?:post|parent|p|page_id|preview_id|attachment_id)=)(\d+)/g,
      (_a, key: string, id: string) => `${key}${symbol(view, 'content', Number(id))}`,
    )
    .replace(
      /([?&](?:categories|tags|menus)=)(\d+)/g,
      (_a, key: string, id: string) => `${key}${symbol(view, 'term', Number(id))}`,
    );
}

function symbol(view: SideView, kind: IdKind, id: number): string {
  if (id === 0) return '0';
  const name = view.symbolOf(kind, id);
  return name === undefined ? '@?' : `@${name}`;
}

/** The kind of id a numeric field holds, judged from its key and the object around it. */
function idKindOf(key: string, holder: Record<string, unknown>, collection: Collection): IdKind | null {
  // A menu is a term too (of nav_menu), though it does not name its taxonomy (nor, in embed context, its fields).
  const isTerm =
    'taxonomy' in holder ||
    ('auto_add' in holder && 'locations' in holder) ||
    collection === 'menus' ||
    collection === 'categories' ||
    collection === 'tags';
  // A menu item's object is a term when the item links a taxonomy, a post (or the item itself) otherwise.
  const isMenuItem = 'object_id' in holder && ('menus' in holder || collection === 'menu-items');
  const isUser = 'avatar_urls' in holder || 'roles' in holder || collection === 'users';
  switch (key) {
    case 'id':
      return isTerm ? 'term' : isUser ? 'user' : 'content';
    case 'parent':
      return isTerm ? 'term' : 'content';
    case 'featured_media':
    case 'post':
      return 'content';
    case 'author':
      return 'user';
    case 'menus':
      return isMenuItem ? 'term' : null;
    case 'object_id':
      return isMenuItem ? (holder.type === 'taxonomy' ? 'term' : 'content') : null;
    case 'categories':
    case 'tags':
    case 'term_id':
    case 'additional_data':
      return 'term';
    default:
      return null;
  }
}

/** An untitled item's slug is its own id (`41`, or `41-2` for a page, where a number alone is reserved). */
function canonicalSlug(value: string, view: SideView): string {
  const idSlug = /^(\d+)(-\d+)?$/.exec(value);
  if (idSlug && view.symbolOf('content', Number(idSlug[1])) !== undefined)
    return `${symbol(view, 'content', Number(idSlug[1]))}${idSlug[2] ?? ''}`;
  return canonicalString(value, view);
}

/** The collection a step's answer comes from, when its items' ids cannot be told from their fields alone. */
export type Collection = 'menus' | 'menu-items' | 'users' | 'categories' | 'tags' | null;

export function collectionOf(step: Pick<Step, 'path' | 'root'>): Collection {
  if (step.root) return null;
  // A user's application passwords are no users.
  if (/^\/users\/[^/]+\/application-passwords/.test(step.path)) return null;
  return (/^\/(menus|menu-items|users|categories|tags)(?=\/|$)/.exec(step.path)?.[1] as Collection | undefined) ?? null;
}

export function canonicalBody(
  value: unknown,
  view: SideView,
  idKind: IdKind | null = null,
  collection: Collection = null,
): unknown {
  if (typeof value === 'string') return canonicalString(value, view);
  if (typeof value === 'number' && idKind !== null && Number.isInteger(value)) return symbol(view, idKind, value);
  if (Array.isArray(value)) return value.map((item) => canonicalBody(item, view, idKind, collection));
  if (value !== null && typeof value === 'object') {
    const holder = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(holder)) {
      out[canonicalString(key, view)] =
        (key === 'slug' || key === 'generated_slug') && typeof inner === 'string'
          ? canonicalSlug(inner, view)
          : canonicalBody(inner, view, idKindOf(key, holder, collection), collection);
    }
    return out;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// bodies

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function brief(value: unknown): unknown {
  if (value !== null && typeof value === 'object') {
    const text = JSON.stringify(value);
    return text.length > 160 ? `${text.slice(0, 157)}...` : value;
  }
  return value;
}

function isError(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof (value as Record<string, unknown>).code === 'string' &&
    typeof (value as Record<string, unknown>).message === 'string'
  );
}

function valueCompared(key: string | null, mode: Mode, value: unknown): boolean {
  if (mode === 'keys') return false;
  if (mode === 'all') return !(key !== null && PROSE_KEYS.has(key) && typeof value === 'string');
  return key !== null && VALUE_KEYS.has(key);
}

function sameScalar(key: string | null, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (key !== null && DATE_KEYS.has(key) && typeof a === 'string' && typeof b === 'string') {
    const ta = Date.parse(`${a}Z`);
    const tb = Date.parse(`${b}Z`);
    return Number.isFinite(ta) && Number.isFinite(tb) && Math.abs(ta - tb) <= DATE_TOLERANCE_MS;
  }
  return false;
}

/**
 * When both arrays are lists of items with canonical ids, the index pairs [reference, palimpsest] of the same
 * item; ids the sequence never named (`@?`) pair in their order of appearance. Null when not a list of items.
 */
function pairById(r: unknown[], p: unknown[]): Array<[number, number]> | null {
  const idsOf = (items: unknown[]) =>
    items.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item) && 'id' in item)
      ? items.map((item) => String((item as Record<string, unknown>).id))
      : null;
  const ri = idsOf(r);
  const pi = idsOf(p);
  if (!ri || !pi || ri.length + pi.length === 0) return null;
  const named = (ids: string[]) => ids.filter((id) => id !== '@?');
  if (new Set(named(ri)).size !== named(ri).length || new Set(named(pi)).size !== named(pi).length) return null;
  if (named(ri).length + named(pi).length === 0) return null;
  const pairs: Array<[number, number]> = [];
  const unknownP = pi.flatMap((id, j) => (id === '@?' ? [j] : []));
  let unknownSeen = 0;
  ri.forEach((id, i) => {
    if (id === '@?') {
      const j = unknownP[unknownSeen++];
      if (j !== undefined) pairs.push([i, j]);
    } else {
      const j = pi.indexOf(id);
      if (j >= 0) pairs.push([i, j]);
    }
  });
  return pairs;
}

const pathOf = (at: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;

export function compareBodies(
  ref: unknown,
  pal: unknown,
  at: string,
  mode: Mode,
  out: Difference[],
  key: string | null = null,
  skipKeys: ReadonlySet<string> = new Set(),
): void {
  const tr = typeOf(ref);
  const tp = typeOf(pal);
  if (tr !== tp) {
    out.push({
      kind: 'type',
      at,
      reference: `${tr} ${JSON.stringify(brief(ref))}`,
      palimpsest: `${tp} ${JSON.stringify(brief(pal))}`,
    });
    return;
  }
  if (tr === 'object') {
    const r = ref as Record<string, unknown>;
    const p = pal as Record<string, unknown>;
    const innerMode: Mode = mode === 'selected' && isError(r) ? 'all' : mode;
    const onlyRef = Object.keys(r).filter((k) => !(k in p) && !skipKeys.has(k));
    const onlyPal = Object.keys(p).filter((k) => !(k in r) && !skipKeys.has(k));
    if (onlyRef.length > 0 || onlyPal.length > 0)
      out.push({ kind: 'keys', at, reference: onlyRef, palimpsest: onlyPal });
    const extra = innerMode === 'selected' ? holderValueKeys(r) : NO_KEYS;
    for (const k of Object.keys(r)) {
      if (!(k in p) || skipKeys.has(k)) continue;
      if (extra.has(k) && typeOf(r[k]) !== 'object' && typeOf(r[k]) === typeOf(p[k])) {
        if (JSON.stringify(r[k]) !== JSON.stringify(p[k]))
          out.push({ kind: 'value', at: pathOf(at, k), reference: r[k], palimpsest: p[k] });
        continue;
      }
      compareBodies(r[k], p[k], pathOf(at, k), innerMode, out, k);
    }
    return;
  }
  if (tr === 'array') {
    const r = ref as unknown[];
    const p = pal as unknown[];
    const scalars = [...r, ...p].every((v) => v === null || typeof v !== 'object');
    if (scalars && valueCompared(key, mode, ref)) {
      if (JSON.stringify(r) !== JSON.stringify(p)) out.push({ kind: 'value', at, reference: r, palimpsest: p });
      return;
    }
    if (scalars && mode === 'keys') return;
    const pairs = mode === 'keys' ? null : pairById(r, p);
    if (pairs) {
      // A list of items: one difference for which items and in what order, then each item against its namesake,
      // so one extra or missing item does not make every later item differ.
      const ids = (items: unknown[]) => items.map((item) => (item as Record<string, unknown>).id);
      if (JSON.stringify(ids(r)) !== JSON.stringify(ids(p)))
        out.push({ kind: 'value', at: `${at}[*].id`, reference: ids(r), palimpsest: ids(p) });
      for (const [i, j] of pairs) compareBodies(r[i], p[j], `${at}[${i}]`, mode, out, key);
      return;
    }
    if (r.length !== p.length) out.push({ kind: 'length', at, reference: r.length, palimpsest: p.length });
    for (let i = 0; i < Math.min(r.length, p.length); i++) compareBodies(r[i], p[i], `${at}[${i}]`, mode, out, key);
    return;
  }
  if (valueCompared(key, mode, ref) && !sameScalar(key, ref, pal))
    out.push({ kind: 'value', at, reference: ref, palimpsest: pal });
}

// ---------------------------------------------------------------------------------------------------------
// the index

/**
 * Routes compared in full: the root ones, every posts/pages route (revisions and autosaves included), media, menus,
 * menu items, types, statuses, taxonomies, oEmbed and the indexes of the namespaces listed without routes of ours.
 */
const FULLY_COMPARED_ROUTE =
  /^(\/|\/batch\/v1|\/core\/v2|\/core\/v2\/(posts|pages|media|menus|menu-items|menu-locations|types|statuses|taxonomies)(\/.*)?|\/oembed\/1\.0(\/.*)?|\/(site-health|block-editor)\/v1)$/;

/** The resource a route belongs to, to group the routes one side lacks. */
export function routeGroup(route: string): string {
  const m = /^\/([^/]+\/[^/]+)(?:\/([^/(]+))?/.exec(route);
  if (!m) return route;
  return m[2] ? `${m[1]}/${m[2]}` : m[1]!;
}

function compareIndex(ref: unknown, pal: unknown, out: Difference[]): void {
  if (typeOf(ref) !== 'object' || typeOf(pal) !== 'object') {
    compareBodies(ref, pal, '$', 'selected', out);
    return;
  }
  const r = ref as Record<string, unknown>;
  const p = pal as Record<string, unknown>;
  compareBodies(r, p, '$', 'selected', out, null, new Set(['routes', '_links']));
  if ('_links' in r && '_links' in p) compareBodies(r._links, p._links, '$._links', 'keys', out);
  else if ('_links' in r || '_links' in p)
    out.push({
      kind: 'keys',
      at: '$',
      reference: '_links' in r ? ['_links'] : [],
      palimpsest: '_links' in p ? ['_links'] : [],
    });
  const rr = (r.routes ?? {}) as Record<string, unknown>;
  const pr = (p.routes ?? {}) as Record<string, unknown>;
  const grouped = (keys: string[]) => {
    const groups = new Map<string, string[]>();
    for (const k of keys) groups.set(routeGroup(k), [...(groups.get(routeGroup(k)) ?? []), k]);
    return groups;
  };
  for (const [group, routes] of grouped(Object.keys(rr).filter((k) => !(k in pr)))) {
    out.push({ kind: 'routes', at: `routes ${group}`, reference: routes, palimpsest: [] });
  }
  for (const [group, routes] of grouped(Object.keys(pr).filter((k) => !(k in rr)))) {
    out.push({ kind: 'routes', at: `routes ${group}`, reference: [], palimpsest: routes });
  }
  for (const route of Object.keys(rr)) {
    if (route in pr && FULLY_COMPARED_ROUTE.test(route))
      compareBodies(rr[route], pr[route], `$.routes[${JSON.stringify(route)}]`, 'all', out);
  }
}

// ---------------------------------------------------------------------------------------------------------
// headers

interface LinkEntry {
  url: string;
  rel: string;
}

export function parseLinkHeader(value: string): LinkEntry[] {
  const entries: LinkEntry[] = [];
  for (const m of value.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /rel="?([^";,]+)"?/.exec(m[2] ?? '')?.[1] ?? '';
    entries.push({ url: m[1]!, rel });
  }
  return entries;
}

function header(outcome: Outcome, name: string): string | undefined {
  return outcome.headers[name.toLowerCase()];
}

function compareHeaders(ref: Outcome, pal: Outcome, refView: SideView, palView: SideView, out: Difference[]): void {
  for (const name of COMPARED_HEADERS) {
    const r = header(ref, name);
    const p = header(pal, name);
    if (r === undefined && p === undefined) continue;
    if (r === undefined || p === undefined) {
      out.push({ kind: 'header', at: `header ${name}`, reference: r ?? null, palimpsest: p ?? null });
      continue;
    }
    if (name === 'Link') {
      const rl = parseLinkHeader(r);
      const pl = parseLinkHeader(p);
      const rels = (l: LinkEntry[]) => l.map((e) => e.rel).sort();
      if (JSON.stringify(rels(rl)) !== JSON.stringify(rels(pl))) {
        out.push({ kind: 'header', at: 'header Link rels', reference: rels(rl), palimpsest: rels(pl) });
      }
      for (const entry of rl) {
        const other = pl.find((e) => e.rel === entry.rel);
        if (!other) continue;
        const cr = canonicalString(entry.url, refView);
        const cp = canonicalString(other.url, palView);
        if (cr !== cp) out.push({ kind: 'header', at: `header Link rel=${entry.rel}`, reference: cr, palimpsest: cp });
      }
      continue;
    }
    const cr = name === 'Location' ? canonicalString(r, refView) : r;
    const cp = name === 'Location' ? canonicalString(p, palView) : p;
    if (cr !== cp) out.push({ kind: 'header', at: `header ${name}`, reference: cr, palimpsest: cp });
  }
}

// ---------------------------------------------------------------------------------------------------------

export function compareOutcomes(
  step: Step,
  ref: Outcome,
  pal: Outcome,
  refView: SideView,
  palView: SideView,
): Difference[] {
  const out: Difference[] = [];
  // Neither side could send it (an id it needs was never captured): nothing to compare.
  if (ref.skipped && pal.skipped) return out;
  if (ref.skipped || pal.skipped) {
    out.push({ kind: 'skipped', at: 'request', reference: ref.skipped ?? 'sent', palimpsest: pal.skipped ?? 'sent' });
    return out;
  }
  if (ref.status !== pal.status)
    out.push({ kind: 'status', at: 'status', reference: ref.status, palimpsest: pal.status });
  const refCode = isError(ref.body) ? (ref.body as { code: string }).code : null;
  const palCode = isError(pal.body) ? (pal.body as { code: string }).code : null;
  if ((refCode !== null || palCode !== null) && refCode !== palCode)
    out.push({ kind: 'code', at: 'code', reference: refCode, palimpsest: palCode });
  compareHeaders(ref, pal, refView, palView, out);
  // An error on one side and data on the other: the code says it all, the keys would only repeat it.
  if ((refCode === null) !== (palCode === null)) return out;
  const rb = canonicalBody(ref.body, refView, null, collectionOf(step));
  const pb = canonicalBody(pal.body, palView, null, collectionOf(step));
  if (step.compare === 'index') compareIndex(rb, pb, out);
  else if (step.compare === 'route') compareBodies(rb, pb, '$', 'all', out);
  else {
    const before = out.length;
    compareBodies(rb, pb, '$', 'selected', out);
    // The code difference is already reported once.
    if (refCode !== palCode)
      for (let i = out.length - 1; i >= before; i--) if (out[i]!.at === '$.code') out.splice(i, 1);
  }
  return out;
}
