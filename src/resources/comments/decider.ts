/**
 * The comment decider: WordPress 6.1's write rules for comments as a pure function of (command, state). What a
 * rule needs from other streams or the clock (whether the author may moderate, whether an identical comment exists,
 * when the writer last commented, whether the parent is on the same post, the site's discussion options) arrives in
 * the command; the operations gather it.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, ForbiddenByRule, InvalidTransition, InvalidValue, NotFound } from '../../core/errors';
import type { CommentEvent, CommentFields, CommentStatus } from './events';

export interface CommentState {
  exists: boolean;
  comment: CommentFields | null;
  /** While the comment is hidden with its trashed post: the status its post's restore gives back. */
  postTrashedFrom: CommentStatus | null;
}

/** WordPress's flood interval: a comment within this many seconds of the writer's last one is refused. */
export const DEFAULT_COMMENT_FLOOD_SECONDS = 15;

/** WordPress's flood check: how soon after their last comment a writer may comment again. */
export interface FloodFacts {
  /** Moderators (moderate_comments or manage_options) are never throttled. */
  exempt: boolean;
  /**
   * The latest `date_gmt` (ms since the epoch) of a comment by the same user (or, for a writer without an account,
   * the same IP address) or the same email, among those dated within the hour before now; null when none.
   */
  latestAt: number | null;
  /** A comment dated less than this after that one is refused; 0 turns the check off. */
  intervalMs: number;
}

/** Facts about other streams a new comment is judged by. */
export interface CreateFacts {
  /** The comment's author holds moderate_comments or wrote the post: their comments are approved at once. */
  trusted: boolean;
  /** The writer already has an approved comment (WordPress's "comment author must have a previously approved comment"). */
  previouslyApproved: boolean;
  /** The id of a comment not in the trash with the same post, parent, author and content, or null (`comment_duplicate`). */
  duplicateOf: number | null;
  /** Whether the parent (when not 0) exists on the same post. */
  parentOnPost: boolean;
  /** The `require_name_email` discussion option: a comment needs an author name and email. */
  requireNameEmail: boolean;
  flood: FloodFacts;
}

/** A status a write may ask for (WordPress's handle_status_param), or null for one it ignores. */
export type StatusRequest = 'approve' | 'hold' | 'spam' | 'unspam' | 'trash' | 'untrash';

/**
 * The text fields as the writer sent them (trimmed), before the save filters made `fields` of them: WordPress judges
 * these for the name-and-email rule and the lengths. Absent: `fields` are what was sent.
 */
export type SentText = Partial<Pick<CommentFields, 'author_name' | 'author_email' | 'author_url' | 'content'>>;

export type CommentCommand =
  /** `status`: a moderator's explicit status, applied after the approval rules. */
  | {
      kind: 'create';
      id: number;
      fields: Omit<CommentFields, 'status' | 'status_before'>;
      sent?: SentText;
      status: StatusRequest | null;
      facts: CreateFacts;
    }
  | {
      kind: 'update';
      id: number;
      changes: Partial<Omit<CommentFields, 'status' | 'status_before'>>;
      sent?: SentText;
      status: StatusRequest | null;
      parentOnPost: boolean;
    }
  | { kind: 'trash'; id: number }
  /** `withPost`: the comment goes with its post (already gone: nothing to record). */
  | { kind: 'delete'; id: number; withPost?: boolean }
  /** The comment's post went to the trash (a comment no longer on that post is left alone). */
  | { kind: 'postTrashed'; id: number; post: number }
  /** The comment's post left the trash. */
  | { kind: 'postRestored'; id: number };

const contentInvalid = (): InvalidValue => new InvalidValue('comment', ['content'], 'empty');
/** Stricter than WordPress, which keeps any parent id (see docs/compatibility.md). */
const parentInvalid = (): InvalidValue => new InvalidValue('comment', ['parent'], 'unknownReference');

/** The longest values WordPress's comments table takes, in UTF-8 bytes (wp_get_comment_fields_max_lengths). */
const COMMENT_FIELD_MAX_BYTES = [
  ['author_name', 245],
  ['author_email', 100],
  ['author_url', 200],
  ['content', 65_525],
] as const;

/** Refuses a value longer than its column (COMMENT_FIELD_MAX_BYTES). */
export function checkCommentLengths(fields: Partial<CommentFields>): void {
  for (const [field, max] of COMMENT_FIELD_MAX_BYTES) {
    const value = fields[field];
    if (typeof value === 'string' && Buffer.byteLength(value, 'utf8') > max) {
      throw new InvalidValue('comment', [field], 'tooLong');
    }
  }
}

