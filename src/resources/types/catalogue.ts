/**
 * What WordPress 6.1 registers about the post types, taxonomies and post statuses that this site has: labels,
 * capabilities, supported features and flags. These are facts of the platform that no route of ours can tell
 * (a label is not derivable), so they are written down here; everything that *is* derivable (which of them
 * the site serves, under which REST base, which taxonomies a type has, which statuses exist) is derived from the
 * routes in registry.ts.
 */

export type Labels = Readonly<Record<string, string | null>>;

export interface PostTypeFacts {
  slug: string;
  /** The collection route's last segment (`/core/v2/{restBase}`). */
  restBase: string;
  description: string;
  hierarchical: boolean;
  hasArchive: boolean;
  viewable: boolean;
  visibility: { show_in_nav_menus: boolean; show_ui: boolean };
  icon: string | null;
  labels: Labels;
  /** Meta capability → the capability it names, as WordPress lists them (`edit_posts` is what editing takes). */
  capabilities: Readonly<Record<string, string>>;
  supports: Readonly<Record<string, true>>;
}

export interface TaxonomyFacts {
  slug: string;
  restBase: string;
  description: string;
  hierarchical: boolean;
  showCloud: boolean;
  labels: Labels;
  capabilities: Readonly<Record<'manage_terms' | 'edit_terms' | 'delete_terms' | 'assign_terms', string>>;
  /** The primitive capability `assign_terms` maps to: the edit context of a taxonomy takes it. */
  assignCapability: string;
  visibility: Readonly<
    Record<
      'public' | 'publicly_queryable' | 'show_admin_column' | 'show_in_nav_menus' | 'show_in_quick_edit' | 'show_ui',
      boolean
    >
  >;
}

export interface StatusFacts {
  label: string;
  public: boolean;
  private: boolean;
  protected: boolean;
  /** Publicly queryable. */
  queryable: boolean;
  /** Shown in the admin's "All" list. */
  showInList: boolean;
  /** Its date floats (is not fixed) until the item is published. */
  dateFloating: boolean;
}

// Labels: a type or taxonomy starts from the flat defaults and changes what it names differently.

const FLAT_TYPE_LABELS: Labels = {
  name: 'Posts',
  singular_name: 'Post',
  add_new: 'Add New',
  add_new_item: 'Add New Post',
  edit_item: 'Edit Post',
  new_item: 'New Post',
  view_item: 'View Post',
  view_items: 'View Posts',
  search_items: 'Search Posts',
  not_found: 'No posts found.',
  not_found_in_trash: 'No posts found in Trash.',
  parent_item_colon: null,
  all_items: 'All Posts',
  archives: 'Post Archives',
  attributes: 'Post Attributes',
  insert_into_item: 'Insert into post',
  uploaded_to_this_item: 'Uploaded to this post',
  featured_image: 'Featured image',
  set_featured_image: 'Set featured image',
  remove_featured_image: 'Remove featured image',
  use_featured_image: 'Use as featured image',
  filter_items_list: 'Filter posts list',
  filter_by_date: 'Filter by date',
  items_list_navigation: 'Posts list navigation',
  items_list: 'Posts list',
  item_published: 'Post published.',
  item_published_privately: 'Post published privately.',
  item_reverted_to_draft: 'Post reverted to draft.',
  item_scheduled: 'Post scheduled.',
  item_updated: 'Post updated.',
  item_link: 'Post Link',
  item_link_description: 'A link to a post.',
  menu_name: 'Posts',
  name_admin_bar: 'Post',
};

const FLAT_TAXONOMY_LABELS: Labels = {
  name: 'Tags',
  singular_name: 'Tag',
  search_items: 'Search Tags',
  popular_items: 'Popular Tags',
  all_items: 'All Tags',
  parent_item: null,
  parent_item_colon: null,
  name_field_description: 'The name is how it appears on your site.',
  slug_field_description:
    'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.',
  parent_field_description: null,
  desc_field_description: 'The description is not prominent by default; however, some themes may show it.',
  edit_item: 'Edit Tag',
  view_item: 'View Tag',
  update_item: 'Update Tag',
  add_new_item: 'Add New Tag',
  new_item_name: 'New Tag Name',
  separate_items_with_commas: 'Separate tags with commas',
  add_or_remove_items: 'Add or remove tags',
  choose_from_most_used: 'Choose from the most used tags',
  not_found: 'No tags found.',
  no_terms: 'No tags',
  filter_by_item: null,
  items_list_navigation: 'Tags list navigation',
  items_list: 'Tags list',
  most_used: 'Most Used',
  back_to_items: '&larr; Go to Tags',
  item_link: 'Tag Link',
  item_link_description: 'A link to a tag.',
  menu_name: 'Tags',
  name_admin_bar: 'post_tag',
};

