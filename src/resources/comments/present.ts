/**
 * Read-model documents -> WordPress comments and their links, for one context. Pure: what a comment shows of
 * its post (its URL and type) and whether it has replies are looked up by the caller.
 */
import type { CommentDoc } from '../../../projections/comments';
import type { Context } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import { autop } from '../../text/autop';
import { texturize } from '../../text/texturize';
import { avatarUrls } from '../users/present';
import { commentSchema } from './schema';

export interface CommentPresentOptions {
  context: Context;
  apiRoot: string;
  siteUrl: string;
  /** The post's permalink and type, or null when the post is gone. */
  post: { url: string; type: string } | null;
  /** Whether any comment answers this one (the `children` link). */
  hasChildren: boolean;
  /** False for a deleted comment's `previous`. */
  links?: boolean;
}

/** The comment_text filters that matter for stored text: typography, then paragraphs. */
export const renderCommentText = (raw: string): string => autop(texturize(raw));

export function presentComment(doc: CommentDoc, options: CommentPresentOptions): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: doc.id,
    post: doc.post,
    parent: doc.parent,
    author: doc.author,
    author_name: doc.author_name,
    author_email: doc.author_email,
    author_url: doc.author_url,
    author_ip: doc.author_ip,
    author_user_agent: doc.author_user_agent,
    date: doc.date,
    date_gmt: doc.date_gmt,
    content: { rendered: renderCommentText(doc.content), raw: doc.content },
    link: `${options.post?.url ?? ''}#comment-${doc.id}`,
    status: doc.status,
    type: doc.type,
    author_avatar_urls: avatarUrls(doc.author_email, options.siteUrl),
    // No meta is registered: WordPress sends an empty (PHP) array.
    meta: [],
  };
  const filtered = filterByContext(commentSchema, item, options.context) as Record<string, unknown>;
  if (options.links !== false) filtered._links = commentLinks(doc, options);
  return filtered;
}

export function commentLinks(
  doc: CommentDoc,
  options: Pick<CommentPresentOptions, 'apiRoot' | 'post' | 'hasChildren'>,
): Record<string, unknown[]> {
  const collection = `${options.apiRoot}core/v2/comments`;
  const links: Record<string, unknown[]> = {
    self: [{ href: `${collection}/${doc.id}` }],
    collection: [{ href: collection }],
  };
  if (doc.author !== 0) links.author = [{ embeddable: true, href: `${options.apiRoot}core/v2/users/${doc.author}` }];
  if (doc.post !== 0 && options.post) {
    links.up = [
      {
        embeddable: true,
        post_type: options.post.type,
        href: `${options.apiRoot}core/v2/${options.post.type}s/${doc.post}`,
      },
    ];
  }
  if (doc.parent !== 0) links['in-reply-to'] = [{ embeddable: true, href: `${collection}/${doc.parent}` }];
  if (options.hasChildren) links.children = [{ embeddable: true, href: `${collection}?parent=${doc.id}` }];
  return links;
}