/** When a comment dated `date_gmt` is too soon after the writer's last one (WordPress's wp_check_comment_flood). */
function isFlood(flood: FloodFacts, dateGmt: string): boolean {
  if (flood.exempt || flood.latestAt === null || flood.intervalMs <= 0) return false;
  return Date.parse(`${dateGmt}Z`) - flood.latestAt < flood.intervalMs;
}

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
function applyStatus(
  current: CommentFields,
  request: StatusRequest | null,
): Pick<CommentFields, 'status' | 'status_before'> {
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
      return current.status === to
        ? keep
        : {
            status: to,
            status_before:
              current.status === 'trash' || current.status === 'spam' ? current.status_before : current.status,
          };
    }
    case 'unspam':
    case 'untrash': {
      const from: CommentStatus = request === 'unspam' ? 'spam' : 'trash';
      return current.status === from ? { status: current.status_before ?? 'hold', status_before: null } : keep;
    }
  }
}

const blank = (text: string): boolean => text.trim() === '';

export const initialCommentState = (): CommentState => ({ exists: false, comment: null, postTrashedFrom: null });

export function evolveComment(state: CommentState, event: CommentEvent): CommentState {
  switch (event.type) {
    case 'CommentCreated':
      return { exists: true, comment: event.data.comment, postTrashedFrom: null };
    case 'CommentUpdated':
      return state.comment ? { ...state, comment: { ...state.comment, ...event.data.changes } } : state;
    case 'CommentPostTrashed':
      return state.comment
        ? {
            ...state,
            comment: { ...state.comment, status: 'post-trashed' },
            postTrashedFrom: event.data.previousStatus,
          }
        : state;
    case 'CommentPostRestored':
      return state.comment
        ? { ...state, comment: { ...state.comment, status: event.data.status }, postTrashedFrom: null }
        : state;
    case 'CommentDeleted':
      return initialCommentState();
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
    if (state.exists) throw new AlreadyExists('comment', 'id');
    const { fields, facts } = command;
    const sent = command.sent ?? fields;
    // Text the filters leave empty is no text either (WordPress would store an empty comment).
    if (blank(sent.content ?? '') || blank(fields.content)) throw contentInvalid();
    if (facts.requireNameEmail && (!sent.author_name || !sent.author_email)) {
      throw new InvalidValue('comment', ['author_name', 'author_email'], 'required');
    }
    // What was sent, as WordPress measures it; then what is stored, which the filters may have made longer.
    checkCommentLengths(sent);
    checkCommentLengths(fields);
    if (fields.parent !== 0 && !facts.parentOnPost) throw parentInvalid();
    if (facts.duplicateOf !== null) throw new AlreadyExists('comment', 'content', { existingId: facts.duplicateOf });
    if (isFlood(facts.flood, fields.date_gmt)) throw new ForbiddenByRule('comment', 'flood');
    const approved = facts.trusted || (facts.previouslyApproved && linkCount(fields.content) < MAX_LINKS);
    const initial: CommentFields = { ...fields, status: approved ? 'approved' : 'hold', status_before: null };
    return [{ type: 'CommentCreated', data: { id, comment: { ...initial, ...applyStatus(initial, command.status) } } }];
  }
  const current = state.comment;
  if (!state.exists || !current) {
    // What goes with a post may have gone on its own meanwhile.
    if (
      (command.kind === 'delete' && command.withPost) ||
      command.kind === 'postTrashed' ||
      command.kind === 'postRestored'
    )
      return [];
    throw new NotFound('comment');
  }
  switch (command.kind) {
    case 'delete':
      return [
        {
          type: 'CommentDeleted',
          data: command.withPost ? { id, post: current.post, withPost: true } : { id, post: current.post },
        },
      ];
    case 'postTrashed':
      if (current.post !== command.post || current.status === 'post-trashed') return [];
      return [{ type: 'CommentPostTrashed', data: { id, post: current.post, previousStatus: current.status } }];
    case 'postRestored':
      // As WordPress restores from the post's memory: whatever status the comment was given meanwhile.
      if (state.postTrashedFrom === null) return [];
      return [{ type: 'CommentPostRestored', data: { id, post: current.post, status: state.postTrashedFrom } }];
    case 'trash':
      if (current.status === 'trash') throw new InvalidTransition('comment', 'trash', 'trash');
      return changed(id, current, { ...current, ...applyStatus(current, 'trash') });
    case 'update': {
      if (
        (command.sent?.content !== undefined && blank(command.sent.content)) ||
        (command.changes.content !== undefined && blank(command.changes.content))
      )
        throw contentInvalid();
      if (command.sent) checkCommentLengths(command.sent);
      checkCommentLengths(command.changes);
      const next: CommentFields = { ...current, ...command.changes };
      if (
        command.changes.parent !== undefined &&
        next.parent !== 0 &&
        next.parent !== current.parent &&
        !command.parentOnPost
      )
        throw parentInvalid();
      return changed(id, current, { ...next, ...applyStatus(next, command.status) });
    }
  }
}

export const commentDecider: Decider<CommentState, CommentCommand, CommentEvent> = {
  initialState: initialCommentState,
  evolve: evolveComment,
  decide: decideComment,
};
