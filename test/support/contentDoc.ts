/** A stored post as the content projection keeps it, for unit tests of what is built from one. */
import type { ContentDoc } from '../../projections/content';

export function contentDoc(id: number, overrides: Partial<ContentDoc> = {}): ContentDoc {
  return {
    id,
    type: 'post',
    date: '2024-01-02T03:04:05',
    date_gmt: '2024-01-02T03:04:05',
    guid: `/?p=${id}`,
    modified: '2024-01-03T00:00:00',
    modified_gmt: '2024-01-03T00:00:00',
    slug: `post-${id}`,
    status: 'publish',
    title: `Post ${id}`,
    content: `<!-- wp:paragraph -->\n<p>Words of post ${id}, "quoted" -- and more.</p>\n<!-- /wp:paragraph -->`,
    excerpt: '',
    author: 1,
    featured_media: 0,
    comment_status: 'open',
    ping_status: 'open',
    template: '',
    format: 'standard',
    sticky: false,
    categories: [1],
    tags: [],
    parent: 0,
    menu_order: 0,
    meta: { footnotes: '' },
    password: '',
    trashed_from: null,
    revision_count: 0,
    latest_revision_id: null,
    last_revision_id: null,
    autosaves: {},
    ...overrides,
  } as ContentDoc;
}
