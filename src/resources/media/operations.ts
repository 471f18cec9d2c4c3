/**
 * Media operations, callable without HTTP: store the file (and its sub-sizes) in blob storage, then append
 * the attachment's event; update, delete, make missing sub-sizes, and save an edited copy. Ids come from the
 * shared content sequence; slugs are claimed in the `attachment` scope.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canSaveUnfilteredHtml } from '../../access/capabilities';
import { NotFound } from '../../core/errors';
import { formatLocal } from '../../text/dates';
import { sanitizeSlug } from '../../text/slug';
import { filterHtml } from '../../text/sanitizeHtml';
import { slugCandidates } from '../content/slugCandidates';
import { mediaDecider } from './decider';
import type { AttachmentInput, MediaCommand, MediaState } from './decider';
import { attachmentStreamId } from './events';
import type { AttachmentFields, MediaDetails } from './events';
import {
  IMAGE_EXTENSIONS,
  allowedMimeType,
  applyModifiers,
  decodable,
  fileTypeNotAllowed,
  inspectImage,
  needsScaledCopy,
  renderSubsizes,
  sanitizeFileName,
  scaledCopy,
  splitExtension,
  storeSubsizes,
  storeUnique,
} from './files';
import type { RenderedSize } from './files';
import { DEFAULT_IMAGE_MAX_PIXELS } from './sharp';
import type { Modifier, UploadedContent } from './files';
import { readImageMeta } from './imageMeta';
import type { BlobBody } from '../../ports/blobStore';
import { blobSize } from '../../ports/blobStore';
import { logger } from '../../logger';

export const MEDIA_SLUG_SCOPE = 'attachment';

export interface MediaWriteOutcome {
  id: number;
  state: MediaState;
  position: number;
}

const writeContext = (site: Site, actor: Actor) => ({
  actorId: actor.id,
  now: site.clock.now(),
  timezone: site.settings.timezone,
});

/** Title, caption and description as this actor may save them (filtered unless they have unfiltered_html). */
function filterText(input: AttachmentInput, actor: Actor): AttachmentInput {
  if (canSaveUnfilteredHtml(actor)) return input;
  const filtered = { ...input };
  if (filtered.title !== undefined) filtered.title = filterHtml(filtered.title, 'title');
  if (filtered.caption !== undefined) filtered.caption = filterHtml(filtered.caption, 'post');
  if (filtered.description !== undefined) filtered.description = filterHtml(filtered.description, 'post');
  return filtered;
}

const maxPixelsOf = (site: Site): number => site.settings.imageMaxPixels ?? DEFAULT_IMAGE_MAX_PIXELS;

/**
 * Stores a file as WordPress would: in this month's folder (site time), under a free name; images with their
 * sub-sizes. The file is streamed into the store (an upload is on disk, never read whole); the image work is done
 * first (sub-sizes in memory), so that nothing is stored for a failure; an image that cannot
 * be decoded (over the pixel limit, truncated) is stored with its header's dimensions and no sub-sizes, as WordPress
 * leaves one its editor cannot load. Every key written is noted in `stored`, for the caller to remove on failure.
 */
async function storeFile(
  site: Site,
  name: string,
  data: BlobBody,
  mime: string,
  dims: { width: number; height: number } | null,
  stored: string[],
): Promise<MediaDetails> {
  const folder = formatLocal(site.clock.now(), site.settings.timezone).slice(0, 7).replace('-', '/');
  const maxPixels = maxPixelsOf(site);
  let rendered: RenderedSize[] = [];
  let scaled: Awaited<ReturnType<typeof scaledCopy>> | null = null;
  if (dims && decodable(dims, maxPixels)) {
    try {
      rendered = await renderSubsizes(data, mime, dims, maxPixels);
      // A big image is then shown through its scaled copy.
      if (needsScaledCopy(mime, dims)) scaled = await scaledCopy(data, mime, dims, maxPixels);
    } catch {
      rendered = [];
      scaled = null;
    }
  }
  const imageMeta = dims ? await readImageMeta(data) : undefined;
  const key = await storeUnique(site.blobs, folder, name, data);
  stored.push(key);
  const details: MediaDetails = { file: key, filesize: blobSize(data), sizes: {} };
  if (!dims) return details;
  details.width = dims.width;
  details.height = dims.height;
  // Sub-sizes come from the original and carry its name.
  details.sizes = await storeSubsizes(site.blobs, key, rendered, mime, {}, stored);
  details.image_meta = imageMeta;
  if (scaled) {
    const { stem, extension } = splitExtension(key.slice(key.lastIndexOf('/') + 1));
    details.file = await storeUnique(site.blobs, folder, `${stem}-scaled${extension}`, scaled.data);
    stored.push(details.file);
    details.width = scaled.width;
    details.height = scaled.height;
    details.filesize = scaled.data.length;
    details.original_image = key.slice(key.lastIndexOf('/') + 1);
  }
  return details;
}

