/**
 * The one schema each of menus (the `nav_menu` taxonomy), menu items (the `nav_menu_item` post type) and menu
 * locations: write arguments, context filtering, `_fields`, OPTIONS and the index all come from them.
 */
import type { ResourceSchema } from '../../rest/schema';
import { SchemaIssue } from '../../rest/args/schema';
import { MENU_ITEM_TYPES } from './events';

const ALL = ['view', 'edit', 'embed'];
const VIEW_EDIT = ['view', 'edit'];

/** WordPress lists the statuses a post type could have, but keeps every one but publish as a draft. */
export const MENU_ITEM_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;

export const menuItemSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'nav_menu_item',
  type: 'object',
  properties: {
    title: {
      description: 'Label of the item; empty means the linked object’s title.',
      type: ['string', 'object'],
      context: ALL,
      properties: {
        raw: { description: 'The label as stored.', type: 'string', context: ['edit'] },
        rendered: { description: 'The label as HTML for display.', type: 'string', context: ALL, readonly: true },
      },
    },
    id: {
      description: 'Unique identifier of the item.',
      type: 'integer',
      default: 0,
      minimum: 0,
      context: ALL,
      readonly: true,
    },
    type_label: {
      description: 'Singular name of the kind of item (“Page”, “Custom Link”…).',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    type: {
      description: 'What the item links to: a term, a post, a post-type archive or any URL.',
      type: 'string',
      enum: [...MENU_ITEM_TYPES],
      context: ALL,
      default: 'custom',
    },
    status: {
      description: 'Publication status.',
      type: 'string',
      enum: [...MENU_ITEM_STATUSES],
      default: 'publish',
      context: ALL,
    },
    parent: {
      description: 'Identifier of the menu item this one is under (0: top level).',
      type: 'integer',
      minimum: 0,
      default: 0,
      context: ALL,
    },
    attr_title: { description: 'Title attribute of the link.', type: 'string', context: ALL },
    classes: { description: 'Class names of the link.', type: 'array', items: { type: 'string' }, context: ALL },
    description: { description: 'Description of the item.', type: 'string', context: ALL },
    menu_order: {
      description: 'Position of the item in its menu.',
      context: ALL,
      type: 'integer',
      minimum: 1,
      default: 1,
    },
    object: {
      description: 'The post type or taxonomy linked to (`page`, `category`…), or `custom`.',
      context: ALL,
      type: 'string',
    },
    object_id: {
      description: 'Identifier of the linked post or term.',
      context: ALL,
      type: 'integer',
      minimum: 0,
      default: 0,
    },
    target: { description: 'Target attribute of the link.', type: 'string', context: ALL, enum: ['_blank', ''] },
    url: { description: 'Where the item links to.', type: 'string', format: 'uri', context: ALL },
    xfn: { description: 'XFN relations of the link.', type: 'array', items: { type: 'string' }, context: ALL },
    invalid: {
      description: 'Whether the linked object no longer exists.',
      context: ALL,
      type: 'boolean',
      readonly: true,
    },
    menus: { description: 'The menu the item is in (0: none).', type: 'integer', context: VIEW_EDIT },
    meta: { description: 'Registered meta fields.', type: 'object', context: VIEW_EDIT, properties: [] },
  },
} as unknown as ResourceSchema;

/** No theme, so no menu location exists: any location named is refused as WordPress refuses unknown ones. */
export function noSuchLocation(value: unknown): true | SchemaIssue {
  const [first] = Array.isArray(value) ? (value as unknown[]) : [];
  return first === undefined
    ? true
    : new SchemaIssue('rest_invalid_menu_location', 'Invalid menu location.', { location: first });
}

export const menuSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'nav_menu',
  type: 'object',
  properties: {
    id: {
      description: 'Unique identifier of the menu.',
      type: 'integer',
      context: ['view', 'embed', 'edit'],
      readonly: true,
    },
    description: { description: 'Description of the menu, as HTML.', type: 'string', context: VIEW_EDIT },
    name: {
      description: 'Name of the menu, as HTML.',
      type: 'string',
      context: ['view', 'embed', 'edit'],
      required: true,
    },
    slug: {
      description: 'URL-safe identifier, unique among menus.',
      type: 'string',
      context: ['view', 'embed', 'edit'],
    },
    meta: { description: 'Registered meta fields.', type: 'object', context: VIEW_EDIT, properties: [] },
    locations: {
      description: 'Theme locations the menu is shown in.',
      type: 'array',
      items: { type: 'string' },
      context: VIEW_EDIT,
    },
    auto_add: {
      description: 'Whether new top-level pages are added to the menu.',
      context: VIEW_EDIT,
      type: 'boolean',
    },
  },
} as unknown as ResourceSchema;

export const menuLocationSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'menu-location',
  type: 'object',
  properties: {
    name: { description: 'Name of the location.', type: 'string', context: ['embed', 'view', 'edit'], readonly: true },
    description: {
      description: 'Description of the location.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    menu: {
      description: 'Identifier of the menu assigned to it.',
      type: 'integer',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
  },
} as unknown as ResourceSchema;

/**
 * A menu item's autosave (`/core/v2/menu-items/{id}/autosaves`): the revision shape WordPress builds from the
 * parent's schema. A menu item has no content, excerpt or guid of its own, so only its title joins the
 * revision's fields, and `guid` keeps the revision's plain (string) description.
 */
export const menuItemAutosaveSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'nav_menu_item-revision',
  type: 'object',
  properties: {
    author: { description: "Identifier of the autosave's author.", type: 'integer', context: ALL },
    date: {
      description: 'When the autosave was made, in the site time zone.',
      type: 'string',
      format: 'date-time',
      context: ALL,
    },
    date_gmt: {
      description: 'When the autosave was made, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    guid: { description: 'Globally unique identifier of the autosave.', type: 'string', context: VIEW_EDIT },
    id: { description: 'Unique identifier of the autosave.', type: 'integer', context: ALL },
    modified: {
      description: 'Last modification, in the site time zone.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    modified_gmt: {
      description: 'Last modification, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    parent: { description: 'Identifier of the menu item the autosave belongs to.', type: 'integer', context: ALL },
    slug: { description: 'URL-safe identifier of the autosave.', type: 'string', context: ALL },
    title: (menuItemSchema.properties as Record<string, unknown>).title,
    preview_link: {
      description: 'Preview URL of the autosave (none: menu items are not viewable).',
      type: 'string',
      format: 'uri',
      context: ['edit'],
      readonly: true,
    },
  },
} as unknown as ResourceSchema;
