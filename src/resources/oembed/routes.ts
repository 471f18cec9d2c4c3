/**
 * `/oembed/1.0/embed` and `/oembed/1.0/proxy`, as WordPress 6.1 serves them. `embed` is public and answers for
 * this site's publicly viewable items only; `proxy` (for editors: edit_posts) answers local URLs the same way
 * and asks other sites through the HttpFetcher port (the allow-listed providers, or discovery).
 */
import { randomBytes } from 'node:crypto';
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { authorizationStatus, restError } from '../../rest/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, RestResult, RouteDefinition } from '../../rest/route';
import { rawBody } from '../../rest/serialized';
import { embedData, localItemFor, toXml } from './local';
import type { RemoteEmbeds } from './remote';

const URL_ARG = {
  description: 'The URL of the resource for which to fetch oEmbed data.',
  type: 'string',
  format: 'uri',
  required: true,
} as const;

const notFound = () => restError('oembed_invalid_url', 'Not Found', 404);

/** A random secret of ten letters and digits for the frame and its fallback link. */
function frameSecret(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The data as JSON, or as XML when asked (anything else falls back to JSON, as in WordPress). */
function answer(data: Record<string, unknown>, format: unknown): RestResult {
  if (format === 'xml')
    return { status: 200, body: rawBody(toXml(data)), headers: { 'Content-Type': 'text/xml; charset=UTF-8' } };
  return ok(data);
}

/** A width or height as WordPress reads it (absint); undefined when not given. */
function pixels(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Math.floor(Math.abs(Number(value)));
  return Number.isFinite(n) ? n : 0;
}

export function oembedRoutes(site: Site, remote: RemoteEmbeds): RouteDefinition[] {
  const local = async (ctx: HandlerContext, url: string): Promise<RestResult | null> => {
    const doc = await localItemFor(site, url);
    if (!doc) return null;
    return answer({ ...(await embedData(site, doc, pixels(ctx.params.maxwidth), frameSecret())) }, ctx.params.format);
  };
  return [
    {
      namespace: 'oembed/1.0',
      path: '/oembed/1.0/embed',
      endpoints: [
        {
          methods: ['GET'],
          args: { url: URL_ARG, format: { default: 'json' }, maxwidth: { default: 600 } },
          permission: () => true,
          handle: async (ctx) => (await local(ctx, String(ctx.params.url))) ?? Promise.reject(notFound()),
        },
      ],
    },
    {
      namespace: 'oembed/1.0',
      path: '/oembed/1.0/proxy',
      endpoints: [
        {
          methods: ['GET'],
          args: {
            url: URL_ARG,
            format: {
              description: 'The oEmbed format to use.',
              type: 'string',
              default: 'json',
              enum: ['json', 'xml'],
            },
            // Described as integers, but WordPress only sanitizes them (absint), so any value is taken.
            maxwidth: {
              description: 'The maximum width of the embed frame in pixels.',
              type: 'integer',
              default: 600,
              accepts: {},
            },
            maxheight: {
              description: 'The maximum height of the embed frame in pixels.',
              type: 'integer',
              accepts: {},
            },
            discover: {
              description: 'Whether to perform an oEmbed discovery request for unsanctioned providers.',
              type: 'boolean',
              default: true,
            },
          },
          permission: (ctx) =>
            hasCap(ctx.actor, 'edit_posts') ||
            restError(
              'rest_forbidden',
              'Sorry, you are not allowed to make proxied oEmbed requests.',
              authorizationStatus(ctx.actor?.id ?? null),
            ),
          handle: async (ctx) => {
            const url = String(ctx.params.url);
            const own = await local(ctx, url);
            if (own) return own;
            const data = await remote.lookup({
              url,
              maxwidth: pixels(ctx.params.maxwidth),
              maxheight: pixels(ctx.params.maxheight),
              discover: ctx.params.discover !== false,
            });
            if (!data) throw notFound();
            return answer(data, ctx.params.format);
          },
        },
      ],
    },
  ];
}
