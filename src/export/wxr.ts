/**
 * Writes the site as a WordPress eXtended RSS 1.2 export, the file WordPress's Tools → Export writes and its
 * importer reads. Streamed: documents are read from the read model a page at a time and written as they come, so
 * the document is never held whole; what is kept meanwhile is ids (which parents were written, author logins).
 *
 * The order is the one importers need: authors, then categories (each after its parent), tags and menus, then
 * attachments (so that featured images point at something), posts, pages (each after its parent), and menu items
 * last (after what they link to). Comments go inside their item, each after the comment it answers.
 */
import type { Writable } from 'node:stream';
import type { Site } from '../site';
import type { Doc, Filter } from '../ports/readModel';
import type { ContentDoc } from '../../projections/content';
import type { TermDoc } from '../../projections/terms';
import { TERM_COLLECTION } from '../../projections/terms';
import type { UserDoc } from '../../projections/users';
import type { CommentDoc } from '../../projections/comments';
import { COMMENT_COLLECTION } from '../../projections/comments';
import type { MediaDoc } from '../../projections/media';
import type { MenuDoc } from '../../projections/menus';
import { MENU_COLLECTION } from '../../projections/menus';
import type { MenuItemDoc } from '../../projections/menuItems';
import { MENU_ITEM_COLLECTION } from '../../projections/menuItems';
import { readSettings } from '../resources/settings/operations';
import { uploadUrl } from '../resources/media/present';
import { localToInstant, formatGmt } from '../text/dates';
import { serializeClassList } from '../import/wxr/menus';
import { Sink, XmlText } from './xml';

/** Documents read per query, unless told. */
const PAGE = 200;

export interface ExportOptions {
  /** Documents read per query (default 200). */
  pageSize?: number;
}

export type ExportKind =
  | 'author'
  | 'category'
  | 'tag'
  | 'menu'
  | 'attachment'
  | 'post'
  | 'page'
  | 'menu_item'
  | 'comment';

export interface ExportReport {
  counts: Record<ExportKind, number>;
  /** Characters XML cannot hold (C0 controls, lone surrogates), left out. */
  droppedCharacters: number;
}

/** WXR's comment_approved for each comment status. */
const APPROVED: Record<string, string> = {
  approved: '1',
  hold: '0',
  spam: 'spam',
  trash: 'trash',
  'post-trashed': 'post-trashed',
};

const NAMESPACES = [
  'xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"',
  'xmlns:content="http://purl.org/rss/1.0/modules/content/"',
  'xmlns:wfw="http://wellformedweb.org/CommentAPI/"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
  'xmlns:wp="http://wordpress.org/export/1.2/"',
];

