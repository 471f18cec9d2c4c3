/**
 * Attachment document → WordPress item, for one context. Pure: site URLs and the caller's actions come in.
 */
import type { MediaDoc } from '../../../projections/media';
import type { ResourceSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import { renderContent, renderTitle } from '../../text/render';
import { sanitizeSlug } from '../../text/slug';
import { IMAGE_SIZES, missingSizes } from './files';
import { defaultImageMeta } from './imageMeta';

export interface MediaPresentOptions {
  context: 'view' | 'edit' | 'embed';
  siteUrl: string;
  apiRoot: string;
  /** The unique slug the title would give (edit context). */
  generatedSlug?: string;
  /** `https://api.w.org/action-*` relations the caller has (edit context). */
  actions?: readonly string[];
  withoutLinks?: boolean;
  /** The permalink of the post the item is attached to; null (or absent) when unattached. */
  parentLink?: string | null;
}

/** Where uploaded files are served from: `{siteUrl}/wp-content/uploads/`. */
export const UPLOADS_PATH = '/wp-content/uploads/';
export const uploadUrl = (siteUrl: string, key: string): string => `${siteUrl}${UPLOADS_PATH}${key}`;

const folderOf = (key: string): string => (key.includes('/') ? key.slice(0, key.lastIndexOf('/') + 1) : '');
const escapeAttribute = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/** The media_details WordPress shows: sizes with their URLs (and `full`, the original, when there are any), image_meta for images. */
function presentDetails(doc: MediaDoc, siteUrl: string): Record<string, unknown> {
  const details = doc.media_details;
  const folder = folderOf(details.file);
  const isImage = details.width !== undefined && details.height !== undefined;
  if (!isImage) {
    const { width: _w, height: _h, file: _f, ...rest } = details;
    return { ...rest, sizes: {} };
  }
  const sizes: Record<string, unknown> = {};
  for (const [name, size] of Object.entries(details.sizes))
    sizes[name] = { ...size, source_url: uploadUrl(siteUrl, `${folder}${size.file}`) };
  // WordPress adds `full` only beside sub-sizes: an image smaller than every size shows `sizes: {}`.
  if (Object.keys(sizes).length > 0)
    sizes.full = {
      file: details.file.slice(folder.length),
      width: details.width,
      height: details.height,
      mime_type: doc.mime_type,
      source_url: uploadUrl(siteUrl, details.file),
    };
  const shown: Record<string, unknown> = {
    width: details.width,
    height: details.height,
    file: details.file,
    filesize: details.filesize,
    sizes,
  };
  shown.image_meta = details.image_meta ?? defaultImageMeta();
  if (details.original_image) shown.original_image = details.original_image;
  if (details.parent_image) shown.parent_image = details.parent_image;
  return shown;
}

/** The widest image WordPress lists in a `srcset`. */
const MAX_SRCSET_WIDTH = 2048;

/** Same shape within a pixel: the larger scaled down to the smaller's width lands within 1px of it. */
function sameAspect(a: { width: number; height: number }, b: { width: number; height: number }): boolean {
  const [small, large] = a.width <= b.width ? [a, b] : [b, a];
  const scaledHeight = Math.round((large.height * small.width) / large.width);
  return Math.abs(scaledHeight - small.height) <= 1;
}

/**
 * The `srcset` of an image shown at `shown`: every stored size (sub-sizes in their order, then the full file) of
 * the same shape and at most 2048 wide, one per width; empty when that leaves fewer than two.
 */
export function imageSrcset(doc: MediaDoc, siteUrl: string, shown: { width: number; height: number }): string {
  const details = doc.media_details;
  if (details.width === undefined || details.height === undefined) return '';
  const folder = folderOf(details.file);
  const candidates = [
    ...Object.values(details.sizes).map((size) => ({
      width: size.width,
      height: size.height,
      url: uploadUrl(siteUrl, `${folder}${size.file}`),
    })),
    { width: details.width, height: details.height, url: uploadUrl(siteUrl, details.file) },
  ];
  const sources = new Map<number, string>();
  for (const candidate of candidates) {
    if (candidate.width > MAX_SRCSET_WIDTH || sources.has(candidate.width) || !sameAspect(candidate, shown)) continue;
    sources.set(candidate.width, `${candidate.url} ${candidate.width}w`);
  }
  return sources.size < 2 ? '' : [...sources.values()].join(', ');
}

function fitInMediumBox(width: number, height: number): [number, number] {
  const box = IMAGE_SIZES.find((size) => size.name === 'medium')!;
  const scale = Math.min(1, box.width / width, box.height / height);
  return scale === 1 ? [width, height] : [Math.round(width * scale), Math.round(height * scale)];
}

/** The description as WordPress renders an attachment's: a link to the file (an image shows its medium size, with its srcset) above the text. */
function renderedDescription(doc: MediaDoc, siteUrl: string): string {
  const source = uploadUrl(siteUrl, doc.media_details.file);
  const details = doc.media_details;
  let inner = renderTitle(doc.title);
  if (details.width !== undefined && details.height !== undefined) {
    const folder = folderOf(details.file);
    const medium = details.sizes.medium;
    // Without a medium copy (an image already small enough) the full file is shown, fitted in the medium box, and
    // still classed as the medium size that was asked for.
    const [src, width, height] = medium
      ? [uploadUrl(siteUrl, `${folder}${medium.file}`), medium.width, medium.height]
      : [source, ...fitInMediumBox(details.width, details.height)];
    const size = 'medium';
    const srcset = imageSrcset(doc, siteUrl, { width, height });
    const responsive = srcset === '' ? '' : ` srcset="${srcset}" sizes="(max-width: ${width}px) 100vw, ${width}px"`;
    inner = `<img width="${width}" height="${height}" src="${src}" class="attachment-${size} size-${size}" alt="${escapeAttribute(doc.alt_text)}" decoding="async" loading="lazy"${responsive} />`;
  }
  return `<p class="attachment"><a href='${source}'>${inner}</a></p>\n${renderContent(doc.description, { siteUrl })}`;
}

/**
 * An attachment's address as WordPress gives it with /%postname%/ permalinks: under its parent's pretty permalink
 * (`{parent}/{slug}/`, a numeric slug as `attachment/{slug}`), at the site root when unattached, and
 * `?attachment_id=N` when the parent has no pretty permalink (a draft) or the item has no slug.
 * `parentLink` is the parent's permalink, null when unattached.
 */
export function mediaLink(doc: MediaDoc, siteUrl: string, parentLink: string | null): string {
  if (doc.slug === '') return `${siteUrl}/?attachment_id=${doc.id}`;
  if (parentLink === null) return `${siteUrl}/${doc.slug}/`;
  if (parentLink.includes('?')) return `${siteUrl}/?attachment_id=${doc.id}`;
  const name = /^\d+$/.test(doc.slug) ? `attachment/${doc.slug}` : doc.slug;
  return `${parentLink.replace(/\/?$/, '/')}${name}/`;
}

/** The editable pattern: under the parent's pretty permalink when it has one, else the plain id URL. */
const mediaPermalinkTemplate = (doc: MediaDoc, siteUrl: string, parentLink: string | null): string =>
  parentLink !== null && !parentLink.includes('?')
    ? `${parentLink.replace(/\/?$/, '/')}%postname%/`
    : `${siteUrl}/?attachment_id=${doc.id}`;

export function presentMedia(
  doc: MediaDoc,
  schema: ResourceSchema,
  options: MediaPresentOptions,
): Record<string, unknown> {
  const { siteUrl, apiRoot } = options;
  const source = uploadUrl(siteUrl, doc.media_details.file);
  // The guid is the URL of the file as uploaded, before any scaled copy.
  const { original_image: original } = doc.media_details;
  const guid = original ? uploadUrl(siteUrl, `${folderOf(doc.media_details.file)}${original}`) : source;
  const item: Record<string, unknown> = {
    id: doc.id,
    date: doc.date,
    date_gmt: doc.date_gmt,
    guid: { rendered: guid, raw: guid },
    modified: doc.modified,
    modified_gmt: doc.modified_gmt,
    slug: doc.slug,
    status: doc.status,
    type: 'attachment',
    link: mediaLink(doc, siteUrl, options.parentLink ?? null),
    title: { raw: doc.title, rendered: renderTitle(doc.title, { private: doc.status === 'private' }) },
    author: doc.author,
    // Only where the schema has it (the first instance): a field outside the schema would pass context filtering.
    ...('featured_media' in schema.properties ? { featured_media: doc.featured_media ?? 0 } : {}),
    comment_status: doc.comment_status,
    ping_status: doc.ping_status,
    template: doc.template,
    meta: [],
    permalink_template: mediaPermalinkTemplate(doc, siteUrl, options.parentLink ?? null),
    generated_slug: options.generatedSlug ?? (sanitizeSlug(doc.title) || String(doc.id)),
    description: { raw: doc.description, rendered: renderedDescription(doc, siteUrl) },
    caption: { raw: doc.caption, rendered: doc.caption === '' ? '' : renderContent(doc.caption, { siteUrl }) },
    alt_text: doc.alt_text,
    media_type: doc.mime_type.startsWith('image/') ? 'image' : 'file',
    mime_type: doc.mime_type,
    media_details: presentDetails(doc, siteUrl),
    post: doc.post === 0 ? null : doc.post,
    source_url: source,
    missing_image_sizes: missingSizes(doc.media_details, doc.mime_type),
  };
  const filtered = filterByContext(schema, item, options.context) as Record<string, unknown>;
  // `meta` has no properties, which WordPress shows as an empty JSON array; `post` may be null.
  if ('meta' in filtered) filtered.meta = [];
  if ('post' in filtered) filtered.post = item.post;
  if ('media_details' in filtered) filtered.media_details = item.media_details;
  if (options.withoutLinks) return filtered;
  filtered._links = mediaLinks(doc, apiRoot, options.actions);
  return filtered;
}

export function mediaLinks(doc: MediaDoc, apiRoot: string, actions: readonly string[] = []): Record<string, unknown[]> {
  const self = `${apiRoot}core/v2/media/${doc.id}`;
  const links: Record<string, unknown[]> = {
    self: [{ href: self }],
    collection: [{ href: `${apiRoot}core/v2/media` }],
    about: [{ href: `${apiRoot}core/v2/types/attachment` }],
  };
  if (doc.author !== 0) links.author = [{ embeddable: true, href: `${apiRoot}core/v2/users/${doc.author}` }];
  links.replies = [{ embeddable: true, href: `${apiRoot}core/v2/comments?post=${doc.id}` }];
  for (const action of actions) links[`wp:action-${action}`] = [{ href: self }];
  if (actions.length > 0) links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}
