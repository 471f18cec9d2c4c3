/**
 * `/core/v2/global-styles/…`: the active theme's base global styles and its style variations (read-only, from the
 * theme record), and the theme's user global styles, an event-sourced record administrators read and change
 * (`edit_theme_options`); everyone else gets WordPress's refusals. The block editor reads the record's id from the
 * active theme's `wp:user-global-styles` link (src/resources/themes/routes.ts).
 */
import type { Site } from '../../site';
import { hasCap } from '../../access/capabilities';
import { argsFromSchema, filterByContext } from '../../rest/schema';
import type { Context, ResourceSchema } from '../../rest/schema';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, PermissionRule, RouteDefinition } from '../../rest/route';
import { renderTitle } from '../../text/render';
import type { GlobalStylesDoc } from '../../../projections/globalStyles';
import { changeGlobalStyles, readGlobalStyles, writtenGlobalStyles } from './operations';

const ALL = ['embed', 'view', 'edit'];
const VIEW_EDIT = ['view', 'edit'];

export const globalStylesSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'wp_global_styles',
  type: 'object',
  properties: {
    id: { description: 'Identifier of the global styles record.', type: 'string', context: ALL, readonly: true },
    styles: { description: 'The styles, as theme.json writes them.', type: ['object'], context: VIEW_EDIT },
    settings: { description: 'The settings, as theme.json writes them.', type: ['object'], context: VIEW_EDIT },
    title: {
      description: 'Title of the record.',
      type: ['object', 'string'],
      default: '',
      context: ALL,
      properties: {
        raw: { description: 'The title as stored.', type: 'string', context: ['view', 'edit', 'embed'] },
        rendered: {
          description: 'The title for display.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
      },
    },
  },
} as unknown as ResourceSchema;

/**
 * The characters a stylesheet may have in the variations route, as WordPress's pattern takes them; its parentheses are
 * written `\x28` and `\x29`, which match the same, so that a client reading the index can parse the pattern (wpapi's
 * discovery takes the first `)` for the end of the group, and fails on WordPress's own index).
 */
export const VARIATIONS_STYLESHEET = '[\\/\\s%\\w\\.\\x28\\x29\\[\\]\\@_\\-]+';
/** A theme's directory, `theme` or `parent/theme`, without the characters a directory name cannot have. */
export const THEME_DIRECTORY = '[^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?';

const manageRefusal = (ctx: HandlerContext): RestError =>
  restError(
    'rest_cannot_manage_global_styles',
    'Sorry, you are not allowed to access the global styles on this site.',
    authorizationStatus(ctx.actor?.id ?? null),
  );
const themeManagers: PermissionRule = (ctx) => hasCap(ctx.actor, 'edit_theme_options') || manageRefusal(ctx);

/** The context asked for: global styles register no `context` argument, so it is read from the query as sent. */
const contextOf = (ctx: HandlerContext): Context =>
  (typeof ctx.request.query.context === 'string' && ctx.request.query.context !== ''
    ? ctx.request.query.context
    : 'view') as Context;

