/**
 * The comments and menus slices' reactions to content items (ContentReactions, src/site.ts): a post's comments are
 * hidden, restored and deleted with it (docs/events.md, comment streams), and a top-level page just published joins
 * the menus with auto_add on. Handed to the site by the composition root.
 */
import type { ContentReactions } from '../site';
import { deleteCommentsOfPost, restoreCommentsOfPost, trashCommentsOfPost } from './comments/operations';
import { addPageToAutoAddMenus } from './menus/operations';

export const contentReactions: ContentReactions = {
  pagePublished: addPageToAutoAddMenus,
  trashed: trashCommentsOfPost,
  restored: restoreCommentsOfPost,
  deleted: deleteCommentsOfPost,
};
