/**
 * `/core/v2/block-patterns/patterns` and `/core/v2/block-patterns/categories`: the library the deployment gives
 * (library.ts), to anyone who may edit items of some type, as WordPress 6.1 allows.
 */
import type { Actor } from '../../access/capabilities';
import { hasCap } from '../../access/capabilities';
import { authorizationStatus, restError } from '../../rest/errors';
import { filterByContext } from '../../rest/schema';
import type { Context, ResourceSchema } from '../../rest/schema';
import { ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { BlockPatternLibrary } from './library';

const ALL = ['view', 'edit', 'embed'];
const readonly = (type: string, description: string) => ({ description, type, readonly: true, context: ALL });

export const blockPatternSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'block-pattern',
  type: 'object',
  properties: {
    name: readonly('string', 'Name of the pattern.'),
    title: readonly('string', 'Title of the pattern, for people.'),
    description: readonly('string', 'What the pattern is.'),
    viewport_width: readonly('number', 'Width to preview the pattern at in the inserter.'),
    block_types: readonly('array', 'Block types the pattern is meant for.'),
    post_types: readonly('array', 'Post types the pattern is limited to.'),
    categories: readonly('array', "Names of the pattern's categories."),
    keywords: readonly('array', 'Words the pattern is found by.'),
    content: readonly('string', "The pattern's block markup."),
    inserter: readonly('boolean', 'Whether the inserter shows the pattern.'),
  },
} as unknown as ResourceSchema;

export const blockPatternCategorySchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'block-pattern-category',
  type: 'object',
  properties: {
    name: readonly('string', 'Name of the category.'),
    label: readonly('string', 'Label of the category, for people.'),
  },
} as unknown as ResourceSchema;

/** Whether the caller may edit items of some type (posts, pages, menus, templates): what reading patterns takes. */
const mayEditSomething = (actor: Actor | null) =>
  ['edit_posts', 'edit_pages', 'edit_theme_options'].some((cap) => hasCap(actor, cap));

/** The context asked for: these routes register no `context` argument, so it is read from the query as sent. */
const contextOf = (ctx: HandlerContext): Context =>
  (typeof ctx.request.query.context === 'string' && ctx.request.query.context !== ''
    ? ctx.request.query.context
    : 'view') as Context;

/** The fields in WordPress's order, each only when the entry has it. */
const PATTERN_FIELDS = [
  'name',
  'title',
  'description',
  'viewport_width',
  'block_types',
  'post_types',
  'categories',
  'keywords',
  'content',
  'inserter',
] as const;

export function blockPatternRoutes(library: BlockPatternLibrary): RouteDefinition[] {
  const refusal = (ctx: HandlerContext, what: string) =>
    restError(
      'rest_cannot_view',
      `Sorry, you are not allowed to view the registered ${what}.`,
      authorizationStatus(ctx.actor?.id ?? null),
    );
  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/block-patterns/patterns',
      schema: blockPatternSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: (ctx) => mayEditSomething(ctx.actor) || refusal(ctx, 'block patterns'),
          signedInOnly: true,
          handle: (ctx) =>
            ok(
              library.patterns.map((pattern) => {
                const item: Record<string, unknown> = {};
                for (const field of PATTERN_FIELDS) if (pattern[field] !== undefined) item[field] = pattern[field];
                return filterByContext(blockPatternSchema, item, contextOf(ctx));
              }),
            ),
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/block-patterns/categories',
      schema: blockPatternCategorySchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: (ctx) => mayEditSomething(ctx.actor) || refusal(ctx, 'block pattern categories'),
          signedInOnly: true,
          handle: (ctx) =>
            ok(
              library.categories.map((category) =>
                filterByContext(
                  blockPatternCategorySchema,
                  { name: category.name, label: category.label },
                  contextOf(ctx),
                ),
              ),
            ),
        },
      ],
    },
  ];
}