/**
 * The name and type a file is stored with, as WordPress checks an upload: the type its name gives must be allowed,
 * and an image's content must be an image; one of another allowed image type is renamed to that type's extension.
 */
async function checkedType(
  upload: UploadedContent,
  actor: Actor,
  multipart: boolean,
): Promise<{ name: string; mime: string; dims: { width: number; height: number } | null }> {
  let name = sanitizeFileName(upload.filename);
  const unfiltered = canSaveUnfilteredHtml(actor);
  let mime = allowedMimeType(name, unfiltered);
  if (!mime) throw fileTypeNotAllowed(multipart);
  if (!mime.startsWith('image/')) return { name, mime, dims: null };
  const found = await inspectImage(upload.body);
  if (!found) throw fileTypeNotAllowed(multipart);
  if (found.mime !== mime) {
    const extension = IMAGE_EXTENSIONS[found.mime];
    const renamed = extension ? `${splitExtension(name).stem}.${extension}` : '';
    if (!extension || allowedMimeType(renamed, unfiltered) !== found.mime) throw fileTypeNotAllowed(multipart);
    name = renamed;
    mime = found.mime;
  }
  return { name, mime, dims: found.width && found.height ? { width: found.width, height: found.height } : null };
}

/**
 * The title and caption an upload gets unless the request gives them: the image's metadata title (unless it
 * would make a numeric slug) and caption, else the file name without its extension.
 */
function titleAndCaptionOf(details: MediaDetails, fileStem: string): { title: string; caption?: string } {
  const meta = details.image_meta;
  const metaTitle = meta?.title.trim() ?? '';
  const title = metaTitle !== '' && !/^\d+$/.test(sanitizeSlug(metaTitle)) ? metaTitle : fileStem;
  return meta && meta.caption.trim() !== '' ? { title, caption: meta.caption } : { title };
}

async function claimSlug(
  site: Site,
  base: string,
  id: number,
  metadata: ReturnType<Site['metadata']>,
): Promise<string> {
  return site.claims.claimFirstFree(MEDIA_SLUG_SCOPE, slugCandidates(base, 'post'), id, metadata);
}

/**
 * Creates an attachment from uploaded content. The file is written first; the title defaults to the stored
 * file's name without its extension; the slug comes from the title.
 */
export async function createAttachment(
  site: Site,
  upload: UploadedContent,
  sent: AttachmentInput,
  actor: Actor,
  requestId: string,
  // chosenId: an id the caller reserved (an import keeping its source's ids); else the next one.
  extra: { parentImage?: MediaDetails['parent_image']; multipart?: boolean; chosenId?: number } = {},
): Promise<MediaWriteOutcome> {
  // WordPress reports a refusal by the path the file came: a form upload's handler or the raw body's sideload.
  const { name, mime, dims } = await checkedType(upload, actor, extra.multipart === true);
  // Every file written, removed again if the attachment is not recorded: no blob is left without one.
  const stored: string[] = [];
  const removeStored = () => Promise.all(stored.map((key) => site.blobs.delete(key).catch(() => undefined)));
  let details: MediaDetails;
  try {
    details = await storeFile(site, name, upload.body, mime, dims, stored);
  } catch (error) {
    await removeStored();
    throw error;
  }
  if (extra.parentImage) details.parent_image = extra.parentImage;
  const storedName = details.original_image ?? details.file.slice(details.file.lastIndexOf('/') + 1);
  const input = filterText({ ...titleAndCaptionOf(details, splitExtension(storedName).stem), ...sent }, actor);
  const metadata = site.metadata(actor.id, requestId);
  const id = extra.chosenId ?? (await site.ids.content.nextId());
  const claimed: string[] = [];
  const prepare = async (): Promise<MediaCommand> => {
    const slug = await claimSlug(site, sanitizeSlug(input.title ?? '') || String(id), id, metadata);
    claimed.push(slug);
    return { kind: 'create', id, input, slug, mimeType: mime, details, ...writeContext(site, actor) };
  };
  try {
    const result = await site.commands.handle(attachmentStreamId(id), mediaDecider, prepare, metadata);
    await site.claims.releaseAllBut(MEDIA_SLUG_SCOPE, claimed, result.state.attachment?.slug ?? null, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MEDIA_SLUG_SCOPE, claimed, null, id, metadata);
    await removeStored();
    throw error;
  }
}

