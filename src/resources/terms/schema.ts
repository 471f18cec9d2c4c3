/**
 * The one schema of a term (category or tag): write arguments, context filtering, `_fields`, OPTIONS and the
 * index all come from it. Only hierarchical taxonomies (categories) have `parent`.
 */
import type { ResourceSchema } from '../../rest/schema';
import type { Taxonomy } from './events';
import { isHierarchical } from './decider';

const ALL = ['view', 'embed', 'edit'];
const VIEW_EDIT = ['view', 'edit'];

export function termSchema(taxonomy: Taxonomy): ResourceSchema {
  const properties: Record<string, unknown> = {
    id: { description: 'Unique identifier of the term.', type: 'integer', context: ALL, readonly: true },
    count: {
      description: 'How many published posts have the term.',
      type: 'integer',
      context: VIEW_EDIT,
      readonly: true,
    },
    description: { description: 'Description of the term, as HTML.', type: 'string', context: VIEW_EDIT },
    link: { description: 'Public URL of the term.', type: 'string', format: 'uri', context: ALL, readonly: true },
    name: { description: 'Name of the term, as HTML.', type: 'string', context: ALL, required: true },
    slug: { description: 'URL-safe identifier, unique within the taxonomy.', type: 'string', context: ALL },
    taxonomy: {
      description: 'The taxonomy of the term.',
      type: 'string',
      enum: [taxonomy],
      context: ALL,
      readonly: true,
    },
    ...(isHierarchical(taxonomy)
      ? { parent: { description: 'Identifier of the parent term.', type: 'integer', context: VIEW_EDIT } }
      : {}),
    // No term meta is registered; WordPress lists the (PHP) empty array it has for properties.
    meta: { description: 'Registered meta fields.', type: 'object', context: VIEW_EDIT, properties: [] },
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: taxonomy === 'post_tag' ? 'tag' : taxonomy,
    type: 'object',
    properties,
  } as ResourceSchema;
}
