/**
 * WordPress's five roles and their primitive capabilities, and the mapping of meta capabilities
 * (edit_post, read_post, delete_post, publish_post) onto primitives for a given item. Every route's permission
 * rule is written in these terms, so the whole role matrix lives here and nowhere else.
 *
 * The role lists are WordPress 6.1's single-site defaults, in the order WordPress stores them (the users
 * resource shows them in this order), levels included.
 */

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

const levels = (highest: number): string[] => Array.from({ length: highest + 1 }, (_, i) => `level_${highest - i}`);

const ROLE_CAPABILITY_LISTS: Record<Role, readonly string[]> = {
  administrator: [
    'switch_themes',
    'edit_themes',
    'activate_plugins',
    'edit_plugins',
    'edit_users',
    'edit_files',
    'manage_options',
    'moderate_comments',
    'manage_categories',
    'manage_links',
    'upload_files',
    'import',
    'unfiltered_html',
    'edit_posts',
    'edit_others_posts',
    'edit_published_posts',
    'publish_posts',
    'edit_pages',
    'read',
    ...levels(10),
    'edit_others_pages',
    'edit_published_pages',
    'publish_pages',
    'delete_pages',
    'delete_others_pages',
    'delete_published_pages',
    'delete_posts',
    'delete_others_posts',
    'delete_published_posts',
    'delete_private_posts',
    'edit_private_posts',
    'read_private_posts',
    'delete_private_pages',
    'edit_private_pages',
    'read_private_pages',
    'delete_users',
    'create_users',
    'unfiltered_upload',
    'edit_dashboard',
    'update_plugins',
    'delete_plugins',
    'install_plugins',
    'update_themes',
    'install_themes',
    'update_core',
    'list_users',
    'remove_users',
    'promote_users',
    'edit_theme_options',
    'delete_themes',
    'export',
  ],
  editor: [
    'moderate_comments',
    'manage_categories',
    'manage_links',
    'upload_files',
    'unfiltered_html',
    'edit_posts',
    'edit_others_posts',
    'edit_published_posts',
    'publish_posts',
    'edit_pages',
    'read',
    ...levels(7),
    'edit_others_pages',
    'edit_published_pages',
    'publish_pages',
    'delete_pages',
    'delete_others_pages',
    'delete_published_pages',
    'delete_posts',
    'delete_others_posts',
    'delete_published_posts',
    'delete_private_posts',
    'edit_private_posts',
    'read_private_posts',
    'delete_private_pages',
    'edit_private_pages',
    'read_private_pages',
  ],
  author: [
    'upload_files',
    'edit_posts',
    'edit_published_posts',
    'publish_posts',
    'read',
    ...levels(2),
    'delete_posts',
    'delete_published_posts',
  ],
  contributor: ['edit_posts', 'read', ...levels(1), 'delete_posts'],
  subscriber: ['read', ...levels(0)],
};

export const ROLE_CAPABILITIES: Record<Role, ReadonlySet<string>> = {
  administrator: new Set(ROLE_CAPABILITY_LISTS.administrator),
  editor: new Set(ROLE_CAPABILITY_LISTS.editor),
  author: new Set(ROLE_CAPABILITY_LISTS.author),
  contributor: new Set(ROLE_CAPABILITY_LISTS.contributor),
  subscriber: new Set(ROLE_CAPABILITY_LISTS.subscriber),
};

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The signed-in user as the access rules see them. Anonymous requests have no Actor (null). */
export interface Actor {
  id: number;
  roles: readonly Role[];
}

/** A primitive capability check. Anonymous callers have none, not even `read`. */
export function hasCap(actor: Actor | null, capability: string): boolean {
  if (!actor) return false;
  return actor.roles.some((role) => ROLE_CAPABILITIES[role]?.has(capability));
}

/** May this actor save HTML as sent? Everyone else's title, content and excerpt go through the filter. */
export const canSaveUnfilteredHtml = (actor: Actor | null): boolean => hasCap(actor, 'unfiltered_html');

/** The capability names of a post type (`edit_posts` for posts, `edit_pages` for pages…). */
export interface PostTypeCaps {
  read: string;
  edit_posts: string;
  edit_others_posts: string;
  edit_published_posts: string;
  edit_private_posts: string;
  publish_posts: string;
  read_private_posts: string;
  delete_posts: string;
  delete_others_posts: string;
  delete_published_posts: string;
  delete_private_posts: string;
  create_posts: string;
  /**
   * Reading even a published item takes `read_post` (whose `read` is then a capability anonymous callers lack): the
   * reusable blocks' rule, which WordPress's blocks controller adds to the posts one.
   */
  readNeedsCap?: boolean;
}

