/**
 * `palimpsest import wordpress URL --user LOGIN --app-password PASSWORD [--dry-run]`: a live WordPress site read
 * over its REST API and brought, with its revisions, into the site the environment names, as `serve` opens it.
 * Progress goes to stderr, the closing report to stdout.
 */
import type { Config } from '../config';
import { openSite } from '../bootstrap';
import { UsageError } from './usage';
import { importWordPress } from '../import/wordpress/import';
import type { LiveImportReport } from '../import/wordpress/import';

export async function importWordpressCommand(
  args: string[],
  values: { 'dry-run'?: boolean; user?: string; 'app-password'?: string },
  siteConfig: () => Config,
): Promise<number> {
  const [url, ...extra] = args;
  if (url === undefined) throw new UsageError('needs the URL of the WordPress site', 'import wordpress');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, 'import wordpress');
  if (!/^https?:\/\//i.test(url)) throw new UsageError(`"${url}" is not an http(s) URL`, 'import wordpress');
  if (!values.user)
    throw new UsageError('--user is required (an administrator of the WordPress site)', 'import wordpress');
  if (!values['app-password'])
    throw new UsageError('--app-password is required (an application password of that user)', 'import wordpress');
  const config = siteConfig();
  const site = await openSite(config);
  try {
    // Later writes read earlier ones back (a parent term, a parent page): the read model has to follow the import.
    await site.startProjector();
    const report = await importWordPress(site, {
      url,
      user: values.user,
      appPassword: values['app-password'],
      dryRun: values['dry-run'] === true,
      progress: (line) => console.error(`import: ${line}`),
    });
    console.log(formatLiveReport(report));
    return 0;
  } finally {
    await site.close();
  }
}

export function formatLiveReport(report: LiveImportReport): string {
  const lines = [`${report.dryRun ? 'would import' : 'imported'} ${report.source}:`];
  for (const [kind, count] of Object.entries(report.counts)) {
    if (count.created + count.existing + count.skipped === 0) continue;
    lines.push(
      `  ${kind}: ${count.created} ${report.dryRun ? 'to create' : 'created'}, ${count.existing} already there, ${count.skipped} skipped`,
    );
  }
  if (report.changedIds.length > 0) {
    lines.push('changed ids:');
    for (const change of report.changedIds)
      lines.push(`  ${change.kind} ${change.from} -> ${change.to || '(new)'} (${change.reason})`);
  }
  if (report.skipped.length > 0) {
    lines.push('skipped:');
    for (const entry of report.skipped) lines.push(`  ${entry.kind} ${entry.id} "${entry.title}": ${entry.reason}`);
  }
  if (report.missingFiles.length > 0) {
    lines.push('attachments not carried, their files missing:');
    for (const entry of report.missingFiles) lines.push(`  attachment ${entry.id}: ${entry.url} (${entry.reason})`);
  }
  return lines.join('\n');
}
