/**
 * The schemas of a user and of an application password, as WordPress 6.1 shapes them: they give the write
 * args, the fields per context, `_fields` and what OPTIONS shows.
 */
import type { ResourceSchema } from '../../rest/schema';

const ALL = ['embed', 'view', 'edit'];
const VIEW_EDIT = ['view', 'edit'];
const EDIT = ['edit'];

/** WordPress's avatar sizes. */
export const AVATAR_SIZES = [24, 48, 96] as const;
/** Locales a user may choose: the site's (empty) or English, the only language installed. */
export const USER_LOCALES = ['', 'en_US'];

export function userSchema(): ResourceSchema {
  const avatarProperties: Record<string, unknown> = {};
  for (const size of AVATAR_SIZES) {
    avatarProperties[String(size)] = {
      description: `Avatar image URL, ${size} pixels square.`,
      type: 'string',
      format: 'uri',
      context: ALL,
    };
  }
  const properties: Record<string, unknown> = {
    id: { description: 'Unique identifier of the user.', type: 'integer', context: ALL, readonly: true },
    username: { description: 'The name the user signs in with.', type: 'string', context: EDIT, required: true },
    name: { description: 'The name shown for the user.', type: 'string', context: ALL },
    first_name: { description: 'Given name.', type: 'string', context: EDIT },
    last_name: { description: 'Family name.', type: 'string', context: EDIT },
    email: { description: 'Email address.', type: 'string', format: 'email', context: EDIT, required: true },
    url: { description: 'The user’s website.', type: 'string', format: 'uri', context: ALL },
    description: { description: 'Biographical text.', type: 'string', context: ALL },
    link: {
      description: 'Public URL of the user’s archive.',
      type: 'string',
      format: 'uri',
      context: ALL,
      readonly: true,
    },
    locale: { description: 'Language of the user’s interface.', type: 'string', enum: USER_LOCALES, context: EDIT },
    nickname: { description: 'Nickname.', type: 'string', context: EDIT },
    slug: { description: 'URL-safe identifier of the user.', type: 'string', context: ALL },
    registered_date: {
      description: 'When the user registered.',
      type: 'string',
      format: 'date-time',
      context: EDIT,
      readonly: true,
    },
    roles: { description: 'The user’s roles.', type: 'array', items: { type: 'string' }, context: EDIT },
    password: { description: 'Login password (write only, never shown).', type: 'string', context: [], required: true },
    capabilities: { description: 'Every capability the user has.', type: 'object', context: EDIT, readonly: true },
    extra_capabilities: {
      description: 'Capabilities granted to the user directly (their roles).',
      type: 'object',
      context: EDIT,
      readonly: true,
    },
    avatar_urls: {
      description: 'Avatar image URLs by size.',
      type: 'object',
      context: ALL,
      readonly: true,
      properties: avatarProperties,
    },
    meta: {
      description: 'Registered meta fields.',
      type: 'object',
      context: VIEW_EDIT,
      properties: {
        persisted_preferences: {
          type: 'object',
          description: '',
          default: [],
          context: EDIT,
          properties: {
            _modified: {
              description: 'When the preferences last changed.',
              type: 'string',
              format: 'date-time',
              readonly: false,
            },
          },
          additionalProperties: true,
        },
      },
    },
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'user',
    type: 'object',
    properties,
  } as ResourceSchema;
}

export function applicationPasswordSchema(): ResourceSchema {
  const properties: Record<string, unknown> = {
    uuid: {
      description: 'Unique identifier of the application password.',
      type: 'string',
      format: 'uuid',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    app_id: {
      description: 'A UUID the application chooses to identify itself (a version 5 UUID of its URL is a good choice).',
      type: 'string',
      format: 'uuid',
      context: ['view', 'edit', 'embed'],
    },
    name: {
      description: 'Name of the application password.',
      type: 'string',
      required: true,
      context: ['view', 'edit', 'embed'],
      minLength: 1,
      pattern: '.*\\S.*',
    },
    password: {
      description: 'The generated password, shown only in the answer that creates it.',
      type: 'string',
      context: EDIT,
      readonly: true,
    },
    created: {
      description: 'When it was created, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
      readonly: true,
    },
    last_used: {
      description: 'When it was last used, in UTC (recorded at most daily).',
      type: ['string', 'null'],
      format: 'date-time',
      context: VIEW_EDIT,
      readonly: true,
    },
    last_ip: {
      description: 'The address it was last used from.',
      type: ['string', 'null'],
      format: 'ip',
      context: VIEW_EDIT,
      readonly: true,
    },
  };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'application-password',
    type: 'object',
    properties,
  } as ResourceSchema;
}
