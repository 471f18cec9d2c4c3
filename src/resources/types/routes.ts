/**
 * `/core/v2/types`, `/core/v2/statuses` and `/core/v2/taxonomies` (in the index's order) (each a list keyed by slug, and one item):
 * what clients read to learn the site's post types, taxonomies and statuses. Read-only; what is listed is
 * derived from the site's own routes (registry.ts), so it always matches what the site serves.
 */
import type { Actor } from '../../access/capabilities';
import { hasCap } from '../../access/capabilities';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import type { ArgSchema } from '../../rest/args/schema';
import { contextParam } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { allowEveryone, ok } from '../../rest/route';
import type { Endpoint, HandlerContext, PermissionRule, RouteDefinition } from '../../rest/route';
import { NAMESPACE, canEditSomeType, canReadStatus, deriveRegistry } from './registry';
import type { Registry, ServedTaxonomy, ServedType } from './registry';
import { presentStatus, presentTaxonomy, presentType } from './present';
import { statusSchema, taxonomySchema, typeSchema } from './schema';

const refusal = (actor: Actor | null, code: string, message: string): RestError =>
  restError(code, message, authorizationStatus(actor?.id ?? null));
const canEditType = (actor: Actor | null, type: ServedType) => hasCap(actor, type.capabilities.edit_posts!);
const canAssignTerms = (actor: Actor | null, taxonomy: ServedTaxonomy) => hasCap(actor, taxonomy.assignCapability);
const contextOf = (ctx: HandlerContext) => ctx.params.context as Context;
const isEdit = (ctx: HandlerContext) => ctx.params.context === 'edit';

const TYPE_EDIT_REFUSED = 'Sorry, you are not allowed to edit posts in this post type.';
const TAXONOMY_EDIT_REFUSED = 'Sorry, you are not allowed to manage terms in this taxonomy.';

