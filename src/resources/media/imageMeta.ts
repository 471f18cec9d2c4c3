/**
 * `image_meta` as WordPress reads it from an image: IPTC (headline, caption, credit, copyright, creation date,
 * keywords) first, then EXIF fills what IPTC left empty and gives the camera facts. sharp hands over the raw
 * EXIF (a TIFF structure after `Exif\0\0`) and IPTC (an APP13 payload) blocks; both are parsed here, and
 * anything unreadable is simply skipped (WordPress's defaults stay).
 */
import { loadSharp } from './sharp';
import type { BlobBody } from '../../ports/blobStore';
import { isBlobFile } from '../../ports/blobStore';

export interface ImageMeta {
  aperture: string;
  credit: string;
  camera: string;
  caption: string;
  created_timestamp: string;
  copyright: string;
  focal_length: string;
  iso: string;
  shutter_speed: string;
  title: string;
  orientation: string;
  keywords: string[];
}

export const defaultImageMeta = (): ImageMeta => ({
  aperture: '0',
  credit: '',
  camera: '',
  caption: '',
  created_timestamp: '0',
  copyright: '',
  focal_length: '0',
  iso: '0',
  shutter_speed: '0',
  title: '',
  orientation: '0',
  keywords: [],
});

type ExifValue = string | number | number[];

/** The tags of IFD0 and the Exif sub-IFD, by tag number (rationals as their decimal value). */
export function parseExif(block: Buffer): Map<number, ExifValue> {
  const tags = new Map<number, ExifValue>();
  const start = block.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0;
  const tiff = block.subarray(start);
  if (tiff.length < 8) return tags;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  if (!little && tiff.toString('latin1', 0, 2) !== 'MM') return tags;
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const i32 = (at: number) => (little ? tiff.readInt32LE(at) : tiff.readInt32BE(at));
  const typeSize: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8 };
  const readIfd = (offset: number, depth: number) => {
    if (depth > 2 || offset + 2 > tiff.length) return;
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const entry = offset + 2 + i * 12;
      if (entry + 12 > tiff.length) return;
      const tag = u16(entry);
      const type = u16(entry + 2);
      const n = u32(entry + 4);
      const size = (typeSize[type] ?? 0) * n;
      if (size === 0) continue;
      const at = size <= 4 ? entry + 8 : u32(entry + 8);
      if (at + size > tiff.length) continue;
      if (tag === 0x8769) {
        readIfd(u32(entry + 8), depth + 1);
        continue;
      }
      if (type === 2) tags.set(tag, tiff.toString('latin1', at, at + n).replace(/\0[\s\S]*$/, ''));
      else if (type === 7) tags.set(tag, undefinedText(tiff.subarray(at, at + n)));
      else if (type === 5 || type === 10) {
        const values = [];
        for (let k = 0; k < n; k++) {
          const num = type === 5 ? u32(at + k * 8) : i32(at + k * 8);
          const den = type === 5 ? u32(at + k * 8 + 4) : i32(at + k * 8 + 4);
          values.push(den === 0 ? 0 : num / den);
        }
        tags.set(tag, n === 1 ? values[0]! : values);
      } else if (type === 3 || type === 4 || type === 9 || type === 1) {
        const values = [];
        for (let k = 0; k < n; k++)
          values.push(type === 3 ? u16(at + k * 2) : type === 1 ? tiff[at + k]! : u32(at + k * 4));
        tags.set(tag, n === 1 ? values[0]! : values);
      }
    }
  };
  readIfd(u32(4), 0);
  return tags;
}

/** An UNDEFINED-typed text (UserComment): an 8-byte character-code prefix, then the text. */
function undefinedText(bytes: Buffer): string {
  const code = bytes.toString('latin1', 0, 8);
  const body = bytes.length >= 8 && /^(ASCII|UNICODE|JIS|\0{8})/.test(code) ? bytes.subarray(8) : bytes;
  const text = code.startsWith('UNICODE') ? body.toString('utf16le') : body.toString('utf8');
  return text.replace(/\0[\s\S]*$/, '');
}

