/**
 * What an instance adds to, or changes in, the site every instance serves. The interface describes two sites
 * (docs/second-instance.md): the first is the base site (FIRST_INSTANCE, which changes nothing); the second is
 * src/instances/second.ts. The composition root picks one (instanceNamed) and hands it to the site; the routes read
 * what it contributes and never which instance they are in.
 */
import type { RouteDefinition } from '../rest/route';
import type { Site } from '../site';

export interface InstanceProfile {
  /**
   * Post statuses a plug-in registers, with WordPress's defaults (src/resources/types/catalogue.ts,
   * registeredStatusFacts): posts and pages take them on writes, lists filter by them (before `any`), and `any`
   * covers them.
   */
  readonly statuses: readonly string[];
  /** Namespaces of its routes, each listed in the index right after the namespace named by `after`. */
  readonly namespaces: readonly { name: string; after: string }[];
  /** Its routes, served after oEmbed's. */
  routes(site: Site): RouteDefinition[];
  /** Attachments: whether they have `featured_media`, and the args the index lists for media edit (all when absent). */
  readonly media: { featuredMedia: boolean; editListedArgs?: readonly string[] };
}

/** The first site: the base site, nothing added. */
export const FIRST_INSTANCE: InstanceProfile = {
  statuses: [],
  namespaces: [],
  routes: () => [],
  media: { featuredMedia: true },
};
