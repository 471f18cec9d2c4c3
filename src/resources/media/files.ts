/**
 * What an upload is and how it is stored: the allowed file types (by extension, as WordPress decides them), unique
 * file names in the month's folder, and the image work (dimensions, sub-sizes, edits) done with sharp. Reading the
 * file out of a request is the HTTP edge's (upload.ts).
 */
import fsp from 'node:fs/promises';
import { loadSharp } from './sharp';
import type { BlobBody, BlobStore } from '../../ports/blobStore';
import { isBlobFile } from '../../ports/blobStore';
import { AlreadyExists, CannotProcess, InvalidValue } from '../../core/errors';
import type { ImageSize, MediaDetails } from './events';

export interface UploadedContent {
  /** The bytes, or the temporary file the HTTP edge streamed them to (read in pieces, never whole). */
  body: BlobBody;
  /** The file name the client gave, before sanitizing. */
  filename: string;
}

/** What sharp reads: the bytes, or the file (libvips reads it itself). */
export const sharpInput = (body: BlobBody): Buffer | string => (isBlobFile(body) ? body.path : body);

/** The first `length` bytes (fewer when shorter). */
async function headOf(body: BlobBody, length: number): Promise<Buffer> {
  if (!isBlobFile(body)) return body.subarray(0, length);
  const handle = await fsp.open(body.path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The refusal of a file whose type is not allowed (by its name, or by its content not being the image its name says),
 * with the way it was sent: WordPress reports it under the code of that path.
 */
export const fileTypeNotAllowed = (multipart: boolean): InvalidValue =>
  new InvalidValue('attachment', ['file'], 'unsupportedType', { upload: multipart ? 'form' : 'body' });

/** The file types WordPress allows by default, by extension (it decides by the name, not the sent type). */
const ALLOWED_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  gif: 'image/gif',
  png: 'image/png',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  tif: 'image/tiff',
  webp: 'image/webp',
  ico: 'image/x-icon',
  heic: 'image/heic',
  asf: 'video/x-ms-asf',
  asx: 'video/x-ms-asf',
  wmv: 'video/x-ms-wmv',
  wmx: 'video/x-ms-wmx',
  wm: 'video/x-ms-wm',
  avi: 'video/avi',
  divx: 'video/divx',
  flv: 'video/x-flv',
  mov: 'video/quicktime',
  qt: 'video/quicktime',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  mpe: 'video/mpeg',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  ogv: 'video/ogg',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  '3gp': 'video/3gpp',
  '3gpp': 'video/3gpp',
  '3g2': 'video/3gpp2',
  '3gp2': 'video/3gpp2',
  txt: 'text/plain',
  asc: 'text/plain',
  c: 'text/plain',
  cc: 'text/plain',
  h: 'text/plain',
  srt: 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  ics: 'text/calendar',
  rtx: 'text/richtext',
  css: 'text/css',
  vtt: 'text/vtt',
  dfxp: 'application/ttaf+xml',
  mp3: 'audio/mpeg',
  m4a: 'audio/mpeg',
  m4b: 'audio/mpeg',
  aac: 'audio/aac',
  ra: 'audio/x-realaudio',
  ram: 'audio/x-realaudio',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  flac: 'audio/flac',
  mid: 'audio/midi',
  midi: 'audio/midi',
  wma: 'audio/x-ms-wma',
  wax: 'audio/x-ms-wax',
  mka: 'audio/x-matroska',
  rtf: 'application/rtf',
  pdf: 'application/pdf',
  class: 'application/java',
  tar: 'application/x-tar',
  zip: 'application/zip',
  gz: 'application/x-gzip',
  gzip: 'application/x-gzip',
  rar: 'application/rar',
  '7z': 'application/x-7z-compressed',
  psd: 'application/octet-stream',
  xcf: 'application/octet-stream',
  doc: 'application/msword',
  pot: 'application/vnd.ms-powerpoint',
  pps: 'application/vnd.ms-powerpoint',
  ppt: 'application/vnd.ms-powerpoint',
  wri: 'application/vnd.ms-write',
  xla: 'application/vnd.ms-excel',
  xls: 'application/vnd.ms-excel',
  xlt: 'application/vnd.ms-excel',
  xlw: 'application/vnd.ms-excel',
  mdb: 'application/vnd.ms-access',
  mpp: 'application/vnd.ms-project',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  odg: 'application/vnd.oasis.opendocument.graphics',
  key: 'application/vnd.apple.keynote',
  numbers: 'application/vnd.apple.numbers',
  pages: 'application/vnd.apple.pages',
};
/** Allowed only to those who may save unfiltered HTML (WordPress drops them from everyone else's list). */
const UNFILTERED_TYPES: Record<string, string> = { htm: 'text/html', html: 'text/html', js: 'application/javascript' };

/** The MIME type WordPress gives a file name, or null when the type is not allowed. */
export function allowedMimeType(filename: string, unfilteredHtml: boolean): string | null {
  const dot = filename.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = filename.slice(dot + 1).toLowerCase();
  return ALLOWED_TYPES[extension] ?? (unfilteredHtml ? (UNFILTERED_TYPES[extension] ?? null) : null);
}

/** The extension's type, for serving stored files (any extension we could have stored). */
export const contentTypeOf = (filename: string): string =>
  allowedMimeType(filename, true) ?? 'application/octet-stream';

/**
 * A file name as WordPress stores it: no path, no characters beyond letters, digits, `.`, `_`, `-`; spaces
 * become dashes; never empty. (Case is kept, as WordPress keeps it.)
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  let clean = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\s+%]+/g, '-')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^[-._]+|[-_.]+$/g, '');
  const dot = clean.lastIndexOf('.');
  if (dot === 0 || clean === '') clean = `unnamed-file${dot === 0 ? clean : ''}`;
  return shortenFileName(clean);
}

/**
 * Most characters of a stored name's stem. WordPress keeps a name whole and fails (500, "Could not open file handle")
 * once it outgrows the file system's 255 bytes; here the stem is cut so that the name with every suffix it may get
 * (`-9999`, `-2048x2048`, `-scaled`, `-edited`, the temporary file's) still fits.
 */
export const MAX_FILE_STEM = 180;
/** Longest extension kept whole; a longer one cannot name an allowed type anyway. */
const MAX_EXTENSION = 16;

export function shortenFileName(name: string): string {
  const { stem, extension } = splitExtension(name);
  if (stem.length <= MAX_FILE_STEM && extension.length <= MAX_EXTENSION) return name;
  const cut = stem.slice(0, MAX_FILE_STEM).replace(/[-_.]+$/, '') || 'unnamed-file';
  return `${cut}${extension.slice(0, MAX_EXTENSION)}`;
}

export const splitExtension = (name: string): { stem: string; extension: string } => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? { stem: name.slice(0, dot), extension: name.slice(dot) } : { stem: name, extension: '' };
};

