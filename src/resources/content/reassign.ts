/**
 * What happens to a deleted user's content, as WordPress's user deletion does it: either every item moves to
 * another author (only the author changes: no new modification date, no revision, like WordPress's direct
 * update), or, with nobody to inherit it, the items go to the trash and those already there are deleted.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { Decider } from '../../core/commandHandler';
import type { ContentDoc } from '../../../projections/content';
import { evolveContent, initialContentState } from './decider';
import type { ContentState } from './decider';
import { contentStreamId } from './events';
import type { ContentEvent, PostType } from './events';
import { deleteItem, trashItem } from './operations';

/** Post types whose items have an author. */
export const AUTHORED_POST_TYPES: readonly PostType[] = ['post', 'page'];

interface ReassignCommand {
  from: number;
  to: number;
}

/** Moves one item from `from` to `to`; a no-op when the item is gone or already belongs to someone else. */
const reassignDecider: Decider<ContentState, ReassignCommand, ContentEvent> = {
  initialState: initialContentState,
  evolve: evolveContent,
  decide(command, state) {
    if (!state.exists || !state.post || !state.postType || state.post.author !== command.from) return [];
    return [{ type: 'PostUpdated', data: { id: state.id, postType: state.postType, changes: { author: command.to } } }];
  },
};

async function itemsBy(site: Site, author: number): Promise<ContentDoc[]> {
  const found: ContentDoc[] = [];
  for (const postType of AUTHORED_POST_TYPES) {
    const { items } = await site.readModel.query(postType, {
      filters: [{ kind: 'any', field: 'author', values: [author] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: null,
    });
    found.push(...(items as ContentDoc[]));
  }
  return found;
}

/** Gives every item of `from` (any status, the trash included) to `to`. Returns the last position written. */
export async function reassignContent(
  site: Site,
  from: number,
  to: number,
  actor: Actor,
  requestId: string,
): Promise<number> {
  const metadata = site.metadata(actor.id, requestId);
  let position = 0;
  for (const doc of await itemsBy(site, from)) {
    const result = await site.commands.handle(contentStreamId(doc.id), reassignDecider, { from, to }, metadata);
    position = Math.max(position, result.position);
  }
  return position;
}

/** Trashes every item of `author`, and deletes for good those already in the trash. Returns the last position. */
export async function discardContentOf(site: Site, author: number, actor: Actor, requestId: string): Promise<number> {
  let position = 0;
  for (const doc of await itemsBy(site, author)) {
    const outcome =
      doc.status === 'trash'
        ? await deleteItem(site, doc.type, doc.id, actor, requestId)
        : await trashItem(site, doc.type, doc.id, actor, requestId);
    position = Math.max(position, outcome.position);
  }
  return position;
}
