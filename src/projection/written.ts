/**
 * A document as a write left it, for that write's answer. A write settles once every projection not being rebuilt has
 * applied it (src/projection/runner.ts, `appliedPosition`), so the projection that answers it may not have: while it
 * is rebuilt, its documents are from before the rebuild. Then the document is folded from its own stream, with the
 * projection's own fold, which is what the rebuilt projection holds for it; otherwise it is read from the read model.
 */
import type { Site } from '../site';
import type { Doc, DocId } from '../ports/readModel';
import { withFields } from './projection';
import type { Projection } from './projection';

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

export async function readWritten<D extends Doc>(site: Pick<Site, 'readModel' | 'store' | 'projector'>, written: Written): Promise<D | null> {
  const [stored, checkpoint] = await Promise.all([site.readModel.get(written.collection, written.id), site.readModel.checkpoint(written.projection)]);
  if (checkpoint !== null && checkpoint.position >= written.position) return stored as D | null;
  const projection = site.projector.projections.find((p) => p.name === written.projection);
  // A projection that folds documents found through others (`related`) is not the fold of one stream.
  if (!projection || projection.related) return stored as D | null;
  return foldStream(projection, written, await site.store.readStream(written.stream)) as D | null;
}

function foldStream(projection: Projection, target: Written, events: Awaited<ReturnType<Site['store']['readStream']>>): Doc | null {
  const handled = new Set(projection.handles);
  let doc: Doc | null = null;
  const read = (collection: string, id: DocId) => {
    if (collection !== target.collection || id !== target.id) throw new Error(`projection ${projection.name} read ${collection}/${String(id)}, which the event does not change`);
    return doc;
  };
  const context = withFields({ collection: target.collection, id: target.id }, { read });
  for (const event of events) {
    if (!handled.has(event.type)) continue;
    const located = projection.locate(event);
    if (located === null || located.collection !== target.collection || located.id !== target.id) continue;
    doc = projection.evolve(doc, event, context);
  }
  // As the read model would give it back.
  return doc === null ? null : (JSON.parse(JSON.stringify(doc)) as Doc);
}