/**
 * Stores `body` under `folder/name`, or `name-1`, `name-2`… when taken (first writer wins, across
 * processes). Returns the key used.
 */
export async function storeUnique(blobs: BlobStore, folder: string, name: string, body: BlobBody): Promise<string> {
  const { stem, extension } = splitExtension(name);
  for (let n = 0; n < 10_000; n++) {
    const key = `${folder}/${n === 0 ? stem : `${stem}-${n}`}${extension}`;
    if (await blobs.putNew(key, body)) return key;
  }
  throw new AlreadyExists('attachmentFile', 'name', { value: name });
}

/** WordPress's default image sizes, in the order it makes them (medium and large first). */
export const IMAGE_SIZES: readonly { name: string; width: number; height: number; crop: boolean }[] = [
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: '1536x1536', width: 1536, height: 1536, crop: false },
  { name: '2048x2048', width: 2048, height: 2048, crop: false },
];

/** WordPress's big-image threshold: a larger image is shown through a copy scaled to fit in this square. */
export const BIG_IMAGE_THRESHOLD = 2560;

/** Whether WordPress would scale this upload down (never a PNG: its scaled copy can outweigh the original). */
export const needsScaledCopy = (mime: string, dims: { width: number; height: number }): boolean =>
  EDITABLE_TYPES.has(mime) && mime !== 'image/png' && Math.max(dims.width, dims.height) > BIG_IMAGE_THRESHOLD;

