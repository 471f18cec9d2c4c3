/**
 * oEmbed for the site's own items: which publicly viewable post or page a URL of this site names (`?p=ID`,
 * `?page_id=ID`, `/slug/`, a child page's `/parent/child/`), and the embed data WordPress 6.1 gives for it:
 * provider and author (falling back to the site when the author is gone), the size rules, and the `html` — a
 * link in a blockquote for readers without frames, and a sandboxed iframe of the item's embed view sharing a
 * random secret with it.
 */
import type { Site } from '../../site';
import type { ContentDoc } from '../../../projections/content';
import type { MediaDoc } from '../../../projections/media';
import { permalink } from '../content/present';
import { ancestorPath } from '../content/operations';
import { stripAllTags } from '../../text/contentFilters';
import { renderExcerpt, renderTitle } from '../../text/render';
import { userLink } from '../users/present';
import { mediaLink, uploadUrl } from '../media/present';
import { parentPermalink } from '../media/routes';

/** What can be embedded: a post, a page, or an attachment. */
export type EmbeddableDoc = ContentDoc | MediaDoc;
const isAttachment = (doc: EmbeddableDoc): doc is MediaDoc => doc.type === 'attachment';

export interface OEmbedData {
  version: '1.0';
  provider_name: string;
  provider_url: string;
  author_name: string;
  author_url: string;
  title: string;
  type: 'rich' | 'video';
  width: number;
  height: number;
  html: string;
  thumbnail_url?: string;
  thumbnail_width?: number;
  thumbnail_height?: number;
}

/**
 * The item a URL of this site names, when it is publicly viewable; null otherwise. The URL of an item's embed
 * view (`{permalink}embed/`) names the item too.
 */
