/**
 * The content decider: WordPress's write rules for posts, pages and reusable blocks as pure functions of (command, state).
 * Time, ids, the resolved slug and the acting user arrive in the command; nothing here reads a clock.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, InvalidTransition, InvalidValue, NotFound } from '../../core/errors';
import { formatGmt, formatLocal, isBeforeYearOne, parseRestDate, parseRestDateGmt } from '../../text/dates';
import { asInt32Column } from '../../core/columnBounds';
import type { ContentEvent, PostFields, PostType } from './events';

/** Writable input after schema validation; absent keys are left unchanged (update) or defaulted (create). */
export interface PostInput {
  title?: string;
  content?: string;
  excerpt?: string;
  slug?: string;
  status?: string;
  password?: string;
  author?: number;
  featured_media?: number;
  comment_status?: 'open' | 'closed';
  ping_status?: 'open' | 'closed';
  sticky?: boolean;
  template?: string;
  format?: string;
  meta?: { footnotes?: string };
  categories?: number[];
  tags?: number[];
  parent?: number;
  menu_order?: number;
  date?: string | null;
  date_gmt?: string | null;
}

export interface WriteContext {
  actorId: number;
  /** Milliseconds since the epoch, from the clock port. */
  now: number;
  /** The site's IANA time zone. */
  timezone: string;
}

export type ContentCommand =
  /** `parentPath`: the ancestors' slugs of a child page (`parent/`), for its guid. */
  | ({
      kind: 'create';
      id: number;
      postType: PostType;
      input: PostInput;
      slug: string;
      parentPath?: string;
    } & WriteContext)
  | ({
      kind: 'update';
      id: number;
      postType: PostType;
      input: PostInput;
      slug: string;
      revisionId: number | null;
    } & WriteContext)
  | ({ kind: 'trash'; id: number; postType: PostType; revisionId: number | null } & WriteContext)
  /** `autosaveId`: the caller's existing autosave id, or a newly reserved one (ignored when the item itself is saved). */
  | ({ kind: 'autosave'; id: number; postType: PostType; input: PostInput; autosaveId: number } & WriteContext)
  | { kind: 'delete'; id: number; postType: PostType };

export interface RevisionSnapshot {
  title: string;
  content: string;
  excerpt: string;
}

export interface ContentState {
  exists: boolean;
  deleted: boolean;
  id: number;
  postType: PostType | null;
  post: PostFields | null;
  trashedFrom: string | null;
  /** The latest revision's text, which decides whether the next update makes one. */
  latestRevision: RevisionSnapshot | null;
  revisionIds: number[];
  /** Each user's autosave id. */
  autosaves: Record<number, number>;
}

const FLOATING_STATUSES = new Set(['draft', 'pending', 'auto-draft']);
const MINUTE_MS = 60_000;

export const initialContentState = (): ContentState => ({
  exists: false,
  deleted: false,
  id: 0,
  postType: null,
  post: null,
  trashedFrom: null,
  latestRevision: null,
  revisionIds: [],
  autosaves: {},
});

export function evolveContent(state: ContentState, event: ContentEvent): ContentState {
  switch (event.type) {
    case 'PostCreated':
      return { ...state, exists: true, id: event.data.id, postType: event.data.postType, post: event.data.post };
    case 'PostUpdated': {
      if (!state.post) return state;
      const post = { ...state.post, ...event.data.changes };
      const trashedFrom = post.status === 'trash' ? state.trashedFrom : null;
      return { ...state, post, trashedFrom };
    }
    case 'PostRevised':
      return {
        ...state,
        latestRevision: { title: event.data.title, content: event.data.content, excerpt: event.data.excerpt },
        revisionIds: [...state.revisionIds, event.data.revisionId],
      };
    case 'PostTrashed':
      if (!state.post) return state;
      return {
        ...state,
        trashedFrom: event.data.previousStatus,
        post: {
          ...state.post,
          status: 'trash',
          slug: event.data.slug,
          modified: event.data.modified,
          modified_gmt: event.data.modified_gmt,
        },
      };
    case 'PostAutosaved':
      return { ...state, autosaves: { ...state.autosaves, [event.data.userId]: event.data.autosaveId } };
    case 'AutosaveDiscarded': {
      const { [event.data.userId]: _dropped, ...autosaves } = state.autosaves;
      return { ...state, autosaves };
    }
    case 'PostDeleted':
      return { ...state, exists: false, deleted: true };
  }
}