/** The image scaled to fit in the threshold square, with its dimensions. */
export async function scaledCopy(
  input: BlobBody,
  mime: string,
  dims: { width: number; height: number },
  maxPixels: number,
): Promise<{ data: Buffer; width: number; height: number }> {
  const scale = BIG_IMAGE_THRESHOLD / Math.max(dims.width, dims.height);
  const width = Math.max(1, Math.round(dims.width * scale));
  const height = Math.max(1, Math.round(dims.height * scale));
  const sharp = await loadSharp();
  const scaled = await sharp(sharpInput(input), { limitInputPixels: maxPixels })
    .resize(width, height, { fit: 'fill' })
    .toFormat(formatOf(mime))
    .toBuffer();
  return { data: scaled, width, height };
}

/** The types sharp reads and writes here (WordPress's editors handle the same four). */
export const EDITABLE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The target box of a size for an image, or null when the size would not be smaller (WordPress makes
 * only sizes smaller than the original). Uncropped sizes fit inside the box keeping the aspect ratio.
 */
export function sizeFor(
  size: (typeof IMAGE_SIZES)[number],
  width: number,
  height: number,
): { width: number; height: number } | null {
  if (size.crop) {
    if (width <= size.width && height <= size.height) return null;
    return { width: Math.min(size.width, width), height: Math.min(size.height, height) };
  }
  const scales = [size.width > 0 ? size.width / width : Infinity, size.height > 0 ? size.height / height : Infinity];
  const scale = Math.min(...scales);
  if (scale >= 1) return null;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

const formatOf = (mime: string): 'jpeg' | 'png' | 'gif' | 'webp' =>
  mime === 'image/png' ? 'png' : mime === 'image/gif' ? 'gif' : mime === 'image/webp' ? 'webp' : 'jpeg';

/** Width and height of an image as its header gives them (nothing decoded, so no pixel limit), or null when it cannot be read as one. */
export async function imageDimensions(input: BlobBody): Promise<{ width: number; height: number } | null> {
  const found = await inspectImage(input);
  return found?.width && found.height ? { width: found.width, height: found.height } : null;
}

const SHARP_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
};

/**
 * An image's real type and dimensions, read from its header without decoding it: sharp's reading where it knows
 * the format, signatures for the types WordPress allows that sharp does not read (BMP, ICO, HEIC without a decoder).
 * Null when the content is none of them. (No file-type package: sharp, loaded anyway, knows all but three.)
 */
export async function inspectImage(input: BlobBody): Promise<{ mime: string; width?: number; height?: number } | null> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(sharpInput(input), { limitInputPixels: false }).metadata();
    const mime =
      meta.format === 'heif'
        ? meta.compression === 'hevc'
          ? 'image/heic'
          : 'image/avif'
        : SHARP_FORMATS[meta.format ?? ''];
    if (mime) return { mime, ...(meta.width && meta.height ? { width: meta.width, height: meta.height } : {}) };
  } catch {
    // Not a format sharp reads: the signatures below may still know it.
  }
  const data = await headOf(input, 12);
  if (data.length >= 2 && data[0] === 0x42 && data[1] === 0x4d) return { mime: 'image/bmp' };
  if (data.length >= 4 && data.readUInt32BE(0) === 0x00000100) return { mime: 'image/x-icon' };
  if (
    data.length >= 12 &&
    data.toString('latin1', 4, 8) === 'ftyp' &&
    /^(heic|heix|mif1|msf1|hevc)$/.test(data.toString('latin1', 8, 12))
  )
    return { mime: 'image/heic' };
  return null;
}

/** The extension WordPress gives a file of this image type (when its name had another). */
export const IMAGE_EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/bmp': 'bmp',
  'image/tiff': 'tif',
  'image/x-icon': 'ico',
  'image/heic': 'heic',
};

/** Whether sharp may decode this image under the pixel limit (the header's dimensions against it). */
export const decodable = (dims: { width: number; height: number }, maxPixels: number): boolean =>
  dims.width * dims.height <= maxPixels;

/** A sub-size made in memory, not yet stored. */
export interface RenderedSize {
  name: string;
  width: number;
  height: number;
  data: Buffer;
}

/**
 * Makes the sub-sizes an image lacks (all those smaller than it, minus `existing`) in memory, decoding it under the
 * pixel limit. Throws when the image cannot be decoded; nothing is stored yet.
 */