export async function localItemFor(site: Site, url: string): Promise<EmbeddableDoc | null> {
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
  const attachmentId = parsed.searchParams.get('attachment_id');
  if (attachmentId !== null) {
    const id = Number(attachmentId);
    return Number.isInteger(id) && id > 0
      ? viewableAttachment(site, (await site.readModel.get('attachment', id)) as MediaDoc | null)
      : null;
  }
  for (const [param, types] of [
    ['p', ['post', 'page']],
    ['page_id', ['page']],
  ] as const) {
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
  if (segments.length > 1 && segments[segments.length - 1] === 'embed') segments.pop();
  if (segments.length === 0) return null;
  const content = await contentAtPath(site, segments);
  if (content) return viewable(content);
  // An attachment's address: its slug at the root when unattached, under its parent's permalink otherwise.
  const slug = segments[segments.length - 1]!;
  const parentPath = segments.slice(0, -1).filter((s, i, all) => !(s === 'attachment' && i === all.length - 1));
  const parent = parentPath.length > 0 ? await contentAtPath(site, parentPath) : null;
  if (parentPath.length > 0 && !parent) return null;
  for (const attachment of await attachmentsBySlug(site, slug)) {
    if (attachment.post === (parent?.id ?? 0)) return viewableAttachment(site, attachment);
  }
  return null;
}

/** Pages first (a page's path is its ancestors' slugs), then a post's name, as WordPress resolves its permalinks. */
async function contentAtPath(site: Site, segments: string[]): Promise<ContentDoc | null> {
  const page = await pageAtPath(site, segments);
  if (page) return page;
  if (segments.length !== 1) return null;
  return (await bySlug(site, 'post', segments[0]!)).find((doc) => doc.status === 'publish') ?? null;
}

/** An attachment is public when it is not private and its parent, if any, is published. */
async function viewableAttachment(site: Site, doc: MediaDoc | null): Promise<MediaDoc | null> {
  if (doc?.status !== 'inherit') return null;
  if (doc.post === 0) return doc;
  const parent = ((await site.readModel.get('post', doc.post)) ??
    (await site.readModel.get('page', doc.post))) as ContentDoc | null;
  return parent && parent.status === 'publish' ? doc : null;
}

async function attachmentsBySlug(site: Site, slug: string): Promise<MediaDoc[]> {
  const { items } = await site.readModel.query('attachment', {
    filters: [{ kind: 'any', field: 'slug', values: [slug] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return items as MediaDoc[];
}

/** An item's permalink (a page's under its ancestors, an attachment's under its parent). */
export async function itemLink(site: Site, doc: EmbeddableDoc): Promise<string> {
  const { siteUrl } = site.settings;
  if (isAttachment(doc)) return mediaLink(doc, siteUrl, await parentPermalink(site, doc.post));
  return permalink(doc, siteUrl, doc.type === 'page' && doc.parent > 0 ? await ancestorPath(site, doc.parent) : '');
}

/**
 * The thumbnail WordPress offers: the item's featured image (an image attachment is its own), as its full
 * file scaled down to the frame's width.
 */
async function thumbnailOf(
  site: Site,
  doc: EmbeddableDoc,
  frameWidth: number,
): Promise<Pick<OEmbedData, 'thumbnail_url' | 'thumbnail_width' | 'thumbnail_height'>> {
  const image = isAttachment(doc)
    ? doc
    : doc.featured_media > 0
      ? ((await site.readModel.get('attachment', doc.featured_media)) as MediaDoc | null)
      : null;
  const { width, height, file } = image?.media_details ?? {};
  if (!image?.mime_type.startsWith('image/') || !width || !height || !file) return {};
  const scale = Math.min(1, frameWidth / width);
  return {
    thumbnail_url: uploadUrl(site.settings.siteUrl, file),
    thumbnail_width: Math.round(width * scale),
    thumbnail_height: Math.round(height * scale),
  };
}

async function pageAtPath(site: Site, segments: string[]): Promise<ContentDoc | null> {
  const candidates = await bySlug(site, 'page', segments[segments.length - 1]!);
  const wanted = segments
    .slice(0, -1)
    .map((s) => `${s}/`)
    .join('');
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
export async function embedData(
  site: Site,
  doc: EmbeddableDoc,
  maxwidth: number | undefined,
  secret: string,
): Promise<OEmbedData> {
  const { siteUrl, name: siteName } = site.settings;
  const author = (await site.readModel.get('user', doc.author)) as { name: string; slug: string } | null;
  const link = await itemLink(site, doc);
  const title = embedTitle(doc);
  const { width, height } = embedSize(maxwidth);
  return {
    version: '1.0',
    provider_name: siteName,
    provider_url: siteUrl,
    author_name: author ? author.name : siteName,
    author_url: author ? userLink(siteUrl, author.slug) : siteUrl,
    title,
    type: isAttachment(doc) && doc.mime_type.startsWith('video/') ? 'video' : 'rich',
    width,
    height,
    html: embedHtml({ link, title, siteName, width, height, secret }),
    ...(await thumbnailOf(site, doc, width)),
  };
}

/** The rendered title; outside the REST API a protected item's title says so. */
const embedTitle = (doc: EmbeddableDoc): string =>
  renderTitle(!isAttachment(doc) && doc.password !== '' ? `Protected: ${doc.title}` : doc.title);

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
/** Rendered HTML reduced to its text (entities decoded once), ready to be escaped again. */
const plainText = (html: string): string =>
  stripAllTags(html)
    .replace(/&#(\d{1,7});/g, (entity, code) =>
      Number(code) > 0 && Number(code) <= 0x10ffff ? String.fromCodePoint(Number(code)) : entity,
    )
    .replace(/&quot;/g, '"')
    .replace(/&hellip;/g, '\u2026')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The embed view an embed's frame shows (`{permalink}embed/`): the item's title (linking to it), its excerpt
 * and the site's name, as text only. Nothing of the item's markup is kept, so no script of the post can run in
 * it, and the page's policy allows no script at all.
 */
export async function embedPage(site: Site, doc: EmbeddableDoc): Promise<string> {
  const link = await itemLink(site, doc);
  const title = plainText(embedTitle(doc));
  const excerpt = isAttachment(doc)
    ? plainText(doc.caption)
    : doc.password !== ''
      ? 'There is no excerpt because this is a protected post.'
      : plainText(renderExcerpt(doc.excerpt, doc.content, { siteUrl: site.settings.siteUrl }));
  const siteName = site.settings.name;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="robots" content="noindex, follow">',
    `<title>${escapeHtml(title)} \u2013 ${escapeHtml(siteName)}</title>`,
    '<style>body{margin:0;font-family:sans-serif}.wp-embed{padding:25px;border:1px solid #dcdcde;color:#50575e;background:#fff}.wp-embed-heading{margin:0 0 15px;font-size:22px;line-height:1.3}.wp-embed-heading a{color:#2c3338;text-decoration:none}.wp-embed-footer{margin-top:30px;font-size:14px}</style>',
    '</head>',
    '<body class="wp-embed-responsive">',
    '<div class="wp-embed">',
    `<p class="wp-embed-heading"><a href="${escapeHtml(link)}" target="_top">${escapeHtml(title)}</a></p>`,
    `<div class="wp-embed-excerpt"><p>${escapeHtml(excerpt)}</p></div>`,
    `<div class="wp-embed-footer"><div class="wp-embed-site-title"><a href="${escapeHtml(site.settings.siteUrl)}" target="_top">${escapeHtml(siteName)}</a></div></div>`,
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The answer to a GET/HEAD of an item's embed view (`…/embed/`), or null when the path is not one. */
export async function serveEmbedPage(
  site: Site,
  method: string,
  path: string,
): Promise<{ status: number; type: string; body: string; headers: Record<string, string> } | null> {
  if ((method !== 'GET' && method !== 'HEAD') || !path.endsWith('/embed/')) return null;
  const doc = await localItemFor(site, new URL(path, site.settings.siteUrl).href);
  if (!doc) return null;
  return {
    status: 200,
    type: 'text/html; charset=utf-8',
    body: await embedPage(site, doc),
    // The page is only text and a stylesheet: forbid every script, and let any site frame it (that is its use).
    headers: {
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; img-src *; base-uri 'none'; form-action 'none'",
      'X-Content-Type-Options': 'nosniff',
    },
  };
}

const escapeAttribute = (text: string): string =>
  text
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/**
 * The markup another site pastes: the frame hides the link and sizes itself from the height the embedded page
 * posts to it (between 200 and 1000 pixels), checking the shared secret first.
 */
function embedHtml(o: {
  link: string;
  title: string;
  siteName: string;
  width: number;
  height: number;
  secret: string;
}): string {
  const link = escapeAttribute(o.link);
  const frameTitle = escapeAttribute(`\u201c${o.title}\u201d \u2014 ${o.siteName}`);
  const script =
    '<script>(function(w,d){var s=' +
    JSON.stringify(o.secret) +
    ';w.addEventListener("message",function(e){var m=e.data;if(!m||m.secret!==s)return;' +
    'd.querySelectorAll(\'blockquote[data-secret="\'+s+\'"]\').forEach(function(b){b.style.display="none"});' +
    'if(m.message==="height"){var h=Math.min(Math.max(parseInt(m.value,10)||0,200),1000);' +
    "d.querySelectorAll('iframe[data-secret=\"'+s+'\"]').forEach(function(f){if(f.contentWindow===e.source)f.height=h})}});})(window,document);</script>";
  return (
    `<blockquote class="wp-embedded-content" data-secret="${o.secret}"><a href="${link}">${o.title}</a></blockquote>` +
    `<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted" title="${frameTitle}" ` +
    `src="${link}embed/#?secret=${o.secret}" data-secret="${o.secret}" width="${o.width}" height="${o.height}" ` +
    `frameborder="0" marginwidth="0" marginheight="0" scrolling="no"></iframe>${script}`
  );
}

/** WordPress's XML format: each field an element, in order, with its text escaped. */
export function toXml(data: Record<string, unknown>): string {
  // As WordPress builds it: entity references in a value (a title's `&#8220;`) are read as their characters, and the
  // document, declaring no encoding, writes every character beyond ASCII as a reference (`&#x201C;`).
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  const escapeXml = (text: string) =>
    text
      .replace(/&(#\d+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);/g, (all, ref: string) => {
        if (ref[0] !== '#') return named[ref]!;
        const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
      })
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/[^\x00-\x7f]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`);
  const fields = Object.entries(data)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `<${key}>${escapeXml(String(value))}</${key}>`)
    .join('');
  return `<?xml version="1.0"?>\n<oembed>${fields}</oembed>\n`;
}
