/**
 * `/core/v2/themes` (the active theme only: there is no other) and the template routes a classic theme answers:
 * `/core/v2/templates` (none), `/core/v2/templates/lookup` (nothing found: WordPress's answer for a theme without
 * block templates) and `/core/v2/templates/{id}` (not found). Who may read what is WordPress 6.1's rule: themes
 * take `switch_themes`, the active one also anyone who may edit items of some type; templates `edit_theme_options`.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { hasCap } from '../../access/capabilities';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { contextParam, filterByContext } from '../../rest/schema';
import type { Context, ResourceSchema } from '../../rest/schema';
import { ok } from '../../rest/route';
import type { HandlerContext, PermissionRule, RouteDefinition } from '../../rest/route';
import { ensureUserGlobalStyles } from '../globalStyles/operations';
import { THEME_DIRECTORY } from '../globalStyles/routes';
import { THEME_FEATURES, themeSupports } from './theme';
import type { ThemeRecord } from './theme';

const rich = (description: string, format?: string) => ({
  description,
  type: 'object',
  readonly: true,
  properties: {
    raw: { description: `${description} As the theme declares it.`, type: 'string', ...(format ? { format } : {}) },
    rendered: { description: `${description} For display.`, type: 'string', ...(format ? { format } : {}) },
  },
});

export const themeSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'theme',
  type: 'object',
  properties: {
    stylesheet: { description: "The theme's stylesheet, which identifies it.", type: 'string', readonly: true },
    template: {
      description: "The parent theme's stylesheet, or the theme's own when it has no parent.",
      type: 'string',
      readonly: true,
    },
    author: rich("The theme's author."),
    author_uri: rich("The author's website.", 'uri'),
    description: rich('What the theme is.'),
    name: rich("The theme's name."),
    requires_php: { description: 'The oldest PHP version the theme works with.', type: 'string', readonly: true },
    requires_wp: { description: 'The oldest WordPress version the theme works with.', type: 'string', readonly: true },
    screenshot: { description: "The theme's screenshot URL.", type: 'string', format: 'uri', readonly: true },
    tags: {
      description: "The theme's tags.",
      type: 'object',
      readonly: true,
      properties: {
        raw: { description: 'The tags as the theme declares them.', type: 'array', items: { type: 'string' } },
        rendered: { description: 'The tags for display.', type: 'string' },
      },
    },
    textdomain: { description: "The theme's text domain.", type: 'string', readonly: true },
    theme_supports: {
      description: 'The features the theme supports.',
      type: 'object',
      readonly: true,
      properties: Object.fromEntries(THEME_FEATURES.map((feature) => [feature.name, feature.schema])),
    },
    theme_uri: rich("The theme's website.", 'uri'),
    version: { description: "The theme's version.", type: 'string', readonly: true },
    status: { description: 'Whether the theme is the active one.', type: 'string', enum: ['inactive', 'active'] },
  },
} as unknown as ResourceSchema;

const ALL = ['embed', 'view', 'edit'];
const VIEW_EDIT = ['view', 'edit'];

/** A template, as a block theme's templates are described (a classic theme has none to show). */
export const templateSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'wp_template',
  type: 'object',
  properties: {
    id: { description: 'Identifier of the template: theme and slug.', type: 'string', context: ALL, readonly: true },
    slug: {
      description: 'Slug of the template.',
      type: 'string',
      context: ALL,
      required: true,
      minLength: 1,
      pattern: '[a-zA-Z0-9_\\-]+',
    },
    theme: { description: 'The theme the template belongs to.', type: 'string', context: ALL },
    type: { description: 'The kind of template.', type: 'string', context: ALL },
    source: {
      description: 'Where the template comes from: the theme or the site.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    origin: {
      description: 'Where a customised template first came from.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    content: {
      description: 'Content of the template.',
      type: ['object', 'string'],
      default: '',
      context: ALL,
      properties: {
        raw: { description: 'The content as stored.', type: 'string', context: VIEW_EDIT },
        block_version: {
          description: 'Block format version of the content.',
          type: 'integer',
          context: ['edit'],
          readonly: true,
        },
      },
    },
    title: {
      description: 'Title of the template.',
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
    description: { description: 'What the template is for.', type: 'string', default: '', context: ALL },
    status: {
      description: 'Status of the template.',
      type: 'string',
      enum: ['publish', 'future', 'draft', 'pending', 'private'],
      default: 'publish',
      context: ALL,
    },
    wp_id: { description: 'Identifier of the stored template.', type: 'integer', context: ALL, readonly: true },
    has_theme_file: {
      description: 'Whether the theme has a file for the template.',
      type: 'bool',
      context: ALL,
      readonly: true,
    },
    author: {
      description: "Identifier of the template's author.",
      type: 'integer',
      context: ['view', 'edit', 'embed'],
    },
    is_custom: {
      description: 'Whether the template is a custom one rather than one of the template hierarchy.',
      type: 'bool',
      context: ALL,
      readonly: true,
    },
  },
} as unknown as ResourceSchema;

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');

