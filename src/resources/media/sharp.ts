/**
 * sharp, imported on first use: loading it maps libvips and its libraries, ~28 MB of resident memory that a site
 * serving no image work would carry for nothing (docs/performance.md, "What the figures rest on").
 */
import type sharp from 'sharp';

/**
 * Most pixels decoded (sharp's limitInputPixels) for sub-sizes and edits: 8192 × 8192, room for any camera's photo;
 * a larger image is stored as it came, with the dimensions its header gives and no sub-sizes, as WordPress leaves
 * an image its editor cannot load.
 */
export const DEFAULT_IMAGE_MAX_PIXELS = 8192 * 8192;

let loading: Promise<typeof sharp> | null = null;

export function loadSharp(): Promise<typeof sharp> {
  return (loading ??= import('sharp').then((module) => module.default));
}
