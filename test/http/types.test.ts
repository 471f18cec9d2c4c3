/**
 * /core/v2/types, /statuses, /taxonomies and the namespace indexes of site-health/v1 and block-editor/v1,
 * black-box through the app. The expected shapes, values, lists per role and errors are what WordPress 6.1
 * answers (recorded from the reference site with `wp/v2` read as `core/v2`), except that the post types whose
 * routes are not served (wp_template_part, wp_navigation) are left out here.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { deriveRegistry } from '../../src/resources/types/registry';
import { buildDispatcher } from '../../src/api';

type Who = 'anonymous' | 'subscriber' | 'contributor' | 'author' | 'editor' | 'administrator';
const WHO: readonly Who[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];

let t: TestSite;
const callers = {} as Record<Who, TestUser | null>;
const get = (path: string, who: Who = 'anonymous') => t.request('GET', path, { as: callers[who] });
const withoutLinks = (items: Record<string, any>) =>
  Object.fromEntries(
    Object.entries(items).map(([slug, item]) => [
      slug,
      Object.fromEntries(Object.entries(item).filter(([k]) => k !== '_links')),
    ]),
  );

async function start(instance?: 'second') {
  t = await startTestSite(instance ? { instance } : {});
  callers.anonymous = null;
  for (const role of WHO.slice(1) as Exclude<Who, 'anonymous'>[]) callers[role] = await t.createUser(role, role);
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes per context

const shapes = suite('types, statuses, taxonomies: shapes per context');
shapes.before(() => start());
shapes.after(() => t.close());

/** Keys of each item, in WordPress's order, per context. */
const KEYS = {
  types: {
    view: [
      'description',
      'hierarchical',
      'has_archive',
      'name',
      'slug',
      'icon',
      'taxonomies',
      'rest_base',
      'rest_namespace',
      '_links',
    ],
    embed: ['name', 'slug', 'icon', 'rest_base', 'rest_namespace', '_links'],
    edit: [
      'capabilities',
      'description',
      'hierarchical',
      'has_archive',
      'visibility',
      'viewable',
      'labels',
      'name',
      'slug',
      'icon',
      'supports',
      'taxonomies',
      'rest_base',
      'rest_namespace',
      '_links',
    ],
  },
  taxonomies: {
    view: ['name', 'slug', 'description', 'types', 'hierarchical', 'rest_base', 'rest_namespace', '_links'],
    embed: ['name', 'slug', 'rest_base', 'rest_namespace', '_links'],
    edit: [
      'name',
      'slug',
      'capabilities',
      'description',
      'labels',
      'types',
      'show_cloud',
      'hierarchical',
      'rest_base',
      'rest_namespace',
      'visibility',
      '_links',
    ],
  },
  statuses: {
    view: ['name', 'public', 'queryable', 'slug', 'date_floating', '_links'],
    embed: ['name', 'slug', '_links'],
    edit: ['name', 'private', 'protected', 'public', 'queryable', 'show_in_list', 'slug', 'date_floating', '_links'],
  },
} as const;

shapes('every item has the keys of its context, in order, as a list and alone', async () => {
  for (const [resource, contexts] of Object.entries(KEYS)) {
    for (const [context, keys] of Object.entries(contexts)) {
      const list = await get(`/core/v2/${resource}?context=${context}`, 'administrator');
      assert.is(list.status, 200, `${resource} ${context}`);
      for (const [slug, item] of Object.entries(list.body as Record<string, object>)) {
        assert.equal(Object.keys(item), keys, `${resource}/${slug} in ${context}`);
        const single = await get(`/core/v2/${resource}/${slug}?context=${context}`, 'administrator');
        assert.equal(single.body, item, `${resource}/${slug} alone in ${context}`);
      }
    }
  }
});

