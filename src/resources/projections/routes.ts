/**
 * `/projections/v1/{name}` and `/projections/v1/{name}/{id}` (an extension to WordPress, see
 * docs/projections.md): the documents of each custom projection, read-only, for administrators. One pair of
 * routes per installed projection, so the index lists exactly what is installed.
 */
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { restError } from '../../rest/errors';
import { assertPageInRange, collectionResult, linkQuery, readModelOffset } from '../../rest/collection';
import { ok } from '../../rest/route';
import type { PermissionRule, RouteDefinition } from '../../rest/route';
import type { Projection } from '../../projection/projection';
import type { ArgSchema } from '../../rest/args/schema';
import { collectionParams } from '../../rest/collectionParams';
import builtInProjections from '../../../projections/index';

/** The projections the site runs beyond the built-in ones (which have their own REST routes). */
export const customProjections = (site: Site): Projection[] =>
  site.projector.projections.filter((p) => !builtInProjections.includes(p));

const administrators: PermissionRule = (ctx) => hasCap(ctx.actor, 'manage_options');

export function projectionRoutes(site: Site, projections: readonly Projection[]): RouteDefinition[] {
  return projections.flatMap((projection): RouteDefinition[] => {
    const base = `/projections/v1/${projection.name}`;
    const collection: ArgSchema = {
      description: "Which of the projection's collections to read.",
      type: 'string',
      enum: [...projection.collections],
      default: projection.collections[0],
    };
    return [
      {
        namespace: 'projections/v1',
        path: base,
        endpoints: [
          {
            methods: ['GET'],
            args: {
              collection,
              ...collectionParams({ noun: 'documents' }),
              orderby: {
                description: "A sort key the projection's index declares, or id.",
                type: 'string',
                default: 'id',
                pattern: '^[A-Za-z0-9_]+$',
              },
              order: { description: 'Sort direction.', type: 'string', default: 'asc', enum: ['asc', 'desc'] },
            },
            permission: administrators,
            handle: async (ctx) => {
              const p = ctx.params as {
                collection: string;
                page: number;
                per_page: number;
                orderby: string;
                order: 'asc' | 'desc';
              };
              const { items, total } = await site.readModel.query(p.collection, {
                filters: [],
                order: { kind: 'field', field: p.orderby, direction: p.order },
                // Page 0 (`page=1e400`, as PHP casts it) is the first, as for the item lists.
                offset: readModelOffset((Math.max(p.page, 1) - 1) * p.per_page),
                limit: p.per_page,
              });
              assertPageInRange({ total, page: p.page, perPage: p.per_page }, 'rest_invalid_page_number');
              return collectionResult(
                items,
                { total, page: p.page, perPage: p.per_page },
                `${site.apiRoot}${base.slice(1)}`,
                linkQuery(ctx),
              );
            },
          },
        ],
      },
      {
        namespace: 'projections/v1',
        path: `${base}/(?P<id>[^/]+)`,
        endpoints: [
          {
            methods: ['GET'],
            args: { id: { description: 'Identifier of the document.', type: 'string' }, collection },
            permission: administrators,
            handle: async (ctx) => {
              const id = String(ctx.params.id);
              const name = ctx.params.collection as string;
              // Ids are numbers or strings in the read model; a numeric-looking id is tried as a number first.
              const asNumber = /^-?\d+$/.test(id) ? await site.readModel.get(name, Number(id)) : null;
              const doc = asNumber ?? (await site.readModel.get(name, id));
              if (!doc) throw restError('rest_projection_invalid_id', 'Invalid document ID.', 404);
              return ok(doc);
            },
          },
        ],
      },
    ];
  });
}
