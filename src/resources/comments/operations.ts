/**
 * Comment operations, callable without HTTP (routes and batch share them): ids, the facts the decider needs
 * (the post, the parent, earlier comments) and the HTML filter happen here, around the pure decider.
 */
import { randomUUID } from 'node:crypto';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canSaveUnfilteredHtml, hasCap } from '../../access/capabilities';
import { IdSequence } from '../../core/ids';
import { filterHtml } from '../../text/sanitizeHtml';
import { restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { COMMENT_COLLECTION, duplicateKey } from '../../../projections/comments';
import type { CommentDoc } from '../../../projections/comments';
import type { ContentDoc } from '../../../projections/content';
import type { UserDoc } from '../../../projections/users';
import { commentDecider } from './decider';
import type { CommentCommand, CommentState, StatusRequest } from './decider';
import { commentStreamId } from './events';
import type { CommentFields } from './events';

export interface CommentInput {
  post?: number;
  parent?: number;
  content?: string;
  author?: number;
  author_name?: string;
  author_email?: string;
  author_url?: string;
  author_ip?: string;
  author_user_agent?: string;
  /** Site-local and UTC times, already resolved from `date`/`date_gmt`. */
  date?: string;
  date_gmt?: string;
  status?: StatusRequest | null;
}

export interface CommentWriteOutcome {
  id: number;
  state: CommentState;
  position: number;
}

const sequences = new WeakMap<Site, IdSequence>();

function commentSequence(site: Site): IdSequence {
  let sequence = sequences.get(site);
  if (!sequence) {
    // One id per comment, no block: ids stay dense, as WordPress numbers comments.
    sequence = new IdSequence(site.store, 'comments', 1, () => site.metadata(null, `system-${randomUUID()}`));
    sequences.set(site, sequence);
  }
  return sequence;
}

export async function readCommentDoc(site: Site, id: number): Promise<CommentDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get(COMMENT_COLLECTION, id)) as CommentDoc | null;
}

/** The post or page a comment is on (comments are on either), or null. */
export async function commentedPost(site: Site, id: number): Promise<ContentDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return ((await site.readModel.get('post', id)) ?? (await site.readModel.get('page', id))) as ContentDoc | null;
}

export async function readUserDoc(site: Site, id: number): Promise<UserDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get('user', id)) as UserDoc | null;
}

/** Authors without unfiltered_html have their comment text filtered, as WordPress filters theirs on save. */
const filtered = (actor: Actor | null, content: string): string => (canSaveUnfilteredHtml(actor) ? content : filterHtml(content, 'post'));

async function parentOnPost(site: Site, parent: number, post: number): Promise<boolean> {
  const doc = await readCommentDoc(site, parent);
  return doc !== null && doc.post === post;
}

/** A live comment with the same post, parent and text by the same author (by name or email), as WordPress looks for one. */
async function duplicateOf(site: Site, fields: Omit<CommentFields, 'status' | 'status_before'>): Promise<number | null> {
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [
      { kind: 'any', field: 'duplicate', values: [duplicateKey(fields.post, fields.parent, fields.content)] },
      { kind: 'none', field: 'status', values: ['trash'] },
    ],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  const same = (items as CommentDoc[]).find(
    (doc) => doc.author_name === fields.author_name || (fields.author_email !== '' && doc.author_email === fields.author_email),
  );
  return same?.id ?? null;
}