shapes('the types list in the view context', async () => {
  const { body } = await get('/core/v2/types');
  const common = { description: '', has_archive: false, rest_namespace: 'core/v2' };
  assert.equal(withoutLinks(body), {
    post: {
      ...common,
      hierarchical: false,
      name: 'Posts',
      slug: 'post',
      icon: 'dashicons-admin-post',
      taxonomies: ['category', 'post_tag'],
      rest_base: 'posts',
    },
    page: {
      ...common,
      hierarchical: true,
      name: 'Pages',
      slug: 'page',
      icon: 'dashicons-admin-page',
      taxonomies: [],
      rest_base: 'pages',
    },
    attachment: {
      ...common,
      hierarchical: false,
      name: 'Media',
      slug: 'attachment',
      icon: 'dashicons-admin-media',
      taxonomies: [],
      rest_base: 'media',
    },
    nav_menu_item: {
      ...common,
      hierarchical: false,
      name: 'Navigation Menu Items',
      slug: 'nav_menu_item',
      icon: null,
      taxonomies: ['nav_menu'],
      rest_base: 'menu-items',
    },
    wp_block: {
      ...common,
      hierarchical: false,
      name: 'Reusable blocks',
      slug: 'wp_block',
      icon: null,
      taxonomies: [],
      rest_base: 'blocks',
    },
    wp_template: {
      ...common,
      description: 'Templates to include in your theme.',
      hierarchical: false,
      name: 'Templates',
      slug: 'wp_template',
      icon: null,
      taxonomies: [],
      rest_base: 'templates',
    },
  });
});

const POST_CAPABILITIES = {
  edit_post: 'edit_post',
  read_post: 'read_post',
  delete_post: 'delete_post',
  edit_posts: 'edit_posts',
  edit_others_posts: 'edit_others_posts',
  delete_posts: 'delete_posts',
  publish_posts: 'publish_posts',
  read_private_posts: 'read_private_posts',
  read: 'read',
  delete_private_posts: 'delete_private_posts',
  delete_published_posts: 'delete_published_posts',
  delete_others_posts: 'delete_others_posts',
  edit_private_posts: 'edit_private_posts',
  edit_published_posts: 'edit_published_posts',
  create_posts: 'edit_posts',
};
const THEME = 'edit_theme_options';

