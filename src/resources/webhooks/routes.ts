/**
 * `hooks/v1` (an extension to WordPress, docs/webhooks.md): webhooks for administrators (`manage_options`). A webhook
 * is a receiver URL and what it subscribes to (event types or `*`, stream prefixes); the event log is delivered to it
 * from a chosen position, signed as Standard Webhooks describes, by src/webhooks/deliverer.ts. Its secret is in the
 * creation's answer only. Deliveries are listed per webhook, and a dead-lettered one can be sent again.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { hasCap } from '../../access/capabilities';
import { SchemaIssue } from '../../rest/args/schema';
import type { ArgSchema } from '../../rest/args/schema';
import { ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import { argsFromSchema } from '../../rest/schema';
import type { ResourceSchema } from '../../rest/schema';
import type { Webhook, WebhookChanges } from '../../webhooks/decider';
import { refusedWebhookUrl } from '../../webhooks/destination';
import { EVENT_TYPES } from '../../webhooks/eventTypes';
import type { AllowedHost } from '../../adapters/http/destinations';
import {
  createWebhook,
  deleteWebhook,
  deliveredPosition,
  listDeliveries,
  listWebhooks,
  readWebhook,
  redeliver,
  updateWebhook,
} from './operations';

export const WEBHOOK_NAMESPACE = 'hooks/v1';
const BASE = `/${WEBHOOK_NAMESPACE}/webhooks`;
const ITEM = `${BASE}/(?P<id>[\\d]+)`;
const ALL = ['view', 'edit', 'embed'];

const STREAM_PREFIX = '^[a-z0-9][a-z0-9_-]*$';

function webhookSchema(): ResourceSchema {
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'webhook',
    type: 'object',
    properties: {
      id: { description: 'Unique identifier of the webhook.', type: 'integer', context: ALL, readonly: true },
      url: {
        description:
          'Where deliveries are POSTed: an http(s) URL at a public address, or a host WEBHOOK_ALLOWED_HOSTS allows.',
        type: 'string',
        format: 'uri',
        maxLength: 2048,
        context: ALL,
        required: true,
      },
      events: {
        description: 'The event types delivered (docs/events.md), or "*" for every one.',
        type: 'array',
        items: { type: 'string', pattern: '^(\\*|[A-Z][A-Za-z]{1,63})$' },
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        default: ['*'],
        context: ALL,
      },
      streams: {
        description:
          'Only events of streams whose name starts with one of these (content-, attachment-12); empty: every stream.',
        type: 'array',
        items: { type: 'string', pattern: STREAM_PREFIX, maxLength: 200 },
        maxItems: 100,
        uniqueItems: true,
        default: [],
        context: ALL,
      },
      description: {
        description: 'What the webhook is for, for people.',
        type: 'string',
        maxLength: 1000,
        default: '',
        context: ALL,
      },
      active: { description: 'Whether events are delivered.', type: 'boolean', default: true, context: ALL },
      from_position: {
        description:
          'Deliveries start after this log position (0: the whole log); the head of the log when not given. Set at creation only.',
        type: 'integer',
        minimum: 0,
        context: ALL,
      },
      delivered_position: {
        description: 'Every event the webhook takes up to this log position was delivered.',
        type: 'integer',
        context: ALL,
        readonly: true,
      },
      disabled_reason: {
        description: 'Why deliveries stopped by themselves ("dead_letter"); null otherwise.',
        type: ['string', 'null'],
        context: ALL,
        readonly: true,
      },
      dead_letter: {
        description: 'The delivery that was dead-lettered, while the webhook is stopped by it.',
        type: ['string', 'null'],
        context: ALL,
        readonly: true,
      },
      created: {
        description: 'When the webhook was made, ISO 8601 UTC.',
        type: 'string',
        format: 'date-time',
        context: ALL,
        readonly: true,
      },
      modified: {
        description: 'When it was last changed, ISO 8601 UTC.',
        type: 'string',
        format: 'date-time',
        context: ALL,
        readonly: true,
      },
      secret: {
        description: 'The signing secret (whsec_…): in the answer to the creation only.',
        type: 'string',
        context: ['edit'],
        readonly: true,
      },
    },
  } as ResourceSchema;
}

/** The write args, with the checks the schema cannot say: known event types, and a destination that may be reached. */
function writeArgs(
  schema: ResourceSchema,
  kind: 'create' | 'update',
  allowedHosts: readonly AllowedHost[],
): Record<string, ArgSchema> {
  const args = argsFromSchema(schema, kind);
  args.url = {
    ...args.url,
    validate: (value) => {
      const refusal = refusedWebhookUrl(String(value), allowedHosts);
      return refusal === null ? true : new SchemaIssue('rest_webhook_url_not_allowed', refusal);
    },
  };
  args.events = {
    ...args.events,
    validate: (value) => {
      const unknown = (value as string[]).filter((type) => type !== '*' && !EVENT_TYPES.has(type));
      return unknown.length === 0
        ? true
        : new SchemaIssue('rest_invalid_param', `events has unknown event types: ${unknown.join(', ')}.`);
    },
  };
  if (kind === 'update') delete args.from_position;
  return args;
}