/** A path parameter as a stylesheet: percent-decoded, as WordPress decodes it (undecodable text stays as sent). */
function decoded(value: unknown): string {
  const text = String(value);
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A record id as WordPress casts it to an integer: its leading digits (`12abc` is 12), else 0. */
const recordId = (value: unknown): number => {
  const digits = /^\d+/.exec(String(value));
  return digits ? Math.min(Number(digits[0]), Number.MAX_SAFE_INTEGER) : 0;
};

/** What these routes read of the active theme: a theme record (src/resources/themes/theme.ts) has it. */
export interface StyledTheme {
  stylesheet: string;
  baseSettings: Readonly<Record<string, unknown>>;
  baseStyles: Readonly<Record<string, unknown>>;
  variations: readonly Record<string, unknown>[];
}

export function globalStylesRoutes(site: Site, theme: StyledTheme): RouteDefinition[] {
  const themeNotFound = () => restError('rest_theme_not_found', 'Theme not found.', 404);
  const notFound = () => restError('rest_global_styles_not_found', 'No global styles config exist with that id.', 404);
  // Reading takes read_post and changing edit_post of the record: both edit_theme_options.
  const mayManage = (ctx: HandlerContext) => hasCap(ctx.actor, 'edit_theme_options');

  const load = async (ctx: HandlerContext): Promise<GlobalStylesDoc | null> => {
    const key = 'global-styles';
    if (ctx.memo.has(key)) return ctx.memo.get(key) as GlobalStylesDoc | null;
    const id = recordId(ctx.params.id);
    const doc = id > 0 ? await readGlobalStyles(site, theme.stylesheet, id) : null;
    ctx.memo.set(key, doc);
    return doc;
  };
  const judged = async (
    ctx: HandlerContext,
    judge: (doc: GlobalStylesDoc | null) => true | RestError,
  ): Promise<true | RestError> => judge(await load(ctx));

  const present = (ctx: HandlerContext, doc: GlobalStylesDoc) => {
    const item = filterByContext(
      globalStylesSchema,
      {
        id: doc.id,
        title: { raw: doc.title, rendered: renderTitle(doc.title) },
        settings: doc.settings,
        styles: doc.styles,
      },
      contextOf(ctx),
    ) as Record<string, unknown>;
    const self = `${site.apiRoot}core/v2/global-styles/${doc.id}`;
    const links: Record<string, unknown[]> = { self: [{ href: self }] };
    if (hasCap(ctx.actor, 'publish_posts')) links['wp:action-publish'] = [{ href: self }];
    links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
    return { ...item, _links: links };
  };

  return [
    {
      namespace: 'core/v2',
      path: `/core/v2/global-styles/themes/(?P<stylesheet>${VARIATIONS_STYLESHEET})/variations`,
      endpoints: [
        {
          methods: ['GET'],
          args: { stylesheet: { description: "The theme's stylesheet.", type: 'string' } },
          permission: themeManagers,
          signedInOnly: true,
          handle: (ctx) => {
            if (String(ctx.params.stylesheet) !== theme.stylesheet) throw themeNotFound();
            return ok(theme.variations);
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `/core/v2/global-styles/themes/(?P<stylesheet>${THEME_DIRECTORY})`,
      endpoints: [
        {
          methods: ['GET'],
          args: { stylesheet: { description: "The theme's stylesheet.", type: 'string' } },
          permission: themeManagers,
          signedInOnly: true,
          handle: (ctx) => {
            const stylesheet = decoded(ctx.params.stylesheet);
            if (stylesheet !== theme.stylesheet) throw themeNotFound();
            const item = filterByContext(
              globalStylesSchema,
              { settings: theme.baseSettings, styles: theme.baseStyles },
              contextOf(ctx),
            ) as Record<string, unknown>;
            return ok({
              ...item,
              _links: { self: [{ href: `${site.apiRoot}core/v2/global-styles/themes/${stylesheet}` }] },
            });
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/global-styles/(?P<id>[\\/\\w-]+)',
      schema: globalStylesSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: { id: { description: 'Identifier of the global styles record.', type: 'string' } },
          permission: (ctx) =>
            judged(ctx, (doc) => {
              if (!doc) return notFound();
              const status = authorizationStatus(ctx.actor?.id ?? null);
              if (contextOf(ctx) === 'edit' && !mayManage(ctx))
                return restError(
                  'rest_forbidden_context',
                  'Sorry, you are not allowed to edit this global style.',
                  status,
                );
              return (
                mayManage(ctx) ||
                restError('rest_cannot_view', 'Sorry, you are not allowed to view this global style.', status)
              );
            }),
          signedInOnly: true,
          handle: async (ctx) => ok(present(ctx, (await load(ctx))!)),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: argsFromSchema(globalStylesSchema, 'update'),
          permission: (ctx) =>
            judged(ctx, (doc) => {
              if (!doc) return notFound();
              return (
                mayManage(ctx) ||
                restError(
                  'rest_cannot_edit',
                  'Sorry, you are not allowed to edit this global style.',
                  authorizationStatus(ctx.actor?.id ?? null),
                )
              );
            }),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await load(ctx))!;
            const { styles, settings, title } = ctx.params;
            const outcome = await changeGlobalStyles(
              site,
              doc.stylesheet,
              { styles, settings, title },
              ctx.actor!,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            const written =
              outcome.position > 0 ? await writtenGlobalStyles(site, doc.stylesheet, doc.id, outcome.position) : doc;
            return ok(present(ctx, written ?? doc));
          },
        },
      ],
    },
  ];
}