shapes('a type in the edit context: capabilities, supports, visibility, labels', async () => {
  const expected: Record<string, Record<string, unknown>> = {
    post: {
      capabilities: POST_CAPABILITIES,
      supports: {
        title: true,
        editor: true,
        author: true,
        thumbnail: true,
        excerpt: true,
        trackbacks: true,
        'custom-fields': true,
        comments: true,
        revisions: true,
        'post-formats': true,
      },
      visibility: { show_in_nav_menus: true, show_ui: true },
      viewable: true,
      labels: {
        name: 'Posts',
        singular_name: 'Post',
        add_new_item: 'Add New Post',
        view_item: 'View Post',
        parent_item_colon: null,
        archives: 'Post Archives',
        attributes: 'Post Attributes',
        name_admin_bar: 'Post',
      },
    },
    page: {
      capabilities: {
        edit_post: 'edit_page',
        read_post: 'read_page',
        delete_post: 'delete_page',
        edit_posts: 'edit_pages',
        edit_others_posts: 'edit_others_pages',
        delete_posts: 'delete_pages',
        publish_posts: 'publish_pages',
        read_private_posts: 'read_private_pages',
        read: 'read',
        delete_private_posts: 'delete_private_pages',
        delete_published_posts: 'delete_published_pages',
        delete_others_posts: 'delete_others_pages',
        edit_private_posts: 'edit_private_pages',
        edit_published_posts: 'edit_published_pages',
        create_posts: 'edit_pages',
      },
      supports: {
        title: true,
        editor: true,
        author: true,
        thumbnail: true,
        'page-attributes': true,
        'custom-fields': true,
        comments: true,
        revisions: true,
      },
      visibility: { show_in_nav_menus: true, show_ui: true },
      viewable: true,
      labels: {
        name: 'Pages',
        singular_name: 'Page',
        add_new_item: 'Add New Page',
        view_item: 'View Page',
        parent_item_colon: 'Parent Page:',
        archives: 'Page Archives',
        attributes: 'Page Attributes',
        name_admin_bar: 'Page',
      },
    },
    attachment: {
      capabilities: { ...POST_CAPABILITIES, create_posts: 'upload_files' },
      supports: { title: true, author: true, comments: true },
      visibility: { show_in_nav_menus: false, show_ui: true },
      viewable: true,
      labels: {
        name: 'Media',
        singular_name: 'Media',
        add_new_item: 'Add New Post',
        view_item: 'View Attachment Page',
        parent_item_colon: null,
        archives: 'Media',
        attributes: 'Attachment Attributes',
        name_admin_bar: 'Media',
      },
    },
    nav_menu_item: {
      capabilities: {
        edit_post: 'edit_post',
        read_post: 'read_post',
        delete_post: 'delete_post',
        edit_posts: THEME,
        edit_others_posts: THEME,
        delete_posts: THEME,
        publish_posts: THEME,
        read_private_posts: THEME,
        read: 'read',
        delete_private_posts: THEME,
        delete_published_posts: THEME,
        delete_others_posts: THEME,
        edit_private_posts: THEME,
        edit_published_posts: THEME,
        create_posts: THEME,
      },
      supports: { title: true, editor: true },
      visibility: { show_in_nav_menus: false, show_ui: false },
      viewable: false,
      labels: {
        name: 'Navigation Menu Items',
        singular_name: 'Navigation Menu Item',
        add_new_item: 'Add New Post',
        view_item: 'View Post',
        parent_item_colon: null,
        archives: 'Navigation Menu Items',
        attributes: 'Post Attributes',
        name_admin_bar: 'Navigation Menu Item',
      },
    },
    wp_block: {
      capabilities: {
        edit_post: 'edit_block',
        read_post: 'read_block',
        delete_post: 'delete_block',
        edit_posts: 'edit_posts',
        edit_others_posts: 'edit_others_posts',
        delete_posts: 'delete_blocks',
        publish_posts: 'publish_blocks',
        read_private_posts: 'read_private_blocks',
        read: 'edit_posts',
        delete_private_posts: 'delete_private_blocks',
        delete_published_posts: 'delete_published_posts',
        delete_others_posts: 'delete_others_posts',
        edit_private_posts: 'edit_private_blocks',
        edit_published_posts: 'edit_published_posts',
        create_posts: 'publish_posts',
      },
      supports: { title: true, editor: true, revisions: true },
      visibility: { show_in_nav_menus: false, show_ui: true },
      viewable: false,
      labels: {
        name: 'Reusable blocks',
        singular_name: 'Reusable block',
        add_new_item: 'Add new Reusable block',
        view_item: 'View Reusable block',
        parent_item_colon: null,
        archives: 'All Reusable blocks',
        attributes: 'Post Attributes',
        name_admin_bar: 'Reusable block',
      },
    },
    wp_template: {
      capabilities: {
        edit_post: 'edit_template',
        read_post: 'read_template',
        delete_post: 'delete_template',
        edit_posts: THEME,
        edit_others_posts: THEME,
        delete_posts: THEME,
        publish_posts: THEME,
        read_private_posts: THEME,
        read: THEME,
        delete_private_posts: THEME,
        delete_published_posts: THEME,
        delete_others_posts: THEME,
        edit_private_posts: THEME,
        edit_published_posts: THEME,
        create_posts: THEME,
      },
      supports: { title: true, slug: true, excerpt: true, editor: true, revisions: true, author: true },
      visibility: { show_in_nav_menus: false, show_ui: false },
      viewable: false,
      labels: {
        name: 'Templates',
        singular_name: 'Template',
        add_new_item: 'Add New Template',
        view_item: 'View Template',
        parent_item_colon: 'Parent Template:',
        archives: 'Template archives',
        attributes: 'Post Attributes',
        name_admin_bar: 'Template',
      },
    },
  };
  for (const [slug, want] of Object.entries(expected)) {
    const { body } = await get(`/core/v2/types/${slug}?context=edit`, 'administrator');
    assert.equal(body.capabilities, want.capabilities, `${slug} capabilities`);
    assert.equal(body.supports, want.supports, `${slug} supports`);
    assert.equal(body.visibility, want.visibility, `${slug} visibility`);
    assert.is(body.viewable, want.viewable, `${slug} viewable`);
    assert.is(Object.keys(body.labels).length, 34, `${slug}: every label`);
    for (const [key, value] of Object.entries(want.labels as object))
      assert.is(body.labels[key], value, `${slug} label ${key}`);
  }
});

