/** The one schema of comments: write arguments, context filtering, `_fields`, OPTIONS and the index come from it. */
import type { ResourceSchema } from '../../rest/schema';

const ALL = ['view', 'edit', 'embed'];
const VIEW_EDIT = ['view', 'edit'];
const avatar = (size: number) => ({
  description: `Avatar URL with image size of ${size} pixels.`,
  type: 'string',
  format: 'uri',
  context: ['embed', 'view', 'edit'],
});

export const commentSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'comment',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier of the comment.', type: 'integer', context: ALL, readonly: true },
    author: { description: 'Identifier of the user who wrote the comment, 0 for none.', type: 'integer', context: ALL },
    author_email: {
      description: 'Email address of the comment author.',
      type: 'string',
      format: 'email',
      context: ['edit'],
    },
    author_ip: { description: 'IP address of the comment author.', type: 'string', format: 'ip', context: ['edit'] },
    author_name: { description: 'Display name of the comment author.', type: 'string', context: ALL },
    author_url: { description: 'URL of the comment author.', type: 'string', format: 'uri', context: ALL },
    author_user_agent: { description: 'User agent of the comment author.', type: 'string', context: ['edit'] },
    content: {
      description: 'The text of the comment.',
      type: 'object',
      context: ALL,
      // WordPress takes the text as a string or as `{raw}` and checks nothing else: any other value is no text
      // (`rest_comment_content_invalid` on create, no change on update).
      arg_options: {},
      properties: {
        raw: { description: 'The text as stored.', type: 'string', context: ['edit'] },
        rendered: { description: 'The text as HTML for display.', type: 'string', context: ALL, readonly: true },
      },
    },
    date: {
      description: 'When the comment was published, in the site time zone.',
      type: 'string',
      format: 'date-time',
      context: ALL,
    },
    date_gmt: {
      description: 'When the comment was published, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    link: { description: 'URL of the comment.', type: 'string', format: 'uri', context: ALL, readonly: true },
    parent: {
      description: 'Identifier of the comment this one answers (0: none).',
      type: 'integer',
      context: ALL,
      default: 0,
    },
    post: { description: 'Identifier of the post the comment is on.', type: 'integer', context: VIEW_EDIT, default: 0 },
    status: { description: 'State of the comment.', type: 'string', context: VIEW_EDIT },
    type: { description: 'Type of the comment.', type: 'string', context: ALL, readonly: true },
    author_avatar_urls: {
      description: 'Avatar URLs of the comment author.',
      type: 'object',
      context: ALL,
      readonly: true,
      properties: { 24: avatar(24), 48: avatar(48), 96: avatar(96) },
    },
    meta: { description: 'Registered meta fields.', type: 'object', context: VIEW_EDIT, properties: [] },
  },
} as unknown as ResourceSchema;
