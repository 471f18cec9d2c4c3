/**
 * oEmbed for the site's own items: which publicly viewable post or page a URL of this site names (`?p=ID`,
 * `?page_id=ID`, `/slug/`, a child page's `/parent/child/`), and the embed data WordPress 6.1 gives for it:
 * provider and author (falling back to the site when the author is gone), the size rules, and the `html` — a
 * link in a blockquote for readers without frames, and a sandboxed iframe of the item's embed view sharing a
 * random secret with it.
 */
import type { Site } from '../../site';
import type { ContentDoc } from '../../../projections/content';
import { permalink } from '../content/present';
import { ancestorPath } from '../content/operations';
import { renderTitle } from '../../text/render';
import { userLink } from '../users/present';

export interface OEmbedData {
  version: '1.0';
  provider_name: string;
  provider_url: string;
  author_name: string;
  author_url: string;
  title: string;
  type: 'rich';
  width: number;
  height: number;
  html: string;
}

/** The item a URL of this site names, when it is publicly viewable; null otherwise. */
export async function localItemFor(site: Site, url: string): Promise<ContentDoc | null> {
  let parsed: URL;
  let home: URL;
  try {
    parsed = new URL(url);
    home = new URL(site.settings.siteUrl);
  } catch {
    return null;
  }
  if (parsed.host.toLowerCase() !== home.host.toLowerCase()) return null;
  const viewable = (doc: ContentDoc | null) => (doc && doc.status === 'publish' ? doc : null);
  for (const [param, types] of [['p', ['post', 'page']], ['page_id', ['page']]] as const) {
    const value = parsed.searchParams.get(param);
    if (value === null) continue;
    const id = Number(value);
    if (!Number.isInteger(id) || id <= 0) return null;
    for (const type of types) {
      const doc = viewable((await site.readModel.get(type, id)) as ContentDoc | null);
      if (doc) return doc;
    }
    return null;
  }
  const base = home.pathname.replace(/\/+$/, '');
  if (!parsed.pathname.startsWith(`${base}/`)) return null;
  const segments = parsed.pathname
    .slice(base.length)
    .split('/')
    .filter((s) => s !== '')
    .map((s) => safeDecode(s).toLowerCase());
  if (segments.length === 0) return null;
  // Pages first (a page's path is its ancestors' slugs), then a post's name, as WordPress resolves its permalinks.
  const page = await pageAtPath(site, segments);
  if (page) return viewable(page);
  if (segments.length !== 1) return null;
  return viewable((await bySlug(site, 'post', segments[0]!))[0] ?? null);
}

async function pageAtPath(site: Site, segments: string[]): Promise<ContentDoc | null> {
  const candidates = await bySlug(site, 'page', segments[segments.length - 1]!);
  const wanted = segments.slice(0, -1).map((s) => `${s}/`).join('');
  for (const page of candidates) {
    if (page.status !== 'publish') continue;
    if ((page.parent > 0 ? await ancestorPath(site, page.parent) : '') === wanted) return page;
  }
  return null;
}

async function bySlug(site: Site, type: 'post' | 'page', slug: string): Promise<ContentDoc[]> {
  const { items } = await site.readModel.query(type, {
    filters: [{ kind: 'any', field: 'slug', values: [slug] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return items as ContentDoc[];
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** WordPress's frame: 200 to 600 pixels wide (600 by default), 16:9 but at least 200 high. */
export function embedSize(maxwidth: number | undefined): { width: number; height: number } {
  const width = Math.min(Math.max(maxwidth ?? 600, 200), 600);
  return { width, height: Math.max(Math.ceil((width / 16) * 9), 200) };
}

/** The embed data of a publicly viewable item; `secret` ties the frame to its fallback link. */
export async function embedData(site: Site, doc: ContentDoc, maxwidth: number | undefined, secret: string): Promise<OEmbedData> {
  const { siteUrl, name: siteName } = site.settings;
  const author = (await site.readModel.get('user', doc.author)) as { name: string; slug: string } | null;
  const link = permalink(doc, siteUrl, doc.type === 'page' && doc.parent > 0 ? await ancestorPath(site, doc.parent) : '');
  // Outside the REST API a protected item's title says so.
  const title = renderTitle(doc.password !== '' ? `Protected: ${doc.title}` : doc.title);
  const { width, height } = embedSize(maxwidth);
  return {
    version: '1.0',
    provider_name: siteName,
    provider_url: siteUrl,
    author_name: author ? author.name : siteName,
    author_url: author ? userLink(siteUrl, author.slug) : siteUrl,
    title,
    type: 'rich',
    width,
    height,
    html: embedHtml({ link, title, siteName, width, height, secret }),
  };
}

const escapeAttribute = (text: string): string => text.replace(/&(?!#?\w+;)/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The markup another site pastes: the frame hides the link and sizes itself from the height the embedded page
 * posts to it (between 200 and 1000 pixels), checking the shared secret first.
 */
function embedHtml(o: { link: string; title: string; siteName: string; width: number; height: number; secret: string }): string {
  const link = escapeAttribute(o.link);
  const frameTitle = escapeAttribute(`\u201c${o.title}\u201d \u2014 ${o.siteName}`);
  const script =
    '<script>(function(w,d){var s=' +
    JSON.stringify(o.secret) +
    ';w.addEventListener("message",function(e){var m=e.data;if(!m||m.secret!==s)return;' +
    'd.querySelectorAll(\'blockquote[data-secret="\'+s+\'"]\').forEach(function(b){b.style.display="none"});' +
    'if(m.message==="height"){var h=Math.min(Math.max(parseInt(m.value,10)||0,200),1000);' +
    'd.querySelectorAll(\'iframe[data-secret="\'+s+\'"]\').forEach(function(f){if(f.contentWindow===e.source)f.height=h})}});})(window,document);</script>';
  return (
    `<blockquote class="wp-embedded-content" data-secret="${o.secret}"><a href="${link}">${o.title}</a></blockquote>` +
    `<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted" title="${frameTitle}" ` +
    `src="${link}embed/#?secret=${o.secret}" data-secret="${o.secret}" width="${o.width}" height="${o.height}" ` +
    `frameborder="0" marginwidth="0" marginheight="0" scrolling="no"></iframe>${script}`
  );
}

/** WordPress's XML format: each field an element, in order, with its text escaped. */
export function toXml(data: Record<string, unknown>): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const fields = Object.entries(data)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `<${key}>${escape(String(value))}</${key}>`)
    .join('');
  return `<?xml version="1.0"?>\n<oembed>${fields}</oembed>\n`;
}
