/**
 * The field definitions every post-type schema shares (posts, pages, attachments; revisions take the context
 * sets and the guid), so each shared field is described once. Each call builds fresh objects: a schema may be
 * adjusted by its owner without touching another's.
 */

/** The contexts a field appears in. */
export const ALL = ['view', 'edit', 'embed'];
export const VIEW_EDIT = ['view', 'edit'];
export const EDIT = ['edit'];

/** A text field stored raw and shown rendered; writes accept a string or `{raw}`. */
export function renderedText(description: string, contexts: string[], extra: Record<string, unknown> = {}) {
  return {
    description,
    type: 'object',
    context: contexts,
    arg_options: { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
    properties: {
      raw: { description: `${description} As stored, before rendering.`, type: 'string', context: EDIT },
      rendered: {
        description: `${description} As HTML for display.`,
        type: 'string',
        context: contexts,
        readonly: true,
      },
      ...extra,
    },
  };
}

/** The read-only globally unique identifier of `what` ("item", "revision"). */
export function guidField(what: string) {
  return {
    description: `Globally unique identifier of the ${what}.`,
    type: 'object',
    context: VIEW_EDIT,
    readonly: true,
    properties: {
      raw: { description: 'The identifier as stored.', type: 'string', context: EDIT, readonly: true },
      rendered: { description: 'The identifier for display.', type: 'string', context: VIEW_EDIT, readonly: true },
    },
  };
}

/**
 * The fields of a post-type item, in groups as they stand in each schema's order: `identity` (date to type),
 * `permalink`, `title`, `author`, `discussion` (comment and ping status) and `template`.
 * `slugDescription` says among what the slug is unique; `statuses` are the writable ones.
 */
export function postTypeFields(slugDescription: string, statuses: readonly string[]) {
  return {
    identity: {
      date: {
        description: 'Publication date, in the site time zone.',
        type: ['string', 'null'],
        format: 'date-time',
        context: ALL,
      },
      date_gmt: {
        description: 'Publication date, in UTC.',
        type: ['string', 'null'],
        format: 'date-time',
        context: VIEW_EDIT,
      },
      guid: guidField('item'),
      id: { description: 'Unique identifier of the item.', type: 'integer', context: ALL, readonly: true },
      link: { description: 'Public URL of the item.', type: 'string', format: 'uri', context: ALL, readonly: true },
      modified: {
        description: 'Last modification date, in the site time zone.',
        type: 'string',
        format: 'date-time',
        context: VIEW_EDIT,
        readonly: true,
      },
      modified_gmt: {
        description: 'Last modification date, in UTC.',
        type: 'string',
        format: 'date-time',
        context: VIEW_EDIT,
        readonly: true,
      },
      slug: { description: slugDescription, type: 'string', context: ALL },
      status: { description: 'Publication status.', type: 'string', enum: [...statuses], context: VIEW_EDIT },
      type: { description: 'The post type.', type: 'string', context: ALL, readonly: true },
    },
    permalink: {
      permalink_template: { description: 'Template of the public URL.', type: 'string', context: EDIT, readonly: true },
      generated_slug: { description: 'The slug the title would give.', type: 'string', context: EDIT, readonly: true },
    },
    title: renderedText('Title of the item.', ALL),
    author: { description: 'Identifier of the author.', type: 'integer', context: ALL },
    discussion: {
      comment_status: {
        description: 'Whether comments are open.',
        type: 'string',
        enum: ['open', 'closed'],
        context: VIEW_EDIT,
      },
      ping_status: {
        description: 'Whether pings are accepted.',
        type: 'string',
        enum: ['open', 'closed'],
        context: VIEW_EDIT,
      },
    },
    template: { description: 'Theme template used to display the item.', type: 'string', context: VIEW_EDIT },
  };
}
