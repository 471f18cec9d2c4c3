/**
 * User global styles operations, callable without HTTP: the active theme's record (made the first time it is
 * needed, as WordPress makes it), reading one by id, and changing one through the decider.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { readCurrent, readWritten } from '../../projection/written';
import { GLOBAL_STYLES_COLLECTION } from '../../../projections/globalStyles';
import type { GlobalStylesDoc } from '../../../projections/globalStyles';
import { globalStylesStreamId } from './events';
import type { GlobalStylesCreated } from './events';
import { globalStylesDecider } from './decider';
import type { GlobalStylesCommand, GlobalStylesState } from './decider';

/** The title WordPress gives a theme's user styles record. */
const DEFAULT_TITLE = 'Custom Styles';

export interface GlobalStylesWriteOutcome {
  id: number;
  /** Global position of the write (0 when nothing was appended), for read-your-writes. */
  position: number;
}

/**
 * The id of the theme's user styles, making the record when there is none yet. Two requests making it at once
 * both end with the one that was appended first (the stream's expected revision decides).
 */
export async function ensureUserGlobalStyles(
  site: Site,
  stylesheet: string,
  actor: Actor | null,
  requestId: string,
): Promise<GlobalStylesWriteOutcome> {
  const stream = globalStylesStreamId(stylesheet);
  const [first] = await site.store.readStream(stream, { maxCount: 1 });
  if (first) return { id: (first.data as GlobalStylesCreated).id, position: 0 };
  const id = await site.ids.content.nextId();
  const command: GlobalStylesCommand = { kind: 'create', id, stylesheet, title: DEFAULT_TITLE };
  const result = await site.commands.handle<GlobalStylesState, GlobalStylesCommand, never>(
    stream,
    globalStylesDecider as never,
    command,
    site.metadata(actor?.id ?? null, requestId),
  );
  return { id: result.state.id, position: result.position };
}

/** A record by id, as the log has it now; null when there is none (`stylesheet`: the theme whose records are asked). */
export function readGlobalStyles(site: Site, stylesheet: string, id: number) {
  return readCurrent<GlobalStylesDoc>(site, {
    projection: 'globalStyles',
    collection: GLOBAL_STYLES_COLLECTION,
    id,
    stream: globalStylesStreamId(stylesheet),
  });
}

/** The record as a write left it. */
export async function writtenGlobalStyles(
  site: Site,
  stylesheet: string,
  id: number,
  position: number,
): Promise<GlobalStylesDoc | null> {
  return readWritten<GlobalStylesDoc>(site, {
    projection: 'globalStyles',
    collection: GLOBAL_STYLES_COLLECTION,
    id,
    stream: globalStylesStreamId(stylesheet),
    position,
  });
}

/** Changes the theme's record: `styles` and `settings` replace the stored ones whole, `title` renames it. */
export async function changeGlobalStyles(
  site: Site,
  stylesheet: string,
  input: { title?: unknown; styles?: unknown; settings?: unknown },
  actor: Actor,
  requestId: string,
): Promise<GlobalStylesWriteOutcome> {
  const command: GlobalStylesCommand = { kind: 'change', input };
  const result = await site.commands.handle<GlobalStylesState, GlobalStylesCommand, never>(
    globalStylesStreamId(stylesheet),
    globalStylesDecider as never,
    command,
    site.metadata(actor.id, requestId),
  );
  return { id: result.state.id, position: result.position };
}
