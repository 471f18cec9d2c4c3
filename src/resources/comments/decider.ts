/**
 * The comment decider: WordPress 6.1's write rules for comments as a pure function of (command, state). What a
 * rule needs from other streams (whether the author may moderate, whether an identical comment exists, whether the
 * parent is on the same post) arrives in the command; the operations gather it.
 */
import type { Decider } from '../../core/commandHandler';
import { type RestError, restError } from '../../rest/errors';
import type { CommentEvent, CommentFields, CommentStatus } from './events';

export interface CommentState {
  exists: boolean;
  comment: CommentFields | null;
}

/** Facts about other streams a new comment is judged by. */
export interface CreateFacts {
  /** The writer holds moderate_comments or wrote the post: their comments are approved at once. */
  trusted: boolean;
  /** The writer already has an approved comment (WordPress's "comment author must have a previously approved comment"). */
  previouslyApproved: boolean;
  /** The id of a live comment with the same post, parent, author and content, or null (`comment_duplicate`). */
  duplicateOf: number | null;
  /** Whether the parent (when not 0) exists on the same post. */
  parentOnPost: boolean;
}

/** A status a write may ask for (WordPress's handle_status_param), or null for one it ignores. */
export type StatusRequest = 'approve' | 'hold' | 'spam' | 'unspam' | 'trash' | 'untrash';

export type CommentCommand =
  /** `status`: a moderator's explicit status, applied after the approval rules. */
  | { kind: 'create'; id: number; fields: Omit<CommentFields, 'status' | 'status_before'>; status: StatusRequest | null; facts: CreateFacts }
  | { kind: 'update'; id: number; changes: Partial<Omit<CommentFields, 'status' | 'status_before'>>; status: StatusRequest | null; parentOnPost: boolean }
  | { kind: 'trash'; id: number }
  | { kind: 'delete'; id: number };

export const commentNotFound = (): RestError => restError('rest_comment_invalid_id', 'Invalid comment ID.', 404);
const contentInvalid = (): RestError => restError('rest_comment_content_invalid', 'Invalid comment content.', 400);
/** Stricter than WordPress, which keeps any parent id (see docs/compatibility.md). */
const parentInvalid = (): RestError => restError('rest_comment_invalid_parent', 'The parent comment must exist on the same post.', 400);

/** More links than this hold a comment for moderation (WordPress's comment_max_links, 2 by default). */
const MAX_LINKS = 2;
const linkCount = (content: string): number => (content.match(/<a [^>]*href/gi) ?? []).length;

/** Read a status parameter as WordPress's handle_status_param does; anything else is ignored. */
export function statusRequest(value: unknown): StatusRequest | null {
  switch (value) {
    case 'approve':
    case 'approved':
    case '1':
      return 'approve';
    case 'hold':
    case '0':
      return 'hold';
    case 'spam':
    case 'unspam':
    case 'trash':
    case 'untrash':
      return value;
    default:
      return null;
  }
}

/** The status a request leaves, and the status to restore later (trash and spam remember where they came from). */
function applyStatus(current: CommentFields, request: StatusRequest | null): Pick<CommentFields, 'status' | 'status_before'> {
  const keep = { status: current.status, status_before: current.status_before };
  switch (request) {
    case null:
      return keep;
    case 'approve':
      return { status: 'approved', status_before: null };
    case 'hold':
      return { status: 'hold', status_before: null };
    case 'spam':
    case 'trash': {
      const to: CommentStatus = request;
      return current.status === to ? keep : { status: to, status_before: current.status === 'trash' || current.status === 'spam' ? current.status_before : current.status };
    }
    case 'unspam':
    case 'untrash': {
      const from: CommentStatus = request === 'unspam' ? 'spam' : 'trash';
      return current.status === from ? { status: current.status_before ?? 'hold', status_before: null } : keep;
    }
  }
}

const blank = (text: string): boolean => text.trim() === '';

export const initialCommentState = (): CommentState => ({ exists: false, comment: null });

export function evolveComment(state: CommentState, event: CommentEvent): CommentState {
  switch (event.type) {
    case 'CommentCreated':
      return { exists: true, comment: event.data.comment };
    case 'CommentUpdated':
      return state.comment ? { ...state, comment: { ...state.comment, ...event.data.changes } } : state;
    case 'CommentDeleted':
      return { exists: false, comment: null };
  }
}

function changed(id: number, before: CommentFields, after: CommentFields): CommentEvent[] {
  const changes: Partial<CommentFields> = {};
  for (const key of Object.keys(after) as (keyof CommentFields)[]) {
    if (after[key] !== before[key]) (changes as Record<string, unknown>)[key] = after[key];
  }
  return Object.keys(changes).length === 0 ? [] : [{ type: 'CommentUpdated', data: { id, changes } }];
}

function decideComment(command: CommentCommand, state: CommentState): CommentEvent[] {
  const { id } = command;
  if (command.kind === 'create') {
    if (state.exists) throw restError('rest_comment_exists', 'Cannot create existing comment.', 400);
    const { fields, facts } = command;
    if (blank(fields.content)) throw contentInvalid();
    if (fields.parent !== 0 && !facts.parentOnPost) throw parentInvalid();
    if (facts.duplicateOf !== null) {
      throw restError('comment_duplicate', 'Duplicate comment detected; it looks as though you&#8217;ve already said that!', 409);
    }
    const approved = facts.trusted || (facts.previouslyApproved && linkCount(fields.content) < MAX_LINKS);
    const initial: CommentFields = { ...fields, status: approved ? 'approved' : 'hold', status_before: null };
    return [{ type: 'CommentCreated', data: { id, comment: { ...initial, ...applyStatus(initial, command.status) } } }];
  }
  const current = state.comment;
  if (!state.exists || !current) throw commentNotFound();
  switch (command.kind) {
    case 'delete':
      return [{ type: 'CommentDeleted', data: { id, post: current.post } }];
    case 'trash':
      if (current.status === 'trash') throw restError('rest_already_trashed', 'The comment has already been trashed.', 410);
      return changed(id, current, { ...current, ...applyStatus(current, 'trash') });
    case 'update': {
      if (command.changes.content !== undefined && blank(command.changes.content)) throw contentInvalid();
      const next: CommentFields = { ...current, ...command.changes };
      if (command.changes.parent !== undefined && next.parent !== 0 && next.parent !== current.parent && !command.parentOnPost) throw parentInvalid();
      return changed(id, current, { ...next, ...applyStatus(next, command.status) });
    }
  }
}

export const commentDecider: Decider<CommentState, CommentCommand, CommentEvent> = { initialState: initialCommentState, evolve: evolveComment, decide: decideComment };