/** Whether an autosave by this actor saves the item itself: its own draft (WordPress's rule). */
export function autosaveUpdatesItem(state: ContentState, actorId: number): boolean {
  return (
    !!state.post &&
    (state.post.status === 'draft' || state.post.status === 'auto-draft') &&
    state.post.author === actorId
  );
}

/** The resolved status and dates of a write, computed the same way by the decider and by slug preparation. */
export interface ResolvedSchedule {
  status: string;
  date: string;
  date_gmt: string | null;
}

/** Parses the date inputs; null for "floating" (date: null), undefined when no date was sent. Throws 400 on bad input. */
function requestedTime(input: PostInput, timezone: string): number | null | undefined {
  if (input.date !== undefined) {
    if (input.date === null) return null;
    const ms = parseRestDate(input.date, timezone);
    if (ms === null) throw invalidDate('date');
    return ms;
  }
  if (input.date_gmt !== undefined) {
    if (input.date_gmt === null) return null;
    const ms = parseRestDateGmt(input.date_gmt);
    if (ms === null) throw invalidDate('date_gmt');
    return ms;
  }
  return undefined;
}

const invalidDate = (param: 'date' | 'date_gmt') => new InvalidValue('post', [param], 'unparsable');

/**
 * WordPress's status/date rules: a draft without a fixed date floats (its date follows its modification);
 * `publish` dated a minute or more ahead becomes `future`; `future` not ahead becomes `publish`.
 */
export function resolveSchedule(input: PostInput, current: PostFields | null, ctx: WriteContext): ResolvedSchedule {
  let status = input.status ?? current?.status ?? 'draft';
  const requested = requestedTime(input, ctx.timezone);
  const nowLocal = formatLocal(ctx.now, ctx.timezone);
  const nowGmt = formatGmt(ctx.now);

  let date: string;
  let dateGmt: string | null;
  let gmtMs: number;
  if (typeof requested === 'number') {
    date = formatLocal(requested, ctx.timezone);
    if (isBeforeYearOne(date)) throw new InvalidValue('post', ['date'], 'outOfRange');
    dateGmt = formatGmt(requested);
    gmtMs = requested;
  } else if (requested === null || !current || current.date_gmt === null) {
    // Floating: explicitly reset, new without a date, or a draft that never had its date fixed.
    date = nowLocal;
    dateGmt = FLOATING_STATUSES.has(status) ? null : nowGmt;
    gmtMs = ctx.now;
  } else {
    date = current.date;
    dateGmt = current.date_gmt;
    gmtMs = Date.parse(`${current.date_gmt}Z`);
  }

  if (status === 'publish' && gmtMs - ctx.now >= MINUTE_MS) status = 'future';
  else if (status === 'future' && gmtMs - ctx.now < MINUTE_MS) status = 'publish';
  return { status, date, date_gmt: dateGmt };
}

/**
 * The path of an item's permalink: pretty for published and private items with a slug (a page's under its
 * ancestors' slugs, `parentPath` = `grandparent/parent/`), `?p=ID` otherwise.
 */
export function permalinkPath(postType: PostType, id: number, status: string, slug: string, parentPath = ''): string {
  if ((status === 'publish' || status === 'private') && slug !== '') return `/${parentPath}${slug}/`;
  return postType === 'page' ? `/?page_id=${id}` : `/?p=${id}`;
}

