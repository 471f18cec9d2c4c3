/**
 * `GET /audit/v1/events` (an extension to WordPress, see docs/history.md): the global event log for
 * administrators, newest first, filtered by user, event type, stream, request and time, paged by a
 * position cursor (`Link: rel="next"`). `GET /audit/v1/stream` (docs/audit.md): the same log with the same
 * filters as a live Server-Sent Events feed, resumable by position (src/resources/audit/stream.ts).
 */
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { restError } from '../../rest/errors';
import { PositionNotInLogError } from '../../ports/eventStore';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { ArgSchema } from '../../rest/args/schema';
import { ok, uncacheable } from '../../rest/route';
import { boundedLink } from '../../rest/collection';
import type { ResourceSchema } from '../../rest/schema';
import { parseRestDate } from '../../text/dates';
import { auditEntry, readAuditPage } from './log';
import type { AuditFilter } from './log';
import { AuditStreams, DEFAULT_AUDIT_STREAM_LIMITS } from './stream';

/** The filters both routes take. */
const FILTER_ARGS: Record<string, ArgSchema> = {
  user: {
    description: 'Only events by these users (0: the system).',
    type: 'array',
    items: { type: 'integer' },
    default: [],
  },
  type: { description: 'Only events of these types.', type: 'array', items: { type: 'string' }, default: [] },
  stream: { description: 'Only events of streams whose name starts with this (content-12, user-).', type: 'string' },
  request_id: { description: 'Only events appended while serving this request.', type: 'string' },
  after: {
    description: 'Only events after this date-time (site time zone unless an offset is given).',
    type: 'string',
    format: 'date-time',
  },
  before: {
    description: 'Only events before this date-time (site time zone unless an offset is given).',
    type: 'string',
    format: 'date-time',
  },
};

/** The headers of a feed: never cached nor transformed (compressed) on the way, nor buffered by a proxy. */
const FEED_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

const ALL = ['view', 'edit', 'embed'];

export const auditEntrySchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'audit-event',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier of the event.', type: 'string', context: ALL, readonly: true },
    position: {
      description: 'Position in the global log; the paging cursor.',
      type: 'integer',
      context: ALL,
      readonly: true,
    },
    stream: {
      description: 'The stream the event belongs to, e.g. content-12.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    revision: {
      description: '0-based index of the event in its stream.',
      type: 'integer',
      context: ALL,
      readonly: true,
    },
    type: { description: 'Event type.', type: 'string', context: ALL, readonly: true },
    time: {
      description: 'When it happened, ISO 8601 UTC.',
      type: 'string',
      format: 'date-time',
      context: ALL,
      readonly: true,
    },
    user: {
      description: 'Identifier of the acting user; null for the system.',
      type: ['integer', 'null'],
      context: ALL,
      readonly: true,
    },
    request_id: {
      description: 'Identifier of the request or command that appended it.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    data: {
      description: 'The event data, with secrets (password hashes) redacted.',
      type: 'object',
      context: ALL,
      readonly: true,
    },
  },
} as ResourceSchema;