export function postTypeCaps(plural: 'posts' | 'pages'): PostTypeCaps {
  return {
    read: 'read',
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    edit_published_posts: `edit_published_${plural}`,
    edit_private_posts: `edit_private_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
    delete_posts: `delete_${plural}`,
    delete_others_posts: `delete_others_${plural}`,
    delete_published_posts: `delete_published_${plural}`,
    delete_private_posts: `delete_private_${plural}`,
    create_posts: `edit_${plural}`,
  };
}

/**
 * Reusable blocks (`wp_block`): reading one takes `edit_posts` and creating one `publish_posts`. WordPress 6.1 names
 * the rest after `blocks`; asked for directly (`publish_blocks`), such a name stands for the posts' one, but the
 * capabilities an item's own check comes down to are not mapped again, and four of them no role has: so nobody may
 * delete their own unpublished block, nor read, edit or delete someone else's private one. These four keep their
 * block names here for that reason; every check of them in this code is an item's.
 */
export const BLOCK_CAPS: PostTypeCaps = Object.freeze({
  ...postTypeCaps('posts'),
  read: 'edit_posts',
  create_posts: 'publish_posts',
  delete_posts: 'delete_blocks',
  delete_private_posts: 'delete_private_blocks',
  edit_private_posts: 'edit_private_blocks',
  read_private_posts: 'read_private_blocks',
  readNeedsCap: true,
});

/** The capability names of a post type this site serves as content (posts, pages, reusable blocks). */
export function capsOfPostType(postType: 'post' | 'page' | 'wp_block'): PostTypeCaps {
  if (postType === 'wp_block') return BLOCK_CAPS;
  return postType === 'page' ? PAGE_CAPS : POST_CAPS;
}

const POST_CAPS = Object.freeze(postTypeCaps('posts'));
const PAGE_CAPS = Object.freeze(postTypeCaps('pages'));

/** What the meta-capability mapping needs to know about an item. */
export interface OwnedItem {
  /** 0 when the item has no author: then nobody counts as its owner. */
  author: number;
  status: string;
  /** For trashed items: the status before trashing, which decides what its own author needs. */
  trashedFrom?: string | null;
}

export type MetaCapability = 'edit_post' | 'delete_post' | 'read_post' | 'publish_post';

const SCHEDULED_OR_PUBLISHED = new Set(['publish', 'future']);
/** Statuses anyone may read (WordPress's public statuses). */
const PUBLIC_STATUSES = new Set(['publish']);
/** Statuses that are readable with read_private (WordPress's private statuses). */
const PRIVATE_STATUSES = new Set(['private']);

const isOwner = (actor: Actor, item: OwnedItem) => item.author !== 0 && item.author === actor.id;

/**
 * The primitive capabilities a meta capability needs for this actor and item, as WordPress 6.1 maps them:
 * - edit/delete, own item: published or scheduled → *_published_posts; trashed → by the status it was trashed
 *   from (published or scheduled → *_published_posts, else *_posts); any other status (private included) → *_posts.
 * - edit/delete, someone else's: *_others_posts, plus *_published_posts when published or scheduled, or
 *   *_private_posts when private (a trashed item needs *_others_posts only).
 * - read: public status → read; own item in any status → read; private → read_private_posts; else as edit.
 * - publish: the type's publish_posts.
 */
export function requiredCaps(actor: Actor, cap: MetaCapability, caps: PostTypeCaps, item: OwnedItem): string[] {
  const kind = cap === 'delete_post' ? 'delete' : 'edit';
  const primitive = (name: 'posts' | 'others_posts' | 'published_posts' | 'private_posts') => caps[`${kind}_${name}`];
  switch (cap) {
    case 'publish_post':
      return [caps.publish_posts];
    case 'read_post':
      if (PUBLIC_STATUSES.has(item.status)) return [caps.read];
      if (isOwner(actor, item)) return [caps.read];
      if (PRIVATE_STATUSES.has(item.status)) return [caps.read_private_posts];
      return requiredCaps(actor, 'edit_post', caps, item);
    case 'edit_post':
    case 'delete_post': {
      if (isOwner(actor, item)) {
        const status = item.status === 'trash' ? (item.trashedFrom ?? '') : item.status;
        return [SCHEDULED_OR_PUBLISHED.has(status) ? primitive('published_posts') : primitive('posts')];
      }
      const required = [primitive('others_posts')];
      if (SCHEDULED_OR_PUBLISHED.has(item.status)) required.push(primitive('published_posts'));
      else if (item.status === 'private') required.push(primitive('private_posts'));
      return required;
    }
  }
}

/** current_user_can(meta, item): anonymous callers hold no capability at all. */
export function userCan(actor: Actor | null, cap: MetaCapability, caps: PostTypeCaps, item: OwnedItem): boolean {
  if (!actor) return false;
  return requiredCaps(actor, cap, caps, item).every((primitive) => hasCap(actor, primitive));
}

/** edit_post: may this actor edit this item? */
export const canEditItem = (actor: Actor | null, caps: PostTypeCaps, item: OwnedItem): boolean =>
  userCan(actor, 'edit_post', caps, item);

/** delete_post: may this actor delete (or trash) this item? */
export const canDeleteItem = (actor: Actor | null, caps: PostTypeCaps, item: OwnedItem): boolean =>
  userCan(actor, 'delete_post', caps, item);

/**
 * May this actor see this item through the REST API? Published items are public (anonymous readers
 * included); anything else needs read_post.
 */
export function canReadItem(actor: Actor | null, caps: PostTypeCaps, item: OwnedItem): boolean {
  if (caps.readNeedsCap && !userCan(actor, 'read_post', caps, item)) return false;
  if (PUBLIC_STATUSES.has(item.status)) return true;
  return userCan(actor, 'read_post', caps, item);
}

/** Managing navigation menus and their items (WordPress's edit_theme_options: administrators). */
export const canManageMenus = (actor: Actor | null): boolean => hasCap(actor, 'edit_theme_options');

/** Reading menus and menu items: edit_theme_options, or the right to edit posts of some type (contributors up). */
export const canReadMenus = (actor: Actor | null): boolean =>
  canManageMenus(actor) || hasCap(actor, 'edit_posts') || hasCap(actor, 'edit_pages');

/** Listing contact forms (the form plug-in's read capability, edit_posts by default: contributors up). */
export const canReadContactForms = (actor: Actor | null): boolean => hasCap(actor, 'edit_posts');

/** Reading one contact form, creating, editing and deleting forms (its read/write capability, publish_pages: editors up). */
export const canEditContactForms = (actor: Actor | null): boolean => hasCap(actor, 'publish_pages');