/** Whether the item will need a slug it does not have (published-like items always get one). */
export function needsGeneratedSlug(status: string, currentSlug: string): boolean {
  return currentSlug === '' && !FLOATING_STATUSES.has(status) && status !== 'trash';
}

function revisionOf(post: PostFields): RevisionSnapshot {
  return { title: post.title, content: post.content, excerpt: post.excerpt };
}

const normaliseWhitespace = (text: string) => text.replace(/\s+/g, ' ').trim();

/** WordPress makes a revision on the first update, then only when title, content or excerpt changed. */
export function updateMakesRevision(state: ContentState, after: PostFields): boolean {
  if (!state.latestRevision) return true;
  const snapshot = revisionOf(after);
  return (['title', 'content', 'excerpt'] as const).some(
    (field) => normaliseWhitespace(snapshot[field]) !== normaliseWhitespace(state.latestRevision![field]),
  );
}

/** WordPress's checks, in its order: a password sent with sticky, a password on a sticky post, sticky on a protected post. */
function assertStickyRules(input: PostInput, current: PostFields | null): void {
  const sendsPassword = input.password !== undefined && input.password !== '';
  if (sendsPassword && input.sticky === true) {
    throw new InvalidValue('post', ['sticky', 'password'], 'conflicting');
  }
  if (sendsPassword && current?.sticky && input.sticky !== false) {
    throw new InvalidValue('post', ['password'], 'conflictsWithCurrent');
  }
  if (input.sticky === true && current && current.password !== '') {
    throw new InvalidValue('post', ['sticky'], 'conflictsWithCurrent');
  }
}

function assertNotEmpty(postType: PostType, post: PostFields): void {
  // Pages do not support excerpts, so WordPress's emptiness check does not apply to them.
  if (postType === 'post' && post.title === '' && post.content === '' && post.excerpt === '') {
    throw new InvalidValue('post', ['title', 'content', 'excerpt'], 'empty');
  }
}

function defaults(
  postType: PostType,
  actorId: number,
): Omit<PostFields, 'date' | 'date_gmt' | 'modified' | 'modified_gmt' | 'status' | 'slug' | 'guid'> {
  // Only posts take comments and pings by default (a reusable block does not support them at all).
  const open = postType === 'post';
  return {
    title: '',
    content: '',
    excerpt: '',
    password: '',
    author: actorId,
    featured_media: 0,
    comment_status: open ? 'open' : 'closed',
    ping_status: open ? 'open' : 'closed',
    sticky: false,
    template: '',
    format: 'standard',
    meta: { footnotes: '' },
    categories: [],
    tags: [],
    parent: 0,
    menu_order: 0,
  };
}

function applyInput(base: PostFields, input: PostInput): PostFields {
  const next: PostFields = { ...base };
  const { date: _d, date_gmt: _g, meta, slug: _s, status: _st, ...rest } = input;
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (meta) next.meta = { ...base.meta, ...meta } as PostFields['meta'];
  if (rest.menu_order !== undefined) next.menu_order = asInt32Column(rest.menu_order);
  return next;
}

function changedFields(before: PostFields, after: PostFields): Partial<PostFields> {
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof PostFields)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = after[key];
  }
  return changes as Partial<PostFields>;
}

