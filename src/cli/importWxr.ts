/**
 * `palimpsest import wxr FILE [--uploads DIR] [--dry-run]`: a WordPress export (Tools → Export, WXR 1.2) brought into the site the
 * environment names, as `serve` opens it. The import appends ordinary events, so a running server sees them live
 * through the log. Progress goes to stderr, the closing report to stdout; what was not carried is listed there.
 */
import fs from 'node:fs';
import type { Config } from '../config';
import { openSite } from '../bootstrap';
import { UsageError } from './usage';
import { importWxr } from '../import/wxr/import';
import type { ImportReport } from '../import/wxr/import';

export async function importWxrCommand(
  args: string[],
  values: { 'dry-run'?: boolean; uploads?: string },
  siteConfig: () => Config,
): Promise<number> {
  const [file, ...extra] = args;
  if (file === undefined) throw new UsageError('needs the FILE to import', 'import wxr');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, 'import wxr');
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`no file "${file}"`, 'import wxr');
  if (values.uploads !== undefined && !(fs.existsSync(values.uploads) && fs.statSync(values.uploads).isDirectory())) {
    throw new UsageError(`--uploads: no folder "${values.uploads}"`, 'import wxr');
  }
  const config = siteConfig();
  const site = await openSite(config);
  try {
    // Later writes read earlier ones back (a parent term, a parent page): the read model has to follow the import.
    // With a shared read model and a server running, its projector applies the events and this one stands by.
    await site.startProjector();
    const report = await importWxr(site, file, {
      dryRun: values['dry-run'] === true,
      uploads: values.uploads,
      progress: (line) => console.error(`import: ${line}`),
    });
    console.log(formatReport(report));
    return 0;
  } finally {
    await site.close();
  }
}

export function formatReport(report: ImportReport): string {
  const lines = [`${report.dryRun ? 'would import' : 'imported'} ${report.file}:`];
  for (const [kind, count] of Object.entries(report.counts)) {
    if (count.created + count.existing + count.skipped === 0) continue;
    lines.push(
      `  ${kind}: ${count.created} ${report.dryRun ? 'to create' : 'created'}, ${count.existing} already there, ${count.skipped} not carried`,
    );
  }
  if (report.changedIds.length > 0) {
    lines.push('changed ids:');
    for (const change of report.changedIds)
      lines.push(`  ${change.kind} ${change.from} -> ${change.to || '(new)'} (${change.reason})`);
  }
  if (report.skipped.length > 0) {
    lines.push('not carried:');
    for (const entry of report.skipped) lines.push(`  ${entry.kind} ${entry.id} "${entry.title}": ${entry.reason}`);
  }
  if (report.missingFiles.length > 0) {
    lines.push('attachments not carried, their files missing:');
    for (const entry of report.missingFiles)
      lines.push(`  attachment ${entry.id}: ${entry.file || '(no file named)'} (${entry.url})`);
  }
  return lines.join('\n');
}