const itemId = (ctx: HandlerContext): number => Number(ctx.params.id);
const manageOptions = (ctx: HandlerContext) => hasCap(ctx.actor, 'manage_options');

export function webhookRoutes(site: Site): RouteDefinition[] {
  const allowedHosts = site.settings.webhooks?.allowedHosts ?? [];
  const schema = webhookSchema();
  const link = (path: string) => `${site.apiRoot}${WEBHOOK_NAMESPACE}/webhooks${path}`;
  const present = async (webhook: Webhook, secret?: string) => ({
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    streams: webhook.streams,
    description: webhook.description,
    active: webhook.active,
    from_position: webhook.fromPosition,
    delivered_position: await deliveredPosition(site, webhook),
    disabled_reason: webhook.disabledReason,
    dead_letter: webhook.deadLetter,
    created: webhook.created,
    modified: webhook.modified,
    ...(secret === undefined ? {} : { secret }),
    _links: {
      self: [{ href: link(`/${webhook.id}`) }],
      collection: [{ href: link('') }],
      deliveries: [{ href: link(`/${webhook.id}/deliveries`) }],
    },
  });
  const idArg: ArgSchema = { description: 'Unique identifier of the webhook.', type: 'integer' };

  return [
    {
      namespace: WEBHOOK_NAMESPACE,
      path: BASE,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: manageOptions,
          handle: async () => ok(await Promise.all((await listWebhooks(site)).map((webhook) => present(webhook)))),
        },
        {
          methods: ['POST'],
          args: writeArgs(schema, 'create', allowedHosts),
          permission: manageOptions,
          signedInOnly: true,
          answersSecret: true,
          handle: async (ctx) => {
            const p = ctx.params;
            const webhook = await createWebhook(
              site,
              {
                subscription: {
                  url: String(p.url),
                  events: p.events as string[],
                  streams: p.streams as string[],
                  description: String(p.description),
                },
                active: p.active as boolean,
                fromPosition: typeof p.from_position === 'number' ? p.from_position : undefined,
              },
              ctx.actor as Actor,
              ctx.request.requestId,
            );
            const body = await present(webhook, webhook.secret);
            return { status: 201, body, headers: { Location: link(`/${webhook.id}`) } };
          },
        },
      ],
    },
    {
      namespace: WEBHOOK_NAMESPACE,
      path: ITEM,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: { id: idArg },
          permission: manageOptions,
          handle: async (ctx) => ok(await present(await readWebhook(site, itemId(ctx)))),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { id: idArg, ...writeArgs(schema, 'update', allowedHosts) },
          permission: manageOptions,
          signedInOnly: true,
          handle: async (ctx) => {
            const p = ctx.params;
            const changes: WebhookChanges = {};
            if (p.url !== undefined) changes.url = String(p.url);
            if (p.events !== undefined) changes.events = p.events as string[];
            if (p.streams !== undefined) changes.streams = p.streams as string[];
            if (p.description !== undefined) changes.description = String(p.description);
            if (p.active !== undefined) changes.active = p.active as boolean;
            return ok(
              await present(await updateWebhook(site, itemId(ctx), changes, ctx.actor as Actor, ctx.request.requestId)),
            );
          },
        },
        {
          methods: ['DELETE'],
          args: { id: idArg },
          permission: manageOptions,
          signedInOnly: true,
          handle: async (ctx) => {
            const previous = await present(await readWebhook(site, itemId(ctx)));
            await deleteWebhook(site, itemId(ctx), ctx.actor as Actor, ctx.request.requestId);
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
    {
      namespace: WEBHOOK_NAMESPACE,
      path: `${ITEM}/deliveries`,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            id: idArg,
            page: {
              description: 'Current page of the collection.',
              type: 'integer',
              default: 1,
              minimum: 1,
              maximum: 1000,
            },
            per_page: {
              description: 'Maximum number of deliveries to be returned in result set.',
              type: 'integer',
              default: 10,
              minimum: 1,
              maximum: 100,
            },
          },
          permission: manageOptions,
          handle: async (ctx) => {
            const webhook = await readWebhook(site, itemId(ctx));
            const page = ctx.params.page as number;
            const { deliveries, next } = await listDeliveries(site, webhook.id, page, ctx.params.per_page as number);
            const headers: Record<string, string> = {};
            if (next)
              headers.Link = `<${link(`/${webhook.id}/deliveries?page=${page + 1}&per_page=${String(ctx.params.per_page)}`)}>; rel="next"`;
            return ok(deliveries, headers);
          },
        },
      ],
    },
    {
      namespace: WEBHOOK_NAMESPACE,
      path: `${ITEM}/deliveries/(?P<delivery>msg_[\\w-]{1,64})/redeliver`,
      endpoints: [
        {
          methods: ['POST'],
          args: {
            id: idArg,
            delivery: { description: 'The dead-lettered delivery (its webhook-id).', type: 'string' },
          },
          permission: manageOptions,
          signedInOnly: true,
          handle: async (ctx) => {
            const id = itemId(ctx);
            await readWebhook(site, id);
            const webhook = await redeliver(
              site,
              id,
              String(ctx.params.delivery),
              ctx.actor as Actor,
              ctx.request.requestId,
            );
            return { status: 202, body: await present(webhook) };
          },
        },
      ],
    },
  ];
}