export async function renderSubsizes(
  input: BlobBody,
  mime: string,
  dims: { width: number; height: number },
  maxPixels: number,
  existing: Record<string, ImageSize> = {},
): Promise<RenderedSize[]> {
  if (!EDITABLE_TYPES.has(mime)) return [];
  const sharp = await loadSharp();
  const rendered: RenderedSize[] = [];
  for (const size of IMAGE_SIZES) {
    if (existing[size.name]) continue;
    const box = sizeFor(size, dims.width, dims.height);
    if (!box) continue;
    const resized = await sharp(sharpInput(input), { limitInputPixels: maxPixels })
      .resize(box.width, box.height, { fit: size.crop ? 'cover' : 'fill' })
      .toFormat(formatOf(mime))
      .toBuffer();
    rendered.push({ name: size.name, width: box.width, height: box.height, data: resized });
  }
  return rendered;
}

/**
 * Stores rendered sub-sizes beside the image at `key` (`name-WxH.ext`), noting each key written in `stored`, and
 * returns every size it then has.
 */
export async function storeSubsizes(
  blobs: BlobStore,
  key: string,
  rendered: readonly RenderedSize[],
  mime: string,
  existing: Record<string, ImageSize> = {},
  stored: string[] = [],
): Promise<Record<string, ImageSize>> {
  const sizes: Record<string, ImageSize> = { ...existing };
  const folder = key.slice(0, key.lastIndexOf('/'));
  const { stem, extension } = splitExtension(key.slice(key.lastIndexOf('/') + 1));
  for (const size of rendered) {
    const name = `${stem}-${size.width}x${size.height}${extension}`;
    // Two sizes may share dimensions (and so a file); a name already there is that same image.
    if (await blobs.putNew(`${folder}/${name}`, size.data)) stored.push(`${folder}/${name}`);
    sizes[size.name] = {
      file: name,
      width: size.width,
      height: size.height,
      filesize: size.data.length,
      mime_type: mime,
    };
  }
  return sizes;
}

/** Sizes an image should have but lacks (what `missing_image_sizes` lists). */
export function missingSizes(details: MediaDetails, mime: string): string[] {
  if (!EDITABLE_TYPES.has(mime) || !details.width || !details.height) return [];
  return IMAGE_SIZES.filter(
    (size) => !details.sizes[size.name] && sizeFor(size, details.width!, details.height!) !== null,
  ).map((size) => size.name);
}

export type Modifier =
  | { type: 'rotate'; args: { angle: number } }
  | { type: 'crop'; args: { left: number; top: number; width: number; height: number } };

/** Applies the modifiers in order (rotation clockwise; crop in percentages of the current image). */
export async function applyModifiers(
  data: Buffer,
  mime: string,
  modifiers: readonly Modifier[],
  maxPixels: number,
): Promise<Buffer> {
  const sharp = await loadSharp();
  // As WordPress answers when its editor cannot load the image (too large, or not an image after all).
  const header = await imageDimensions(data);
  if (!header || !decodable(header, maxPixels)) throw new CannotProcess('attachment', 'load');
  let current = data;
  for (const modifier of modifiers) {
    if (modifier.type === 'rotate') {
      const angle = ((modifier.args.angle % 360) + 360) % 360;
      if (angle === 0) continue;
      try {
        current = await sharp(current, { limitInputPixels: maxPixels })
          .rotate(angle)
          .toFormat(formatOf(mime))
          .toBuffer();
      } catch {
        throw new CannotProcess('attachment', 'rotate');
      }
    } else {
      const dims = await imageDimensions(current);
      if (!dims) throw new CannotProcess('attachment', 'crop');
      const left = Math.round((modifier.args.left / 100) * dims.width);
      const top = Math.round((modifier.args.top / 100) * dims.height);
      const width = Math.min(dims.width - left, Math.round((modifier.args.width / 100) * dims.width));
      const height = Math.min(dims.height - top, Math.round((modifier.args.height / 100) * dims.height));
      if (width < 1 || height < 1 || left < 0 || top < 0) throw new CannotProcess('attachment', 'crop');
      try {
        current = await sharp(current, { limitInputPixels: maxPixels })
          .extract({ left, top, width, height })
          .toFormat(formatOf(mime))
          .toBuffer();
      } catch {
        throw new CannotProcess('attachment', 'crop');
      }
    }
  }
  return current;
}