shapes('the taxonomies in the view and edit contexts', async () => {
  const view = await get('/core/v2/taxonomies');
  const common = { description: '', rest_namespace: 'core/v2' };
  assert.equal(withoutLinks(view.body), {
    category: {
      name: 'Categories',
      slug: 'category',
      ...common,
      types: ['post'],
      hierarchical: true,
      rest_base: 'categories',
    },
    post_tag: { name: 'Tags', slug: 'post_tag', ...common, types: ['post'], hierarchical: false, rest_base: 'tags' },
    nav_menu: {
      name: 'Navigation Menus',
      slug: 'nav_menu',
      ...common,
      types: ['nav_menu_item'],
      hierarchical: false,
      rest_base: 'menus',
    },
  });
  const shown = {
    public: true,
    publicly_queryable: true,
    show_admin_column: true,
    show_in_nav_menus: true,
    show_in_quick_edit: true,
    show_ui: true,
  };
  const SLUG_HELP =
    'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.';
  const expected = {
    category: {
      capabilities: {
        manage_terms: 'manage_categories',
        edit_terms: 'edit_categories',
        delete_terms: 'delete_categories',
        assign_terms: 'assign_categories',
      },
      show_cloud: true,
      visibility: shown,
      labels: {
        name: 'Categories',
        singular_name: 'Category',
        popular_items: null,
        parent_item: 'Parent Category',
        slug_field_description: SLUG_HELP,
        back_to_items: '&larr; Go to Categories',
        name_admin_bar: 'category',
      },
      labelCount: 30,
    },
    post_tag: {
      capabilities: {
        manage_terms: 'manage_post_tags',
        edit_terms: 'edit_post_tags',
        delete_terms: 'delete_post_tags',
        assign_terms: 'assign_post_tags',
      },
      show_cloud: true,
      visibility: shown,
      labels: {
        name: 'Tags',
        singular_name: 'Tag',
        popular_items: 'Popular Tags',
        parent_item: null,
        slug_field_description: SLUG_HELP,
        back_to_items: '&larr; Go to Tags',
        name_admin_bar: 'post_tag',
      },
      labelCount: 30,
    },
    nav_menu: {
      capabilities: { manage_terms: THEME, edit_terms: THEME, delete_terms: THEME, assign_terms: THEME },
      show_cloud: false,
      visibility: {
        public: false,
        publicly_queryable: false,
        show_admin_column: false,
        show_in_nav_menus: false,
        show_in_quick_edit: false,
        show_ui: false,
      },
      labels: {
        name: 'Navigation Menus',
        singular_name: 'Navigation Menu',
        popular_items: 'Popular Tags',
        parent_item: null,
        slug_field_description: SLUG_HELP,
        back_to_items: '&larr; Go to Tags',
        name_admin_bar: 'Navigation Menu',
      },
      labelCount: 31,
    },
  };
  for (const [slug, want] of Object.entries(expected)) {
    const { body } = await get(`/core/v2/taxonomies/${slug}?context=edit`, 'administrator');
    assert.equal(body.capabilities, want.capabilities, `${slug} capabilities`);
    assert.is(body.show_cloud, want.show_cloud);
    assert.equal(body.visibility, want.visibility, `${slug} visibility`);
    assert.is(Object.keys(body.labels).length, want.labelCount, `${slug}: every label`);
    for (const [key, value] of Object.entries(want.labels)) assert.is(body.labels[key], value, `${slug} label ${key}`);
  }
});

