/**
 * The orphan sweep of the blob store (`palimpsest media sweep`). A file is written before the event that names it
 * is appended; a failed append removes what it wrote at once, but a process that dies in between, or a removal
 * that fails (the store out of reach while an upload failed or an attachment was deleted), leaves files no
 * attachment names. The sweep removes them: every blob older than the grace period that no attachment in the log
 * names.
 *
 * The blobs are listed first and the log read after: an upload's event is appended within seconds of its files, so
 * any file older than the grace whose event exists was named in the log before the log is read. Younger files are
 * left alone, uploads in progress among them. The log, not the read model, says what is named: it holds every
 * attachment even while the media projection is being rebuilt.
 */
import type { EventStore } from '../../ports/eventStore';
import type { BlobStore } from '../../ports/blobStore';
import { attachmentFiles } from './events';
import type { AttachmentCreated, AttachmentDeleted, AttachmentUpdated } from './events';

/** Files younger than this are kept by default: far longer than any upload takes to append its event. */
export const DEFAULT_SWEEP_GRACE_MS = 60 * 60 * 1000;

export interface SweepOptions {
  /** Only files last modified at least this long ago are removed. */
  olderThanMs: number;
  /** The time the ages are measured from (ms since the epoch). */
  now: number;
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
}

export interface SweepOutcome {
  /** Blobs in the store. */
  listed: number;
  /** Of them, named by an attachment. */
  named: number;
  /** Of the others, kept for being younger than the grace. */
  young: number;
  /** Removed (or, in a dry run, to be removed). */
  orphans: string[];
}

const SCAN_CHUNK = 1000;

/** Every blob key an attachment still in the log has ever named (its original, sub-sizes, scaled copy). */
export async function namedFiles(store: EventStore): Promise<Set<string>> {
  const byAttachment = new Map<number, Set<string>>();
  const name = (id: number, keys: string[]) => {
    const files = byAttachment.get(id) ?? new Set<string>();
    for (const key of keys) files.add(key);
    byAttachment.set(id, files);
  };
  for (let from = 1; ; ) {
    const chunk = await store.readAll({ fromPosition: from, maxCount: SCAN_CHUNK });
    for (const event of chunk) {
      if (event.type === 'AttachmentCreated') {
        const { id, attachment } = event.data as AttachmentCreated;
        name(id, attachmentFiles(attachment.media_details));
      } else if (event.type === 'AttachmentUpdated') {
        const { id, changes } = event.data as AttachmentUpdated;
        // Kept with the earlier ones: a file an attachment ever named is never swept while it exists.
        if (changes.media_details) name(id, attachmentFiles(changes.media_details));
      } else if (event.type === 'AttachmentDeleted') {
        byAttachment.delete((event.data as AttachmentDeleted).id);
      }
    }
    if (chunk.length < SCAN_CHUNK) break;
    from = chunk[chunk.length - 1]!.position + 1;
  }
  const named = new Set<string>();
  for (const files of byAttachment.values()) for (const key of files) named.add(key);
  return named;
}

export async function sweepOrphanedFiles(
  source: { store: EventStore; blobs: BlobStore },
  options: SweepOptions,
): Promise<SweepOutcome> {
  const listedBlobs: { key: string; old: boolean }[] = [];
  for await (const blob of source.blobs.list())
    listedBlobs.push({ key: blob.key, old: options.now - blob.lastModified.getTime() >= options.olderThanMs });
  // After the listing (see above).
  const named = await namedFiles(source.store);
  const unnamed = listedBlobs.filter((blob) => !named.has(blob.key));
  const orphans = unnamed
    .filter((blob) => blob.old)
    .map((blob) => blob.key)
    .sort();
  if (!options.dryRun) for (const key of orphans) await source.blobs.delete(key);
  return {
    listed: listedBlobs.length,
    named: listedBlobs.length - unnamed.length,
    young: unnamed.length - orphans.length,
    orphans,
  };
}
