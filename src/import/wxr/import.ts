/**
 * Imports a WXR export into a site through the ordinary operations (users, terms, content), so every event is one
 * the API itself would append: projections, history and the audit log need nothing special. Each event's metadata
 * also says it was imported, from which file, and the item's original time.
 *
 * Two passes over the file, both streamed: the first (plan.ts) checks the whole file (well-formed, WXR, known post
 * types, no term parent loops) and plans the ids before anything is written; the second writes. A truncated or hostile file
 * is therefore refused with nothing written.
 *
 * Ids are kept where free: an id is free when the site's id sequence has never handed it out (it lies past the
 * sequence's last reserved block). The kept ids are reserved in one `IdBlockReserved` append, which moves the
 * sequence past them, so the server cannot hand them out meanwhile. A taken id gets a new one, and every reference
 * to it (parents, authors, terms) is rewritten.
 *
 * Rerunning is safe, also after a run killed half-way: authors are found again by login, terms by slug, and items
 * by an import record (a name claim `wxr-import` keyed by the source site and the item's id, owned by the id it got)
 * made before the item is written.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { EventMetadata } from '../../ports/eventStore';
import { lastReserved, reserveThrough } from '../ids';
import { createUser } from '../../resources/users/operations';
import { createTerm, ensureDefaultCategory, termSlugScope } from '../../resources/terms/operations';
import { termStreamId } from '../../resources/terms/events';
import type { Taxonomy } from '../../resources/terms/events';
import { DEFAULT_CATEGORY_ID } from '../../resources/terms/decider';
import { createItem } from '../../resources/content/operations';
import { createAttachment, updateAttachment } from '../../resources/media/operations';
import { attachmentStreamId } from '../../resources/media/events';
import { commentedPost, createComment } from '../../resources/comments/operations';
import { commentStreamId } from '../../resources/comments/events';
import type { PostInput } from '../../resources/content/decider';
import { contentStreamId } from '../../resources/content/events';
import { createMenu, createMenuItem } from '../../resources/menus/operations';
import { menuItemStreamId, menuStreamId } from '../../resources/menus/events';
import { nextTermId } from '../../resources/terms/operations';
import { POST_FORMATS } from '../../resources/content/schema';
import { formatGmt, formatLocal, localToInstant } from '../../text/dates';
import { AlreadyExists } from '../../core/errors';
import { answerableError } from '../../rest/domainErrors';
import { readWxr } from './read';
import {
  CARRIED_TYPES,
  COMMENT_STATUS,
  NOT_CARRIED,
  STATUSES,
  WxrImportError,
  attachedFileOf,
  carried,
  commentCarried,
  orderedTerms,
  readPlan,
  termKey,
} from './plan';
import type { Plan } from './plan';
import { MENU_ITEM_STATUSES, menuItemPlan } from './menus';
import type { WxrAuthor, WxrComment, WxrItem, WxrTerm } from './read';

export type ImportKind =
  | 'user'
  | 'category'
  | 'tag'
  | 'menu'
  | 'post'
  | 'page'
  | 'attachment'
  | 'menu_item'
  | 'comment';

export interface ImportReport {
  file: string;
  dryRun: boolean;
  /** Per kind: created now, found already there (a rerun, or the same login/slug), skipped. */
  counts: Record<ImportKind | 'other', { created: number; existing: number; skipped: number }>;
  /** Items carried with another id than in the file, and why. */
  changedIds: { kind: ImportKind; from: number; to: number; reason: string }[];
  /** What was not carried, and why. */
  skipped: { kind: string; id: number; title: string; reason: string }[];
  /** Attachments not carried because their file was not found under `uploads` (or no `uploads` was given). */
  missingFiles: { id: number; url: string; file: string }[];
}

