/**
 * The audit page's views: the timeline of the audit log (filters, paging, live events), an item's history with a
 * field-by-field diff of each change, and an item's state at a moment next to its state now.
 */
import { ApiError, follow, get, nextLink } from './api.mjs';
import { wordDiff } from './diff.mjs';
import { fromLocalInput, h, localInputValue, replace, showTime, showValue } from './dom.mjs';

const PER_PAGE = 20;
/** The collections an item's `content-{id}` stream may belong to, tried in turn. */
const CONTENT_KINDS = ['posts', 'pages', 'blocks'];
const KIND_NAMES = { posts: 'Post', pages: 'Page', blocks: 'Reusable block' };

// ---------------------------------------------------------------------------------------------------------------
// Users: names for ids, looked up once.

const userNames = new Map();

async function knowUsers(ids) {
  const missing = [...new Set(ids)].filter((id) => typeof id === 'number' && id > 0 && !userNames.has(id));
  if (missing.length === 0) return;
  try {
    const { body } = await get('core/v2/users', { include: missing.join(','), per_page: 100, context: 'edit' });
    for (const user of body) userNames.set(user.id, `${user.name} (${user.username})`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw error;
  }
  // Users that are gone keep their id.
  for (const id of missing) if (!userNames.has(id)) userNames.set(id, `user ${id}`);
}

const whoName = (id) => (id === null || id === undefined || id === 0 ? 'system' : (userNames.get(id) ?? `user ${id}`));

// ---------------------------------------------------------------------------------------------------------------
// Timeline

/** The filters the timeline reads from its fragment's query, as the API takes them. */
function filtersOf(params) {
  const list = (name) =>
    (params.get(name) ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
  return {
    user: list('user'),
    type: list('type'),
    stream: params.get('stream') ?? '',
    after: params.get('after') ?? '',
    before: params.get('before') ?? '',
  };
}

/** The API query of the filters (lists as comma-separated values, as the API takes them). */
const apiFilters = (filters) => ({
  user: filters.user.join(','),
  type: filters.type.join(','),
  stream: filters.stream,
  after: filters.after,
  before: filters.before,
});

/** Where the timeline's "Newer" button goes back to: the cursors of the pages seen before, per filter. */
const newerCursors = [];

const badgeClass = (type) =>
  /Created$|Registered$|Uploaded$|Added$/.test(type)
    ? 'badge created'
    : /Deleted$|Trashed$|Revoked$|Removed$/.test(type)
      ? 'badge deleted'
      : /Updated$|Changed$|Revised$/.test(type)
        ? 'badge updated'
        : 'badge';

function eventRow(entry, fresh) {
  const content = /^content-(\d+)$/.exec(entry.stream);
  const kind = entry.data && typeof entry.data.postType === 'string' ? entry.data.postType : null;
  const item = content
    ? h('a', { href: `#/item/${encodeURIComponent(entry.stream)}`, class: 'item-link' }, entry.stream)
    : h(
        'a',
        { href: `#/?stream=${encodeURIComponent(entry.stream)}`, title: 'Only this stream\u2019s events' },
        entry.stream,
      );
  return h(
    'tr',
    { class: fresh ? 'event fresh' : 'event', 'data-position': entry.position, 'data-type': entry.type },
    h(
      'td',
      { class: 'when' },
      h('time', { datetime: entry.time }, showTime(entry.time)),
      fresh ? h('span', { class: 'new' }, 'new') : null,
    ),
    h('td', { class: 'who' }, whoName(entry.user)),
    h('td', { class: 'what' }, h('span', { class: badgeClass(entry.type) }, entry.type)),
    h('td', { class: 'which' }, item, kind ? h('span', { class: 'kind' }, ` ${kind}`) : null),
    h(
      'td',
      { class: 'data' },
      h('details', {}, h('summary', {}, `#${entry.position}`), h('pre', {}, showValue(entry.data))),
    ),
  );
}

function filterForm(filters, users) {
  const userSelect = h(
    'select',
    { id: 'filter-user', name: 'user' },
    h('option', { value: '' }, 'Anyone'),
    h('option', { value: '0', selected: filters.user.join(',') === '0' }, 'The system'),
    users.map((user) =>
      h(
        'option',
        { value: user.id, selected: filters.user.join(',') === String(user.id) },
        `${user.name} (${user.username})`,
      ),
    ),
  );
  const field = (id, label, input) => h('div', { class: 'field' }, h('label', { for: id }, label), input);
  const type = h('input', {
    id: 'filter-type',
    name: 'type',
    type: 'text',
    value: filters.type.join(','),
    placeholder: 'PostUpdated, PostCreated',
    list: 'known-types',
  });
  const stream = h('input', {
    id: 'filter-stream',
    name: 'stream',
    type: 'text',
    value: filters.stream,
    placeholder: 'content-12, user-',
  });
  const after = h('input', {
    id: 'filter-after',
    name: 'after',
    type: 'datetime-local',
    step: '1',
    value: localInputValue(filters.after),
  });
  const before = h('input', {
    id: 'filter-before',
    name: 'before',
    type: 'datetime-local',
    step: '1',
    value: localInputValue(filters.before),
  });
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter the events' },
    field('filter-user', 'Who', userSelect),
    field('filter-type', 'Event type', type),
    field('filter-stream', 'Item (stream)', stream),
    field('filter-after', 'From (UTC)', after),
    field('filter-before', 'To (UTC)', before),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Filter'),
      h('a', { href: '#/', class: 'button' }, 'Clear'),
    ),
    h(
      'datalist',
      { id: 'known-types' },
      [
        'PostCreated',
        'PostUpdated',
        'PostRevised',
        'PostTrashed',
        'PostDeleted',
        'PostAutosaved',
        'UserRegistered',
        'CommentCreated',
      ].map((name) => h('option', { value: name })),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    const set = (name, value) => {
      if (value !== '') query.set(name, value);
    };
    set('user', userSelect.value);
    set('type', type.value.replace(/\s+/g, ''));
    set('stream', stream.value.trim());
    set('after', fromLocalInput(after.value));
    set('before', fromLocalInput(before.value));
    newerCursors.length = 0;
    const target = `#/?${query.toString()}`;
    if (window.location.hash === target) window.dispatchEvent(new HashChangeEvent('hashchange'));
    else window.location.hash = target;
  });
  return form;
}

