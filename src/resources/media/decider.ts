/**
 * The attachment decider: WordPress's write rules for media as pure functions of (command, state). The file
 * is already stored when a command arrives; time, ids, the claimed slug and the user come in the command.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, InvalidValue, NotFound } from '../../core/errors';
import { formatGmt, formatLocal, isBeforeYearOne, parseRestDate, parseRestDateGmt } from '../../text/dates';
import type { AttachmentFields, MediaDetails, MediaEvent } from './events';
import { attachmentFiles } from './events';

/** Writable fields after validation; absent keys are left unchanged (update) or defaulted (create). */
export interface AttachmentInput {
  title?: string;
  caption?: string;
  description?: string;
  alt_text?: string;
  featured_media?: number;
  status?: string;
  author?: number;
  comment_status?: 'open' | 'closed';
  ping_status?: 'open' | 'closed';
  template?: string;
  post?: number;
  date?: string | null;
  date_gmt?: string | null;
}

export interface MediaWriteContext {
  actorId: number;
  /** Milliseconds since the epoch, from the clock port. */
  now: number;
  timezone: string;
}

export type MediaCommand =
  | ({
      kind: 'create';
      id: number;
      input: AttachmentInput;
      slug: string;
      mimeType: string;
      details: MediaDetails;
    } & MediaWriteContext)
  | ({ kind: 'update'; id: number; input: AttachmentInput; slug: string; details?: MediaDetails } & MediaWriteContext)
  | { kind: 'delete'; id: number };

export interface MediaState {
  exists: boolean;
  deleted: boolean;
  attachment: AttachmentFields | null;
}

export const initialMediaState = (): MediaState => ({ exists: false, deleted: false, attachment: null });

export function evolveMedia(state: MediaState, event: MediaEvent): MediaState {
  switch (event.type) {
    case 'AttachmentCreated':
      return { exists: true, deleted: false, attachment: event.data.attachment };
    case 'AttachmentUpdated':
      return state.attachment ? { ...state, attachment: { ...state.attachment, ...event.data.changes } } : state;
    case 'AttachmentDeleted':
      return { exists: false, deleted: true, attachment: null };
  }
}

/**
 * WordPress keeps an attachment `inherit` (it follows its parent) unless it is made `private`: any other
 * status written to it ends up `inherit`.
 */
export const attachmentStatus = (requested: string | undefined, current: string): string =>
  requested === undefined ? current : requested === 'private' ? 'private' : 'inherit';

const invalidDate = (param: 'date' | 'date_gmt') => new InvalidValue('attachment', [param], 'unparsable');

/** The dates a write asks for: an explicit date (local or UTC), null/absent for "now" on create, unchanged on update. */
function requestedDates(input: AttachmentInput, ctx: MediaWriteContext): { date: string; date_gmt: string } | null {
  let ms: number | null = null;
  if (typeof input.date === 'string') {
    ms = parseRestDate(input.date, ctx.timezone);
    if (ms === null) throw invalidDate('date');
  } else if (typeof input.date_gmt === 'string') {
    ms = parseRestDateGmt(input.date_gmt);
    if (ms === null) throw invalidDate('date_gmt');
  } else if (input.date === null || input.date_gmt === null) {
    ms = ctx.now;
  }
  if (ms === null) return null;
  const date = formatLocal(ms, ctx.timezone);
  if (isBeforeYearOne(date)) throw new InvalidValue('attachment', ['date'], 'outOfRange');
  return { date, date_gmt: formatGmt(ms) };
}

function applyInput(base: AttachmentFields, input: AttachmentInput): AttachmentFields {
  const next = { ...base };
  for (const key of [
    'title',
    'caption',
    'description',
    'alt_text',
    'author',
    'comment_status',
    'ping_status',
    'template',
    'post',
    'featured_media',
  ] as const) {
    if (input[key] !== undefined) (next as Record<string, unknown>)[key] = input[key];
  }
  next.status = attachmentStatus(input.status, base.status);
  return next;
}

function changedFields(before: AttachmentFields, after: AttachmentFields): Partial<AttachmentFields> {
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof AttachmentFields)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = after[key];
  }
  return changes as Partial<AttachmentFields>;
}

function decide(command: MediaCommand, state: MediaState): MediaEvent[] {
  const { id } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('attachment', 'id');
    const now = { date: formatLocal(command.now, command.timezone), date_gmt: formatGmt(command.now) };
    const dates = requestedDates(command.input, command) ?? now;
    const base: AttachmentFields = {
      title: '',
      caption: '',
      description: '',
      alt_text: '',
      slug: command.slug,
      status: 'inherit',
      author: command.actorId,
      // WordPress's defaults for attachments: comments open, pings closed.
      comment_status: 'open',
      ping_status: 'closed',
      template: '',
      post: 0,
      mime_type: command.mimeType,
      media_details: command.details,
      ...dates,
      // A new item's modification time is its date (as WordPress copies it).
      modified: dates.date,
      modified_gmt: dates.date_gmt,
    };
    return [{ type: 'AttachmentCreated', data: { id, attachment: applyInput(base, command.input) } }];
  }
  if (!state.exists || !state.attachment) throw new NotFound('attachment');
  const current = state.attachment;
  if (command.kind === 'delete')
    return [{ type: 'AttachmentDeleted', data: { id, files: attachmentFiles(current.media_details) } }];

  const dates = requestedDates(command.input, command);
  const next = applyInput(
    {
      ...current,
      slug: command.slug,
      ...(dates ?? {}),
      ...(command.details ? { media_details: command.details } : {}),
      modified: formatLocal(command.now, command.timezone),
      modified_gmt: formatGmt(command.now),
    },
    command.input,
  );
  return [{ type: 'AttachmentUpdated', data: { id, changes: changedFields(current, next) } }];
}

export const mediaDecider: Decider<MediaState, MediaCommand, MediaEvent> = {
  initialState: initialMediaState,
  evolve: evolveMedia,
  decide,
};