shapes('the statuses in the edit context, with their archives', async () => {
  const { body } = await get('/core/v2/statuses?context=edit', 'contributor');
  const flags = (name: string, slug: string, f: [boolean, boolean, boolean, boolean, boolean, boolean]) => ({
    name,
    private: f[0],
    protected: f[1],
    public: f[2],
    queryable: f[3],
    show_in_list: f[4],
    slug,
    date_floating: f[5],
  });
  assert.equal(withoutLinks(body), {
    publish: flags('Published', 'publish', [false, false, true, true, true, false]),
    future: flags('Scheduled', 'future', [false, true, false, false, true, false]),
    draft: flags('Draft', 'draft', [false, true, false, false, true, true]),
    pending: flags('Pending', 'pending', [false, true, false, false, true, true]),
    private: flags('Private', 'private', [true, false, false, false, true, false]),
    trash: flags('Trash', 'trash', [false, false, false, false, false, false]),
  });
  assert.equal(body.publish._links, { archives: [{ href: `${t.site.apiRoot}core/v2/posts` }] });
  assert.equal(body.draft._links, { archives: [{ href: `${t.site.apiRoot}core/v2/posts?status=draft` }] });
});

shapes('links: the collection, the items and the curie', async () => {
  const type = await get('/core/v2/types/page');
  assert.equal(type.body._links, {
    collection: [{ href: `${t.site.apiRoot}core/v2/types` }],
    'wp:items': [{ href: `${t.site.apiRoot}core/v2/pages` }],
    curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
  });
  const taxonomy = await get('/core/v2/taxonomies/nav_menu');
  assert.equal(taxonomy.body._links, {
    collection: [{ href: `${t.site.apiRoot}core/v2/taxonomies` }],
    'wp:items': [{ href: `${t.site.apiRoot}core/v2/menus` }],
    curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
  });
  // Every advertised route answers.
  for (const resource of ['types', 'taxonomies']) {
    const { body } = await get(`/core/v2/${resource}`, 'administrator');
    for (const item of Object.values(body as Record<string, any>)) {
      const items = await t.request('GET', new URL(item._links['wp:items'][0].href).pathname, {
        as: callers.administrator,
      });
      assert.is(items.status, 200, item._links['wp:items'][0].href);
    }
  }
});

shapes('_fields picks from each item; OPTIONS shows the schema', async () => {
  assert.equal((await get('/core/v2/types/page?_fields=slug,rest_base')).body, { slug: 'page', rest_base: 'pages' });
  assert.equal((await get('/core/v2/statuses/publish?_fields=name')).body, { name: 'Published' });
  const options = await t.request('OPTIONS', '/core/v2/statuses');
  assert.is(options.body.schema.title, 'status');
  assert.equal(options.body.schema.properties.show_in_list.context, ['edit']);
  assert.equal(options.body.endpoints[0].args.context.enum, ['view', 'embed', 'edit']);
});

shapes('the taxonomies of a type', async () => {
  const keys = async (path: string, who: Who = 'anonymous') => Object.keys((await get(path, who)).body);
  assert.equal(await keys('/core/v2/taxonomies?type=post'), ['category', 'post_tag']);
  assert.equal(await keys('/core/v2/taxonomies?type=nav_menu_item'), ['nav_menu']);
  assert.equal(await keys('/core/v2/taxonomies?type='), ['category', 'post_tag', 'nav_menu']);
  // None is an empty object, not a list.
  for (const type of ['page', 'no_such_type']) {
    const { status, text } = await get(`/core/v2/taxonomies?type=${type}`);
    assert.equal([status, text], [200, '{}']);
  }
});

shapes.run();

// ---------------------------------------------------------------------------------------------------------------
// Who sees what

const access = suite('types, statuses, taxonomies: per caller');
access.before(() => start());
access.after(() => t.close());