export async function showTimeline(context, params) {
  const filters = filtersOf(params);
  const cursor = params.get('before_position') ?? '';
  const [users, page] = await Promise.all([
    get('core/v2/users', { per_page: 100, context: 'edit' }).then(({ body }) => body),
    get('audit/v1/events', { ...apiFilters(filters), per_page: PER_PAGE, before_position: cursor }),
  ]);
  for (const user of users) userNames.set(user.id, `${user.name} (${user.username})`);
  const events = page.body;
  await knowUsers(events.map((entry) => entry.user));
  document.title = 'Timeline · Audit log';

  const rows = h(
    'tbody',
    {},
    events.map((entry) => eventRow(entry, false)),
  );
  const empty = h('p', { class: 'empty' }, 'No events match these filters.');
  empty.hidden = events.length > 0;
  const feedState = h(
    'span',
    { class: 'feed', role: 'status', 'data-state': 'off' },
    cursor === '' ? 'Connecting to the live feed\u2026' : 'Live events show on the newest page.',
  );
  const next = nextLink(page.headers);
  const withCursor = (position) => {
    const query = new URLSearchParams(params);
    if (position === '') query.delete('before_position');
    else query.set('before_position', position);
    return `#/?${query.toString()}`;
  };
  const older = h('button', { type: 'button', disabled: next === null }, 'Older \u2192');
  older.addEventListener('click', () => {
    newerCursors.push(cursor);
    window.location.hash = withCursor(next.searchParams.get('before_position') ?? '');
  });
  const newer = h('button', { type: 'button', disabled: cursor === '' }, '\u2190 Newer');
  newer.addEventListener('click', () => {
    window.location.hash = withCursor(newerCursors.pop() ?? '');
  });
  const newest = h('button', { type: 'button', disabled: cursor === '' }, 'Newest');
  newest.addEventListener('click', () => {
    newerCursors.length = 0;
    window.location.hash = withCursor('');
  });

  replace(
    context.main,
    h('h2', {}, 'Timeline'),
    filterForm(filters, users),
    h('div', { class: 'status-line' }, feedState),
    h(
      'table',
      { class: 'timeline' },
      h('caption', { class: 'visually-hidden' }, 'Events of the audit log, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'When'),
          h('th', { scope: 'col' }, 'Who'),
          h('th', { scope: 'col' }, 'What'),
          h('th', { scope: 'col' }, 'Item'),
          h('th', { scope: 'col' }, 'Event'),
        ),
      ),
      rows,
    ),
    empty,
    h('nav', { class: 'pager', 'aria-label': 'Pages of events' }, newest, newer, older),
  );

  // Live events, on the newest page only: the feed starts after the newest event shown, so none is missed or doubled.
  if (cursor !== '') return;
  const seen = new Set(events.map((entry) => entry.position));
  const stop = follow(
    apiFilters(filters),
    events.length > 0 ? events[0].position : null,
    async (entry) => {
      if (seen.has(entry.position)) return;
      seen.add(entry.position);
      await knowUsers([entry.user]);
      empty.hidden = true;
      rows.prepend(eventRow(entry, true));
    },
    (state, message, status) => {
      feedState.dataset.state = state;
      replace(
        feedState,
        state === 'live'
          ? 'Live: new events appear as they happen.'
          : state === 'reconnecting'
            ? `Reconnecting to the live feed\u2026 ${message ?? ''}`
            : `The live feed stopped: ${message}`,
      );
      if (state === 'stopped' && status === 401) context.expired(message);
    },
  );
  context.onLeave(stop);
}

