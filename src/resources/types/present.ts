/**
 * Registry entries -> WordPress's type, taxonomy and status objects, for one context. Pure. Keys come in the
 * order WordPress sends them; the schema's contexts decide which stay.
 */
import type { Context } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import type { RegisteredStatus, ServedTaxonomy, ServedType } from './registry';
import { NAMESPACE } from './registry';
import { statusSchema, taxonomySchema, typeSchema } from './schema';

const CURIES = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];

export function presentType(type: ServedType, context: Context, apiRoot: string): Record<string, unknown> {
  const item = {
    capabilities: type.capabilities,
    description: type.description,
    hierarchical: type.hierarchical,
    has_archive: type.hasArchive,
    visibility: type.visibility,
    viewable: type.viewable,
    labels: type.labels,
    name: type.labels.name,
    slug: type.slug,
    icon: type.icon,
    supports: type.supports,
    taxonomies: type.taxonomies,
    rest_base: type.restBase,
    rest_namespace: NAMESPACE,
  };
  return {
    ...filterByContext(typeSchema, item, context),
    _links: {
      collection: [{ href: `${apiRoot}${NAMESPACE}/types` }],
      'wp:items': [{ href: `${apiRoot}${NAMESPACE}/${type.restBase}` }],
      curies: CURIES,
    },
  };
}

export function presentTaxonomy(taxonomy: ServedTaxonomy, context: Context, apiRoot: string): Record<string, unknown> {
  const item = {
    name: taxonomy.labels.name,
    slug: taxonomy.slug,
    capabilities: taxonomy.capabilities,
    description: taxonomy.description,
    labels: taxonomy.labels,
    types: taxonomy.types,
    show_cloud: taxonomy.showCloud,
    hierarchical: taxonomy.hierarchical,
    rest_base: taxonomy.restBase,
    rest_namespace: NAMESPACE,
    visibility: taxonomy.visibility,
  };
  return {
    ...filterByContext(taxonomySchema, item, context),
    _links: {
      collection: [{ href: `${apiRoot}${NAMESPACE}/taxonomies` }],
      'wp:items': [{ href: `${apiRoot}${NAMESPACE}/${taxonomy.restBase}` }],
      curies: CURIES,
    },
  };
}

export function presentStatus(status: RegisteredStatus, context: Context, apiRoot: string): Record<string, unknown> {
  const { facts } = status;
  const item = {
    name: facts.label,
    private: facts.private,
    protected: facts.protected,
    public: facts.public,
    queryable: facts.queryable,
    show_in_list: facts.showInList,
    slug: status.slug,
    date_floating: facts.dateFloating,
  };
  // Items in the status: the published ones are the posts list itself, the others its filter by the status.
  const posts = `${apiRoot}${NAMESPACE}/posts`;
  return {
    ...filterByContext(statusSchema, item, context),
    _links: {
      archives: [{ href: status.slug === 'publish' ? posts : `${posts}?status=${encodeURIComponent(status.slug)}` }],
    },
  };
}
