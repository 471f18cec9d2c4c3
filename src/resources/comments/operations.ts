/**
 * Comment operations, callable without HTTP (routes and batch share them): ids, the facts the decider needs
 * (the post, the parent, earlier comments) and the HTML filter happen here, around the pure decider.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canSaveUnfilteredHtml, hasCap } from '../../access/capabilities';
import { IdSequence } from '../../core/ids';
import { collationEquals } from '../../text/collation';
import { formatGmt } from '../../text/dates';
import { storedAuthorFields, storedCommentText } from './filters';
import { phpTrim } from '../../text/phpTrim';
import { readDiscussionOption } from '../settings/operations';
import { InvalidValue } from '../../core/errors';
import { COMMENT_COLLECTION, duplicateKey } from '../../../projections/comments';
import type { CommentDoc } from '../../../projections/comments';
import type { ContentDoc } from '../../../projections/content';
import { localTimeKey } from '../../../projections/content';
import type { UserDoc } from '../../../projections/users';
import { DEFAULT_COMMENT_FLOOD_SECONDS, checkCommentLengths, commentDecider } from './decider';
import type { CommentCommand, CommentState, CreateFacts, FloodFacts, SentText, StatusRequest } from './decider';
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

/** The stored text: filtered for writers without unfiltered_html, links marked (src/resources/comments/filters.ts). */
const filtered = (site: Site, actor: Actor | null, content: string): string =>
  storedCommentText(content, canSaveUnfilteredHtml(actor), site.settings.siteUrl);

/**
 * The most characters of a user agent kept: WordPress's column holds 255 and its own comment form cuts the header
 * to 254 (a longer `author_user_agent` makes WordPress's REST create fail with a 500; see docs/compatibility.md).
 */
export const USER_AGENT_MAX_CHARS = 254;

async function parentOnPost(site: Site, parent: number, post: number): Promise<boolean> {
  const doc = await readCommentDoc(site, parent);
  return doc !== null && doc.post === post;
}

/** What the writer sent, before the save filters: what WordPress's duplicate check compares with stored comments. */
interface Sent {
  post: number;
  parent: number;
  author_name: string;
  author_email: string;
  content: string;
}

/**
 * A comment not in the trash with the same post, parent and text by the same author (same name, and same email
 * when one is given), compared as WordPress's database compares text (case and accents aside). As in WordPress the
 * text and author sent are compared with the stored ones, so a text the save filters change (a link, which gains a
 * `rel`) is never a duplicate of itself.
 */
async function duplicateOf(site: Site, sent: Sent): Promise<number | null> {
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [
      { kind: 'any', field: 'duplicate', values: [duplicateKey(sent.post, sent.parent, sent.content)] },
      { kind: 'none', field: 'status', values: ['trash'] },
    ],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  const same = (items as CommentDoc[]).find(
    (doc) =>
      collationEquals(doc.content, sent.content) &&
      collationEquals(doc.author_name, sent.author_name) &&
      (sent.author_email === '' || collationEquals(doc.author_email, sent.author_email)),
  );
  return same?.id ?? null;
}

/** How long WordPress's flood check looks back: comments dated before the last hour never make a flood. */
const FLOOD_WINDOW_MS = 60 * 60 * 1000;

/**
 * The facts of WordPress's flood check for a comment from `actor` with `email`: the latest comment dated within the
 * last hour by the same user (by the same IP address for a writer without an account) or with the same email.
 */
async function floodFacts(site: Site, actor: Actor | null, email: string, ip: string): Promise<FloodFacts> {
  const intervalMs = site.settings.commentFloodSeconds ?? DEFAULT_COMMENT_FLOOD_SECONDS;
  const exempt = hasCap(actor, 'moderate_comments') || hasCap(actor, 'manage_options');
  if (exempt || intervalMs <= 0) return { exempt, latestAt: null, intervalMs: intervalMs * 1000 };
  const since = localTimeKey(formatGmt(site.clock.now() - FLOOD_WINDOW_MS));
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [
      {
        kind: 'or',
        filters: [
          actor
            ? { kind: 'any', field: 'author', values: [actor.id] }
            : { kind: 'any', field: 'author_ip', values: [ip] },
          { kind: 'any', field: 'author_email', values: [email.toLowerCase()] },
        ],
      },
      { kind: 'range', field: 'date_gmt', gte: since },
    ],
    order: { kind: 'field', field: 'date_gmt', direction: 'desc' },
    offset: 0,
    limit: 1,
  });
  const latest = items[0] as CommentDoc | undefined;
  return { exempt, latestAt: latest ? localTimeKey(latest.date_gmt) : null, intervalMs: intervalMs * 1000 };
}

