/**
 * Discovery: `GET /` (the site index) and the namespace indexes, generated from the same route definitions
 * that serve requests, so the index can never disagree with what the API accepts.
 */
import { describeArgs } from './args/routeArgs';
import { ok, allowEveryone } from './route';
import type { Endpoint, RouteDefinition } from './route';
import type { Actor } from '../access/capabilities';

/** An image the settings name for the site (its logo or its icon), as the index shows it. */
export interface SiteImage {
  /** The attachment's id, 0 when none is set. */
  id: number;
  /** Whether that attachment exists (WordPress links a missing one to the API root). */
  exists: boolean;
}

export interface SiteDescription {
  /**
   * The site's title, tagline, front page settings, logo and icon now (they follow the settings). The icon's URL is
   * '' when no icon is set, and false when the icon set is no longer there (as WordPress's get_site_icon_url answers).
   */
  current: () => Promise<{
    name: string;
    description: string;
    page_for_posts: number;
    page_on_front: number;
    show_on_front: string;
    logo: SiteImage;
    icon: SiteImage & { url: string | false };
  }>;
  /** The active theme's URL, for a caller who may read it (WordPress's `wp:active-theme` link); null for others. */
  activeTheme: (actor: Actor | null) => string | null;
  url: string;
  home: string;
  /** The UTC offset in hours, as text (the interface asks for a string). */
  gmtOffset: () => string;
  timezoneString: string;
  /** Namespaces WordPress lists on every site, of whose routes we serve only the namespace index. */
  extraNamespaces: readonly string[];
  authorizationUrl: string;
}

export function describeRoute(route: RouteDefinition, apiRoot: string): Record<string, unknown> {
  const methods = route.endpoints.flatMap((e) => e.methods);
  const description: Record<string, unknown> = {
    namespace: route.namespace,
    methods,
    endpoints: route.endpoints.map((e) => ({
      methods: e.methods,
      ...(e.allowBatch ? { allow_batch: { v1: true } } : {}),
      // An endpoint without args lists them as an empty list, as PHP encodes an empty array.
      args: Object.keys(e.args).length === 0 ? [] : describeArgs(listedArgs(e)),
    })),
  };
  if (!route.path.includes('(?P<') && !route.hideLinks) {
    description._links = { self: [{ href: `${apiRoot}${route.path.replace(/^\//, '')}` }] };
  }
  return description;
}

const listedArgs = (e: Endpoint): Endpoint['args'] =>
  e.listedArgs ? Object.fromEntries(Object.entries(e.args).filter(([name]) => e.listedArgs!.includes(name))) : e.args;

function describeRoutes(
  routes: readonly RouteDefinition[],
  apiRoot: string,
  namespace?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const route of routes) {
    if (namespace !== undefined && route.namespace !== namespace) continue;
    out[route.path] = describeRoute(route, apiRoot);
  }
  return out;
}

/**
 * The index routes: the root, then the index of each namespace (those with routes of ours first, then the
 * extra ones). `allRoutes` is read lazily because the index lists itself and every route registered after it.
 */
export function discoveryRoutes(
  allRoutes: () => readonly RouteDefinition[],
  site: SiteDescription,
  apiRoot: string,
  namespaces: readonly string[],
): RouteDefinition[] {
  const listedNamespaces = () => [...namespaces, ...site.extraNamespaces];
  const root: RouteDefinition = {
    namespace: '',
    path: '/',
    endpoints: [
      {
        methods: ['GET'],
        args: { context: { default: 'view' } },
        permission: allowEveryone,
        linksBesideFields: true,
        handle: async (ctx) => {
          const { name, description, page_for_posts, page_on_front, show_on_front, logo, icon } = await site.current();
          // In WordPress's order: help, the active theme, then the logo and the icon, when set, as the site's featured
          // media (embeddable, with their role).
          const links: Record<string, unknown[]> = { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] };
          const theme = site.activeTheme(ctx.actor);
          if (theme !== null) links['wp:active-theme'] = [{ href: theme }];
          const images = (
            [
              ['site_logo', logo],
              ['site_icon', icon],
            ] as const
          ).filter(([, image]) => image.id > 0);
          if (images.length > 0)
            links['wp:featuredmedia'] = images.map(([type, image]) => ({
              embeddable: true,
              type,
              href: image.exists ? `${apiRoot}core/v2/media/${image.id}` : apiRoot,
            }));
          if (theme !== null || images.length > 0)
            links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
          return ok({
            name,
            description,
            url: site.url,
            home: site.home,
            gmt_offset: site.gmtOffset(),
            timezone_string: site.timezoneString,
            // What the front page shows (WordPress 6.7's index gives these; the block editor reads them).
            page_for_posts,
            page_on_front,
            show_on_front,
            namespaces: listedNamespaces(),
            authentication: { 'application-passwords': { endpoints: { authorization: site.authorizationUrl } } },
            routes: describeRoutes(allRoutes(), apiRoot),
            site_logo: logo.id,
            site_icon: icon.id,
            site_icon_url: icon.url,
            _links: links,
          });
        },
      },
    ],
  };
  const namespaceIndexes = listedNamespaces().map(
    (namespace): RouteDefinition => ({
      namespace,
      path: `/${namespace}`,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            namespace: { default: namespace },
            context: { default: 'view' },
          },
          permission: allowEveryone,
          linksBesideFields: true,
          handle: () =>
            ok({
              namespace,
              routes: describeRoutes(allRoutes(), apiRoot, namespace),
              _links: { up: [{ href: apiRoot }] },
            }),
        },
      ],
    }),
  );
  return [root, ...namespaceIndexes];
}
