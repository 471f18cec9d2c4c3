/**
 * Reads a WordPress eXtended RSS export (WXR 1.0-1.2) as a stream of records, with saxes: the file is never held
 * whole, only the record being read. Authors, terms and items come out one at a time, in file order.
 *
 * saxes reads no DTD: an entity the XML specification does not predefine is an error, so a document that declares
 * entities (the "billion laughs" expansion, or external entities naming local files) is refused, never expanded.
 */
import fs from 'node:fs';
import { SaxesParser } from 'saxes';

export interface WxrAuthor {
  kind: 'author';
  id: number;
  login: string;
  email: string;
  displayName: string;
  firstName: string;
  lastName: string;
}

export interface WxrTerm {
  kind: 'term';
  id: number;
  taxonomy: string;
  slug: string;
  name: string;
  description: string;
  /** The parent's slug ('' for none), as WXR names parents. */
  parentSlug: string;
}

export interface WxrComment {
  id: number;
  author: string;
  authorEmail: string;
  authorUrl: string;
  authorIp: string;
  date: string;
  dateGmt: string;
  content: string;
  approved: string;
  type: string;
  parent: number;
  userId: number;
}

export interface WxrItem {
  kind: 'item';
  id: number;
  postType: string;
  title: string;
  creator: string;
  content: string;
  excerpt: string;
  date: string;
  dateGmt: string;
  commentStatus: string;
  pingStatus: string;
  slug: string;
  status: string;
  parent: number;
  menuOrder: number;
  password: string;
  sticky: boolean;
  attachmentUrl: string;
  /** Terms by taxonomy (`category`, `post_tag`, ...) and slug. */
  terms: { taxonomy: string; slug: string }[];
  meta: { key: string; value: string }[];
  comments: WxrComment[];
}

export interface WxrHeader {
  kind: 'header';
  version: string;
  baseSiteUrl: string;
}

export type WxrRecord = WxrHeader | WxrAuthor | WxrTerm | WxrItem;

/** The file is not a readable WXR export; `where` names the item or the line. */
export class WxrError extends Error {}

const int = (text: string | undefined): number => {
  const value = Number.parseInt(text ?? '', 10);
  return Number.isFinite(value) ? value : 0;
};

type Fields = Record<string, string>;

/**
 * Yields the records of the file in order. Between records nothing is buffered but the current one, so a caller
 * that awaits between them reads the file at its own pace.
 */
export async function* readWxr(file: string): AsyncGenerator<WxrRecord> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const ready: WxrRecord[] = [];
  const stack: string[] = [];
  let text = '';
  let fields: Fields | null = null;
  let item: WxrItem | null = null;
  let comment: Fields | null = null;
  let meta: Fields | null = null;
  let sawRss = false;
  let sawChannel = false;
  let version = '';
  let baseSiteUrl = '';
  let headerSent = false;
  let failure: Error | null = null;

  const where = () => (item ? `item ${item.id || '(before its wp:post_id)'} "${item.title}"` : `line ${parser.line}`);
  const sendHeader = () => {
    if (headerSent) return;
    headerSent = true;
    if (!version) throw new WxrError('not a WXR export: the channel has no wp:wxr_version');
    if (!/^1\.[0-2]$/.test(version)) throw new WxrError(`WXR version ${version} is not supported (1.0 to 1.2 are)`);
    ready.push({ kind: 'header', version, baseSiteUrl });
  };

  parser.on('error', (error) => {
    failure ??= new WxrError(`not well-formed XML at ${where()}: ${error.message}`);
  });
  parser.on('doctype', () => {
    failure ??= new WxrError('a WXR export has no document type declaration; entity declarations are refused');
  });
  parser.on('opentag', (tag) => {
    const name = tag.name;
    if (stack.length === 0 && name !== 'rss')
      failure ??= new WxrError(`not a WXR export: the document is <${name}>, not <rss>`);
    if (name === 'rss') sawRss = true;
    if (name === 'channel' && stack.at(-1) === 'rss') sawChannel = true;
    const inChannel = stack.length === 2 && stack[1] === 'channel';
    stack.push(name);
    text = '';
    if (inChannel && (name === 'wp:author' || name === 'wp:category' || name === 'wp:tag' || name === 'wp:term'))
      fields = {};
    if (inChannel && name === 'item') {
      sendHeader();
      item = {
        kind: 'item',
        id: 0,
        postType: '',
        title: '',
        creator: '',
        content: '',
        excerpt: '',
        date: '',
        dateGmt: '',
        commentStatus: 'closed',
        pingStatus: 'closed',
        slug: '',
        status: '',
        parent: 0,
        menuOrder: 0,
        password: '',
        sticky: false,
        attachmentUrl: '',
        terms: [],
        meta: [],
        comments: [],
      };
    }
    if (item && name === 'category' && stack.length === 4) {
      const domain = String(tag.attributes.domain ?? '');
      const slug = String(tag.attributes.nicename ?? '');
      if (domain && slug) item.terms.push({ taxonomy: domain, slug: decodeSlug(slug) });
    }
    if (item && name === 'wp:comment') comment = {};
    if (item && name === 'wp:postmeta') meta = {};
  });
  const onText = (chunk: string) => {
    text += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    const name = tag.name;
    stack.pop();
    const value = text;
    text = '';
    if (stack.length === 2 && name === 'wp:wxr_version') version = value.trim();
    if (stack.length === 2 && name === 'wp:base_site_url') baseSiteUrl = value.trim();
    if (fields && stack.length === 3) fields[name] = value;
    else if (fields && stack.length === 2) {
      sendHeader();
      ready.push(channelRecord(name, fields));
      fields = null;
    } else if (comment && name !== 'wp:comment' && stack.at(-1) === 'wp:comment') comment[name] = value;
    else if (comment && name === 'wp:comment' && item) {
      item.comments.push(commentOf(comment));
      comment = null;
    } else if (meta && name !== 'wp:postmeta' && stack.at(-1) === 'wp:postmeta') meta[name] = value;
    else if (meta && name === 'wp:postmeta' && item) {
      item.meta.push({ key: meta['wp:meta_key'] ?? '', value: meta['wp:meta_value'] ?? '' });
      meta = null;
    } else if (item && stack.length === 3) setItemField(item, name, value);
    else if (item && name === 'item') {
      ready.push(item);
      item = null;
    }
  });

  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) {
      parser.write(chunk as string);
      if (failure) throw failure;
      while (ready.length > 0) yield ready.shift()!;
    }
    parser.close();
    if (failure) throw failure;
  } finally {
    stream.destroy();
  }
  if (!sawRss || !sawChannel) throw new WxrError('not a WXR export: no <rss><channel>');
  if (stack.length > 0 || item) throw new WxrError(`the file ends inside ${where()}: it is truncated`);
  sendHeader();
  while (ready.length > 0) yield ready.shift()!;
}

