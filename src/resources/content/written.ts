/**
 * A post's or page's documents as a write left them, for that write's answer, also while their projection is being
 * rebuilt (src/projection/written.ts): the item (`content`) and its revision history (`revisions`), both folded from
 * the item's stream; and the item as it is now, for the routes that address it.
 */
import type { Site } from '../../site';
import { NotFound } from '../../core/errors';
import { readCurrent, readWritten } from '../../projection/written';
import type { ContentDoc } from '../../../projections/content';
import type { RevisionsDoc } from '../../../projections/revisions';
import { contentStreamId } from './events';
import type { PostType } from './events';

export async function writtenItem(site: Site, postType: PostType, id: number, position: number): Promise<ContentDoc> {
  const doc = await readWritten<ContentDoc>(site, {
    projection: 'content',
    collection: postType,
    id,
    stream: contentStreamId(id),
    position,
  });
  if (!doc) throw new NotFound('post');
  return doc;
}

/** The post or page `id` as the log has it now, for its item routes (also while the content projection rebuilds). */
export function currentItem(site: Site, postType: PostType, id: number): Promise<ContentDoc | null> {
  return readCurrent<ContentDoc>(site, {
    projection: 'content',
    collection: postType,
    id,
    stream: contentStreamId(id),
  });
}

export async function writtenHistory(site: Site, id: number, position: number): Promise<RevisionsDoc | null> {
  return readWritten<RevisionsDoc>(site, {
    projection: 'revisions',
    collection: 'revisions',
    id,
    stream: contentStreamId(id),
    position,
  });
}
