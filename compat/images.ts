/**
 * The images the comparison uploads, generated with sharp from a fixed pixel pattern, so every run (and both
 * sides) get the same bytes: an 800x600 JPEG (large enough for WordPress's thumbnail, medium and
 * medium_large sizes) and a 200x100 PNG (only a thumbnail).
 */
import sharp from 'sharp';
import type { ImageName } from './step';

function pattern(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = ((x >> 4) + (y >> 4)) % 2 === 0 ? 200 : 40;
    }
  }
  return pixels;
}

export async function generateImages(): Promise<Record<ImageName, { bytes: Buffer; contentType: string }>> {
  const jpeg = await sharp(pattern(800, 600), { raw: { width: 800, height: 600, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
  const png = await sharp(pattern(200, 100), { raw: { width: 200, height: 100, channels: 3 } })
    .png()
    .toBuffer();
  return { jpeg: { bytes: jpeg, contentType: 'image/jpeg' }, png: { bytes: png, contentType: 'image/png' } };
}
