/**
 * The first pass of a WXR import: the whole file read and checked (well-formed, known post types and taxonomies, ids
 * once each, no term parent loops) before anything is written, keeping only what planning the ids needs; and the
 * rules both passes share: which post types, statuses, taxonomies and comments are carried.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StatusRequest } from '../../resources/comments/decider';
import { readWxr } from './read';
import type { WxrAuthor, WxrComment, WxrItem, WxrTerm } from './read';
import { MENU_ITEM_STATUSES } from './menus';

/** Post types carried. */
export const CARRIED_TYPES = new Set<string>(['post', 'page']);

/** WordPress's own post types that are known but not carried yet, with why (docs/migration.md). */
export const NOT_CARRIED: Record<string, string> = {
  revision: 'revisions are not carried',
  wp_global_styles: 'theme styles belong to the theme, not the content',
  wp_template: 'block templates are not carried',
  wp_template_part: 'block templates are not carried',
  wp_navigation: 'navigation blocks are not carried',
  wp_block: 'reusable blocks are not carried yet',
  custom_css: 'theme CSS is not carried',
  customize_changeset: 'customizer changesets are not carried',
  oembed_cache: 'oEmbed caches are rebuilt, not carried',
  user_request: 'privacy requests are not carried',
};

/** Statuses an item may be imported with. */
export const STATUSES = new Set(['publish', 'draft', 'pending', 'private', 'future']);

const TAXONOMIES = new Set<string>(['category', 'post_tag']);

/** Taxonomies of WordPress itself that are known but not carried. */
const TAXONOMIES_NOT_CARRIED = new Set(['post_format', 'wp_theme', 'wp_template_part_area', 'link_category']);

/** Bad input, or a conflict the import cannot resolve on its own: named, nothing guessed. */
export class WxrImportError extends Error {}

/** What the first pass keeps of the file: enough to find what is already there and to choose the ids. */
export interface Plan {
  baseSiteUrl: string;
  authors: WxrAuthor[];
  terms: WxrTerm[];
  /** `nav_menu` terms. */
  menus: WxrTerm[];
  items: { id: number; postType: string; title: string; status: string; file: string | null; comments: number[] }[];
}

/** The first pass: the whole file read and checked, keeping only what planning needs. */
export async function readPlan(file: string, uploads: string | undefined): Promise<Plan> {
  const plan: Plan = { baseSiteUrl: '', authors: [], terms: [], menus: [], items: [] };
  const termSeen = new Set<string>();
  const itemSeen = new Set<number>();
  const unknownTypes: string[] = [];
  for await (const record of readWxr(file)) {
    if (record.kind === 'header') plan.baseSiteUrl = record.baseSiteUrl;
    else if (record.kind === 'author') {
      if (!record.login) throw new WxrImportError(`author ${record.id}: no login`);
      plan.authors.push(record);
    } else if (record.kind === 'term') {
      if (TAXONOMIES_NOT_CARRIED.has(record.taxonomy)) continue;
      if (record.taxonomy === 'nav_menu') {
        if (!record.slug) throw new WxrImportError(`menu ${record.id} "${record.name}": no slug`);
        // WordPress writes a menu once in the channel, and again beside its items.
        if (!termSeen.has(termKey('nav_menu', record.slug))) plan.menus.push(record);
        termSeen.add(termKey('nav_menu', record.slug));
        continue;
      }
      if (!TAXONOMIES.has(record.taxonomy))
        throw new WxrImportError(`term ${record.id} "${record.slug}": taxonomy "${record.taxonomy}" is not known here`);
      if (!record.slug) throw new WxrImportError(`term ${record.id} "${record.name}": no slug`);
      // WordPress writes a category both as wp:category and as wp:term.
      const key = termKey(record.taxonomy, record.slug);
      if (termSeen.has(key)) continue;
      termSeen.add(key);
      plan.terms.push(record);
    } else {
      if (record.id <= 0) throw new WxrImportError(`item "${record.title}": no wp:post_id`);
      if (itemSeen.has(record.id))
        throw new WxrImportError(`item ${record.id} "${record.title}": its id appears twice in the file`);
      itemSeen.add(record.id);
      if (
        !CARRIED_TYPES.has(record.postType) &&
        record.postType !== 'attachment' &&
        record.postType !== 'nav_menu_item' &&
        !(record.postType in NOT_CARRIED)
      ) {
        unknownTypes.push(`item ${record.id} "${record.title}" (post type "${record.postType}")`);
        continue;
      }
      const attached = record.postType === 'attachment' ? attachedFileOf(record) : '';
      const comments = CARRIED_TYPES.has(record.postType)
        ? record.comments.filter((comment) => commentCarried(comment) === null).map((comment) => comment.id)
        : [];
      plan.items.push({
        id: record.id,
        postType: record.postType,
        title: record.title,
        status: record.status,
        file: uploads && attached ? fileUnder(uploads, attached) : null,
        comments,
      });
    }
  }
  if (unknownTypes.length > 0) {
    throw new WxrImportError(
      `unknown post type: ${unknownTypes.slice(0, 10).join('; ')}${unknownTypes.length > 10 ? ` and ${unknownTypes.length - 10} more` : ''}; only ${[...CARRIED_TYPES, 'attachment', 'nav_menu_item'].join(', ')} are carried`,
    );
  }
  orderedTerms(plan.terms);
  return plan;
}

