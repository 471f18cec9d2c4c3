/**
 * `GET /audit/v1/events` (an extension to WordPress, see docs/history.md): the global event log for
 * administrators, newest first, filtered by user, event type, stream, request and time, paged by a
 * position cursor (`Link: rel="next"`).
 */
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { restError } from '../../rest/errors';
import { PositionNotInLogError } from '../../ports/eventStore';
import type { RouteDefinition } from '../../rest/route';
import { ok } from '../../rest/route';
import { boundedLink } from '../../rest/collection';
import type { ResourceSchema } from '../../rest/schema';
import { parseRestDate } from '../../text/dates';
import { auditEntry, readAuditPage } from './log';
import type { AuditFilter } from './log';

const ALL = ['view', 'edit', 'embed'];

export const auditEntrySchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'audit-event',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier of the event.', type: 'string', context: ALL, readonly: true },
    position: { description: 'Position in the global log; the paging cursor.', type: 'integer', context: ALL, readonly: true },
    stream: { description: 'The stream the event belongs to, e.g. content-12.', type: 'string', context: ALL, readonly: true },
    revision: { description: '0-based index of the event in its stream.', type: 'integer', context: ALL, readonly: true },
    type: { description: 'Event type.', type: 'string', context: ALL, readonly: true },
    time: { description: 'When it happened, ISO 8601 UTC.', type: 'string', format: 'date-time', context: ALL, readonly: true },
    user: { description: 'Identifier of the acting user; null for the system.', type: ['integer', 'null'], context: ALL, readonly: true },
    request_id: { description: 'Identifier of the request or command that appended it.', type: 'string', context: ALL, readonly: true },
    data: { description: 'The event data, with secrets (password hashes) redacted.', type: 'object', context: ALL, readonly: true },
  },
} as ResourceSchema;

export function auditRoutes(site: Site): RouteDefinition[] {
  const date = (value: unknown, param: string): number | undefined => {
    if (value === undefined) return undefined;
    const ms = parseRestDate(String(value), site.settings.timezone);
    if (ms === null) throw restError('rest_invalid_param', `Invalid parameter(s): ${param}`, 400, { params: { [param]: 'Invalid date.' } });
    return ms;
  };
  return [
    {
      namespace: 'audit/v1',
      path: '/audit/v1/events',
      schema: auditEntrySchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            per_page: { description: 'Most events to return in one page.', type: 'integer', default: 10, minimum: 1, maximum: 100 },
            order: { description: 'Newest first (desc) or oldest first (asc).', type: 'string', default: 'desc', enum: ['asc', 'desc'] },
            before_position: { description: 'Cursor for newest-first pages: only events below this log position.', type: 'integer', minimum: 1 },
            after_position: { description: 'Cursor for oldest-first pages: only events above this log position.', type: 'integer', minimum: 0 },
            user: { description: 'Only events by these users (0: the system).', type: 'array', items: { type: 'integer' }, default: [] },
            type: { description: 'Only events of these types.', type: 'array', items: { type: 'string' }, default: [] },
            stream: { description: 'Only events of streams whose name starts with this (content-12, user-).', type: 'string' },
            request_id: { description: 'Only events appended while serving this request.', type: 'string' },
            after: { description: 'Only events after this date-time (site time zone unless an offset is given).', type: 'string', format: 'date-time' },
            before: { description: 'Only events before this date-time (site time zone unless an offset is given).', type: 'string', format: 'date-time' },
          },
          permission: (ctx) => hasCap(ctx.actor, 'manage_options'),
          handle: async (ctx) => {
            const p = ctx.params;
            const order = p.order as 'asc' | 'desc';
            const filter: AuditFilter = {
              users: p.user as number[],
              types: p.type as string[],
              streamPrefix: typeof p.stream === 'string' && p.stream !== '' ? p.stream : undefined,
              requestId: typeof p.request_id === 'string' && p.request_id !== '' ? p.request_id : undefined,
              after: date(p.after, 'after'),
              before: date(p.before, 'before'),
            };
            const cursorParam = order === 'desc' ? 'before_position' : 'after_position';
            const cursor = typeof p[cursorParam] === 'number' ? (p[cursorParam] as number) : undefined;
            let page: Awaited<ReturnType<typeof readAuditPage>>;
            try {
              page = await readAuditPage(site.store, { filter, order, cursor, perPage: p.per_page as number });
            } catch (error) {
              // A cursor the log never gave out (EventStoreDB's positions are byte offsets; most numbers name no event).
              if (!(error instanceof PositionNotInLogError)) throw error;
              const message = `${cursorParam} is not a position of the log.`;
              throw restError('rest_invalid_param', `Invalid parameter(s): ${cursorParam}`, 400, { params: { [cursorParam]: message } });
            }
            const headers: Record<string, string> = {};
            if (page.next !== null) {
              const query = new URLSearchParams();
              for (const [key, value] of Object.entries(ctx.request.query)) {
                if (key === 'before_position' || key === 'after_position') continue;
                if (Array.isArray(value)) value.forEach((v, i) => { query.append(`${key}[${i}]`, String(v)); });
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
  ];
}
