/**
 * `/core/v2/settings`: the site settings, read and changed by administrators only (`manage_options`); everyone
 * else gets WordPress's generic refusal (401 anonymous, 403 signed in).
 */
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { ok } from '../../rest/route';
import type { PermissionRule, RouteDefinition } from '../../rest/route';
import { changeSettings, readSettings } from './operations';
import { settingsSchema, settingsUpdateArgs } from './schema';

const administrators: PermissionRule = (ctx) => hasCap(ctx.actor, 'manage_options');

export function settingsRoutes(site: Site): RouteDefinition[] {
  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/settings',
      schema: settingsSchema,
      endpoints: [
        {
          // WordPress registers no arguments here, not even `context`.
          methods: ['GET'],
          args: {},
          permission: administrators,
          signedInOnly: true,
          handle: async () => ok(await readSettings(site)),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: settingsUpdateArgs(),
          permission: administrators,
          signedInOnly: true,
          handle: async (ctx) => {
            const outcome = await changeSettings(site, ctx.params, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(outcome.settings);
          },
        },
      ],
    },
  ];
}