/** Whether this author already has an approved comment (by user, else by name and email), as WordPress's check_comment asks. */
async function previouslyApproved(
  site: Site,
  fields: Pick<CommentFields, 'author' | 'author_name' | 'author_email'>,
): Promise<boolean> {
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
 * Creates a comment on `post` (checked by the route: it exists and is open). `author` names a user, whose name,
 * email and URL the comment takes unless others are sent; with no author fields at all, a signed-in writer is the
 * author, as WordPress fills them in.
 *
 * `imported`: a comment brought from another site (src/import): `chosenId` is an id the caller reserved, and the text
 * is stored as the other site stored it (its links were marked there, or deliberately not).
 */
export async function createComment(
  site: Site,
  post: ContentDoc,
  input: CommentInput,
  actor: Actor | null,
  requestId: string,
  imported?: { chosenId?: number },
): Promise<CommentWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let author = 0;
  let name = '';
  let email = '';
  let url = '';
  if (input.author !== undefined) {
    const user = await readUserDoc(site, input.author);
    if (!user) throw invalidAuthor();
    [author, name, email, url] = [user.id, user.name, user.email, user.url];
  }
  if (input.author_name !== undefined) name = input.author_name;
  if (input.author_email !== undefined) email = input.author_email;
  if (input.author_url !== undefined) url = input.author_url;
  if (actor && author === 0 && name === '' && email === '' && url === '') {
    const me = await readUserDoc(site, actor.id);
    [author, name, email, url] = [actor.id, me?.name ?? '', me?.email ?? '', me?.url ?? ''];
  }
  const sentText: SentText = {
    author_name: name,
    author_email: email,
    author_url: url,
    content: phpTrim(input.content ?? ''),
  };
  const unfiltered: Omit<CommentFields, 'status' | 'status_before'> = {
    post: post.id,
    parent: input.parent ?? 0,
    author,
    author_name: name,
    author_email: email,
    author_url: url,
    author_ip: input.author_ip ?? '',
    author_user_agent: (input.author_user_agent ?? '').slice(0, USER_AGENT_MAX_CHARS),
    date: input.date!,
    date_gmt: input.date_gmt!,
    content: sentText.content!,
    type: 'comment',
  };
  const requireNameEmail = await readDiscussionOption(site, 'require_name_email');
  // What needs no look-up (and no filtering of a text that may be megabytes long) is refused first.
  const unknown: CreateFacts = {
    trusted: false,
    previouslyApproved: false,
    duplicateOf: null,
    parentOnPost: true,
    requireNameEmail,
    flood: { exempt: true, latestAt: null, intervalMs: 0 },
  };
  commentDecider.decide(
    { kind: 'create', id: 0, fields: unfiltered, status: null, facts: unknown },
    commentDecider.initialState(),
  );
  const fields = {
    ...unfiltered,
    ...storedAuthorFields({ author_name: name, author_email: email, author_url: url }),
    content: imported ? unfiltered.content : filtered(site, actor, unfiltered.content),
  };
  const facts: CreateFacts = {
    trusted: author !== 0 && (author === post.author || (await authorModerates(site, author, actor))),
    previouslyApproved: await previouslyApproved(site, fields),
    duplicateOf: await duplicateOf(site, {
      post: post.id,
      parent: fields.parent,
      author_name: name,
      author_email: email,
      content: unfiltered.content,
    }),
    parentOnPost: fields.parent === 0 || (await parentOnPost(site, fields.parent, post.id)),
    requireNameEmail,
    flood: await floodFacts(site, actor, email, fields.author_ip),
  };
  // Refuse before spending an id.
  commentDecider.decide(
    { kind: 'create', id: 0, fields, sent: sentText, status: input.status ?? null, facts },
    commentDecider.initialState(),
  );
  const id = imported?.chosenId ?? (await commentSequence(site).nextId());
  const command: CommentCommand = { kind: 'create', id, fields, sent: sentText, status: input.status ?? null, facts };
  const result = await site.commands.handle(commentStreamId(id), commentDecider, async () => command, metadata);
  return { id, state: result.state, position: result.position };
}

/** Whether a comment's author (another user than the writer) holds moderate_comments. */
async function authorModerates(site: Site, author: number, actor: Actor | null): Promise<boolean> {
  if (actor?.id === author) return hasCap(actor, 'moderate_comments');
  const user = await readUserDoc(site, author);
  return user !== null && hasCap({ id: user.id, roles: user.roles }, 'moderate_comments');
}

const invalidAuthor = (): InvalidValue => new InvalidValue('comment', ['author'], 'unknownReference');