/** `routes` is read on first use: the registry is derived from every route, these included. */
export function typeRoutes(routes: () => readonly RouteDefinition[], apiRoot: string): RouteDefinition[] {
  let derived: Registry | null = null;
  const registry = () => (derived ??= deriveRegistry(routes()));
  const get = (
    args: Record<string, ArgSchema>,
    permission: PermissionRule,
    handle: (ctx: HandlerContext) => unknown,
  ): Endpoint => ({
    methods: ['GET'],
    args,
    cacheable: true,
    permission,
    handle: (ctx: HandlerContext) => ok(handle(ctx)),
  });
  /** The taxonomies of the `type` asked for (an empty one asks for none in particular), or all of them. */
  const ofType = (ctx: HandlerContext) => {
    const type = typeof ctx.params.type === 'string' && ctx.params.type !== '' ? ctx.params.type : null;
    return registry().taxonomies.filter((t) => type === null || t.types.includes(type));
  };
  const keyed = <T extends { slug: string }>(items: readonly T[], present: (item: T) => Record<string, unknown>) =>
    Object.fromEntries(items.map((item) => [item.slug, present(item)]));

  return [
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/types`,
      schema: typeSchema,
      endpoints: [
        get(
          { context: contextParam('view', typeSchema) },
          (ctx) =>
            !isEdit(ctx) ||
            canEditSomeType(registry(), ctx.actor) ||
            refusal(ctx.actor, 'rest_cannot_view', TYPE_EDIT_REFUSED),
          // The edit context lists only the types the caller may edit.
          (ctx) =>
            keyed(
              registry().types.filter((type) => !isEdit(ctx) || canEditType(ctx.actor, type)),
              (type) => presentType(type, contextOf(ctx), apiRoot),
            ),
        ),
      ],
    },
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/types/(?P<type>[\\w-]+)`,
      schema: typeSchema,
      endpoints: [
        get(
          {
            type: { description: 'Identifier of the post type.', type: 'string' },
            context: contextParam('view', typeSchema),
          },
          allowEveryone,
          (ctx) => {
            const slug = String(ctx.params.type);
            const type = registry().types.find((t) => t.slug === slug);
            if (!type) {
              if (registry().hiddenTypes.includes(slug))
                throw refusal(ctx.actor, 'rest_cannot_read_type', 'Cannot view post type.');
              throw restError('rest_type_invalid', 'Invalid post type.', 404);
            }
            if (isEdit(ctx) && !canEditType(ctx.actor, type))
              throw refusal(ctx.actor, 'rest_forbidden_context', TYPE_EDIT_REFUSED);
            return presentType(type, contextOf(ctx), apiRoot);
          },
        ),
      ],
    },
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/statuses`,
      schema: statusSchema,
      endpoints: [
        get(
          { context: contextParam('view', statusSchema) },
          (ctx) =>
            !isEdit(ctx) ||
            canEditSomeType(registry(), ctx.actor) ||
            refusal(ctx.actor, 'rest_cannot_view', 'Sorry, you are not allowed to manage post statuses.'),
          (ctx) =>
            keyed(
              registry().statuses.filter((status) => !status.internal && canReadStatus(registry(), ctx.actor, status)),
              (status) => presentStatus(status, contextOf(ctx), apiRoot),
            ),
        ),
      ],
    },
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/statuses/(?P<status>[\\w-]+)`,
      schema: statusSchema,
      endpoints: [
        get(
          {
            status: { description: 'Identifier of the status.', type: 'string' },
            context: contextParam('view', statusSchema),
          },
          (ctx) => {
            const status = registry().statuses.find((s) => s.slug === ctx.params.status);
            if (!status) return restError('rest_status_invalid', 'Invalid status.', 404);
            // Unlike the list, one status in the edit context takes no more than seeing it.
            return (
              canReadStatus(registry(), ctx.actor, status) ||
              refusal(ctx.actor, 'rest_cannot_read_status', 'Cannot view status.')
            );
          },
          (ctx) =>
            presentStatus(registry().statuses.find((s) => s.slug === ctx.params.status)!, contextOf(ctx), apiRoot),
        ),
      ],
    },
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/taxonomies`,
      schema: taxonomySchema,
      endpoints: [
        get(
          {
            context: contextParam('view', taxonomySchema),
            type: { description: 'Only the taxonomies of this post type.', type: 'string' },
          },
          // With a type, the edit context needs a taxonomy of that type the caller may assign (none: refused).
          (ctx) =>
            !isEdit(ctx) ||
            ofType(ctx).some((t) => canAssignTerms(ctx.actor, t)) ||
            refusal(ctx.actor, 'rest_cannot_view', TAXONOMY_EDIT_REFUSED),
          (ctx) => {
            const listed = ofType(ctx).filter((t) => !isEdit(ctx) || canAssignTerms(ctx.actor, t));
            // Keyed by slug, so an empty list is an empty object, as WordPress sends it.
            return keyed(listed, (t) => presentTaxonomy(t, contextOf(ctx), apiRoot));
          },
        ),
      ],
    },
    {
      namespace: NAMESPACE,
      path: `/${NAMESPACE}/taxonomies/(?P<taxonomy>[\\w-]+)`,
      schema: taxonomySchema,
      endpoints: [
        get(
          {
            taxonomy: { description: 'Identifier of the taxonomy.', type: 'string' },
            context: contextParam('view', taxonomySchema),
          },
          (ctx) => {
            const slug = String(ctx.params.taxonomy);
            // A taxonomy not shown in REST gets the generic refusal; an unknown one passes, to be answered 404.
            if (registry().hiddenTaxonomies.includes(slug)) return false;
            const taxonomy = registry().taxonomies.find((t) => t.slug === slug);
            if (taxonomy && isEdit(ctx) && !canAssignTerms(ctx.actor, taxonomy))
              return refusal(ctx.actor, 'rest_forbidden_context', TAXONOMY_EDIT_REFUSED);
            return true;
          },
          (ctx) => {
            const taxonomy = registry().taxonomies.find((t) => t.slug === ctx.params.taxonomy);
            if (!taxonomy) throw restError('rest_taxonomy_invalid', 'Invalid taxonomy.', 404);
            return presentTaxonomy(taxonomy, contextOf(ctx), apiRoot);
          },
        ),
      ],
    },
  ];
}
