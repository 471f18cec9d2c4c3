/**
 * Read-model document -> WordPress term, for one context. Pure: the count and the public URL are computed by
 * the caller (they need other documents) and handed in.
 */
import type { TermDoc } from '../../../projections/terms';
import type { Context, ResourceSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import type { TaxonomyInfo } from './operations';

export interface TermPresentOptions {
  context: Context;
  count: number;
  /** The public URL (see termLink). */
  link: string;
  apiRoot: string;
  taxonomy: TaxonomyInfo;
  /** False for a deleted term's `previous`, which WordPress gives without links. */
  links?: boolean;
}

/**
 * A term's public URL with the site's pretty permalinks: `/tag/slug/`, and for categories the whole path of
 * ancestor slugs, `/category/grandparent/parent/slug/`. `ancestorSlugs` are nearest first.
 */
export function termLink(
  doc: TermDoc,
  taxonomy: TaxonomyInfo,
  siteUrl: string,
  ancestorSlugs: readonly string[],
): string {
  const path = taxonomy.hierarchical ? [...ancestorSlugs].reverse().concat(doc.slug) : [doc.slug];
  return `${siteUrl}/${taxonomy.linkBase}/${path.join('/')}/`;
}

export function presentTerm(
  doc: TermDoc,
  schema: ResourceSchema,
  options: TermPresentOptions,
): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: doc.id,
    count: options.count,
    description: doc.description,
    link: options.link,
    name: doc.name,
    slug: doc.slug,
    taxonomy: doc.taxonomy,
    ...(options.taxonomy.hierarchical ? { parent: doc.parent } : {}),
    // No term meta is registered: WordPress sends an empty (PHP) array.
    meta: [],
  };
  const filtered = filterByContext(schema, item, options.context) as Record<string, unknown>;
  if (options.links !== false) filtered._links = termLinks(doc, options.apiRoot, options.taxonomy);
  return filtered;
}

export function termLinks(doc: TermDoc, apiRoot: string, taxonomy: TaxonomyInfo): Record<string, unknown[]> {
  const collection = `${apiRoot}core/v2/${taxonomy.restBase}`;
  const links: Record<string, unknown[]> = {
    self: [{ href: `${collection}/${doc.id}` }],
    collection: [{ href: collection }],
    about: [{ href: `${apiRoot}core/v2/taxonomies/${doc.taxonomy}` }],
  };
  if (doc.parent > 0) links.up = [{ embeddable: true, href: `${collection}/${doc.parent}` }];
  links['wp:post_type'] = [{ href: `${apiRoot}core/v2/posts?${taxonomy.restBase}=${doc.id}` }];
  links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}