function decide(command: ContentCommand, state: ContentState): ContentEvent[] {
  const { id, postType } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('post', 'id');
    const schedule = resolveSchedule(command.input, null, command);
    const base: PostFields = {
      ...defaults(postType, command.actorId),
      status: schedule.status,
      slug: command.slug,
      date: schedule.date,
      date_gmt: schedule.date_gmt,
      // A new item's modification time is its date (WordPress copies post_date into post_modified).
      modified: schedule.date,
      modified_gmt: schedule.date_gmt ?? formatGmt(command.now),
      guid: '',
    };
    const post = applyInput(base, command.input);
    if (post.status === 'private') post.password = '';
    post.guid = permalinkPath(postType, id, post.status, post.slug, command.parentPath);
    assertStickyRules(command.input, null);
    assertNotEmpty(postType, post);
    return [{ type: 'PostCreated', data: { id, postType, post } }];
  }

  if (!state.exists || !state.post || state.postType !== postType) {
    throw new NotFound('post');
  }
  const current = state.post;

  if (command.kind === 'delete') return [{ type: 'PostDeleted', data: { id, postType } }];

  const modified = formatLocal(command.now, command.timezone);
  const modifiedGmt = formatGmt(command.now);

  if (command.kind === 'trash') {
    if (current.status === 'trash') throw new InvalidTransition('post', 'trash', 'trash');
    // WordPress appends the suffix to an empty slug too: a trashed draft without one is `__trashed`.
    const slug = current.slug.endsWith('__trashed') ? current.slug : `${current.slug}__trashed`;
    const events: ContentEvent[] = [
      {
        type: 'PostTrashed',
        data: { id, postType, previousStatus: current.status, slug, modified, modified_gmt: modifiedGmt },
      },
    ];
    const trashed = { ...current, status: 'trash', slug, modified, modified_gmt: modifiedGmt };
    if (command.revisionId !== null && updateMakesRevision(state, trashed)) {
      events.push(revisedEvent(id, postType, command.revisionId, trashed));
    }
    return events;
  }

  if (command.kind === 'autosave') {
    if (autosaveUpdatesItem(state, command.actorId)) {
      // The author's own draft: the draft itself is saved, without a revision.
      return decide(
        {
          kind: 'update',
          id,
          postType,
          input: command.input,
          slug: current.slug,
          revisionId: null,
          actorId: command.actorId,
          now: command.now,
          timezone: command.timezone,
        },
        state,
      );
    }
    const snapshot = {
      title: command.input.title ?? '',
      content: command.input.content ?? '',
      excerpt: command.input.excerpt ?? '',
    };
    const existing = state.autosaves[command.actorId];
    const unchanged =
      snapshot.title === current.title && snapshot.content === current.content && snapshot.excerpt === current.excerpt;
    // An existing autosave that would now equal the item is dropped instead (the caller reports no changes).
    if (unchanged && existing !== undefined) {
      return [{ type: 'AutosaveDiscarded', data: { id, postType, autosaveId: existing, userId: command.actorId } }];
    }
    return [
      {
        type: 'PostAutosaved',
        data: {
          id,
          postType,
          autosaveId: existing ?? command.autosaveId,
          userId: command.actorId,
          ...snapshot,
          date: modified,
          date_gmt: modifiedGmt,
        },
      },
    ];
  }

  // update
  const schedule = resolveSchedule(command.input, current, command);
  const next = applyInput(
    {
      ...current,
      status: schedule.status,
      slug: command.slug,
      date: schedule.date,
      date_gmt: schedule.date_gmt,
      modified,
      modified_gmt: modifiedGmt,
    },
    command.input,
  );
  if (next.status === 'private') next.password = '';
  assertStickyRules(command.input, current);
  assertNotEmpty(postType, next);
  const events: ContentEvent[] = [
    { type: 'PostUpdated', data: { id, postType, changes: changedFields(current, next) } },
  ];
  if (command.revisionId !== null && updateMakesRevision(state, next)) {
    events.push(revisedEvent(id, postType, command.revisionId, next));
  }
  return events;
}

function revisedEvent(id: number, postType: PostType, revisionId: number, post: PostFields): ContentEvent {
  return {
    type: 'PostRevised',
    data: { id, postType, revisionId, ...revisionOf(post), date: post.modified, date_gmt: post.modified_gmt },
  };
}

export const contentDecider: Decider<ContentState, ContentCommand, ContentEvent> = {
  initialState: initialContentState,
  evolve: evolveContent,
  decide,
};