/** Whether this author already has an approved comment (by user, else by name and email), as WordPress's check_comment asks. */
async function previouslyApproved(site: Site, fields: Pick<CommentFields, 'author' | 'author_name' | 'author_email'>): Promise<boolean> {
  if (fields.author_name === '' || fields.author_email === '') return false;
  const filters =
    fields.author !== 0
      ? [{ kind: 'any' as const, field: 'author', values: [fields.author] }]
      : [{ kind: 'any' as const, field: 'author_email', values: [fields.author_email.toLowerCase()] }];
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [...filters, { kind: 'any', field: 'status', values: ['approved'] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return (items as CommentDoc[]).some((doc) => fields.author !== 0 || doc.author_name === fields.author_name);
}

/**
 * Creates a comment on `post` (checked by the route: it exists and is open). Without author fields, a signed-in
 * writer is the author, with their display name, email and URL, as WordPress fills them in.
 */
export async function createComment(site: Site, post: ContentDoc, input: CommentInput, actor: Actor | null, requestId: string): Promise<CommentWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const missingAuthor = !input.author && !input.author_name && !input.author_email && !input.author_url;
  let author = input.author ?? 0;
  let name = input.author_name ?? '';
  let email = input.author_email ?? '';
  let url = input.author_url ?? '';
  if (actor && missingAuthor) author = actor.id;
  if (author !== 0 && (missingAuthor || input.author !== undefined)) {
    const user = await readUserDoc(site, author);
    if (!user) throw invalidAuthor();
    name = user.name;
    email = user.email;
    url = user.url;
  }
  const fields: Omit<CommentFields, 'status' | 'status_before'> = {
    post: post.id,
    parent: input.parent ?? 0,
    author,
    author_name: name,
    author_email: email,
    author_url: url,
    author_ip: input.author_ip ?? '',
    author_user_agent: input.author_user_agent ?? '',
    date: input.date!,
    date_gmt: input.date_gmt!,
    content: filtered(actor, input.content ?? ''),
    type: 'comment',
  };
  const facts = {
    trusted: author !== 0 && (author === post.author || (actor?.id === author && hasCap(actor, 'moderate_comments')) || (await authorModerates(site, author, actor))),
    previouslyApproved: await previouslyApproved(site, fields),
    duplicateOf: await duplicateOf(site, fields),
    parentOnPost: fields.parent === 0 || (await parentOnPost(site, fields.parent, post.id)),
  };
  // Refuse before spending an id.
  commentDecider.decide({ kind: 'create', id: 0, fields, status: input.status ?? null, facts }, commentDecider.initialState());
  const id = await commentSequence(site).nextId();
  const command: CommentCommand = { kind: 'create', id, fields, status: input.status ?? null, facts };
  const result = await site.commands.handle(commentStreamId(id), commentDecider, async () => command, metadata);
  return { id, state: result.state, position: result.position };
}

/** Whether a comment's author (another user than the writer) holds moderate_comments. */
async function authorModerates(site: Site, author: number, actor: Actor | null): Promise<boolean> {
  if (actor?.id === author) return hasCap(actor, 'moderate_comments');
  const user = await readUserDoc(site, author);
  return user !== null && hasCap({ id: user.id, roles: user.roles }, 'moderate_comments');
}

export const invalidAuthor = (): RestError => restError('rest_comment_author_invalid', 'Invalid comment author ID.', 400);

export async function updateComment(site: Site, id: number, input: CommentInput, actor: Actor | null, requestId: string): Promise<CommentWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const changes: Partial<Omit<CommentFields, 'status' | 'status_before'>> = {};
  for (const key of ['post', 'parent', 'author_name', 'author_email', 'author_url', 'author_ip', 'author_user_agent', 'date', 'date_gmt'] as const) {
    if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
  }
  if (input.content !== undefined) changes.content = filtered(actor, input.content);
  if (input.author !== undefined) {
    changes.author = input.author;
    if (input.author !== 0) {
      const user = await readUserDoc(site, input.author);
      if (!user) throw invalidAuthor();
      Object.assign(changes, { author_name: user.name, author_email: user.email, author_url: user.url });
    }
  }
  const result = await site.commands.handle(
    commentStreamId(id),
    commentDecider,
    async (state: CommentState): Promise<CommentCommand> => {
      const post = changes.post ?? state.comment?.post ?? 0;
      const parent = changes.parent ?? 0;
      return { kind: 'update', id, changes, status: input.status ?? null, parentOnPost: parent === 0 || (await parentOnPost(site, parent, post)) };
    },
    metadata,
  );
  return { id, state: result.state, position: result.position };
}

export async function trashComment(site: Site, id: number, actor: Actor | null, requestId: string): Promise<CommentWriteOutcome> {
  const result = await site.commands.handle(commentStreamId(id), commentDecider, async (): Promise<CommentCommand> => ({ kind: 'trash', id }), site.metadata(actor?.id ?? null, requestId));
  return { id, state: result.state, position: result.position };
}

/** Deletes a comment for good; its replies move up to its parent, as WordPress re-parents them. */
export async function deleteComment(site: Site, id: number, actor: Actor | null, requestId: string): Promise<CommentWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let parent = 0;
  const result = await site.commands.handle(
    commentStreamId(id),
    commentDecider,
    async (state: CommentState): Promise<CommentCommand> => {
      parent = state.comment?.parent ?? 0;
      return { kind: 'delete', id };
    },
    metadata,
  );
  let position = result.position;
  const { items } = await site.readModel.query(COMMENT_COLLECTION, { filters: [{ kind: 'any', field: 'parent', values: [id] }], order: { kind: 'field', field: 'id', direction: 'asc' }, offset: 0, limit: null });
  for (const child of items as CommentDoc[]) {
    const moved = await site.commands.handle(commentStreamId(child.id), commentDecider, async (): Promise<CommentCommand> => ({ kind: 'update', id: child.id, changes: { parent }, status: null, parentOnPost: true }), metadata);
    position = Math.max(position, moved.position);
  }
  return { id, state: result.state, position };
}