/** A post type's meta capabilities named after its plural (`posts`, `pages`), with `create_posts` given. */
function typeCapabilities(singular: string, plural: string, createPosts: string): Record<string, string> {
  return {
    edit_post: `edit_${singular}`,
    read_post: `read_${singular}`,
    delete_post: `delete_${singular}`,
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    delete_posts: `delete_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
    read: 'read',
    delete_private_posts: `delete_private_${plural}`,
    delete_published_posts: `delete_published_${plural}`,
    delete_others_posts: `delete_others_${plural}`,
    edit_private_posts: `edit_private_${plural}`,
    edit_published_posts: `edit_published_${plural}`,
    create_posts: createPosts,
  };
}

/** Every capability of the type is `cap` except the per-item ones and `read` (menu items need theme options). */
function allCapabilities(cap: string): Record<string, string> {
  const caps = typeCapabilities('post', 'posts', cap);
  for (const key of Object.keys(caps))
    if (!['edit_post', 'read_post', 'delete_post', 'read'].includes(key)) caps[key] = cap;
  return caps;
}

/**
 * A reusable block's: named after `block`, each primitive one mapped back onto the posts' (as WordPress maps them),
 * reading taking `edit_posts` and creating `publish_posts`.
 */
function blockCapabilities(): Record<string, string> {
  return {
    ...typeCapabilities('block', 'blocks', 'publish_posts'),
    edit_posts: 'edit_posts',
    edit_others_posts: 'edit_others_posts',
    read: 'edit_posts',
    delete_published_posts: 'delete_published_posts',
    delete_others_posts: 'delete_others_posts',
    edit_published_posts: 'edit_published_posts',
  };
}

const supported = (...features: string[]): Record<string, true> => Object.fromEntries(features.map((f) => [f, true]));

/** The post types WordPress shows in REST that this site may serve, in WordPress's registration order. */
export const POST_TYPES: readonly PostTypeFacts[] = [
  {
    slug: 'post',
    restBase: 'posts',
    description: '',
    hierarchical: false,
    hasArchive: false,
    viewable: true,
    visibility: { show_in_nav_menus: true, show_ui: true },
    icon: 'dashicons-admin-post',
    labels: FLAT_TYPE_LABELS,
    capabilities: typeCapabilities('post', 'posts', 'edit_posts'),
    supports: supported(
      'title',
      'editor',
      'author',
      'thumbnail',
      'excerpt',
      'trackbacks',
      'custom-fields',
      'comments',
      'revisions',
      'post-formats',
    ),
  },
  {
    slug: 'page',
    restBase: 'pages',
    description: '',
    hierarchical: true,
    hasArchive: false,
    viewable: true,
    visibility: { show_in_nav_menus: true, show_ui: true },
    icon: 'dashicons-admin-page',
    labels: {
      ...FLAT_TYPE_LABELS,
      name: 'Pages',
      singular_name: 'Page',
      add_new_item: 'Add New Page',
      edit_item: 'Edit Page',
      new_item: 'New Page',
      view_item: 'View Page',
      view_items: 'View Pages',
      search_items: 'Search Pages',
      not_found: 'No pages found.',
      not_found_in_trash: 'No pages found in Trash.',
      parent_item_colon: 'Parent Page:',
      all_items: 'All Pages',
      archives: 'Page Archives',
      attributes: 'Page Attributes',
      insert_into_item: 'Insert into page',
      uploaded_to_this_item: 'Uploaded to this page',
      filter_items_list: 'Filter pages list',
      items_list_navigation: 'Pages list navigation',
      items_list: 'Pages list',
      item_published: 'Page published.',
      item_published_privately: 'Page published privately.',
      item_reverted_to_draft: 'Page reverted to draft.',
      item_scheduled: 'Page scheduled.',
      item_updated: 'Page updated.',
      item_link: 'Page Link',
      item_link_description: 'A link to a page.',
      menu_name: 'Pages',
      name_admin_bar: 'Page',
    },
    capabilities: typeCapabilities('page', 'pages', 'edit_pages'),
    supports: supported(
      'title',
      'editor',
      'author',
      'thumbnail',
      'page-attributes',
      'custom-fields',
      'comments',
      'revisions',
    ),
  },
  {
    slug: 'attachment',
    restBase: 'media',
    description: '',
    hierarchical: false,
    hasArchive: false,
    viewable: true,
    visibility: { show_in_nav_menus: false, show_ui: true },
    icon: 'dashicons-admin-media',
    labels: {
      ...FLAT_TYPE_LABELS,
      name: 'Media',
      singular_name: 'Media',
      edit_item: 'Edit Media',
      view_item: 'View Attachment Page',
      all_items: 'Media',
      archives: 'Media',
      attributes: 'Attachment Attributes',
      menu_name: 'Media',
      name_admin_bar: 'Media',
    },
    capabilities: typeCapabilities('post', 'posts', 'upload_files'),
    supports: supported('title', 'author', 'comments'),
  },
  {
    slug: 'nav_menu_item',
    restBase: 'menu-items',
    description: '',
    hierarchical: false,
    hasArchive: false,
    viewable: false,
    visibility: { show_in_nav_menus: false, show_ui: false },
    icon: null,
    labels: {
      ...FLAT_TYPE_LABELS,
      name: 'Navigation Menu Items',
      singular_name: 'Navigation Menu Item',
      all_items: 'Navigation Menu Items',
      archives: 'Navigation Menu Items',
      menu_name: 'Navigation Menu Items',
      name_admin_bar: 'Navigation Menu Item',
    },
    capabilities: allCapabilities('edit_theme_options'),
    supports: supported('title', 'editor'),
  },
  {
    slug: 'wp_block',
    restBase: 'blocks',
    description: '',
    hierarchical: false,
    hasArchive: false,
    viewable: false,
    visibility: { show_in_nav_menus: false, show_ui: true },
    icon: null,
    labels: {
      ...FLAT_TYPE_LABELS,
      name: 'Reusable blocks',
      singular_name: 'Reusable block',
      add_new_item: 'Add new Reusable block',
      edit_item: 'Edit Reusable block',
      new_item: 'New Reusable block',
      view_item: 'View Reusable block',
      search_items: 'Search Reusable blocks',
      not_found: 'No reusable blocks found.',
      not_found_in_trash: 'No reusable blocks found in Trash.',
      all_items: 'All Reusable blocks',
      archives: 'All Reusable blocks',
      filter_items_list: 'Filter reusable blocks list',
      items_list_navigation: 'Reusable blocks list navigation',
      items_list: 'Reusable blocks list',
      item_published: 'Reusable block published.',
      item_published_privately: 'Reusable block published privately.',
      item_reverted_to_draft: 'Reusable block reverted to draft.',
      item_scheduled: 'Reusable block scheduled.',
      item_updated: 'Reusable block updated.',
      menu_name: 'Reusable blocks',
      name_admin_bar: 'Reusable block',
    },
    capabilities: blockCapabilities(),
    supports: supported('title', 'editor', 'revisions'),
  },
  {
    slug: 'wp_template',
    restBase: 'templates',
    description: 'Templates to include in your theme.',
    hierarchical: false,
    hasArchive: false,
    viewable: false,
    visibility: { show_in_nav_menus: false, show_ui: false },
    icon: null,
    labels: {
      ...FLAT_TYPE_LABELS,
      name: 'Templates',
      singular_name: 'Template',
      add_new_item: 'Add New Template',
      edit_item: 'Edit Template',
      new_item: 'New Template',
      view_item: 'View Template',
      search_items: 'Search Templates',
      not_found: 'No templates found.',
      not_found_in_trash: 'No templates found in Trash.',
      parent_item_colon: 'Parent Template:',
      all_items: 'Templates',
      archives: 'Template archives',
      insert_into_item: 'Insert into template',
      uploaded_to_this_item: 'Uploaded to this template',
      filter_items_list: 'Filter templates list',
      items_list_navigation: 'Templates list navigation',
      items_list: 'Templates list',
      menu_name: 'Templates',
      name_admin_bar: 'Template',
    },
    capabilities: {
      ...allCapabilities('edit_theme_options'),
      edit_post: 'edit_template',
      read_post: 'read_template',
      delete_post: 'delete_template',
      read: 'edit_theme_options',
    },
    supports: supported('title', 'slug', 'excerpt', 'editor', 'revisions', 'author'),
  },
];

/**
 * Post types that exist but that WordPress does not show in REST: asking for one is refused, not "invalid".
 * Revisions are the only one this site has (as `…/revisions` of posts and pages).
 */
export const HIDDEN_POST_TYPES: readonly string[] = ['revision'];

const PUBLIC_TAXONOMY = {
  public: true,
  publicly_queryable: true,
  show_admin_column: true,
  show_in_nav_menus: true,
  show_in_quick_edit: true,
  show_ui: true,
};

/** The taxonomies WordPress shows in REST that this site may serve, in WordPress's registration order. */
export const TAXONOMIES: readonly TaxonomyFacts[] = [
  {
    slug: 'category',
    restBase: 'categories',
    description: '',
    hierarchical: true,
    showCloud: true,
    labels: {
      ...FLAT_TAXONOMY_LABELS,
      name: 'Categories',
      singular_name: 'Category',
      search_items: 'Search Categories',
      popular_items: null,
      all_items: 'All Categories',
      parent_item: 'Parent Category',
      parent_item_colon: 'Parent Category:',
      parent_field_description:
        'Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band.',
      edit_item: 'Edit Category',
      view_item: 'View Category',
      update_item: 'Update Category',
      add_new_item: 'Add New Category',
      new_item_name: 'New Category Name',
      separate_items_with_commas: null,
      add_or_remove_items: null,
      choose_from_most_used: null,
      not_found: 'No categories found.',
      no_terms: 'No categories',
      filter_by_item: 'Filter by category',
      items_list_navigation: 'Categories list navigation',
      items_list: 'Categories list',
      back_to_items: '&larr; Go to Categories',
      item_link: 'Category Link',
      item_link_description: 'A link to a category.',
      menu_name: 'Categories',
      name_admin_bar: 'category',
    },
    capabilities: {
      manage_terms: 'manage_categories',
      edit_terms: 'edit_categories',
      delete_terms: 'delete_categories',
      assign_terms: 'assign_categories',
    },
    assignCapability: 'edit_posts',
    visibility: PUBLIC_TAXONOMY,
  },
  {
    slug: 'post_tag',
    restBase: 'tags',
    description: '',
    hierarchical: false,
    showCloud: true,
    labels: FLAT_TAXONOMY_LABELS,
    capabilities: {
      manage_terms: 'manage_post_tags',
      edit_terms: 'edit_post_tags',
      delete_terms: 'delete_post_tags',
      assign_terms: 'assign_post_tags',
    },
    assignCapability: 'edit_posts',
    visibility: PUBLIC_TAXONOMY,
  },
  {
    slug: 'nav_menu',
    restBase: 'menus',
    description: '',
    hierarchical: false,
    showCloud: false,
    labels: {
      ...FLAT_TAXONOMY_LABELS,
      name: 'Navigation Menus',
      singular_name: 'Navigation Menu',
      all_items: 'Navigation Menus',
      menu_name: 'Navigation Menus',
      name_admin_bar: 'Navigation Menu',
      archives: 'Navigation Menus',
    },
    capabilities: {
      manage_terms: 'edit_theme_options',
      edit_terms: 'edit_theme_options',
      delete_terms: 'edit_theme_options',
      assign_terms: 'edit_theme_options',
    },
    assignCapability: 'edit_theme_options',
    visibility: {
      public: false,
      publicly_queryable: false,
      show_admin_column: false,
      show_in_nav_menus: false,
      show_in_quick_edit: false,
      show_ui: false,
    },
  },
];

/** Taxonomies that exist but that WordPress does not show in REST (a post's `format` is a term of `post_format`). */
export const HIDDEN_TAXONOMIES: readonly string[] = ['post_format'];

/** WordPress's built-in statuses that anyone may be shown (the internal ones are never shown, so need no facts). */
export const STATUSES: Readonly<Record<string, StatusFacts>> = {
  publish: {
    label: 'Published',
    public: true,
    private: false,
    protected: false,
    queryable: true,
    showInList: true,
    dateFloating: false,
  },
  future: {
    label: 'Scheduled',
    public: false,
    private: false,
    protected: true,
    queryable: false,
    showInList: true,
    dateFloating: false,
  },
  draft: {
    label: 'Draft',
    public: false,
    private: false,
    protected: true,
    queryable: false,
    showInList: true,
    dateFloating: true,
  },
  pending: {
    label: 'Pending',
    public: false,
    private: false,
    protected: true,
    queryable: false,
    showInList: true,
    dateFloating: true,
  },
  private: {
    label: 'Private',
    public: false,
    private: true,
    protected: false,
    queryable: false,
    showInList: true,
    dateFloating: false,
  },
  trash: {
    label: 'Trash',
    public: false,
    private: false,
    protected: false,
    queryable: false,
    showInList: false,
    dateFloating: false,
  },
};

/**
 * A status a plug-in registers with WordPress's defaults (the second instance's `ext-disabled`): labelled by its
 * name, neither public, private nor protected, listed, with a fixed date.
 */
export const registeredStatusFacts = (name: string): StatusFacts => ({
  label: name,
  public: false,
  private: false,
  protected: false,
  queryable: false,
  showInList: true,
  dateFloating: false,
});