/** IPTC record-2 datasets (`2#105` → values), found in an APP13 payload or a bare IPTC block. */
export function parseIptc(block: Buffer): Map<string, string[]> {
  const datasets = new Map<string, string[]>();
  let at = block.indexOf(Buffer.from([0x1c, 0x02]));
  while (at >= 0 && at + 5 <= block.length && block[at] === 0x1c) {
    const record = block[at + 1]!;
    const dataset = block[at + 2]!;
    const length = block.readUInt16BE(at + 3);
    if (length & 0x8000) break; // Extended lengths are not used for text datasets.
    const value = block.toString('utf8', at + 5, Math.min(block.length, at + 5 + length));
    if (record === 2) {
      const key = `2#${String(dataset).padStart(3, '0')}`;
      datasets.set(key, [...(datasets.get(key) ?? []), value]);
    }
    at += 5 + length;
  }
  return datasets;
}

/** PHP-style decimal text of a number: no trailing zeros, no exponent for ordinary values. */
const decimal = (value: number): string => String(Number.isInteger(value) ? value : Number(value.toPrecision(14)));

/** `YYYY:MM:DD HH:MM:SS` (EXIF) or `YYYYMMDD` + `HHMMSS` (IPTC), read as UTC, as seconds since the epoch. */
function timestamp(date: string, time = ''): string | null {
  const d = /^(\d{4}):?(\d{2}):?(\d{2})/.exec(date.trim());
  if (!d) return null;
  const t = /(\d{2}):?(\d{2}):?(\d{2})/.exec(time.trim() || date.trim().slice(10)) ?? ['', '00', '00', '00'];
  const ms = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]), Number(t[3]));
  return Number.isNaN(ms) ? null : String(Math.floor(ms / 1000));
}

/** image_meta from an image's EXIF and IPTC blocks, in WordPress's order of precedence. */
export function imageMetaFrom(exifBlock: Buffer | undefined, iptcBlock: Buffer | undefined): ImageMeta {
  const meta = defaultImageMeta();
  if (iptcBlock) {
    const iptc = parseIptc(iptcBlock);
    const first = (key: string) => (iptc.get(key)?.[0] ?? '').trim();
    meta.title = first('2#105') || first('2#005');
    const caption = first('2#120');
    if (caption !== '') {
      // A short caption doubles as the title when there is none.
      if (meta.title === '' && Buffer.byteLength(caption) < 80) meta.title = caption;
      meta.caption = caption;
    }
    meta.credit = first('2#110') || first('2#080');
    meta.copyright = first('2#116');
    const created = first('2#055') ? timestamp(first('2#055'), first('2#060')) : null;
    if (created) meta.created_timestamp = created;
    meta.keywords = iptc.get('2#025') ?? [];
  }
  if (exifBlock) {
    const exif = parseExif(exifBlock);
    const text = (tag: number) => {
      const value = exif.get(tag);
      return typeof value === 'string' ? value.trim() : '';
    };
    const num = (tag: number): number | null => {
      const value = exif.get(tag);
      const first = Array.isArray(value) ? value[0] : value;
      return typeof first === 'number'
        ? first
        : typeof first === 'string' && first.trim() !== '' && !Number.isNaN(Number(first))
          ? Number(first)
          : null;
    };
    const description = text(0x010e);
    const comment = text(0x9286);
    if (description !== '') {
      if (meta.title === '' && Buffer.byteLength(description) < 80) meta.title = description;
      if (meta.caption === '' && comment !== '') meta.caption = comment;
      if (meta.caption === '') meta.caption = description;
    } else if (meta.caption === '' && comment !== '') meta.caption = comment;
    if (meta.credit === '') meta.credit = text(0x013b);
    if (meta.copyright === '') meta.copyright = text(0x8298);
    const fNumber = num(0x829d);
    if (fNumber !== null) meta.aperture = decimal(Math.round(fNumber * 100) / 100);
    if (text(0x0110) !== '') meta.camera = text(0x0110);
    const digitized = text(0x9004);
    if (digitized !== '') meta.created_timestamp = timestamp(digitized) ?? meta.created_timestamp;
    const focal = num(0x920a);
    if (focal !== null) meta.focal_length = decimal(focal);
    const iso = num(0x8827);
    if (iso !== null) meta.iso = decimal(iso);
    const exposure = num(0x829a);
    if (exposure !== null) meta.shutter_speed = decimal(exposure);
    const orientation = num(0x0112);
    if (orientation !== null) meta.orientation = decimal(orientation);
  }
  return meta;
}

/** The image_meta of an image file; WordPress's defaults when it has no readable metadata. */
export async function readImageMeta(input: BlobBody): Promise<ImageMeta> {
  const sharp = await loadSharp();
  try {
    const { exif, iptc } = await sharp(isBlobFile(input) ? input.path : input).metadata();
    return imageMetaFrom(exif, iptc);
  } catch {
    return defaultImageMeta();
  }
}