// ---------------------------------------------------------------------------------------------------------------
// An item's history

/** The collection and id of a `content-{id}` stream, found by asking each collection for its history. */
const kinds = new Map();

async function contentItem(stream) {
  const match = /^content-(\d+)$/.exec(stream);
  if (!match)
    throw new ApiError(
      404,
      'not_content',
      `${stream} is not a post, page or reusable block: see its events in the timeline.`,
    );
  const id = Number(match[1]);
  if (kinds.has(id)) return { kind: kinds.get(id), id };
  for (const kind of CONTENT_KINDS) {
    try {
      await get(`core/v2/${kind}/${id}/history`, { per_page: 1 });
      kinds.set(id, kind);
      return { kind, id };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
    }
  }
  throw new ApiError(
    404,
    'gone',
    `There is no post, page or reusable block ${id} now (it may have been deleted): its events stay in the timeline.`,
  );
}

/** Every history entry of an item, oldest first (pages of 100, at most 50 of them). */
async function wholeHistory(kind, id) {
  const entries = [];
  for (let page = 1; page <= 50; page++) {
    const { body, headers } = await get(`core/v2/${kind}/${id}/history`, { per_page: 100, page, order: 'asc' });
    entries.push(...body);
    if (page >= Number(headers.get('X-WP-TotalPages') ?? '1')) break;
  }
  return entries;
}

/** A field's change: strings word by word, other values as before and after. */
function fieldDiff(from, to) {
  if ((from === null || from === '') && to === '')
    return h('div', { class: 'text-diff' }, h('span', { class: 'muted' }, '(empty)'));
  if ((typeof from === 'string' || from === null) && typeof to === 'string') {
    const runs = wordDiff(from ?? '', to);
    return h(
      'div',
      { class: 'text-diff' },
      runs.map((run) => (run.kind === 'same' ? run.text : h(run.kind, {}, run.text))),
    );
  }
  return h(
    'div',
    { class: 'text-diff' },
    from === null || from === undefined ? null : h('del', {}, showValue(from)),
    from === null || from === undefined ? null : ' \u2192 ',
    h('ins', {}, showValue(to)),
  );
}

const itemLinks = (stream) =>
  h(
    'p',
    { class: 'links' },
    h('a', { href: `#/item/${encodeURIComponent(stream)}` }, 'History'),
    ' \u00b7 ',
    h('a', { href: `#/item/${encodeURIComponent(stream)}/as-of/` }, 'State at a moment'),
    ' \u00b7 ',
    h('a', { href: `#/?stream=${encodeURIComponent(stream)}` }, 'Events in the timeline'),
  );

/** An event's time as an `as_of` argument: to the second, as the API compares times. */
const toSecond = (iso) => `${new Date(iso).toISOString().slice(0, 19)}Z`;

