/**
 * The one schema of an attachment (`core/v2/media`): write args, context filtering, `_fields`, OPTIONS and
 * the index all come from it.
 */
import type { ResourceSchema } from '../../rest/schema';
import { WRITABLE_STATUSES } from '../content/schema';
import { ALL, EDIT, VIEW_EDIT, postTypeFields, renderedText } from '../content/fields';

/**
 * `statuses`: the instance's writable statuses (the second instance adds `ext-disabled`); any but `private` is stored
 * as `inherit`. `featuredMedia`: whether attachments have a featured image (the interface lists it on the first
 * instance only).
 */
export function mediaSchema(
  statuses: readonly string[] = WRITABLE_STATUSES,
  options: { featuredMedia: boolean } = { featuredMedia: true },
): ResourceSchema {
  const shared = postTypeFields('URL-safe identifier, unique among attachments.', statuses);
  const properties: Record<string, unknown> = {
    ...shared.identity,
    ...shared.permalink,
    title: shared.title,
    author: shared.author,
    ...(options.featuredMedia
      ? { featured_media: { description: 'Identifier of the featured media item.', type: 'integer', context: ALL } }
      : {}),
    ...shared.discussion,
    // No meta is registered for attachments: WordPress shows the empty property map as PHP's empty array, [].
    meta: {
      description: 'Registered meta fields (none).',
      type: 'object',
      context: VIEW_EDIT,
      properties: [] as never,
    },
    template: shared.template,
    alt_text: { description: 'Text shown when the attachment is not displayed.', type: 'string', context: ALL },
    caption: renderedText('Caption of the attachment.', ALL),
    description: renderedText('Description of the attachment.', VIEW_EDIT),
    media_type: {
      description: 'Kind of attachment.',
      type: 'string',
      enum: ['image', 'file'],
      context: ALL,
      readonly: true,
    },
    mime_type: { description: 'MIME type of the file.', type: 'string', context: ALL, readonly: true },
    media_details: {
      description: 'Details of the file: dimensions, sizes, file name.',
      type: 'object',
      context: ALL,
      readonly: true,
    },
    post: { description: 'Identifier of the post the attachment belongs to.', type: 'integer', context: VIEW_EDIT },
    source_url: {
      description: 'URL of the original file.',
      type: 'string',
      format: 'uri',
      context: ALL,
      readonly: true,
    },
    missing_image_sizes: {
      description: 'Image sizes not yet generated.',
      type: 'array',
      items: { type: 'string' },
      context: EDIT,
      readonly: true,
    },
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'attachment',
    type: 'object',
    properties,
  } as ResourceSchema;
}

/** The `action-*` relations an attachment's edit context may carry (OPTIONS shows them). */
export function mediaActionLinks(apiRoot: string): Record<string, unknown>[] {
  const href = `${apiRoot}core/v2/media/{id}`;
  return [
    {
      rel: 'https://api.w.org/action-unfiltered-html',
      title: 'The caller may save HTML and scripts unfiltered.',
      href,
      targetSchema: { type: 'object', properties: { content: { raw: { type: 'string' } } } },
    },
    {
      rel: 'https://api.w.org/action-assign-author',
      title: 'The caller may change the author.',
      href,
      targetSchema: { type: 'object', properties: { author: { type: 'integer' } } },
    },
  ];
}
