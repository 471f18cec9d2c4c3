/** The log line of a blob store out of reach, kept short while the outage lasts. */
import type { BlobStoreUnavailableError } from '../../ports/blobStore';

const REPORT_EVERY_MS = 10_000;

/** Per site (by its blob store): when the last line was written, and the failures since. */
const reports = new WeakMap<object, { last: number; unreported: number }>();

/** Logs an outage of a site's media store, at most once per 10 s with the count of failures in between. */
export function reportUnavailable(site: { blobs: object }, error: BlobStoreUnavailableError): void {
  const now = Date.now();
  const report = reports.get(site.blobs) ?? { last: -Infinity, unreported: 0 };
  reports.set(site.blobs, report);
  if (now - report.last < REPORT_EVERY_MS) {
    report.unreported++;
    return;
  }
  console.error(`${error.message}${report.unreported > 0 ? ` (and ${report.unreported} more failures since the last report)` : ''}`);
  report.last = now;
  report.unreported = 0;
}