export interface ImportOptions {
  dryRun?: boolean;
  /**
   * The source site's uploads folder (its wp-content/uploads), where attachments' files are found by their
   * `_wp_attached_file` path. Files are never fetched over the network.
   */
  uploads?: string;
  /** Who imports: the user running it, or the system (the CLI), whose events carry no user id. */
  actor?: Actor | null;
  /** Progress lines (the CLI prints them on stderr). */
  progress?: (line: string) => void;
}

/** The system acting from the CLI: may save any HTML verbatim (an export's content is the site's own). */
const SYSTEM_ACTOR: Actor = { id: 0, roles: ['administrator'] };

export async function importWxr(site: Site, file: string, options: ImportOptions = {}): Promise<ImportReport> {
  const actor = options.actor ?? SYSTEM_ACTOR;
  const say = options.progress ?? (() => undefined);
  const fileName = path.basename(file);
  const dryRun = options.dryRun === true;
  const zero = () => ({ created: 0, existing: 0, skipped: 0 });
  const report: ImportReport = {
    file: fileName,
    dryRun,
    counts: {
      user: zero(),
      category: zero(),
      tag: zero(),
      menu: zero(),
      post: zero(),
      page: zero(),
      attachment: zero(),
      menu_item: zero(),
      comment: zero(),
      other: zero(),
    },
    changedIds: [],
    skipped: [],
    missingFiles: [],
  };

  say(`reading ${fileName}`);
  const plan = await readPlan(file, options.uploads);
  say(
    `${plan.authors.length} authors, ${plan.terms.length} terms, ${plan.items.length} items in ${fileName} (from ${plan.baseSiteUrl || 'an unnamed site'})`,
  );

  const importedSite = (sourceId: string, originalAt: string | null): Site => {
    const wrapped = Object.create(site) as Site;
    const metadata = (userId: number | null, requestId: string): EventMetadata => ({
      ...site.metadata(userId === SYSTEM_ACTOR.id ? null : userId, requestId),
      imported: { format: 'wxr', file: fileName, source: plan.baseSiteUrl, sourceId, originalAt },
    });
    Object.defineProperty(wrapped, 'metadata', { value: metadata });
    return wrapped;
  };
  const requestId = `import-${randomUUID()}`;
  const write = async (position: number) => {
    // Later writes read what earlier ones made (a parent term, a parent page): wait for the read model.
    if (position > 0) await site.settle(position);
  };

  if (!dryRun) await write((await ensureDefaultCategory(site)).position);

  // --- ids: what is free, reserved in one append per sequence ----------------------------------------------------
  const userIds = new Map<number, number>();
  const userByLogin = new Map<string, number>();
  const termIds = new Map<string, number>();
  const contentIds = new Map<number, number>();
  const recordKey = (id: number | string) =>
    `${createHash('sha256').update(plan.baseSiteUrl).digest('hex').slice(0, 16)}-${id}`;

  const usersLast = await lastReserved(site, 'users');
  const newUsers: WxrAuthor[] = [];
  for (const author of plan.authors) {
    const existing = await site.claims.ownerOf('user-login', author.login.toLowerCase());
    if (existing !== null) {
      userIds.set(author.id, existing);
      userByLogin.set(author.login, existing);
    } else newUsers.push(author);
  }
  const termsLast = await lastReserved(site, 'terms');
  const newTerms: WxrTerm[] = [];
  // A site makes its default category on first need: a dry run counts it as there, as the import would find it.
  const defaultCategoryToCome =
    dryRun && (await site.store.readStream(termStreamId(DEFAULT_CATEGORY_ID), { maxCount: 1 })).length === 0;
  for (const term of plan.terms) {
    const existing =
      defaultCategoryToCome && term.taxonomy === 'category' && term.slug === 'uncategorized'
        ? DEFAULT_CATEGORY_ID
        : await site.claims.ownerOf(termSlugScope(term.taxonomy as Taxonomy), term.slug);
    if (existing !== null) termIds.set(termKey(term.taxonomy, term.slug), existing);
    else newTerms.push(term);
  }
  // Menus: found again by their import record, or as the site's menu of that slug.
  const menuIds = new Map<string, number>();
  const newMenus: WxrTerm[] = [];
  for (const menu of plan.menus) {
    const existing =
      (await site.claims.ownerOf('wxr-import', recordKey(`menu-${menu.id}`))) ??
      (await site.claims.ownerOf('term-nav_menu', menu.slug));
    if (existing !== null) menuIds.set(menu.slug, existing);
    else newMenus.push(menu);
  }
  const contentLast = await lastReserved(site, 'content');
  const newItems: Plan['items'] = [];
  for (const item of plan.items) {
    const existing = await site.claims.ownerOf('wxr-import', recordKey(item.id));
    if (existing !== null) contentIds.set(item.id, existing);
    else newItems.push(item);
  }
  const commentsLast = await lastReserved(site, 'comments');
  const commentIds = new Map<number, number>();
  const newComments: number[] = [];
  for (const item of plan.items) {
    if (!carried(item)) continue;
    for (const id of item.comments) {
      const existing = await site.claims.ownerOf('wxr-import', recordKey(`comment-${id}`));
      if (existing !== null) commentIds.set(id, existing);
      else newComments.push(id);
    }
  }
  const keptComments = newComments.filter((id) => id > commentsLast.last);
  const keptUsers = newUsers.filter((author) => author.id > usersLast.last).map((author) => author.id);
  // Id 1 is the default category's, whatever the sequence says (the sequence starts past it).
  const keptTerms = [...newTerms, ...newMenus]
    .filter((term) => term.id > Math.max(termsLast.last, DEFAULT_CATEGORY_ID))
    .map((term) => term.id);
  const keptItems = newItems.filter((item) => carried(item) && item.id > contentLast.last).map((item) => item.id);
  const kept = {
    users: new Set(keptUsers),
    terms: new Set(keptTerms),
    items: new Set(keptItems),
    comments: new Set(keptComments),
  };
  if (!dryRun) {
    // Each set keeps only the ids still free once reserved (another process may have reserved meanwhile).
    const imported = { format: 'wxr', source: plan.baseSiteUrl };
    await reserveThrough(site, 'users', usersLast, kept.users, imported);
    await reserveThrough(site, 'terms', termsLast, kept.terms, imported);
    await reserveThrough(site, 'content', contentLast, kept.items, imported);
    await reserveThrough(site, 'comments', commentsLast, kept.comments, imported);
  }

  // --- authors ---------------------------------------------------------------------------------------------------
  for (const author of plan.authors) {
    if (userIds.has(author.id)) {
      report.counts.user.existing++;
      continue;
    }
    if (dryRun) {
      report.counts.user.created++;
      if (!kept.users.has(author.id))
        report.changedIds.push({ kind: 'user', from: author.id, to: 0, reason: 'id taken: a new one will be given' });
      continue;
    }
    const chosen = kept.users.has(author.id) ? author.id : undefined;
    try {
      const { id, position } = await createUser(
        importedSite(`user-${author.id}`, null),
        {
          id: chosen,
          login: author.login,
          email: author.email,
          roles: ['author'],
          displayName: author.displayName,
          firstName: author.firstName,
          lastName: author.lastName,
          password: null,
        },
        actor.id === SYSTEM_ACTOR.id ? null : actor.id,
        requestId,
      );
      await write(position);
      userIds.set(author.id, id);
      userByLogin.set(author.login, id);
      report.counts.user.created++;
      if (id !== author.id) report.changedIds.push({ kind: 'user', from: author.id, to: id, reason: 'id taken' });
      say(`user ${author.login}: ${id}`);
    } catch (error) {
      throw new WxrImportError(`author ${author.id} "${author.login}": ${messageOf(error)}`);
    }
  }

  // --- terms, parents first --------------------------------------------------------------------------------------
  for (const term of orderedTerms(plan.terms)) {
    const kind: ImportKind = term.taxonomy === 'category' ? 'category' : 'tag';
    const key = termKey(term.taxonomy, term.slug);
    if (termIds.has(key)) {
      report.counts[kind].existing++;
      continue;
    }
    if (dryRun) {
      report.counts[kind].created++;
      termIds.set(key, kept.terms.has(term.id) ? term.id : 0);
      if (!kept.terms.has(term.id))
        report.changedIds.push({ kind, from: term.id, to: 0, reason: 'id taken: a new one will be given' });
      continue;
    }
    const parent = term.parentSlug ? termIds.get(termKey(term.taxonomy, term.parentSlug)) : 0;
    try {
      const outcome = await createTerm(
        importedSite(`term-${term.id}`, null),
        term.taxonomy as Taxonomy,
        {
          name: term.name,
          slug: term.slug,
          description: term.description,
          ...(term.taxonomy === 'category' ? { parent: parent ?? 0 } : {}),
        },
        actor.id === SYSTEM_ACTOR.id ? null : actor,
        requestId,
        kept.terms.has(term.id) ? term.id : undefined,
      );
      await write(outcome.position);
      termIds.set(key, outcome.id);
      report.counts[kind].created++;
      if (outcome.id !== term.id) report.changedIds.push({ kind, from: term.id, to: outcome.id, reason: 'id taken' });
      say(`${kind} ${term.slug}: ${outcome.id}`);
    } catch (error) {
      throw new WxrImportError(`${kind} ${term.id} "${term.slug}": ${messageOf(error)}`);
    }
  }

  const termsByFileId = new Map<number, number>();
  for (const term of plan.terms) {
    const id = termIds.get(termKey(term.taxonomy, term.slug));
    if (id !== undefined) termsByFileId.set(term.id, id);
  }

  // --- menus: an import record first, so that a rerun finds the menu whatever its name became ---------------------
  for (const menu of plan.menus) {
    let target = menuIds.get(menu.slug);
    if (target !== undefined && (await site.store.readStream(menuStreamId(target), { maxCount: 1 })).length > 0) {
      report.counts.menu.existing++;
      continue;
    }
    if (dryRun) {
      report.counts.menu.created++;
      menuIds.set(menu.slug, kept.terms.has(menu.id) ? menu.id : 0);
      if (!kept.terms.has(menu.id))
        report.changedIds.push({ kind: 'menu', from: menu.id, to: 0, reason: 'id taken: a new one will be given' });
      continue;
    }
    const at = importedSite(`term-${menu.id}`, null);
    if (target === undefined) {
      const wanted = kept.terms.has(menu.id) ? menu.id : await nextTermId(site);
      const claimed = await site.claims.claimExact(
        'wxr-import',
        recordKey(`menu-${menu.id}`),
        wanted,
        at.metadata(null, requestId),
      );
      target = claimed ? wanted : ((await site.claims.ownerOf('wxr-import', recordKey(`menu-${menu.id}`))) ?? wanted);
    }
    try {
      const outcome = await createMenu(
        at,
        { name: menu.name, description: menu.description },
        actor.id === SYSTEM_ACTOR.id ? null : actor,
        requestId,
        { chosenId: target },
      );
      await write(outcome.position);
      menuIds.set(menu.slug, target);
      report.counts.menu.created++;
      if (target !== menu.id) report.changedIds.push({ kind: 'menu', from: menu.id, to: target, reason: 'id taken' });
      if (outcome.state.menu && outcome.state.menu.slug !== menu.slug)
        report.skipped.push({
          kind: 'menu slug',
          id: menu.id,
          title: menu.name,
          reason: `slug "${menu.slug}" became "${outcome.state.menu.slug}": a menu's slug is made from its name`,
        });
    } catch (error) {
      const existing =
        error instanceof AlreadyExists && error.subject === 'menu' && error.by === 'name'
          ? error.details.existingId
          : undefined;
      if (existing === undefined) throw new WxrImportError(`menu ${menu.id} "${menu.slug}": ${messageOf(error)}`);
      // Menu names are unique: the site's menu of that name (under another slug) is the file's menu.
      menuIds.set(menu.slug, existing);
      report.counts.menu.existing++;
      report.skipped.push({
        kind: 'menu',
        id: menu.id,
        title: menu.name,
        reason: `the site's menu ${existing} has that name: its items join it`,
      });
    }
  }

  // --- item ids: import records before any item is written, so references can be rewritten ------------------------
  for (const item of newItems) {
    if (!carried(item)) continue;
    if (dryRun) {
      contentIds.set(item.id, kept.items.has(item.id) ? item.id : 0);
      continue;
    }
    const wanted = kept.items.has(item.id) ? item.id : await site.ids.content.nextId();
    const claimed = await site.claims.claimExact(
      'wxr-import',
      recordKey(item.id),
      wanted,
      importedSite(`post-${item.id}`, null).metadata(null, requestId),
    );
    contentIds.set(
      item.id,
      claimed ? wanted : ((await site.claims.ownerOf('wxr-import', recordKey(item.id))) ?? wanted),
    );
  }

  // Comments the same way; new ids come from the comments' own sequence, the one createComment uses.
  for (const id of newComments) {
    if (dryRun) {
      commentIds.set(id, kept.comments.has(id) ? id : 0);
      continue;
    }
    if (kept.comments.has(id)) {
      const claimed = await site.claims.claimExact(
        'wxr-import',
        recordKey(`comment-${id}`),
        id,
        importedSite(`comment-${id}`, null).metadata(null, requestId),
      );
      commentIds.set(id, claimed ? id : ((await site.claims.ownerOf('wxr-import', recordKey(`comment-${id}`))) ?? id));
    }
    // A comment whose id is taken gets its new id when it is written, and its record then.
  }

  const importComments = async (record: WxrItem, postId: number) => {
    const post = await commentedPost(site, postId);
    for (const comment of record.comments) {
      const refused = commentCarried(comment);
      if (refused !== null) {
        report.counts.comment.skipped++;
        report.skipped.push({ kind: 'comment', id: comment.id, title: record.title, reason: refused });
        continue;
      }
      let target = commentIds.get(comment.id);
      if (dryRun) {
        report.counts.comment.created++;
        if (target !== comment.id)
          report.changedIds.push({
            kind: 'comment',
            from: comment.id,
            to: target ?? 0,
            reason: 'id taken: a new one will be given',
          });
        continue;
      }
      if (target !== undefined) {
        const [existing] = await site.store.readStream(commentStreamId(target), { maxCount: 1 });
        if (existing) {
          report.counts.comment.existing++;
          continue;
        }
      }
      if (!post)
        throw new WxrImportError(
          `comment ${comment.id} on ${record.postType} ${record.id}: the ${record.postType} is not in the read model`,
        );
      const parent = comment.parent > 0 ? commentIds.get(comment.parent) : 0;
      if (parent === undefined)
        throw new WxrImportError(
          `comment ${comment.id} on ${record.postType} ${record.id}: its parent comment ${comment.parent} is not among the item's comments before it`,
        );
      const user = comment.userId > 0 ? userIds.get(comment.userId) : undefined;
      const when = commentTime(site, comment);
      const at = importedSite(`comment-${comment.id}`, comment.dateGmt || comment.date);
      try {
        const outcome = await createComment(
          at,
          post,
          {
            parent,
            content: comment.content,
            ...(user !== undefined ? { author: user } : {}),
            author_name: comment.author,
            author_email: comment.authorEmail,
            author_url: comment.authorUrl,
            author_ip: comment.authorIp,
            date: when.date,
            date_gmt: when.date_gmt,
            status: COMMENT_STATUS[comment.approved]!,
          },
          actor,
          requestId,
          { chosenId: target },
        );
        if (target === undefined) {
          target = outcome.id;
          await site.claims.claimExact(
            'wxr-import',
            recordKey(`comment-${comment.id}`),
            target,
            at.metadata(null, requestId),
          );
          commentIds.set(comment.id, target);
        }
        await write(outcome.position);
        report.counts.comment.created++;
        if (target !== comment.id)
          report.changedIds.push({ kind: 'comment', from: comment.id, to: target, reason: 'id taken' });
      } catch (error) {
        if (error instanceof AlreadyExists && error.subject === 'comment' && error.by === 'content') {
          report.counts.comment.skipped++;
          report.skipped.push({
            kind: 'comment',
            id: comment.id,
            title: record.title,
            reason: 'the same comment by the same author is already on the item',
          });
          continue;
        }
        throw new WxrImportError(
          `comment ${comment.id} on ${record.postType} ${record.id} "${record.title}": ${messageOf(error)}`,
        );
      }
    }
  };

  // --- items, streamed again -------------------------------------------------------------------------------------
  const attachments = new Map(
    plan.items
      .filter((item) => item.postType === 'attachment' && item.file !== null)
      .map((item) => [item.id, item.file!]),
  );
  const importAttachment = async (record: WxrItem) => {
    const source = attachments.get(record.id);
    if (source === undefined) {
      report.counts.attachment.skipped++;
      const attached = attachedFileOf(record);
      report.missingFiles.push({ id: record.id, url: record.attachmentUrl, file: attached });
      report.skipped.push({
        kind: 'attachment',
        id: record.id,
        title: record.title,
        reason: options.uploads
          ? `its file ${attached || '(none named)'} is not under ${options.uploads}`
          : 'no --uploads folder given for its file',
      });
      return;
    }
    const target = contentIds.get(record.id)!;
    if (dryRun) {
      report.counts.attachment.created++;
      if (target !== record.id)
        report.changedIds.push({
          kind: 'attachment',
          from: record.id,
          to: target,
          reason: 'id taken: a new one will be given',
        });
      return;
    }
    const [existing] = await site.store.readStream(attachmentStreamId(target), { maxCount: 1 });
    if (existing) {
      report.counts.attachment.existing++;
      return;
    }
    const author = userByLogin.get(record.creator);
    const gmt = wxrDate(record.dateGmt);
    const parent = record.parent > 0 ? contentIds.get(record.parent) : undefined;
    try {
      const stats = fs.statSync(source);
      const at = importedSite(`post-${record.id}`, record.dateGmt || record.date);
      const outcome = await createAttachment(
        at,
        { body: { path: source, size: stats.size }, filename: path.basename(source) },
        {
          title: record.title,
          caption: record.excerpt,
          description: record.content,
          alt_text: record.meta.find((meta) => meta.key === '_wp_attachment_image_alt')?.value ?? '',
          comment_status: record.commentStatus === 'open' ? 'open' : 'closed',
          ping_status: record.pingStatus === 'open' ? 'open' : 'closed',
          ...(author !== undefined ? { author } : {}),
          ...(parent !== undefined ? { post: parent } : {}),
          ...(gmt ? { date_gmt: gmt } : {}),
        },
        actor,
        requestId,
        { chosenId: target },
      );
      let position = outcome.position;
      if (record.slug && outcome.state.attachment && outcome.state.attachment.slug !== record.slug) {
        position = (await updateAttachment(at, target, { slug: record.slug }, actor, requestId)).position;
      }
      await write(position);
      report.counts.attachment.created++;
      if (target !== record.id)
        report.changedIds.push({ kind: 'attachment', from: record.id, to: target, reason: 'id taken' });
    } catch (error) {
      throw new WxrImportError(`attachment ${record.id} "${record.title}": ${messageOf(error)}`);
    }
  };
  let seen = 0;
  for await (const record of readWxr(file)) {
    if (record.kind !== 'item') continue;
    seen++;
    if (seen % 100 === 0) say(`${seen} of ${plan.items.length} items`);
    if (record.postType === 'attachment') {
      await importAttachment(record);
      continue;
    }
    if (record.postType === 'nav_menu_item') continue;
    if (!CARRIED_TYPES.has(record.postType)) {
      report.counts.other.skipped++;
      report.skipped.push({
        kind: record.postType,
        id: record.id,
        title: record.title,
        reason: NOT_CARRIED[record.postType]!,
      });
      continue;
    }
    const kind = record.postType as 'post' | 'page';
    if (!STATUSES.has(record.status)) {
      report.counts[kind].skipped++;
      report.skipped.push({
        kind,
        id: record.id,
        title: record.title,
        reason: `status "${record.status}" is not carried`,
      });
      continue;
    }
    const target = contentIds.get(record.id)!;
    const thumbnail = Number(record.meta.find((meta) => meta.key === '_thumbnail_id')?.value ?? 0);
    const featured = thumbnail > 0 && attachments.has(thumbnail) ? contentIds.get(thumbnail) : undefined;
    if (thumbnail > 0 && featured === undefined) {
      report.skipped.push({
        kind: 'featured image',
        id: record.id,
        title: record.title,
        reason: `featured image ${thumbnail} not set: that attachment is not carried`,
      });
    }
    if (dryRun) {
      report.counts[kind].created++;
      if (target !== record.id)
        report.changedIds.push({ kind, from: record.id, to: target, reason: 'id taken: a new one will be given' });
      await importComments(record, target);
      continue;
    }
    const [existing] = await site.store.readStream(contentStreamId(target), { maxCount: 1 });
    if (existing) {
      report.counts[kind].existing++;
      await importComments(record, target);
      continue;
    }
    try {
      const input = itemInput(record, { users: userByLogin, terms: termIds, content: contentIds });
      if (featured !== undefined) input.featured_media = featured;
      const outcome = await createItem(
        importedSite(`post-${record.id}`, record.dateGmt || record.date),
        kind,
        input,
        actor,
        requestId,
        target,
      );
      await write(outcome.position);
      report.counts[kind].created++;
      if (target !== record.id) report.changedIds.push({ kind, from: record.id, to: target, reason: 'id taken' });
    } catch (error) {
      throw new WxrImportError(`${kind} ${record.id} "${record.title}": ${messageOf(error)}`);
    }
    await importComments(record, target);
  }
  say(`${seen} items read`);

  // --- menu items, streamed a third time: what they link to is all there now ------------------------------------
  const postTypes = new Map(plan.items.map((item) => [item.id, item.postType]));
  if (plan.items.some((item) => item.postType === 'nav_menu_item')) {
    for await (const record of readWxr(file)) {
      if (record.kind !== 'item' || record.postType !== 'nav_menu_item') continue;
      const skip = (reason: string) => {
        report.counts.menu_item.skipped++;
        report.skipped.push({ kind: 'nav_menu_item', id: record.id, title: record.title, reason });
      };
      if (!MENU_ITEM_STATUSES.has(record.status)) {
        skip(`status "${record.status}" is not carried`);
        continue;
      }
      const planned = menuItemPlan(record, { menus: menuIds, content: contentIds, postTypes, terms: termsByFileId });
      if ('skip' in planned) {
        skip(planned.skip);
        continue;
      }
      for (const note of planned.notes)
        report.skipped.push({ kind: 'nav_menu_item', id: record.id, title: record.title, reason: note });
      const target = contentIds.get(record.id)!;
      if (dryRun) {
        report.counts.menu_item.created++;
        if (target !== record.id)
          report.changedIds.push({
            kind: 'menu_item',
            from: record.id,
            to: target,
            reason: 'id taken: a new one will be given',
          });
        continue;
      }
      if ((await site.store.readStream(menuItemStreamId(target), { maxCount: 1 })).length > 0) {
        report.counts.menu_item.existing++;
        continue;
      }
      try {
        const gmt = wxrDate(record.dateGmt);
        const at = gmt ? Date.parse(`${gmt}Z`) : undefined;
        const outcome = await createMenuItem(
          importedSite(`post-${record.id}`, record.dateGmt || record.date),
          planned.input,
          actor,
          requestId,
          { chosenId: target, ...(at !== undefined && Number.isFinite(at) ? { at } : {}) },
        );
        await write(outcome.position);
        report.counts.menu_item.created++;
        if (target !== record.id)
          report.changedIds.push({ kind: 'menu_item', from: record.id, to: target, reason: 'id taken' });
      } catch (error) {
        throw new WxrImportError(`menu item ${record.id} "${record.title}": ${messageOf(error)}`);
      }
    }
  }
  return report;
}

