/**
 * What a post, page or attachment keeps when a client names its featured image, as WordPress 6.1 decides it (it
 * refuses nothing and says nothing): 0 clears it; an image attachment is taken; any other item that exists (a post,
 * a page, a menu item, an attachment that is not an image) clears it; an id that names nothing changes nothing.
 */
import type { ReadModel } from '../../ports/readModel';
import type { MediaDoc } from '../../../projections/media';
import { MENU_ITEM_COLLECTION } from '../../../projections/menuItems';

/** The featured image to keep, or undefined to leave it as it is. WordPress reads the id as its absolute value. */
export async function featuredMediaToKeep(readModel: ReadModel, requested: number): Promise<number | undefined> {
  const id = Math.abs(Math.trunc(requested));
  if (id === 0) return 0;
  const attachment = (await readModel.get('attachment', id)) as MediaDoc | null;
  if (attachment) return attachment.mime_type.startsWith('image/') ? id : 0;
  for (const collection of ['post', 'page', MENU_ITEM_COLLECTION]) if (await readModel.get(collection, id)) return 0;
  return undefined;
}
