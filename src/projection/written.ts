/**
 * A document as a write left it, for that write's answer (readWritten), or as the log has it now, for an item route
 * while its projection rebuilds (readCurrent). A write settles once every projection not being rebuilt has
 * applied it (src/projection/runner.ts, `appliedPosition`), so the projection that answers it may not have: while it
 * is rebuilt, its documents are from before the rebuild. Then the document is folded from its own stream, with the
 * projection's own fold, which is what the rebuilt projection holds for it; otherwise it is read from the read model.
 */
import type { Site } from '../site';
import type { Doc, DocId } from '../ports/readModel';
import type { Projection } from './projection';
import { deepFreeze } from '../core/deepFreeze';

export interface Written {
  /** The projection whose documents answer the write. */
  projection: string;
  collection: string;
  id: DocId;
  /** The stream holding every event of the document (the write's own). */
  stream: string;
  /** The write's position in the log. */
  position: number;
}

export async function readWritten<D extends Doc>(
  site: Pick<Site, 'readModel' | 'store' | 'projector'>,
  written: Written,
): Promise<D | null> {
  const [stored, checkpoint] = await Promise.all([
    site.readModel.get(written.collection, written.id),
    site.readModel.checkpoint(written.projection),
  ]);
  if (checkpoint !== null && checkpoint.position >= written.position) return stored as D | null;
  return foldedOr<D>(site, written, async () => stored);
}

/**
 * A document as the log has it now, for the routes that address one item by id (read, update, delete). While its
 * projection is behind the others (being rebuilt: its documents are from before the rebuild, and one created since is
 * missing), it is folded from its own stream with the projection's own fold, as for a write's answer, so an item
 * created or changed during the rebuild is found as it is; otherwise it is read from the read model.
 */
export async function readCurrent<D extends Doc>(
  site: Pick<Site, 'readModel' | 'store' | 'projector' | 'projectionBehind'>,
  target: Omit<Written, 'position'>,
): Promise<D | null> {
  if (!(await site.projectionBehind(target.projection))) {
    // The document at hand (in process, or kept) needs no read.
    const doc = site.readModel.peek?.(target.collection, target.id);
    if (doc !== undefined) return doc as D | null;
    return (await site.readModel.get(target.collection, target.id)) as D | null;
  }
  return foldedOr<D>(site, target, () => site.readModel.get(target.collection, target.id));
}

/** The document folded from its stream, or the stored one for a projection whose documents are not one stream's fold. */
async function foldedOr<D extends Doc>(
  site: Pick<Site, 'store' | 'projector'>,
  target: Omit<Written, 'position'>,
  stored: () => Promise<Doc | null>,
): Promise<D | null> {
  const projection = site.projector.projections.find((p) => p.name === target.projection);
  // A projection that folds documents found through others (`related`) is not the fold of one stream.
  if (!projection || projection.related) return (await stored()) as D | null;
  return foldStream(projection, target, await site.store.readStream(target.stream)) as D | null;
}

function foldStream(
  projection: Projection,
  target: Omit<Written, 'position'>,
  events: Awaited<ReturnType<Site['store']['readStream']>>,
): Doc | null {
  const handled = new Set(projection.handles);
  let doc: Doc | null = null;
  const read = (collection: string, id: DocId) => {
    if (collection !== target.collection || id !== target.id)
      throw new Error(
        `projection ${projection.name} read ${collection}/${String(id)}, which the event does not change`,
      );
    return doc;
  };
  const context = { collection: target.collection, id: target.id, read };
  for (const event of events) {
    if (!handled.has(event.type)) continue;
    // As the projector gives events to every projection: frozen throughout (src/projection/projectorCore.ts).
    deepFreeze(event.data);
    const located = projection.locate(event);
    if (located === null || located.collection !== target.collection || located.id !== target.id) continue;
    doc = projection.evolve(doc, event, context);
  }
  // As the read model would give it back.
  return doc === null ? null : (JSON.parse(JSON.stringify(doc)) as Doc);
}
