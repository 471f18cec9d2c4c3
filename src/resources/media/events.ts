/**
 * Events of the attachment streams (`attachment-{id}`). The file itself is in blob storage, written before
 * the event that names it is appended: a file without an event is an orphan (removed by `palimpsest media sweep`),
 * never the reverse.
 * Who and when are in the event metadata; docs/events.md is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';
import type { ImageMeta } from './imageMeta';

/** One generated size of an image: file name (beside the original), dimensions and bytes. */
export interface ImageSize {
  file: string;
  width: number;
  height: number;
  filesize: number;
  mime_type: string;
}

/** What is known about the stored file; `width`/`height`/`sizes` only for images. */
export interface MediaDetails {
  width?: number;
  height?: number;
  /** The blob key of the original: `YYYY/MM/name.ext`. */
  file: string;
  filesize: number;
  sizes: Record<string, ImageSize>;
  /** What the image's EXIF/IPTC says (WordPress's `image_meta`), read at upload. */
  image_meta?: ImageMeta;
  /** For a big image shown through its `-scaled` copy (then `file`): the uploaded original's name, beside it. */
  original_image?: string;
  /** For an edited copy: the attachment it was made from, and that one's file. */
  parent_image?: { attachment_id: string; file: string };
}

export interface AttachmentFields {
  title: string;
  caption: string;
  description: string;
  alt_text: string;
  slug: string;
  /** `inherit` (follows its parent post) or `private`. */
  status: string;
  author: number;
  comment_status: 'open' | 'closed';
  ping_status: 'open' | 'closed';
  template: string;
  /** The post it is attached to, 0 for none. */
  post: number;
  /** Its featured image (first instance only); absent on attachments that never had one, which reads as 0. */
  featured_media?: number;
  mime_type: string;
  media_details: MediaDetails;
  /** Site-local, "YYYY-MM-DDTHH:MM:SS". */
  date: string;
  date_gmt: string;
  modified: string;
  modified_gmt: string;
}

export interface AttachmentCreated {
  id: number;
  attachment: AttachmentFields;
}

export interface AttachmentUpdated {
  id: number;
  /** Only the fields whose values changed. */
  changes: Partial<AttachmentFields>;
}

export interface AttachmentDeleted {
  id: number;
  /** The blob keys the attachment used, which the delete also removed (best effort). */
  files: string[];
}

export type MediaEvent =
  | DomainEvent<'AttachmentCreated', AttachmentCreated>
  | DomainEvent<'AttachmentUpdated', AttachmentUpdated>
  | DomainEvent<'AttachmentDeleted', AttachmentDeleted>;

export const MEDIA_EVENT_TYPES = ['AttachmentCreated', 'AttachmentUpdated', 'AttachmentDeleted'] as const;

export const attachmentStreamId = (id: number): string => `attachment-${id}`;

/** Every blob key an attachment uses: the original and its sub-sizes (which sit in the same folder). */
export function attachmentFiles(details: MediaDetails): string[] {
  const folder = details.file.includes('/') ? details.file.slice(0, details.file.lastIndexOf('/') + 1) : '';
  const original = details.original_image ? [`${folder}${details.original_image}`] : [];
  return [details.file, ...original, ...Object.values(details.sizes).map((size) => `${folder}${size.file}`)];
}
