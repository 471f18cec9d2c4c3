/**
 * `palimpsest export wxr [--out FILE]`: the site DATA_DIR (or EVENTSTORE_URL/REDIS_URL) names, as a WXR 1.2 file
 * (src/export/wxr.ts). Without --out it goes to stdout. With --out it is written beside FILE under a temporary name
 * and renamed to FILE once complete, so FILE is never left half-written: a failed export leaves no file (and an
 * existing FILE as it was).
 */
import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Config } from '../config';
import { openSite } from '../bootstrap';
import { UsageError } from './usage';
import { exportWxr } from '../export/wxr';

/** How long the read model may take to apply the log before the export reads it. */
const CATCH_UP_MS = 10 * 60_000;

/** Refuses an --out that cannot be written before the site is opened: exit status 2, naming why. */
function checkOut(out: string): string {
  if (out.trim() === '') throw new UsageError('--out needs a file name', 'export wxr');
  const file = path.resolve(out);
  const folder = path.dirname(file);
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`--out: no folder "${folder}"`, 'export wxr');
  if (!stat.isDirectory()) throw new UsageError(`--out: "${folder}" is not a folder`, 'export wxr');
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--out: "${out}" is a folder`, 'export wxr');
  return file;
}

export async function exportWxrCommand(
  args: string[],
  values: { out?: string },
  siteConfig: () => Config,
): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`, 'export wxr');
  const file = values.out === undefined ? null : checkOut(values.out);
  const config = siteConfig();
  // The file is opened before the site, so that a folder it cannot be written in is said at once.
  const partial =
    file === null ? null : path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  const stream = partial === null ? null : await openPartial(partial);
  try {
    const site = await openSite(config);
    try {
      await site.startProjector();
      if (!(await site.catchUp(CATCH_UP_MS)))
        throw new Error(`the read model did not catch up with the event log within ${CATCH_UP_MS / 1000} s`);
      const report = await exportWxr(site, stream ?? process.stdout);
      if (stream !== null) {
        stream.end();
        await finished(stream);
        fs.renameSync(partial!, file!);
      }
      const counts = Object.entries(report.counts)
        .map(([kind, count]) => `${kind}: ${count}`)
        .join(', ');
      const dropped =
        report.droppedCharacters > 0 ? `; ${report.droppedCharacters} characters XML cannot hold left out` : '';
      console.error(`exported ${file ?? 'to stdout'} (${counts}${dropped})`);
      return 0;
    } finally {
      await site.close();
    }
  } finally {
    stream?.destroy();
    if (partial !== null) fs.rmSync(partial, { force: true });
  }
}

/** A new file to write the export in; a folder it cannot be created in is an error naming it. */
async function openPartial(partial: string): Promise<fs.WriteStream> {
  const stream = fs.createWriteStream(partial, { flags: 'wx' });
  try {
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
    return stream;
  } catch (error) {
    stream.destroy();
    throw new Error(`--out: cannot write in ${path.dirname(partial)}: ${(error as Error).message}`);
  }
}