/** Slugs are kept as WordPress stores them (non-ASCII as percent-encoded UTF-8), which is how they are stored here. */
const decodeSlug = (slug: string): string => slug.trim();

function channelRecord(name: string, f: Fields): WxrRecord {
  if (name === 'wp:author') {
    return {
      kind: 'author',
      id: int(f['wp:author_id']),
      login: (f['wp:author_login'] ?? '').trim(),
      email: (f['wp:author_email'] ?? '').trim(),
      displayName: f['wp:author_display_name'] ?? '',
      firstName: f['wp:author_first_name'] ?? '',
      lastName: f['wp:author_last_name'] ?? '',
    };
  }
  if (name === 'wp:category') {
    return {
      kind: 'term',
      id: int(f['wp:term_id']),
      taxonomy: 'category',
      slug: decodeSlug(f['wp:category_nicename'] ?? ''),
      name: f['wp:cat_name'] ?? '',
      description: f['wp:category_description'] ?? '',
      parentSlug: (f['wp:category_parent'] ?? '').trim(),
    };
  }
  if (name === 'wp:tag') {
    return {
      kind: 'term',
      id: int(f['wp:term_id']),
      taxonomy: 'post_tag',
      slug: decodeSlug(f['wp:tag_slug'] ?? ''),
      name: f['wp:tag_name'] ?? '',
      description: f['wp:tag_description'] ?? '',
      parentSlug: '',
    };
  }
  return {
    kind: 'term',
    id: int(f['wp:term_id']),
    taxonomy: (f['wp:term_taxonomy'] ?? '').trim(),
    slug: decodeSlug(f['wp:term_slug'] ?? ''),
    name: f['wp:term_name'] ?? '',
    description: f['wp:term_description'] ?? '',
    parentSlug: (f['wp:term_parent'] ?? '').trim(),
  };
}

function commentOf(f: Fields): WxrComment {
  return {
    id: int(f['wp:comment_id']),
    author: f['wp:comment_author'] ?? '',
    authorEmail: f['wp:comment_author_email'] ?? '',
    authorUrl: f['wp:comment_author_url'] ?? '',
    authorIp: f['wp:comment_author_IP'] ?? '',
    date: f['wp:comment_date'] ?? '',
    dateGmt: f['wp:comment_date_gmt'] ?? '',
    content: f['wp:comment_content'] ?? '',
    approved: f['wp:comment_approved'] ?? '',
    type: f['wp:comment_type'] ?? '',
    parent: int(f['wp:comment_parent']),
    userId: int(f['wp:comment_user_id']),
  };
}

function setItemField(item: WxrItem, name: string, value: string): void {
  switch (name) {
    case 'title':
      item.title = value;
      break;
    case 'dc:creator':
      item.creator = value.trim();
      break;
    case 'content:encoded':
      item.content = value;
      break;
    case 'excerpt:encoded':
      item.excerpt = value;
      break;
    case 'wp:post_id':
      item.id = int(value);
      break;
    case 'wp:post_date':
      item.date = value.trim();
      break;
    case 'wp:post_date_gmt':
      item.dateGmt = value.trim();
      break;
    case 'wp:comment_status':
      item.commentStatus = value.trim();
      break;
    case 'wp:ping_status':
      item.pingStatus = value.trim();
      break;
    case 'wp:post_name':
      item.slug = value.trim();
      break;
    case 'wp:status':
      item.status = value.trim();
      break;
    case 'wp:post_parent':
      item.parent = int(value);
      break;
    case 'wp:menu_order':
      item.menuOrder = int(value);
      break;
    case 'wp:post_type':
      item.postType = value.trim();
      break;
    case 'wp:post_password':
      item.password = value;
      break;
    case 'wp:is_sticky':
      item.sticky = value.trim() === '1';
      break;
    case 'wp:attachment_url':
      item.attachmentUrl = value.trim();
      break;
  }
}