/** What each caller gets, anonymous to administrator: the listed slugs, or `status code`. */
const EXPECTED: Record<string, readonly (readonly string[] | string)[]> = {
  '/core/v2/types': Array(6).fill(['post', 'page', 'attachment', 'nav_menu_item', 'wp_block', 'wp_template']),
  '/core/v2/types?context=embed': Array(6).fill([
    'post',
    'page',
    'attachment',
    'nav_menu_item',
    'wp_block',
    'wp_template',
  ]),
  '/core/v2/types?context=edit': [
    '401 rest_cannot_view',
    '403 rest_cannot_view',
    ['post', 'attachment', 'wp_block'],
    ['post', 'attachment', 'wp_block'],
    ['post', 'page', 'attachment', 'wp_block'],
    ['post', 'page', 'attachment', 'nav_menu_item', 'wp_block', 'wp_template'],
  ],
  '/core/v2/taxonomies': Array(6).fill(['category', 'post_tag', 'nav_menu']),
  '/core/v2/taxonomies?context=edit': [
    '401 rest_cannot_view',
    '403 rest_cannot_view',
    ['category', 'post_tag'],
    ['category', 'post_tag'],
    ['category', 'post_tag'],
    ['category', 'post_tag', 'nav_menu'],
  ],
  '/core/v2/taxonomies?type=nav_menu_item&context=edit': [
    '401 rest_cannot_view',
    '403 rest_cannot_view',
    '403 rest_cannot_view',
    '403 rest_cannot_view',
    '403 rest_cannot_view',
    ['nav_menu'],
  ],
  '/core/v2/statuses': [
    ['publish'],
    ['publish'],
    ...Array(4).fill(['publish', 'future', 'draft', 'pending', 'private', 'trash']),
  ],
  '/core/v2/statuses?context=embed': [
    ['publish'],
    ['publish'],
    ...Array(4).fill(['publish', 'future', 'draft', 'pending', 'private', 'trash']),
  ],
  '/core/v2/statuses?context=edit': [
    '401 rest_cannot_view',
    '403 rest_cannot_view',
    ...Array(4).fill(['publish', 'future', 'draft', 'pending', 'private', 'trash']),
  ],
  '/core/v2/types/post?context=edit': [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ],
  '/core/v2/types/page?context=edit': [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
  ],
  '/core/v2/types/nav_menu_item?context=edit': [
    '401 rest_forbidden_context',
    ...Array(4).fill('403 rest_forbidden_context'),
    '200',
  ],
  '/core/v2/types/attachment': Array(6).fill('200'),
  '/core/v2/types/revision': ['401 rest_cannot_read_type', ...Array(5).fill('403 rest_cannot_read_type')],
  '/core/v2/types/wp_block?context=edit': [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ],
  '/core/v2/types/wp_template?context=edit': [
    '401 rest_forbidden_context',
    ...Array(4).fill('403 rest_forbidden_context'),
    '200',
  ],
  '/core/v2/types/wp_template': Array(6).fill('200'),
  '/core/v2/types/wp_navigation': Array(6).fill('404 rest_type_invalid'),
  '/core/v2/types/no_such_type?context=edit': Array(6).fill('404 rest_type_invalid'),
  '/core/v2/taxonomies/category?context=edit': [
    '401 rest_forbidden_context',
    '403 rest_forbidden_context',
    '200',
    '200',
    '200',
    '200',
  ],
  '/core/v2/taxonomies/nav_menu?context=edit': [
    '401 rest_forbidden_context',
    ...Array(4).fill('403 rest_forbidden_context'),
    '200',
  ],
  '/core/v2/taxonomies/post_tag': Array(6).fill('200'),
  '/core/v2/taxonomies/post_format': ['401 rest_forbidden', ...Array(5).fill('403 rest_forbidden')],
  '/core/v2/taxonomies/no_such_taxonomy': Array(6).fill('404 rest_taxonomy_invalid'),
  '/core/v2/statuses/publish?context=edit': Array(6).fill('200'),
  '/core/v2/statuses/draft': ['401 rest_cannot_read_status', '403 rest_cannot_read_status', '200', '200', '200', '200'],
  '/core/v2/statuses/trash?context=edit': [
    '401 rest_cannot_read_status',
    '403 rest_cannot_read_status',
    '200',
    '200',
    '200',
    '200',
  ],
  '/core/v2/statuses/inherit': ['401 rest_cannot_read_status', ...Array(5).fill('403 rest_cannot_read_status')],
  '/core/v2/statuses/auto-draft': ['401 rest_cannot_read_status', ...Array(5).fill('403 rest_cannot_read_status')],
  '/core/v2/statuses/request-pending': ['401 rest_cannot_read_status', ...Array(5).fill('403 rest_cannot_read_status')],
  '/core/v2/statuses/ext-disabled': Array(6).fill('404 rest_status_invalid'),
  '/core/v2/statuses/publish?context=banana': Array(6).fill('400 rest_invalid_param'),
};