/** Whether the caller may read the active theme: anyone who may edit items of some type (posts, pages, menus, templates). */
export const mayReadActiveTheme = (actor: Actor | null) =>
  ['edit_posts', 'edit_pages', 'edit_theme_options'].some((cap) => hasCap(actor, cap));
const maySwitchThemes = (actor: Actor | null) => hasCap(actor, 'switch_themes');

/**
 * A template's id, `theme//slug` or `parent/theme//slug`: what WordPress's pattern matches (a theme directory, then
 * the template's name), written without groups, which matches the same paths, so that a client reading the index can
 * parse it (wpapi's discovery cannot parse a group inside the named one, and fails on WordPress's own index).
 */
export const TEMPLATE_ID = '[^\\/:<>\\*\\?"\\|]+\\/?[^\\/:<>\\*\\?"\\|]*[\\/\\w-]+';

export function themeRoutes(site: Site, theme: ThemeRecord): RouteDefinition[] {
  const status = (ctx: HandlerContext) => authorizationStatus(ctx.actor?.id ?? null);
  const cannotView = (ctx: HandlerContext) =>
    restError('rest_cannot_view_themes', 'Sorry, you are not allowed to view themes.', status(ctx));
  const activeTheme = (ctx: HandlerContext): true | RestError =>
    mayReadActiveTheme(ctx.actor) ||
    restError('rest_cannot_view_active_theme', 'Sorry, you are not allowed to view the active theme.', status(ctx));
  const templateManagers: PermissionRule = (ctx) =>
    hasCap(ctx.actor, 'edit_theme_options') ||
    restError(
      'rest_cannot_manage_templates',
      'Sorry, you are not allowed to access the templates on this site.',
      status(ctx),
    );

  const rendered = (raw: string, html = escapeHtml(raw)) => ({ raw, rendered: html });
  const present = async (ctx: HandlerContext) => {
    // The theme's user global styles are made the first time they are pointed at, as WordPress makes them.
    const styles = await ensureUserGlobalStyles(site, theme.stylesheet, ctx.actor, ctx.request.requestId);
    await site.settle(styles.position);
    const author =
      theme.authorUri === ''
        ? escapeHtml(theme.author)
        : `<a href="${escapeHtml(theme.authorUri)}">${escapeHtml(theme.author)}</a>`;
    return {
      stylesheet: theme.stylesheet,
      template: theme.template,
      requires_php: theme.requiresPhp,
      requires_wp: theme.requiresWp,
      textdomain: theme.textdomain,
      version: theme.version,
      screenshot: '',
      author: rendered(theme.author, author),
      author_uri: rendered(theme.authorUri),
      description: rendered(theme.description),
      name: rendered(theme.name),
      tags: { raw: [...theme.tags], rendered: theme.tags.join(', ') },
      theme_uri: rendered(theme.themeUri),
      status: 'active',
      theme_supports: themeSupports(theme),
      _links: {
        self: [{ href: `${site.apiRoot}core/v2/themes/${theme.stylesheet}` }],
        collection: [{ href: `${site.apiRoot}core/v2/themes` }],
        'wp:user-global-styles': [{ href: `${site.apiRoot}core/v2/global-styles/${styles.id}` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      },
    };
  };

  /**
   * What WordPress answers a lookup with when no template is found, as a theme without block templates has: every
   * field of the missing template empty, and links to the API root, the templates and their type.
   */
  const nothingFound = (ctx: HandlerContext) => {
    const item = filterByContext(
      templateSchema,
      {
        id: null,
        theme: null,
        content: { raw: null, block_version: 0 },
        slug: null,
        source: null,
        origin: null,
        type: null,
        description: null,
        title: { raw: null, rendered: null },
        status: null,
        wp_id: 0,
        has_theme_file: false,
        author: 0,
      },
      (typeof ctx.request.query.context === 'string' && ctx.request.query.context !== ''
        ? ctx.request.query.context
        : 'view') as Context,
    ) as Record<string, unknown>;
    const self = site.apiRoot;
    const links: Record<string, unknown[]> = {
      self: [{ href: self }],
      collection: [{ href: `${site.apiRoot}core/v2/templates` }],
      about: [{ href: `${site.apiRoot}core/v2/types/wp_template` }],
    };
    // The actions a template offers the caller: publishing and unfiltered HTML.
    if (hasCap(ctx.actor, 'edit_theme_options')) links['wp:action-publish'] = [{ href: self }];
    if (hasCap(ctx.actor, 'unfiltered_html')) links['wp:action-unfiltered-html'] = [{ href: self }];
    links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
    return { ...item, _links: links };
  };

  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/themes',
      schema: themeSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            status: {
              description: 'Only themes with one of these statuses.',
              type: 'array',
              items: { enum: ['active', 'inactive'], type: 'string' },
            },
          },
          permission: (ctx) => {
            if (maySwitchThemes(ctx.actor)) return true;
            const wanted = ctx.params.status;
            // Asking for exactly the active theme takes less.
            if (Array.isArray(wanted) && wanted.length === 1 && wanted[0] === 'active') return activeTheme(ctx);
            return cannotView(ctx);
          },
          signedInOnly: true,
          handle: async (ctx) => {
            const wanted = ctx.params.status;
            const shown = !Array.isArray(wanted) || wanted.includes('active') ? [await present(ctx)] : [];
            return ok(shown, { 'X-WP-Total': String(shown.length), 'X-WP-TotalPages': '1' });
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `/core/v2/themes/(?P<stylesheet>${THEME_DIRECTORY})`,
      schema: themeSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: { stylesheet: { description: "The theme's stylesheet, which identifies it.", type: 'string' } },
          permission: (ctx) => {
            if (maySwitchThemes(ctx.actor)) return true;
            return stylesheetOf(ctx) === theme.stylesheet ? activeTheme(ctx) : cannotView(ctx);
          },
          signedInOnly: true,
          handle: async (ctx) => {
            if (stylesheetOf(ctx) !== theme.stylesheet)
              throw restError('rest_theme_not_found', 'Theme not found.', 404);
            return ok(await present(ctx));
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/templates',
      schema: templateSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            context: contextParam('view'),
            wp_id: { description: 'Only the template stored under this id.', type: 'integer' },
            area: { description: 'Only template parts of this area.', type: 'string' },
            post_type: { description: 'Only templates for this post type.', type: 'string' },
          },
          permission: templateManagers,
          signedInOnly: true,
          // A classic theme has no block templates, and none can be made here.
          handle: () => ok([]),
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/templates/lookup',
      endpoints: [
        {
          methods: ['GET'],
          args: {
            slug: { description: 'Slug of the template to find the fallback of.', type: 'string', required: true },
            is_custom: {
              description: 'Whether the template is a custom one rather than one of the template hierarchy.',
              type: 'boolean',
            },
            template_prefix: {
              description: 'The prefix of a custom template, which names its kind (`taxonomy` of `taxonomy-books`).',
              type: 'string',
            },
          },
          permission: templateManagers,
          signedInOnly: true,
          handle: (ctx) => ok(nothingFound(ctx)),
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `/core/v2/templates/(?P<id>${TEMPLATE_ID})`,
      schema: templateSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            id: { description: 'Identifier of the template: theme and slug.', type: 'string' },
            context: contextParam('view'),
          },
          permission: templateManagers,
          signedInOnly: true,
          handle: () => {
            throw restError('rest_template_not_found', 'No templates exist with that id.', 404);
          },
        },
      ],
    },
  ];
}

/** The stylesheet of the path, percent-decoded as WordPress decodes it (undecodable text stays as sent). */
function stylesheetOf(ctx: HandlerContext): string {
  const text = String(ctx.params.stylesheet);
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
