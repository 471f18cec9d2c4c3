/**
 * Which post types, taxonomies and statuses this site has, derived from the routes it serves: a post type or
 * taxonomy is listed when its collection route exists (so no listed `rest_base` ever answers 404), a type takes
 * the taxonomies whose REST base is a field of its item schema (`categories`, `tags` on posts; `menus` on menu
 * items), and the statuses are those the post routes accept. The catalogue supplies what routes cannot tell.
 * Pure: routes in, descriptions out.
 */
import type { Actor } from '../../access/capabilities';
import { hasCap } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import type { RouteDefinition } from '../../rest/route';
import {
  HIDDEN_POST_TYPES,
  HIDDEN_TAXONOMIES,
  POST_TYPES,
  STATUSES,
  TAXONOMIES,
  registeredStatusFacts,
} from './catalogue';
import type { PostTypeFacts, StatusFacts, TaxonomyFacts } from './catalogue';

export const NAMESPACE = 'core/v2';

export interface ServedType extends PostTypeFacts {
  /** Slugs of the served taxonomies its items take. */
  taxonomies: readonly string[];
}

export interface ServedTaxonomy extends TaxonomyFacts {
  /** Slugs of the served post types whose items take its terms. */
  types: readonly string[];
}

export interface RegisteredStatus {
  slug: string;
  facts: StatusFacts;
  /**
   * WordPress's internal statuses (auto-draft, inherit, the request ones) exist but are shown to nobody;
   * the others are shown to anyone when public, else to those who may edit items of some type.
   */
  internal: boolean;
}

export interface Registry {
  types: readonly ServedType[];
  taxonomies: readonly ServedTaxonomy[];
  statuses: readonly RegisteredStatus[];
  hiddenTypes: readonly string[];
  hiddenTaxonomies: readonly string[];
}

/** The status trash is listed although WordPress registers it as internal: items can be put in it. */
const TRASH = 'trash';
const POSTS_ROUTE = `/${NAMESPACE}/posts`;

export function deriveRegistry(routes: readonly RouteDefinition[]): Registry {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const collection = (restBase: string) => byPath.get(`/${NAMESPACE}/${restBase}`);
  const servedTaxonomies = TAXONOMIES.filter((t) => collection(t.restBase));
  const types: ServedType[] = POST_TYPES.filter((t) => collection(t.restBase)).map((facts) => {
    const fields = collection(facts.restBase)!.schema?.properties ?? {};
    return {
      ...facts,
      taxonomies: servedTaxonomies.filter((t) => Object.hasOwn(fields, t.restBase)).map((t) => t.slug),
    };
  });
  const taxonomies: ServedTaxonomy[] = servedTaxonomies.map((facts) => ({
    ...facts,
    types: types.filter((type) => type.taxonomies.includes(facts.slug)).map((type) => type.slug),
  }));
  return {
    types,
    taxonomies,
    statuses: statusesOf(byPath.get(POSTS_ROUTE)),
    hiddenTypes: HIDDEN_POST_TYPES,
    hiddenTaxonomies: HIDDEN_TAXONOMIES,
  };
}

/**
 * The statuses the posts route knows: those a post can be written in (its schema's `status` enum) are shown,
 * then trash; the other values its list filter takes (except `any`) are internal.
 */
function statusesOf(posts: RouteDefinition | undefined): RegisteredStatus[] {
  if (!posts) return [];
  const writable = enumOf(posts.schema?.properties.status);
  const filterable = enumOf(
    posts.endpoints.find((e) => e.methods.includes('GET'))?.args.status?.items as ArgSchema | undefined,
  ).filter((s) => s !== 'any');
  const shown = [...filterable.filter((s) => writable.includes(s)), TRASH];
  const status = (slug: string, internal: boolean): RegisteredStatus => ({
    slug,
    internal,
    facts: STATUSES[slug] ?? registeredStatusFacts(slug),
  });
  return [
    ...shown.map((s) => status(s, false)),
    ...filterable.filter((s) => !shown.includes(s)).map((s) => status(s, true)),
  ];
}

function enumOf(schema: { enum?: readonly unknown[] } | undefined): string[] {
  return (schema?.enum ?? []).map(String);
}

/** Whether the caller may edit items of some served type: what seeing non-public statuses and edit contexts takes. */
export function canEditSomeType(registry: Registry, actor: Actor | null): boolean {
  return registry.types.some((type) => hasCap(actor, type.capabilities.edit_posts!));
}

/** Whether the caller may see the status (anyone a public one; those who edit something a non-internal one). */
export function canReadStatus(registry: Registry, actor: Actor | null, status: RegisteredStatus): boolean {
  if (status.facts.public) return true;
  return !status.internal && canEditSomeType(registry, actor);
}