/**
 * A comment's time in the site: its UTC date's instant (local time in the site's time zone), else its local date read
 * in the site's time zone, else (a file with neither) the time of the import.
 */
function commentTime(site: Site, comment: WxrComment): { date: string; date_gmt: string } {
  const gmt = wxrDate(comment.dateGmt);
  const local = wxrDate(comment.date);
  const zone = site.settings.timezone;
  const instant = gmt ? Date.parse(`${gmt}Z`) : local ? localToInstant(Date.parse(`${local}Z`), zone) : Number.NaN;
  const at = Number.isFinite(instant) ? instant : site.clock.now();
  return { date: formatLocal(at, zone), date_gmt: formatGmt(at) };
}

/** A WXR date "YYYY-MM-DD HH:MM:SS", or null for WordPress's zero date (a draft whose date floats). */
function wxrDate(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) || value.startsWith('0000-')) return null;
  return value.replace(' ', 'T');
}

function itemInput(
  item: WxrItem,
  ids: { users: Map<string, number>; terms: Map<string, number>; content: Map<number, number> },
): PostInput {
  const termsOf = (taxonomy: string) =>
    item.terms
      .filter((term) => term.taxonomy === taxonomy)
      .map((term) => {
        const id = ids.terms.get(termKey(taxonomy, term.slug));
        if (id === undefined)
          throw new WxrImportError(
            `item ${item.id} "${item.title}": its ${taxonomy} "${term.slug}" is not among the file's terms`,
          );
        return id;
      });
  const author = ids.users.get(item.creator);
  if (author === undefined)
    throw new WxrImportError(
      `item ${item.id} "${item.title}": its author "${item.creator}" is not among the file's authors`,
    );
  const gmt = wxrDate(item.dateGmt);
  const local = wxrDate(item.date);
  const input: PostInput = {
    title: item.title,
    content: item.content,
    excerpt: item.excerpt,
    status: item.status,
    password: item.password,
    author,
    comment_status: item.commentStatus === 'open' ? 'open' : 'closed',
    ping_status: item.pingStatus === 'open' ? 'open' : 'closed',
    menu_order: item.menuOrder,
    ...(gmt ? { date_gmt: gmt } : local ? { date: local } : {}),
    ...(item.slug ? { slug: item.slug } : {}),
  };
  const template = item.meta.find((meta) => meta.key === '_wp_page_template')?.value.trim() ?? '';
  if (template !== '' && template !== 'default') input.template = template;
  const footnotes = item.meta.find((meta) => meta.key === 'footnotes');
  if (footnotes !== undefined) input.meta = { footnotes: footnotes.value };
  if (item.postType === 'post') {
    const format = item.terms.find((term) => term.taxonomy === 'post_format')?.slug.replace(/^post-format-/, '');
    if (format !== undefined && (POST_FORMATS as readonly string[]).includes(format)) input.format = format;
    input.sticky = item.sticky;
    input.categories = termsOf('category');
    input.tags = termsOf('post_tag');
  } else {
    const parent = item.parent > 0 ? ids.content.get(item.parent) : 0;
    if (parent === undefined)
      throw new WxrImportError(`page ${item.id} "${item.title}": its parent ${item.parent} is not a page of the file`);
    input.parent = parent;
  }
  return input;
}

/** An error as one line: a refusal as its REST code and message. */
function messageOf(error: unknown): string {
  const refusal = answerableError(error);
  return refusal !== null
    ? `${refusal.code}: ${refusal.message}`
    : error instanceof Error
      ? error.message
      : String(error);
}
