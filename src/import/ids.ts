/**
 * Keeping the source's ids, for both imports: an id is free when the site's sequence has never handed it out (it lies past the
 * sequence's last reserved block). The kept ids are reserved in one `IdBlockReserved` append per sequence, which
 * moves the sequence past them, so the server cannot hand them out meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { Site } from '../site';
import { WrongExpectedRevisionError } from '../ports/eventStore';
import { ID_BLOCK_RESERVED } from '../core/ids';
import type { IdBlockReserved } from '../core/ids';

export interface SequenceMark {
  last: number;
  revision: number | 'no_stream';
}

/** The last id a sequence has handed out or reserved, and its stream's revision. */
export async function lastReserved(site: Site, sequence: string): Promise<SequenceMark> {
  const [latest] = await site.store.readStream(`ids-${sequence}`, { direction: 'backwards', maxCount: 1 });
  return latest
    ? { last: (latest.data as IdBlockReserved).last, revision: latest.revision }
    : { last: 0, revision: 'no_stream' };
}

/**
 * The blocks an import from `source` reserved before: ids there were never handed out to anything else, so a run
 * stopped after reserving them and before using them can still keep them when run again.
 */
export async function blocksOf(site: Site, sequence: string, source: string): Promise<(id: number) => boolean> {
  const blocks: [number, number][] = [];
  for (const event of await site.store.readStream(`ids-${sequence}`)) {
    const imported = event.metadata.imported as { source?: unknown } | undefined;
    if (imported?.source === source)
      blocks.push([(event.data as IdBlockReserved).first, (event.data as IdBlockReserved).last]);
  }
  return (id) => blocks.some(([first, last]) => id >= first && id <= last);
}

/**
 * Reserves every id from past the sequence's last block through the highest of `kept`, marked as the import's
 * (`imported` in its metadata). If another process reserved meanwhile, only the ids still past its block stay kept:
 * the set is changed in place, the others get new ids.
 */
export async function reserveThrough(
  site: Site,
  sequence: string,
  seen: SequenceMark,
  kept: Set<number>,
  imported: Record<string, unknown>,
): Promise<void> {
  let current = seen;
  for (;;) {
    for (const id of kept) if (id <= current.last) kept.delete(id);
    if (kept.size === 0) return;
    const block: IdBlockReserved = {
      sequence,
      first: current.last + 1,
      last: [...kept].reduce((a, b) => Math.max(a, b), 0),
    };
    try {
      await site.store.appendToStream(
        `ids-${sequence}`,
        [
          {
            type: ID_BLOCK_RESERVED,
            data: block,
            metadata: { ...site.metadata(null, `import-${randomUUID()}`), imported },
          },
        ],
        { expectedRevision: current.revision },
      );
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      current = await lastReserved(site, sequence);
    }
  }
}