export async function updateComment(
  site: Site,
  id: number,
  input: CommentInput,
  actor: Actor | null,
  requestId: string,
): Promise<CommentWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const changes: Partial<Omit<CommentFields, 'status' | 'status_before'>> = {};
  for (const key of [
    'post',
    'parent',
    'author_name',
    'author_email',
    'author_url',
    'author_ip',
    'author_user_agent',
    'date',
    'date_gmt',
  ] as const) {
    if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
  }
  const sentText: SentText = {};
  for (const key of ['author_name', 'author_email', 'author_url'] as const)
    if (input[key] !== undefined) sentText[key] = input[key];
  if (input.content !== undefined) sentText.content = phpTrim(input.content);
  // Refused before the filters run on a text that may be megabytes long.
  checkCommentLengths(sentText);
  if (sentText.content !== undefined) changes.content = filtered(site, actor, sentText.content);
  if (input.author_user_agent !== undefined)
    changes.author_user_agent = input.author_user_agent.slice(0, USER_AGENT_MAX_CHARS);
  if (input.author !== undefined) {
    const user = await readUserDoc(site, input.author);
    if (!user) throw invalidAuthor();
    changes.author = user.id;
    // Author fields sent beside it win, as in WordPress.
    changes.author_name = input.author_name ?? user.name;
    changes.author_email = input.author_email ?? user.email;
    changes.author_url = input.author_url ?? user.url;
  }
  Object.assign(changes, storedAuthorFields(changes));
  const result = await site.commands.handle(
    commentStreamId(id),
    commentDecider,
    async (state: CommentState): Promise<CommentCommand> => {
      const post = changes.post ?? state.comment?.post ?? 0;
      const parent = changes.parent ?? 0;
      return {
        kind: 'update',
        id,
        changes,
        sent: sentText,
        status: input.status ?? null,
        parentOnPost: parent === 0 || (await parentOnPost(site, parent, post)),
      };
    },
    metadata,
  );
  return { id, state: result.state, position: result.position };
}

export async function trashComment(
  site: Site,
  id: number,
  actor: Actor | null,
  requestId: string,
): Promise<CommentWriteOutcome> {
  const result = await site.commands.handle(
    commentStreamId(id),
    commentDecider,
    async (): Promise<CommentCommand> => ({ kind: 'trash', id }),
    site.metadata(actor?.id ?? null, requestId),
  );
  return { id, state: result.state, position: result.position };
}

/** Deletes a comment for good; its replies move up to its parent, as WordPress re-parents them. */
export async function deleteComment(
  site: Site,
  id: number,
  actor: Actor | null,
  requestId: string,
): Promise<CommentWriteOutcome> {
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
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [{ kind: 'any', field: 'parent', values: [id] }],
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  for (const child of items as CommentDoc[]) {
    const moved = await site.commands.handle(
      commentStreamId(child.id),
      commentDecider,
      async (): Promise<CommentCommand> => ({
        kind: 'update',
        id: child.id,
        changes: { parent },
        status: null,
        parentOnPost: true,
      }),
      metadata,
    );
    position = Math.max(position, moved.position);
  }
  return { id, state: result.state, position };
}

// --- a post's comments follow the post ----------------------------------------------------------------------

/** Comment streams written at once when a post's comments follow it. */
const CASCADE_CONCURRENCY = 8;

/**
 * Appends `command(id)` to the stream of every comment on `post` (any status), a few at a time, once the read
 * model has every comment written before `after` (the post's own event). Returns the last position written.
 */
async function forEachCommentOf(
  site: Site,
  post: number,
  after: number,
  actor: Actor | null,
  requestId: string,
  command: (id: number) => CommentCommand,
): Promise<number> {
  await site.settle(after);
  const { items } = await site.readModel.query(COMMENT_COLLECTION, {
    filters: [{ kind: 'any', field: 'post', values: [post] }],
    order: { kind: 'field', field: 'id', direction: 'desc' },
    offset: 0,
    limit: null,
  });
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const limit = pLimit(CASCADE_CONCURRENCY);
  const positions = await Promise.all(
    (items as CommentDoc[]).map((doc) =>
      limit(
        async () =>
          (await site.commands.handle(commentStreamId(doc.id), commentDecider, command(doc.id), metadata)).position,
      ),
    ),
  );
  return positions.reduce((last, position) => Math.max(last, position), 0);
}

/** The post went to the trash (its event at `after`): its comments are hidden with it, each remembering its status. */
export function trashCommentsOfPost(
  site: Site,
  post: number,
  after: number,
  actor: Actor | null,
  requestId: string,
): Promise<number> {
  return forEachCommentOf(site, post, after, actor, requestId, (id) => ({ kind: 'postTrashed', id, post }));
}

/** The post left the trash: its comments hidden with it get back the status they had. */
export function restoreCommentsOfPost(
  site: Site,
  post: number,
  after: number,
  actor: Actor | null,
  requestId: string,
): Promise<number> {
  return forEachCommentOf(site, post, after, actor, requestId, (id) => ({ kind: 'postRestored', id }));
}

/** The post was deleted for good: its comments go with it. */
export function deleteCommentsOfPost(
  site: Site,
  post: number,
  after: number,
  actor: Actor | null,
  requestId: string,
): Promise<number> {
  return forEachCommentOf(site, post, after, actor, requestId, (id) => ({ kind: 'delete', id, withPost: true }));
}