/** Whether an item of the plan is written: posts and pages of a carried status, attachments whose file is at hand, menu items. */
export const carried = (item: Plan['items'][number]): boolean =>
  (CARRIED_TYPES.has(item.postType) && STATUSES.has(item.status)) ||
  (item.postType === 'attachment' && item.file !== null) ||
  (item.postType === 'nav_menu_item' && MENU_ITEM_STATUSES.has(item.status));

/** The path under the uploads folder an attachment names (`2024/05/photo.jpg`). */
export const attachedFileOf = (item: WxrItem): string =>
  item.meta.find((meta) => meta.key === '_wp_attached_file')?.value.trim() ?? '';

/** `relative` under `root` when it is a file there; never a path that leaves `root`. */
function fileUnder(root: string, relative: string): string | null {
  const base = path.resolve(root);
  const full = path.resolve(base, relative);
  if (!full.startsWith(`${base}${path.sep}`)) return null;
  try {
    return fs.statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

/** WXR's comment_approved as the status asked for. */
export const COMMENT_STATUS: Record<string, StatusRequest> = { '1': 'approve', '0': 'hold', spam: 'spam' };

/** Null when a comment is carried, else why not. */
export function commentCarried(comment: WxrComment): string | null {
  if (comment.type !== '' && comment.type !== 'comment') return `a ${comment.type}: only comments are carried`;
  if (!(comment.approved in COMMENT_STATUS)) return `status "${comment.approved}" is not carried`;
  return null;
}

export const termKey = (taxonomy: string, slug: string) => `${taxonomy}\u0000${slug}`;

/** Terms with every parent before its children; a missing parent or a parent loop is an error naming the term. */
export function orderedTerms(terms: WxrTerm[]): WxrTerm[] {
  const bySlug = new Map(terms.map((term) => [termKey(term.taxonomy, term.slug), term]));
  const ordered: WxrTerm[] = [];
  const done = new Set<string>();
  const visit = (term: WxrTerm, path: string[]) => {
    const key = termKey(term.taxonomy, term.slug);
    if (done.has(key)) return;
    if (path.includes(key))
      throw new WxrImportError(
        `term ${term.id} "${term.slug}": its parents loop (${[...path, key].map((k) => k.split('\u0000')[1]).join(' -> ')})`,
      );
    if (term.parentSlug) {
      const parent = bySlug.get(termKey(term.taxonomy, term.parentSlug));
      if (!parent)
        throw new WxrImportError(`term ${term.id} "${term.slug}": its parent "${term.parentSlug}" is not in the file`);
      visit(parent, [...path, key]);
    }
    done.add(key);
    ordered.push(term);
  };
  for (const term of terms) visit(term, []);
  return ordered;
}
