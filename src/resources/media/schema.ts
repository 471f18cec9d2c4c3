/**
 * The one schema of an attachment (`core/v2/media`): write args, context filtering, `_fields`, OPTIONS and
 * the index all come from it.
 */
import type { ResourceSchema } from '../../rest/schema';
import { WRITABLE_STATUSES } from '../content/schema';

const ALL = ['view', 'edit', 'embed'];
const VIEW_EDIT = ['view', 'edit'];
const EDIT = ['edit'];

function renderedText(description: string, contexts: string[]) {
  return {
    description,
    type: 'object',
    context: contexts,
    arg_options: { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
    properties: {
      raw: { description: `${description} As stored, before rendering.`, type: 'string', context: EDIT },
      rendered: { description: `${description} As HTML for display.`, type: 'string', context: contexts, readonly: true },
    },
  };
}

/** `statuses`: the instance's writable statuses (the second instance adds `ext-disabled`); any but `private` is stored as `inherit`. */
export function mediaSchema(statuses: readonly string[] = WRITABLE_STATUSES): ResourceSchema {
  const properties: Record<string, unknown> = {
    date: { description: 'Publication date, in the site time zone.', type: ['string', 'null'], format: 'date-time', context: ALL },
    date_gmt: { description: 'Publication date, in UTC.', type: ['string', 'null'], format: 'date-time', context: VIEW_EDIT },
    guid: {
      description: 'Globally unique identifier of the item.',
      type: 'object',
      context: VIEW_EDIT,
      readonly: true,
      properties: {
        raw: { description: 'The identifier as stored.', type: 'string', context: EDIT, readonly: true },
        rendered: { description: 'The identifier for display.', type: 'string', context: VIEW_EDIT, readonly: true },
      },
    },
    id: { description: 'Unique identifier of the item.', type: 'integer', context: ALL, readonly: true },
    link: { description: 'Public URL of the item.', type: 'string', format: 'uri', context: ALL, readonly: true },
    modified: { description: 'Last modification date, in the site time zone.', type: 'string', format: 'date-time', context: VIEW_EDIT, readonly: true },
    modified_gmt: { description: 'Last modification date, in UTC.', type: 'string', format: 'date-time', context: VIEW_EDIT, readonly: true },
    slug: { description: 'URL-safe identifier, unique among attachments.', type: 'string', context: ALL },
    status: { description: 'Publication status.', type: 'string', enum: [...statuses], context: VIEW_EDIT },
    type: { description: 'The post type.', type: 'string', context: ALL, readonly: true },
    permalink_template: { description: 'Template of the public URL.', type: 'string', context: EDIT, readonly: true },
    generated_slug: { description: 'The slug the title would give.', type: 'string', context: EDIT, readonly: true },
    title: renderedText('Title of the item.', ALL),
    author: { description: 'Identifier of the author.', type: 'integer', context: ALL },
    comment_status: { description: 'Whether comments are open.', type: 'string', enum: ['open', 'closed'], context: VIEW_EDIT },
    ping_status: { description: 'Whether pings are accepted.', type: 'string', enum: ['open', 'closed'], context: VIEW_EDIT },
    // No meta is registered for attachments: WordPress shows the empty property map as PHP's empty array, [].
    meta: { description: 'Registered meta fields (none).', type: 'object', context: VIEW_EDIT, properties: [] as never },
    template: { description: 'Theme template used to display the item.', type: 'string', context: VIEW_EDIT },
    alt_text: { description: 'Text shown when the attachment is not displayed.', type: 'string', context: ALL },
    caption: renderedText('Caption of the attachment.', ALL),
    description: renderedText('Description of the attachment.', VIEW_EDIT),
    media_type: { description: 'Kind of attachment.', type: 'string', enum: ['image', 'file'], context: ALL, readonly: true },
    mime_type: { description: 'MIME type of the file.', type: 'string', context: ALL, readonly: true },
    media_details: { description: 'Details of the file: dimensions, sizes, file name.', type: 'object', context: ALL, readonly: true },
    post: { description: 'Identifier of the post the attachment belongs to.', type: 'integer', context: VIEW_EDIT },
    source_url: { description: 'URL of the original file.', type: 'string', format: 'uri', context: ALL, readonly: true },
    missing_image_sizes: { description: 'Image sizes not yet generated.', type: 'array', items: { type: 'string' }, context: EDIT, readonly: true },
  };
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'attachment', type: 'object', properties } as ResourceSchema;
}

/** The `action-*` relations an attachment's edit context may carry (OPTIONS shows them). */
export function mediaActionLinks(apiRoot: string): Record<string, unknown>[] {
  const href = `${apiRoot}core/v2/media/{id}`;
  return [
    { rel: 'https://api.w.org/action-unfiltered-html', title: 'The caller may save HTML and scripts unfiltered.', href, targetSchema: { type: 'object', properties: { content: { raw: { type: 'string' } } } } },
    { rel: 'https://api.w.org/action-assign-author', title: 'The caller may change the author.', href, targetSchema: { type: 'object', properties: { author: { type: 'integer' } } } },
  ];
}
