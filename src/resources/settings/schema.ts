/**
 * The one schema of the site settings: the write arguments, OPTIONS, `_fields` and the answers come from it.
 * WordPress gives the settings no `context` (every field shows to whoever may read them) and `default` null for
 * the options registered without one.
 */
import type { ResourceSchema } from '../../rest/schema';
import type { ArgSchema } from '../../rest/args/schema';
import { argsFromSchema } from '../../rest/schema';

const OPEN_CLOSED = ['open', 'closed'];

const property = (type: string, description: string, extra: Record<string, unknown> = {}) => ({
  type,
  description,
  default: null,
  ...extra,
});

export const settingsSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'settings',
  type: 'object',
  properties: {
    title: property('string', 'Site title.'),
    description: property('string', 'Site tagline.'),
    url: property('string', 'Site URL.', { format: 'uri' }),
    email: property('string', 'This address is used for admin purposes, like new user notification.', {
      format: 'email',
    }),
    timezone: property('string', 'A city in the same timezone as you.'),
    date_format: property('string', 'A date format for all date strings.'),
    time_format: property('string', 'A time format for all time strings.'),
    start_of_week: property('integer', 'A day number of the week that the week should start on.'),
    language: property('string', 'WordPress locale code.', { default: 'en_US' }),
    use_smilies: property('boolean', 'Convert emoticons like :-) and :-P to graphics on display.', { default: true }),
    default_category: property('integer', 'Default post category.'),
    default_post_format: property('string', 'Default post format.'),
    posts_per_page: property('integer', 'Blog pages show at most.', { default: 10 }),
    show_on_front: property('string', 'What to show on the front page'),
    page_on_front: property('integer', 'The ID of the page that should be displayed on the front page'),
    page_for_posts: property('integer', 'The ID of the page that should display the latest posts'),
    default_ping_status: property(
      'string',
      'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
      { enum: OPEN_CLOSED },
    ),
    default_comment_status: property('string', 'Allow people to submit comments on new posts.', { enum: OPEN_CLOSED }),
    site_logo: property('integer', 'Site logo.'),
    site_icon: property('integer', 'Site icon.'),
  },
} as unknown as ResourceSchema;

/** The update arguments. Every setting also takes null (WordPress's settings controller lets it through, to delete the option). */
export function settingsUpdateArgs(): Record<string, ArgSchema> {
  const args = argsFromSchema(settingsSchema, 'update');
  for (const arg of Object.values(args)) arg.nullable = true;
  return args;
}