export function auditRoutes(site: Site): RouteDefinition[] {
  const date = (value: unknown, param: string): number | undefined => {
    if (value === undefined) return undefined;
    const ms = parseRestDate(String(value), site.settings.timezone);
    if (ms === null)
      throw restError('rest_invalid_param', `Invalid parameter(s): ${param}`, 400, {
        params: { [param]: 'Invalid date.' },
      });
    return ms;
  };
  const filterOf = (p: HandlerContext['params']): AuditFilter => ({
    users: p.user as number[],
    types: p.type as string[],
    streamPrefix: typeof p.stream === 'string' && p.stream !== '' ? p.stream : undefined,
    requestId: typeof p.request_id === 'string' && p.request_id !== '' ? p.request_id : undefined,
    after: date(p.after, 'after'),
    before: date(p.before, 'before'),
  });
  const streams = new AuditStreams(site.store, {
    heartbeatMs: site.settings.auditStreamHeartbeatMs ?? DEFAULT_AUDIT_STREAM_LIMITS.heartbeatMs,
    perUser: site.settings.auditStreamsPerUser ?? DEFAULT_AUDIT_STREAM_LIMITS.perUser,
    total: site.settings.auditStreamsTotal ?? DEFAULT_AUDIT_STREAM_LIMITS.total,
  });
  return [
    {
      namespace: 'audit/v1',
      path: '/audit/v1/events',
      schema: auditEntrySchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            per_page: {
              description: 'Most events to return in one page.',
              type: 'integer',
              default: 10,
              minimum: 1,
              maximum: 100,
            },
            order: {
              description: 'Newest first (desc) or oldest first (asc).',
              type: 'string',
              default: 'desc',
              enum: ['asc', 'desc'],
            },
            before_position: {
              description: 'Cursor for newest-first pages: only events below this log position.',
              type: 'integer',
              minimum: 1,
            },
            after_position: {
              description: 'Cursor for oldest-first pages: only events above this log position.',
              type: 'integer',
              minimum: 0,
            },
            ...FILTER_ARGS,
          },
          permission: (ctx) => hasCap(ctx.actor, 'manage_options'),
          handle: async (ctx) => {
            const p = ctx.params;
            const order = p.order as 'asc' | 'desc';
            const filter = filterOf(p);
            const cursorParam = order === 'desc' ? 'before_position' : 'after_position';
            const cursor = typeof p[cursorParam] === 'number' ? (p[cursorParam] as number) : undefined;
            let page: Awaited<ReturnType<typeof readAuditPage>>;
            try {
              page = await readAuditPage(site.store, { filter, order, cursor, perPage: p.per_page as number });
            } catch (error) {
              // A cursor the log never gave out (EventStoreDB's positions are byte offsets; most numbers name no event).
              if (!(error instanceof PositionNotInLogError)) throw error;
              const message = `${cursorParam} is not a position of the log.`;
              throw restError('rest_invalid_param', `Invalid parameter(s): ${cursorParam}`, 400, {
                params: { [cursorParam]: message },
              });
            }
            const headers: Record<string, string> = {};
            if (page.next !== null) {
              const query = new URLSearchParams();
              for (const [key, value] of Object.entries(ctx.request.query)) {
                if (key === 'before_position' || key === 'after_position') continue;
                if (Array.isArray(value))
                  value.forEach((v, i) => {
                    query.append(`${key}[${i}]`, String(v));
                  });
                else query.append(key, String(value ?? ''));
              }
              query.set(cursorParam, String(page.next));
              const link = boundedLink(`<${site.apiRoot}audit/v1/events?${query.toString()}>; rel="next"`);
              if (link !== null) headers.Link = link;
            }
            return ok(page.events.map(auditEntry), headers);
          },
        },
      ],
    },
    {
      namespace: 'audit/v1',
      path: '/audit/v1/stream',
      schema: auditEntrySchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            after_position: {
              description:
                'Start after this log position (0: the whole log); the Last-Event-ID header wins over it. Absent: only events appended from now on.',
              type: 'integer',
              minimum: 0,
            },
            last_event_id: {
              description: 'The same as after_position, for clients that cannot send a Last-Event-ID header.',
              type: 'integer',
              minimum: 0,
            },
            follow: {
              description: 'False: end the feed once it has reached the end of the log, instead of following it.',
              type: 'boolean',
              default: true,
            },
            ...FILTER_ARGS,
          },
          permission: (ctx) => hasCap(ctx.actor, 'manage_options'),
          handle: async (ctx) => {
            const p = ctx.params;
            const filter = filterOf(p);
            const head = await site.store.headPosition();
            const header = ctx.request.headers['last-event-id'];
            let after: number;
            let param = 'after_position';
            if (header !== undefined) {
              param = 'Last-Event-ID';
              const value = Array.isArray(header) ? header.join(',') : header.trim();
              if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
                throw restError('rest_invalid_param', 'Invalid parameter(s): Last-Event-ID', 400, {
                  params: { 'Last-Event-ID': 'Last-Event-ID is not a log position (a whole number, 0 or more).' },
                });
              }
              after = Number(value);
            } else if (typeof p.last_event_id === 'number') {
              param = 'last_event_id';
              after = p.last_event_id;
            } else after = typeof p.after_position === 'number' ? p.after_position : head;
            if (after > head) {
              throw restError('rest_invalid_param', `Invalid parameter(s): ${param}`, 400, {
                params: { [param]: `${param} is beyond the end of the log (${head}).` },
              });
            }
            const feed = streams.openFeed({ userId: ctx.actor!.id, filter, after, follow: p.follow as boolean });
            if (feed === 'per_user')
              throw restError(
                'rest_too_many_streams',
                `No more than ${streams.limits.perUser} audit streams may be open at once for one user.`,
                429,
              );
            if (feed === 'total')
              throw restError(
                'rest_too_many_streams',
                'Too many audit streams are open on this server; try again later.',
                429,
              );
            return uncacheable({ status: 200, body: null, headers: { ...FEED_HEADERS }, stream: feed });
          },
        },
      ],
    },
  ];
}