access('each caller gets what WordPress gives them', async () => {
  for (const [path, cells] of Object.entries(EXPECTED)) {
    for (const [i, who] of WHO.entries()) {
      const { status, body } = await get(path, who);
      const got =
        status === 200 && !path.match(/\/(types|taxonomies|statuses)\/[\w-]+/)
          ? Object.keys(body)
          : status === 200
            ? '200'
            : `${status} ${body.code}`;
      assert.equal(got, cells[i], `${path} as ${who}`);
    }
  }
});

access('the error bodies', async () => {
  assert.equal((await get('/core/v2/types?context=edit')).body, {
    code: 'rest_cannot_view',
    message: 'Sorry, you are not allowed to edit posts in this post type.',
    data: { status: 401 },
  });
  assert.equal((await get('/core/v2/types/page?context=edit', 'author')).body, {
    code: 'rest_forbidden_context',
    message: 'Sorry, you are not allowed to edit posts in this post type.',
    data: { status: 403 },
  });
  assert.equal((await get('/core/v2/types/nope')).body, {
    code: 'rest_type_invalid',
    message: 'Invalid post type.',
    data: { status: 404 },
  });
  assert.equal((await get('/core/v2/types/revision')).body, {
    code: 'rest_cannot_read_type',
    message: 'Cannot view post type.',
    data: { status: 401 },
  });
  assert.equal((await get('/core/v2/taxonomies?context=edit', 'subscriber')).body, {
    code: 'rest_cannot_view',
    message: 'Sorry, you are not allowed to manage terms in this taxonomy.',
    data: { status: 403 },
  });
  assert.equal((await get('/core/v2/taxonomies/nope')).body, {
    code: 'rest_taxonomy_invalid',
    message: 'Invalid taxonomy.',
    data: { status: 404 },
  });
  assert.equal((await get('/core/v2/statuses?context=edit')).body, {
    code: 'rest_cannot_view',
    message: 'Sorry, you are not allowed to manage post statuses.',
    data: { status: 401 },
  });
  assert.equal((await get('/core/v2/statuses/draft', 'subscriber')).body, {
    code: 'rest_cannot_read_status',
    message: 'Cannot view status.',
    data: { status: 403 },
  });
  assert.equal((await get('/core/v2/statuses/nope')).body, {
    code: 'rest_status_invalid',
    message: 'Invalid status.',
    data: { status: 404 },
  });
});

access.run();

// ---------------------------------------------------------------------------------------------------------------
// The second instance's status

const second = suite('statuses: the second instance');
second.before(() => start('second'));
second.after(() => t.close());

second('ext-disabled is listed, after the built-in writable statuses, to those who may edit', async () => {
  assert.equal(Object.keys((await get('/core/v2/statuses')).body), ['publish']);
  assert.equal(Object.keys((await get('/core/v2/statuses', 'contributor')).body), [
    'publish',
    'future',
    'draft',
    'pending',
    'private',
    'ext-disabled',
    'trash',
  ]);
  const { body } = await get('/core/v2/statuses/ext-disabled?context=edit', 'contributor');
  assert.equal(body, {
    name: 'ext-disabled',
    private: false,
    protected: false,
    public: false,
    queryable: false,
    show_in_list: true,
    slug: 'ext-disabled',
    date_floating: false,
    _links: { archives: [{ href: `${t.site.apiRoot}core/v2/posts?status=ext-disabled` }] },
  });
  assert.equal((await get('/core/v2/statuses/ext-disabled')).body.code, 'rest_cannot_read_status');
  assert.is((await get('/core/v2/statuses/ext-disabled', 'subscriber')).status, 403);
});

second.run();

// ---------------------------------------------------------------------------------------------------------------
// Links of other resources, namespace indexes, derivation

const around = suite('types, taxonomies: what points at them; namespace indexes');
around.before(() => start());
around.after(() => t.close());

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

