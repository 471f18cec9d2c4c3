/**
 * The one schema of each description resource (post types, taxonomies, post statuses): context filtering,
 * `_fields`, OPTIONS and the index's `context` enum come from it. Every property is read-only: these resources
 * describe the site and take no writes.
 */
import type { ResourceSchema } from '../../rest/schema';

const ALL = ['view', 'edit', 'embed'];
const VIEW_EDIT = ['view', 'edit'];
const EDIT = ['edit'];
const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

const readOnly = (description: string, type: unknown, context: string[], extra: Record<string, unknown> = {}) => ({
  description,
  type,
  context,
  readonly: true,
  ...extra,
});

export const typeSchema: ResourceSchema = {
  $schema: DRAFT_04,
  title: 'type',
  type: 'object',
  properties: {
    capabilities: readOnly('The capabilities the type checks, by the meta capability they stand for.', 'object', EDIT),
    description: readOnly('What the type is for, in words.', 'string', VIEW_EDIT),
    hierarchical: readOnly('Whether items of the type have parents.', 'boolean', VIEW_EDIT),
    viewable: readOnly('Whether items of the type can be viewed on the site.', 'boolean', EDIT),
    labels: readOnly('Texts naming the type and its items in an editor.', 'object', EDIT),
    name: readOnly('Name of the type, for people.', 'string', ALL),
    slug: readOnly('Identifier of the type.', 'string', ALL),
    supports: readOnly('The features the type has, each set to true.', 'object', EDIT),
    has_archive: readOnly(
      'The archive slug of the type, or false when it has no archive.',
      ['string', 'boolean'],
      VIEW_EDIT,
    ),
    taxonomies: readOnly('Taxonomies whose terms items of the type take.', 'array', VIEW_EDIT, {
      items: { type: 'string' },
    }),
    rest_base: readOnly('The last segment of the route of its items.', 'string', ALL),
    rest_namespace: readOnly('The namespace of the route of its items.', 'string', ALL),
    visibility: readOnly('Where the type shows in an admin interface.', 'object', EDIT, {
      properties: {
        show_ui: { description: 'Whether an admin interface manages it.', type: 'boolean' },
        show_in_nav_menus: { description: 'Whether its items can be put in navigation menus.', type: 'boolean' },
      },
    }),
    icon: readOnly('Icon of the type in an admin interface, or null.', ['string', 'null'], ALL),
  },
} as ResourceSchema;

export const taxonomySchema: ResourceSchema = {
  $schema: DRAFT_04,
  title: 'taxonomy',
  type: 'object',
  properties: {
    capabilities: readOnly('The capabilities the taxonomy checks, by what they allow.', 'object', EDIT),
    description: readOnly('What the taxonomy is for, in words.', 'string', VIEW_EDIT),
    hierarchical: readOnly('Whether its terms have parents.', 'boolean', VIEW_EDIT),
    labels: readOnly('Texts naming the taxonomy and its terms in an editor.', 'object', EDIT),
    name: readOnly('Name of the taxonomy, for people.', 'string', ALL),
    slug: readOnly('Identifier of the taxonomy.', 'string', ALL),
    show_cloud: readOnly('Whether a tag cloud may show its terms.', 'boolean', EDIT),
    types: readOnly('Post types whose items take its terms.', 'array', VIEW_EDIT, { items: { type: 'string' } }),
    rest_base: readOnly('The last segment of the route of its terms.', 'string', ALL),
    rest_namespace: readOnly('The namespace of the route of its terms.', 'string', ALL),
    visibility: readOnly('Where the taxonomy shows.', 'object', EDIT, {
      properties: {
        public: { description: 'Whether it is meant to be used publicly.', type: 'boolean' },
        publicly_queryable: { description: 'Whether its terms can be queried on the site.', type: 'boolean' },
        show_ui: { description: 'Whether an admin interface manages it.', type: 'boolean' },
        show_admin_column: {
          description: 'Whether the admin lists of its post types show a column for it.',
          type: 'boolean',
        },
        show_in_nav_menus: { description: 'Whether its terms can be put in navigation menus.', type: 'boolean' },
        show_in_quick_edit: { description: 'Whether quick editing of its post types offers it.', type: 'boolean' },
      },
    }),
  },
} as ResourceSchema;

export const statusSchema: ResourceSchema = {
  $schema: DRAFT_04,
  title: 'status',
  type: 'object',
  properties: {
    name: readOnly('Name of the status, for people.', 'string', ['embed', 'view', 'edit']),
    private: readOnly('Whether only those who may read private items see items in it.', 'boolean', EDIT),
    protected: readOnly('Whether only those who may edit an item see it in it.', 'boolean', EDIT),
    public: readOnly('Whether anyone may see items in it.', 'boolean', VIEW_EDIT),
    queryable: readOnly('Whether items in it can be queried on the site.', 'boolean', VIEW_EDIT),
    show_in_list: readOnly("Whether the admin's list of all items includes those in it.", 'boolean', EDIT),
    slug: readOnly('Identifier of the status.', 'string', ['embed', 'view', 'edit']),
    date_floating: readOnly(
      'Whether the date of an item in it floats until the item is published.',
      'boolean',
      VIEW_EDIT,
    ),
  },
} as ResourceSchema;
