/** Autosaving: the author's own draft is saved in place; anyone else's edits become their one autosave. */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { NothingChanged } from '../../core/errors';
import { autosaveUpdatesItem, contentDecider } from '../content/decider';
import type { ContentCommand, ContentState, PostInput } from '../content/decider';
import { contentStreamId } from '../content/events';
import { filterTextFields } from '../content/operations';
import type { PostType } from '../content/events';

export interface AutosaveOutcome {
  position: number;
  /** True when the draft itself was saved (no autosave made). */
  savedItem: boolean;
  autosaveId: number | null;
}

export async function autosaveItem(
  site: Site,
  postType: PostType,
  id: number,
  sent: PostInput,
  actor: Actor,
  requestId: string,
): Promise<AutosaveOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const input = filterTextFields(sent, actor);
  let savedItem = false;
  const result = await site.commands.handle(
    contentStreamId(id),
    contentDecider,
    async (state: ContentState): Promise<ContentCommand> => {
      savedItem = autosaveUpdatesItem(state, actor.id);
      const existing = state.autosaves[actor.id];
      const autosaveId = savedItem ? 0 : (existing ?? (await site.ids.content.nextId()));
      return {
        kind: 'autosave',
        id,
        postType,
        input,
        autosaveId,
        actorId: actor.id,
        now: site.clock.now(),
        timezone: site.settings.timezone,
      };
    },
    metadata,
  );
  if (result.events.some((event) => event.type === 'AutosaveDiscarded')) {
    await site.settle(result.position);
    throw new NothingChanged('post', 'autosave');
  }
  const saved = result.events.find((event) => event.type === 'PostAutosaved');
  return {
    position: result.position,
    savedItem,
    autosaveId: saved ? (saved.data as { autosaveId: number }).autosaveId : null,
  };
}
