/**
 * The one schema of a post-type item (posts and pages). It feeds argument validation of writes, context
 * filtering of responses, `_fields`, OPTIONS and the index. Each property says in which contexts it appears
 * and whether clients may write it.
 */
import type { ResourceSchema } from '../../rest/schema';
import type { PostType } from './events';
import { ALL, EDIT, VIEW_EDIT, postTypeFields, renderedText } from './fields';

export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
/** The statuses a write accepts with those the instance registers (src/instances/), which come after the built-in ones. */
export const writableStatuses = (registered: readonly string[]): readonly string[] => [
  ...WRITABLE_STATUSES,
  ...registered,
];
export const POST_FORMATS = [
  'standard',
  'aside',
  'chat',
  'gallery',
  'link',
  'image',
  'quote',
  'status',
  'video',
  'audio',
] as const;

export function contentSchema(postType: PostType, options: { statuses?: readonly string[] } = {}): ResourceSchema {
  if (postType === 'wp_block') return blockSchema(options.statuses ?? WRITABLE_STATUSES);
  const isPost = postType === 'post';
  const shared = postTypeFields(
    'URL-safe identifier, unique within the post type.',
    options.statuses ?? WRITABLE_STATUSES,
  );
  const properties: Record<string, unknown> = {
    ...shared.identity,
    password: { description: 'Password that protects the content and excerpt.', type: 'string', context: EDIT },
    ...shared.permalink,
    ...(postType === 'page'
      ? {
          parent: { description: 'Identifier of the parent page.', type: 'integer', context: VIEW_EDIT },
        }
      : {}),
    title: shared.title,
    content: renderedText('Content of the item.', VIEW_EDIT, {
      protected: {
        description: 'Whether a password protects the content.',
        type: 'boolean',
        context: ALL,
        readonly: true,
      },
      block_version: {
        description: 'Block format version of the content.',
        type: 'integer',
        context: EDIT,
        readonly: true,
      },
    }),
    author: shared.author,
    excerpt: renderedText('Excerpt of the item.', ALL, {
      protected: {
        description: 'Whether a password protects the excerpt.',
        type: 'boolean',
        context: ALL,
        readonly: true,
      },
    }),
    featured_media: { description: 'Identifier of the featured media item.', type: 'integer', context: ALL },
    ...shared.discussion,
    ...(postType === 'page'
      ? { menu_order: { description: 'Position among sibling pages.', type: 'integer', context: VIEW_EDIT } }
      : {}),
    ...(isPost
      ? { format: { description: 'Post format.', type: 'string', enum: [...POST_FORMATS], context: VIEW_EDIT } }
      : {}),
    meta: {
      description: 'Registered meta fields.',
      type: 'object',
      context: VIEW_EDIT,
      properties: {
        footnotes: {
          description: 'Footnotes of the item, as block data.',
          type: 'string',
          default: '',
          context: VIEW_EDIT,
        },
      },
    },
    ...(isPost
      ? { sticky: { description: 'Whether the post stays at the top of lists.', type: 'boolean', context: VIEW_EDIT } }
      : {}),
    template: shared.template,
    ...(isPost
      ? {
          categories: {
            description: 'Category term ids.',
            type: 'array',
            items: { type: 'integer' },
            context: VIEW_EDIT,
          },
          tags: { description: 'Tag term ids.', type: 'array', items: { type: 'integer' }, context: VIEW_EDIT },
        }
      : {}),
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: postType,
    type: 'object',
    properties,
  } as ResourceSchema;
}

/**
 * A reusable block (`wp_block`): what the type supports (title, editor, revisions) and no more: no author,
 * excerpt, discussion, featured image or meta. Its title and content are shown raw in the view context too, and
 * never rendered (a block is inserted as its markup); it is not viewable, so no permalink template or generated slug.
 */
function blockSchema(statuses: readonly string[]): ResourceSchema {
  const shared = postTypeFields('URL-safe identifier, unique among reusable blocks.', statuses);
  const properties: Record<string, unknown> = {
    ...shared.identity,
    password: { description: 'Password that protects the content.', type: 'string', context: EDIT },
    title: {
      description: 'Title of the block.',
      type: 'object',
      context: ALL,
      arg_options: { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
      properties: { raw: { description: 'Title of the block, as stored.', type: 'string', context: VIEW_EDIT } },
    },
    content: {
      description: 'Content of the block.',
      type: 'object',
      context: VIEW_EDIT,
      arg_options: { type: ['string', 'object'], properties: { raw: { type: 'string' } } },
      properties: {
        raw: { description: 'Content of the block, as stored: block markup.', type: 'string', context: VIEW_EDIT },
        protected: {
          description: 'Whether a password protects the content.',
          type: 'boolean',
          context: ALL,
          readonly: true,
        },
        block_version: {
          description: 'Block format version of the content.',
          type: 'integer',
          context: EDIT,
          readonly: true,
        },
      },
    },
    template: shared.template,
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'wp_block',
    type: 'object',
    properties,
  } as ResourceSchema;
}

/**
 * The hyper-schema links of an item (shown by OPTIONS): each `action-*` relation the edit context may carry,
 * what it lets the caller do and the fields it concerns. Pages have no sticky flag and no terms.
 */
export function contentActionLinks(postType: PostType, apiRoot: string): Record<string, unknown>[] {
  const href = `${apiRoot}core/v2/${{ post: 'posts', page: 'pages', wp_block: 'blocks' }[postType]}/{id}`;
  const link = (action: string, title: string, properties: Record<string, unknown>) => ({
    rel: `https://api.w.org/action-${action}`,
    title,
    href,
    targetSchema: { type: 'object', properties },
  });
  const termIds = { type: 'array', items: { type: 'integer' } };
  const links = [
    link('publish', 'The caller may publish the item.', { status: { type: 'string', enum: ['publish', 'future'] } }),
    link('unfiltered-html', 'The caller may save HTML and scripts unfiltered.', {
      content: { raw: { type: 'string' } },
    }),
  ];
  // A reusable block has no author, terms or sticky flag.
  if (postType === 'wp_block') return links;
  if (postType === 'post')
    links.push(link('sticky', 'The caller may make the post sticky.', { sticky: { type: 'boolean' } }));
  links.push(link('assign-author', 'The caller may change the author.', { author: { type: 'integer' } }));
  if (postType === 'post') {
    links.push(
      link('assign-categories', 'The caller may assign categories.', { categories: termIds }),
      link('create-categories', 'The caller may create categories.', { categories: termIds }),
      link('assign-tags', 'The caller may assign tags.', { tags: termIds }),
      link('create-tags', 'The caller may create tags.', { tags: termIds }),
    );
  }
  return links;
}
