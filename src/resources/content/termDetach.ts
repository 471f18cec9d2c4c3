/**
 * What a deleted category or tag does to the posts that had it, as WordPress's term deletion does: the term is
 * taken off every post (any status, the trash included), and a post whose only category it was goes to the
 * default category. Each change is a `PostUpdated` on the post's own stream (only `categories` or `tags`
 * change: no new modification date, no revision, as WordPress sets object terms directly), so the post's
 * history, `as_of` reads and every projection (the term counts included) agree with the read model.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { Decider } from '../../core/commandHandler';
import type { ContentDoc } from '../../../projections/content';
import type { Taxonomy } from '../terms/events';
import { evolveContent, initialContentState } from './decider';
import type { ContentState } from './decider';
import { contentStreamId } from './events';
import type { ContentEvent } from './events';

interface DetachTermCommand {
  field: 'categories' | 'tags';
  termId: number;
  /** What a post left without any term of this taxonomy gets (the default category), or null. */
  fallback: number | null;
}

/** The post's terms without `termId`; a no-op when the post is gone or does not have the term (any more). */
export const detachTermDecider: Decider<ContentState, DetachTermCommand, ContentEvent> = {
  initialState: initialContentState,
  evolve: evolveContent,
  decide(command, state) {
    if (!state.exists || !state.post || !state.postType) return [];
    const current = state.post[command.field] ?? [];
    if (!current.includes(command.termId)) return [];
    let remaining = current.filter((id) => id !== command.termId);
    if (remaining.length === 0 && command.fallback !== null) remaining = [command.fallback];
    return [
      {
        type: 'PostUpdated',
        data: { id: state.id, postType: state.postType, changes: { [command.field]: remaining } },
      },
    ];
  },
};

/**
 * Takes term `termId` of `taxonomy` off every post that has it. `defaultCategory` is the category a post left
 * without one goes to (categories only). Returns the global position of the last event written (0 for none).
 */
export async function detachTermFromPosts(
  site: Site,
  taxonomy: Taxonomy,
  termId: number,
  defaultCategory: number | null,
  actor: Actor | null,
  requestId: string,
): Promise<number> {
  const field = taxonomy === 'category' ? 'categories' : 'tags';
  const fallback = taxonomy === 'category' && defaultCategory !== termId ? defaultCategory : null;
  // Only posts carry categories and tags; every status is listed when no status filter is given.
  const { items } = await site.readModel.query('post', {
    filters: [{ kind: 'any', field, values: [termId] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let position = 0;
  for (const doc of items as ContentDoc[]) {
    const result = await site.commands.handle(
      contentStreamId(doc.id),
      detachTermDecider,
      { field, termId, fallback },
      metadata,
    );
    position = Math.max(position, result.position);
  }
  return position;
}
