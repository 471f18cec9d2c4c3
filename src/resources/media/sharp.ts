/**
 * sharp, imported on first use: loading it maps libvips and its libraries, ~28 MB of resident memory that a site
 * serving no image work would carry for nothing (docs/performance.md, "Resident memory at 100,000 posts (stop 11)").
 */
import type sharp from 'sharp';

let loading: Promise<typeof sharp> | null = null;

export function loadSharp(): Promise<typeof sharp> {
  return (loading ??= import('sharp').then((module) => module.default));
}