export async function showHistory(context, stream) {
  const { kind, id } = await contentItem(stream);
  const [entries, now] = await Promise.all([
    wholeHistory(kind, id),
    get(`core/v2/${kind}/${id}`, { context: 'edit' }).then(({ body }) => body),
  ]);
  await knowUsers(entries.map((entry) => entry.user));
  const title = now.title?.raw ?? '';
  document.title = `History of ${KIND_NAMES[kind]} ${id} · Audit log`;
  const changes = entries.map((entry) => {
    const fields = Object.entries(entry.diff ?? {});
    return h(
      'article',
      { class: 'change', 'data-revision': entry.revision, 'data-type': entry.type },
      h(
        'header',
        {},
        h('span', { class: badgeClass(entry.type) }, entry.type),
        ' ',
        h('time', { datetime: entry.time }, showTime(entry.time)),
        ` by ${whoName(entry.user)} \u00b7 revision ${entry.revision} \u00b7 #${entry.position} `,
        h(
          'a',
          {
            href: `#/item/${encodeURIComponent(stream)}/as-of/${encodeURIComponent(toSecond(entry.time))}`,
            class: 'as-of-link',
          },
          'State after this change',
        ),
      ),
      fields.length === 0
        ? h('p', { class: 'no-change' }, 'No field changed.')
        : h(
            'table',
            { class: 'diff' },
            h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Change'))),
            h(
              'tbody',
              {},
              fields.map(([field, change]) =>
                h(
                  'tr',
                  { 'data-field': field },
                  h('th', { scope: 'row' }, field),
                  h('td', {}, fieldDiff(change?.from ?? null, change?.to ?? null)),
                ),
              ),
            ),
          ),
    );
  });
  replace(
    context.main,
    h('h2', {}, `History of ${KIND_NAMES[kind].toLowerCase()} ${id}: `, h('q', {}, title)),
    itemLinks(stream),
    h(
      'p',
      { class: 'legend' },
      'Each change to the item, oldest first, with what it did to each field: ',
      h('del', {}, 'removed'),
      ' ',
      h('ins', {}, 'added'),
      '.',
    ),
    changes,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// An item at a moment

/** The fields compared, in this order; an object with `raw` shows its raw value. */
const STATE_FIELDS = [
  'title',
  'status',
  'slug',
  'date',
  'modified',
  'author',
  'excerpt',
  'content',
  'password',
  'comment_status',
  'ping_status',
  'sticky',
  'format',
  'template',
  'parent',
  'menu_order',
  'categories',
  'tags',
  'featured_media',
  'meta',
];

const fieldValue = (item, field) => {
  const value = item?.[field];
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'raw' in value ? value.raw : value;
};

export async function showAsOf(context, stream, at) {
  const { kind, id } = await contentItem(stream);
  const moment = at === '' ? '' : new Date(at);
  const input = h('input', {
    id: 'as-of',
    name: 'as_of',
    type: 'datetime-local',
    step: '1',
    value: moment === '' ? '' : localInputValue(moment.toISOString()),
    required: true,
  });
  const form = h(
    'form',
    { class: 'as-of-form' },
    h('label', { for: 'as-of' }, 'Show the item as it was at (UTC)'),
    input,
    h('button', { type: 'submit', class: 'primary' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const iso = fromLocalInput(input.value);
    if (iso !== '')
      window.location.hash = `#/item/${encodeURIComponent(stream)}/as-of/${encodeURIComponent(toSecond(iso))}`;
  });
  document.title = `${KIND_NAMES[kind]} ${id} as it was · Audit log`;
  const heading = h('h2', {}, `${KIND_NAMES[kind]} ${id} at a moment`);
  if (moment === '' || Number.isNaN(moment.getTime())) {
    replace(context.main, heading, itemLinks(stream), form);
    return;
  }
  const iso = toSecond(moment.toISOString());
  const now = await get(`core/v2/${kind}/${id}`, { context: 'edit' }).then(({ body }) => body);
  let then;
  try {
    then = (await get(`core/v2/${kind}/${id}`, { context: 'edit', as_of: iso })).body;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    replace(
      context.main,
      heading,
      itemLinks(stream),
      form,
      h('p', { class: 'alert', role: 'alert' }, `The item did not exist at ${showTime(iso)}.`),
    );
    return;
  }
  const rows = STATE_FIELDS.filter((field) => field in then || field in now).map((field) => {
    const past = fieldValue(then, field);
    const present = fieldValue(now, field);
    const changed = JSON.stringify(past) !== JSON.stringify(present);
    return h(
      'tr',
      { class: changed ? 'changed' : null, 'data-field': field },
      h('th', { scope: 'row' }, field, changed ? h('span', { class: 'since' }, ' changed since') : null),
      h('td', {}, h('div', { class: 'value' }, showValue(past))),
      h('td', {}, h('div', { class: 'value' }, showValue(present))),
    );
  });
  replace(
    context.main,
    heading,
    itemLinks(stream),
    form,
    h('p', { class: 'as-of-banner', role: 'status' }, `As of ${showTime(iso)}`),
    h(
      'table',
      { class: 'state' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Field'),
          h('th', { scope: 'col' }, `At ${showTime(iso)}`),
          h('th', { scope: 'col' }, 'Now'),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