/** Every document of a collection matching `filters`, by ascending id, a page at a time. */
async function* documentsOf<T extends Doc>(
  site: Site,
  collection: string,
  filters: readonly Filter[],
  page: number,
): AsyncGenerator<T> {
  let after = 0;
  for (;;) {
    const { items } = await site.readModel.query(collection, {
      filters: [...filters, { kind: 'range', field: 'id', gt: after }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: page,
    });
    for (const item of items) yield item as T;
    if (items.length < page) return;
    after = items.at(-1)!.id as number;
  }
}

/**
 * The documents with each one after its parent: one whose parent is not written yet waits (by id) until it is.
 * Those whose parent never comes (it is gone, or parents loop) come at the end.
 */
async function* parentsFirst<T extends Doc & { id: number }>(
  docs: AsyncIterable<T>,
  parentOf: (doc: T) => number,
  load: (ids: number[]) => Promise<T[]>,
): AsyncGenerator<T> {
  const written = new Set<number>();
  const waiting = new Map<number, number[]>();
  const release = async function* (doc: T): AsyncGenerator<T> {
    const stack = [doc];
    while (stack.length > 0) {
      const next = stack.pop()!;
      written.add(next.id);
      yield next;
      const children = waiting.get(next.id);
      if (children === undefined) continue;
      waiting.delete(next.id);
      stack.push(...(await load(children)).reverse());
    }
  };
  for await (const doc of docs) {
    const parent = parentOf(doc);
    if (parent > 0 && parent !== doc.id && !written.has(parent)) {
      waiting.set(parent, [...(waiting.get(parent) ?? []), doc.id]);
      continue;
    }
    yield* release(doc);
  }
  for (const ids of [...waiting.values()])
    for (const doc of await load(ids)) if (!written.has(doc.id)) yield* release(doc);
}

const loader =
  <T extends Doc>(site: Site, collection: string) =>
  async (ids: number[]): Promise<T[]> =>
    (await site.readModel.getMany(collection, ids)).filter((doc): doc is T => doc !== null);

/** "YYYY-MM-DDTHH:MM:SS" as WXR writes dates; null (a floating draft's UTC date) as WordPress's zero date. */
const mysql = (date: string | null | undefined): string => (date ? date.replace('T', ' ') : '0000-00-00 00:00:00');

/** An RSS date from a UTC "YYYY-MM-DDTHH:MM:SS". */
const rssDate = (gmt: string): string => new Date(`${gmt}Z`).toUTCString().replace(/GMT$/, '+0000');

/** Writes the export of `site` to `out` (which it does not end). */
export async function exportWxr(site: Site, out: Writable, options: ExportOptions = {}): Promise<ExportReport> {
  const page = options.pageSize ?? PAGE;
  const documents = <T extends Doc>(collection: string, filters: readonly Filter[] = []) =>
    documentsOf<T>(site, collection, filters, page);
  const sink = new Sink(out);
  const xml = new XmlText();
  const counts: ExportReport['counts'] = {
    author: 0,
    category: 0,
    tag: 0,
    menu: 0,
    attachment: 0,
    post: 0,
    page: 0,
    menu_item: 0,
    comment: 0,
  };
  const siteUrl = site.settings.siteUrl;
  const timezone = site.settings.timezone;
  const settings = await readSettings(site);
  const c = (text: string) => xml.cdata(text);
  const e = (text: string) => xml.escape(text);

  await sink.write(
    `<?xml version="1.0" encoding="UTF-8" ?>\n<!-- A WordPress eXtended RSS export of a palimpsest site: WordPress's Tools > Import > WordPress reads it. -->\n<rss version="2.0"\n\t${NAMESPACES.join('\n\t')}\n>\n\n<channel>\n` +
      `\t<title>${e(String(settings.title ?? ''))}</title>\n\t<link>${e(siteUrl)}</link>\n\t<description>${e(String(settings.description ?? ''))}</description>\n` +
      `\t<pubDate>${rssDate(formatGmt(site.clock.now()))}</pubDate>\n\t<language>${e(String(settings.language ?? 'en_US').replace('_', '-'))}</language>\n` +
      `\t<wp:wxr_version>1.2</wp:wxr_version>\n\t<wp:base_site_url>${e(siteUrl)}</wp:base_site_url>\n\t<wp:base_blog_url>${e(siteUrl)}</wp:base_blog_url>\n\n`,
  );

  // --- authors: the users who wrote something, as WordPress exports them ------------------------------------------
  const logins = new Map<number, string>();
  for await (const user of documents<UserDoc>('user')) {
    const wrote = async (collection: string) =>
      (
        await site.readModel.query(collection, {
          filters: [{ kind: 'any', field: 'author', values: [user.id] }],
          order: { kind: 'field', field: 'id', direction: 'asc' },
          offset: 0,
          limit: 1,
        })
      ).total > 0;
    let author = false;
    for (const collection of ['post', 'page', 'attachment', MENU_ITEM_COLLECTION, COMMENT_COLLECTION])
      if (!author && (await wrote(collection))) author = true;
    if (!author) continue;
    logins.set(user.id, user.login);
    counts.author++;
    await sink.write(
      `\t<wp:author><wp:author_id>${user.id}</wp:author_id><wp:author_login>${c(user.login)}</wp:author_login><wp:author_email>${c(user.email)}</wp:author_email>` +
        `<wp:author_display_name>${c(user.name)}</wp:author_display_name><wp:author_first_name>${c(user.first_name)}</wp:author_first_name><wp:author_last_name>${c(user.last_name)}</wp:author_last_name></wp:author>\n`,
    );
  }
  const login = (id: number) => logins.get(id) ?? '';

  // --- terms ----------------------------------------------------------------------------------------------------
  const terms = loader<TermDoc>(site, TERM_COLLECTION);
  const slugOf = new Map<number, string>();
  for await (const term of parentsFirst(
    documents<TermDoc>(TERM_COLLECTION, [{ kind: 'any', field: 'taxonomy', values: ['category'] }]),
    (term) => term.parent,
    terms,
  )) {
    slugOf.set(term.id, term.slug);
    counts.category++;
    await sink.write(
      `\t<wp:category>\n\t\t<wp:term_id>${term.id}</wp:term_id>\n\t\t<wp:category_nicename>${c(term.slug)}</wp:category_nicename>\n\t\t<wp:category_parent>${c(slugOf.get(term.parent) ?? '')}</wp:category_parent>\n` +
        `\t\t<wp:cat_name>${c(term.name)}</wp:cat_name>\n${term.description ? `\t\t<wp:category_description>${c(term.description)}</wp:category_description>\n` : ''}\t</wp:category>\n`,
    );
  }
  slugOf.clear();
  for await (const term of documents<TermDoc>(TERM_COLLECTION, [
    { kind: 'any', field: 'taxonomy', values: ['post_tag'] },
  ])) {
    counts.tag++;
    await sink.write(
      `\t<wp:tag>\n\t\t<wp:term_id>${term.id}</wp:term_id>\n\t\t<wp:tag_slug>${c(term.slug)}</wp:tag_slug>\n\t\t<wp:tag_name>${c(term.name)}</wp:tag_name>\n` +
        `${term.description ? `\t\t<wp:tag_description>${c(term.description)}</wp:tag_description>\n` : ''}\t</wp:tag>\n`,
    );
  }
  for await (const menu of documents<MenuDoc>(MENU_COLLECTION)) {
    counts.menu++;
    await sink.write(
      `\t<wp:term>\n\t\t<wp:term_id>${menu.id}</wp:term_id>\n\t\t<wp:term_taxonomy>${c('nav_menu')}</wp:term_taxonomy>\n\t\t<wp:term_slug>${c(menu.slug)}</wp:term_slug>\n` +
        `\t\t<wp:term_parent>${c('')}</wp:term_parent>\n\t\t<wp:term_name>${c(menu.name)}</wp:term_name>\n${menu.description ? `\t\t<wp:term_description>${c(menu.description)}</wp:term_description>\n` : ''}\t</wp:term>\n`,
    );
  }
  await sink.write('\n\t<generator>palimpsest</generator>\n\n');

  // --- items ----------------------------------------------------------------------------------------------------
  interface ItemFields {
    id: number;
    title: string;
    link: string;
    guid: string;
    author: number;
    content: string;
    excerpt: string;
    date: string;
    dateGmt: string | null;
    modified: string;
    modifiedGmt: string;
    commentStatus: string;
    pingStatus: string;
    slug: string;
    status: string;
    parent: number;
    menuOrder: number;
    type: string;
    password: string;
    sticky: boolean;
    attachmentUrl?: string;
    categories: { domain: string; slug: string; name: string }[];
    meta: [string, string][];
  }
  const item = async (fields: ItemFields, comments: () => Promise<void>) => {
    await sink.write(
      `\t<item>\n\t\t<title>${c(fields.title)}</title>\n\t\t<link>${e(fields.link)}</link>\n${fields.dateGmt ? `\t\t<pubDate>${rssDate(fields.dateGmt)}</pubDate>\n` : ''}` +
        `\t\t<dc:creator>${c(login(fields.author))}</dc:creator>\n\t\t<guid isPermaLink="false">${e(fields.guid)}</guid>\n\t\t<description></description>\n` +
        `\t\t<content:encoded>${c(fields.content)}</content:encoded>\n\t\t<excerpt:encoded>${c(fields.excerpt)}</excerpt:encoded>\n` +
        `\t\t<wp:post_id>${fields.id}</wp:post_id>\n\t\t<wp:post_date>${c(mysql(fields.date))}</wp:post_date>\n\t\t<wp:post_date_gmt>${c(mysql(fields.dateGmt))}</wp:post_date_gmt>\n` +
        `\t\t<wp:post_modified>${c(mysql(fields.modified))}</wp:post_modified>\n\t\t<wp:post_modified_gmt>${c(mysql(fields.modifiedGmt))}</wp:post_modified_gmt>\n` +
        `\t\t<wp:comment_status>${c(fields.commentStatus)}</wp:comment_status>\n\t\t<wp:ping_status>${c(fields.pingStatus)}</wp:ping_status>\n` +
        `\t\t<wp:post_name>${c(fields.slug)}</wp:post_name>\n\t\t<wp:status>${c(fields.status)}</wp:status>\n\t\t<wp:post_parent>${fields.parent}</wp:post_parent>\n` +
        `\t\t<wp:menu_order>${fields.menuOrder}</wp:menu_order>\n\t\t<wp:post_type>${c(fields.type)}</wp:post_type>\n\t\t<wp:post_password>${c(fields.password)}</wp:post_password>\n` +
        `\t\t<wp:is_sticky>${fields.sticky ? 1 : 0}</wp:is_sticky>\n${fields.attachmentUrl !== undefined ? `\t\t<wp:attachment_url>${c(fields.attachmentUrl)}</wp:attachment_url>\n` : ''}` +
        fields.categories
          .map(
            (term) =>
              `\t\t<category domain="${e(term.domain)}" nicename="${e(term.slug)}">${c(term.name)}</category>\n`,
          )
          .join('') +
        fields.meta
          .map(
            ([key, value]) =>
              `\t\t<wp:postmeta>\n\t\t\t<wp:meta_key>${c(key)}</wp:meta_key>\n\t\t\t<wp:meta_value>${c(value)}</wp:meta_value>\n\t\t</wp:postmeta>\n`,
          )
          .join(''),
    );
    await comments();
    await sink.write('\t</item>\n');
  };
  const noComments = async () => undefined;
  const commentsOf = (postId: number) => async () => {
    const load = loader<CommentDoc>(site, COMMENT_COLLECTION);
    for await (const comment of parentsFirst(
      documents<CommentDoc>(COMMENT_COLLECTION, [{ kind: 'any', field: 'post', values: [postId] }]),
      (doc) => doc.parent,
      load,
    )) {
      counts.comment++;
      await sink.write(
        `\t\t<wp:comment>\n\t\t\t<wp:comment_id>${comment.id}</wp:comment_id>\n\t\t\t<wp:comment_author>${c(comment.author_name)}</wp:comment_author>\n` +
          `\t\t\t<wp:comment_author_email>${c(comment.author_email)}</wp:comment_author_email>\n\t\t\t<wp:comment_author_url>${e(comment.author_url)}</wp:comment_author_url>\n` +
          `\t\t\t<wp:comment_author_IP>${c(comment.author_ip)}</wp:comment_author_IP>\n\t\t\t<wp:comment_date>${c(mysql(comment.date))}</wp:comment_date>\n` +
          `\t\t\t<wp:comment_date_gmt>${c(mysql(comment.date_gmt))}</wp:comment_date_gmt>\n\t\t\t<wp:comment_content>${c(comment.content)}</wp:comment_content>\n` +
          `\t\t\t<wp:comment_approved>${c(APPROVED[comment.status] ?? '0')}</wp:comment_approved>\n\t\t\t<wp:comment_type>${c(comment.type)}</wp:comment_type>\n` +
          `\t\t\t<wp:comment_parent>${comment.parent}</wp:comment_parent>\n\t\t\t<wp:comment_user_id>${comment.author}</wp:comment_user_id>\n\t\t</wp:comment>\n`,
      );
    }
  };

  for await (const media of documents<MediaDoc>('attachment')) {
    counts.attachment++;
    const url = uploadUrl(siteUrl, media.media_details.file);
    const meta: [string, string][] = [['_wp_attached_file', media.media_details.file]];
    if (media.alt_text) meta.push(['_wp_attachment_image_alt', media.alt_text]);
    await item(
      {
        id: media.id,
        title: media.title,
        link: url,
        guid: url,
        author: media.author,
        content: media.description,
        excerpt: media.caption,
        date: media.date,
        dateGmt: media.date_gmt,
        modified: media.modified,
        modifiedGmt: media.modified_gmt,
        commentStatus: media.comment_status,
        pingStatus: media.ping_status,
        slug: media.slug,
        status: media.status,
        parent: media.post,
        menuOrder: 0,
        type: 'attachment',
        password: '',
        sticky: false,
        attachmentUrl: url,
        categories: [],
        meta,
      },
      noComments,
    );
  }

  const contentItem = async (doc: ContentDoc) => {
    const categories: ItemFields['categories'] = [];
    const ids = [...doc.categories, ...doc.tags];
    if (ids.length > 0) {
      for (const term of await terms(ids)) categories.push({ domain: term.taxonomy, slug: term.slug, name: term.name });
    }
    if (doc.format && doc.format !== 'standard')
      categories.push({
        domain: 'post_format',
        slug: `post-format-${doc.format}`,
        name: doc.format[0]!.toUpperCase() + doc.format.slice(1),
      });
    const meta: [string, string][] = [];
    if (doc.featured_media > 0) meta.push(['_thumbnail_id', String(doc.featured_media)]);
    if (doc.type === 'page') meta.push(['_wp_page_template', doc.template || 'default']);
    else if (doc.template) meta.push(['_wp_page_template', doc.template]);
    if (doc.meta?.footnotes) meta.push(['footnotes', doc.meta.footnotes]);
    await item(
      {
        id: doc.id,
        title: doc.title,
        link: `${siteUrl}${doc.guid}`,
        guid: `${siteUrl}${doc.guid}`,
        author: doc.author,
        content: doc.content,
        excerpt: doc.excerpt,
        date: doc.date,
        dateGmt: doc.date_gmt,
        modified: doc.modified,
        modifiedGmt: doc.modified_gmt,
        commentStatus: doc.comment_status,
        pingStatus: doc.ping_status,
        slug: doc.slug,
        status: doc.status,
        parent: doc.parent,
        menuOrder: doc.menu_order,
        type: doc.type,
        password: doc.password,
        sticky: doc.sticky,
        categories,
        meta,
      },
      commentsOf(doc.id),
    );
    counts[doc.type === 'page' ? 'page' : 'post']++;
  };
  const notAutoDraft: Filter = { kind: 'none', field: 'status', values: ['auto-draft'] };
  for await (const doc of documents<ContentDoc>('post', [notAutoDraft])) await contentItem(doc);
  for await (const doc of parentsFirst(
    documents<ContentDoc>('page', [notAutoDraft]),
    (doc) => doc.parent,
    loader<ContentDoc>(site, 'page'),
  ))
    await contentItem(doc);

  const menus = loader<MenuDoc>(site, MENU_COLLECTION);
  for await (const menuItem of parentsFirst(
    documents<MenuItemDoc>(MENU_ITEM_COLLECTION),
    (doc) => doc.parent,
    loader<MenuItemDoc>(site, MENU_ITEM_COLLECTION),
  )) {
    const [menu] = menuItem.menu > 0 ? await menus([menuItem.menu]) : [];
    const gmt = (local: string) => formatGmt(localToInstant(Date.parse(`${local}Z`), timezone));
    const classes = menuItem.classes.split(' ').filter((name) => name !== '');
    await item(
      {
        id: menuItem.id,
        title: menuItem.title,
        link: `${siteUrl}${menuItem.guid}`,
        guid: `${siteUrl}${menuItem.guid}`,
        author: menuItem.author,
        content: menuItem.description,
        excerpt: menuItem.attr_title,
        date: menuItem.date,
        dateGmt: gmt(menuItem.date),
        modified: menuItem.modified,
        modifiedGmt: gmt(menuItem.modified),
        commentStatus: 'closed',
        pingStatus: 'closed',
        slug: menuItem.slug,
        status: menuItem.status,
        parent: 0,
        menuOrder: menuItem.menu_order,
        type: 'nav_menu_item',
        password: '',
        sticky: false,
        categories: menu ? [{ domain: 'nav_menu', slug: menu.slug, name: menu.name }] : [],
        meta: [
          ['_menu_item_type', menuItem.type],
          ['_menu_item_menu_item_parent', String(menuItem.parent)],
          ['_menu_item_object_id', String(menuItem.type === 'custom' ? menuItem.id : menuItem.object_id)],
          ['_menu_item_object', menuItem.object],
          ['_menu_item_target', menuItem.target],
          ['_menu_item_classes', serializeClassList(classes.length > 0 ? classes : [''])],
          ['_menu_item_xfn', menuItem.xfn],
          ['_menu_item_url', menuItem.type === 'custom' ? menuItem.url : ''],
        ],
      },
      noComments,
    );
    counts.menu_item++;
  }

  await sink.write('</channel>\n</rss>\n');
  return { counts, droppedCharacters: xml.dropped };
}