around('every about and wp:term link of posts, pages, media, menu items and terms resolves', async () => {
  const as = callers.administrator;
  const post = await t.request('POST', '/core/v2/posts', { as, body: { title: 'Linked', status: 'publish' } });
  const page = await t.request('POST', '/core/v2/pages', { as, body: { title: 'Linked page', status: 'publish' } });
  const media = await t.request('POST', '/core/v2/media', {
    as,
    raw: { data: PNG, type: 'image/png' },
    headers: { 'content-disposition': 'attachment; filename=dot.png' },
  });
  const menu = await t.request('POST', '/core/v2/menus', { as, body: { name: 'Main' } });
  const item = await t.request('POST', '/core/v2/menu-items', {
    as,
    body: { title: 'Home', url: 'https://example.com/', menus: menu.body.id },
  });
  const tag = await t.request('POST', '/core/v2/tags', { as, body: { name: 'Linked tag' } });
  const category = await t.request('GET', '/core/v2/categories/1', { as });
  const abouts: Record<string, string> = {};
  for (const [name, response] of Object.entries({ post, page, media, menu, item, tag, category })) {
    assert.ok(response.status < 300, `${name}: ${JSON.stringify(response.body)}`);
    const links = response.body._links;
    abouts[name] = links.about[0].href;
    for (const href of [links.about[0].href, ...(links['wp:term'] ?? []).map((l: { href: string }) => l.href)]) {
      const url = new URL(href);
      const answer = await t.request('GET', `${url.pathname}${url.search}`, { as });
      assert.is(answer.status, 200, `${name}: ${href} ${JSON.stringify(answer.body)}`);
    }
  }
  const api = `${t.site.apiRoot}core/v2`;
  assert.equal(abouts, {
    post: `${api}/types/post`,
    page: `${api}/types/page`,
    media: `${api}/types/attachment`,
    menu: `${api}/taxonomies/nav_menu`,
    item: `${api}/types/nav_menu_item`,
    tag: `${api}/taxonomies/post_tag`,
    category: `${api}/taxonomies/category`,
  });
});

around('the namespace indexes of site-health/v1 and block-editor/v1 answer, listing their own route', async () => {
  for (const namespace of ['site-health/v1', 'block-editor/v1']) {
    const { status, body } = await get(`/${namespace}`);
    assert.is(status, 200, namespace);
    assert.equal(body, {
      namespace,
      routes: {
        [`/${namespace}`]: {
          namespace,
          methods: ['GET'],
          endpoints: [
            {
              methods: ['GET'],
              args: {
                namespace: { default: namespace, required: false },
                context: { default: 'view', required: false },
              },
            },
          ],
          _links: { self: [{ href: `${t.site.apiRoot}${namespace}` }] },
        },
      },
      _links: { up: [{ href: t.site.apiRoot }] },
    });
  }
  const index = await get('/');
  assert.equal(Object.keys(index.body.routes).slice(-2), ['/site-health/v1', '/block-editor/v1']);
  assert.ok(index.body.routes['/core/v2/types/(?P<type>[\\w-]+)']);
});

around(
  'what is listed follows the routes served: a site without menus lists neither the taxonomy nor it on menu items',
  async () => {
    const routes = buildDispatcher(t.site).routes.filter((route) => !route.path.startsWith('/core/v2/menus'));
    const registry = deriveRegistry(routes);
    assert.equal(
      registry.taxonomies.map((x) => x.slug),
      ['category', 'post_tag'],
    );
    assert.equal(registry.types.find((x) => x.slug === 'nav_menu_item')?.taxonomies, []);
    const withoutMedia = deriveRegistry(routes.filter((route) => !route.path.startsWith('/core/v2/media')));
    assert.equal(
      withoutMedia.types.map((x) => x.slug),
      ['post', 'page', 'nav_menu_item', 'wp_block', 'wp_template'],
    );
    assert.equal(
      withoutMedia.statuses.filter((s) => !s.internal).map((s) => s.slug),
      ['publish', 'future', 'draft', 'pending', 'private', 'trash'],
    );
  },
);

around.run();