export async function updateAttachment(
  site: Site,
  id: number,
  sent: AttachmentInput & { slug?: string },
  actor: Actor,
  requestId: string,
  details?: MediaDetails,
): Promise<MediaWriteOutcome> {
  const { slug: requestedSlug, ...rest } = sent;
  const input = filterText(rest, actor);
  const metadata = site.metadata(actor.id, requestId);
  const claimed: string[] = [];
  let previousSlug: string | null = null;
  const prepare = async (state: MediaState): Promise<MediaCommand> => {
    const current = state.attachment;
    previousSlug = current?.slug ?? null;
    let slug = current?.slug ?? '';
    const explicit = requestedSlug !== undefined ? sanitizeSlug(requestedSlug) : '';
    if (current && explicit !== '' && explicit !== current.slug) {
      slug = await claimSlug(site, explicit, id, metadata);
      claimed.push(slug);
    }
    return { kind: 'update', id, input, slug, ...(details ? { details } : {}), ...writeContext(site, actor) };
  };
  try {
    const result = await site.commands.handle(attachmentStreamId(id), mediaDecider, prepare, metadata);
    const after = result.state.attachment?.slug ?? null;
    const before = previousSlug as string | null;
    if (before && after !== before) await site.claims.release(MEDIA_SLUG_SCOPE, before, id, metadata);
    await site.claims.releaseAllBut(MEDIA_SLUG_SCOPE, claimed, after, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(MEDIA_SLUG_SCOPE, claimed, null, id, metadata);
    throw error;
  }
}

/**
 * Deletes an attachment for good: the event first, then its files. A blob store out of reach refuses the delete
 * before anything is recorded (DependencyUnavailableError), so that the files of an attachment deleted in an outage
 * are not left served; a removal that still fails leaves orphans for `palimpsest media sweep`.
 */
export async function deleteAttachment(
  site: Site,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<MediaWriteOutcome & { previous: AttachmentFields }> {
  const metadata = site.metadata(actor.id, requestId);
  let previous: AttachmentFields | null = null;
  const result = await site.commands.handle(
    attachmentStreamId(id),
    mediaDecider,
    async (state: MediaState): Promise<MediaCommand> => {
      previous = state.attachment;
      if (previous) await site.blobs.stat(previous.media_details.file);
      return { kind: 'delete', id };
    },
    metadata,
  );
  const last = previous as AttachmentFields | null;
  if (!last) throw new Error('deleted an attachment without state');
  if (last.slug !== '') await site.claims.release(MEDIA_SLUG_SCOPE, last.slug, id, metadata);
  const deleted = result.events.find((event) => event.type === 'AttachmentDeleted')?.data as
    | { files: string[] }
    | undefined;
  for (const key of deleted?.files ?? []) {
    await site.blobs.delete(key).catch((error: unknown) => {
      logger.warn(
        `file ${key} of deleted attachment ${id} not removed (palimpsest media sweep removes it): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
  return { id, state: result.state, position: result.position, previous: last };
}

/** `create-image-subsizes`: makes the sizes an image lacks (after an interrupted upload, or new sizes). */
export async function createMissingSubsizes(
  site: Site,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<MediaWriteOutcome> {
  const state = await loadAttachment(site, id);
  const attachment = state.attachment;
  if (!attachment) throw new NotFound('attachment');
  const details = attachment.media_details;
  if (!details.width || !details.height) return { id, state, position: 0 };
  const data = await site.blobs.get(details.file);
  if (!data) throw new NotFound('attachmentFile');
  const dims = { width: details.width, height: details.height };
  // An image that cannot be decoded keeps the sizes it has, as WordPress answers it unchanged.
  const rendered = decodable(dims, maxPixelsOf(site))
    ? await renderSubsizes(data, attachment.mime_type, dims, maxPixelsOf(site), details.sizes).catch(() => [])
    : [];
  // As for an upload: the files written are removed again if the update is not recorded.
  const stored: string[] = [];
  try {
    const sizes = await storeSubsizes(site.blobs, details.file, rendered, attachment.mime_type, details.sizes, stored);
    if (JSON.stringify(sizes) === JSON.stringify(details.sizes)) return { id, state, position: 0 };
    return await updateAttachment(site, id, {}, actor, requestId, { ...details, sizes });
  } catch (error) {
    await Promise.all(stored.map((key) => site.blobs.delete(key).catch(() => undefined)));
    throw error;
  }
}

/**
 * Saves an edited copy of an image as a new attachment (`name-edited.ext`, never `-edited-edited`), with the
 * original's title, caption, description and alt text, and a pointer to it.
 */
export async function editImage(
  site: Site,
  id: number,
  modifiers: readonly Modifier[],
  actor: Actor,
  requestId: string,
): Promise<MediaWriteOutcome> {
  const original = (await loadAttachment(site, id)).attachment;
  if (!original) throw new NotFound('attachment');
  const data = await site.blobs.get(original.media_details.file);
  if (!data) throw new NotFound('attachmentFile');
  const edited = await applyModifiers(data, original.mime_type, modifiers, maxPixelsOf(site));
  const file = original.media_details.file;
  const { stem, extension } = splitExtension(file.slice(file.lastIndexOf('/') + 1));
  const name = `${stem.replace(/-edited(-\d+)?$/, '')}-edited${extension}`;
  return createAttachment(
    site,
    { body: edited, filename: name },
    {
      title: original.title,
      caption: original.caption,
      description: original.description,
      alt_text: original.alt_text,
    },
    actor,
    requestId,
    { parentImage: { attachment_id: String(id), file } },
  );
}

export async function loadAttachment(site: Site, id: number): Promise<MediaState> {
  return (await site.commands.load(attachmentStreamId(id), mediaDecider)).state;
}
