/**
 * Imports a live WordPress 6.1 site over its REST API, with its history: users, categories (with their
 * hierarchy), tags, media (the file fetched from its source_url), posts and pages, and each item's revisions and
 * autosaves, replayed as the item's past events in date order (src/import/wordpress/timeline.ts). Each step is
 * appended at the time it happened there: its events' `metadata.at` and the dates the decider computes come from
 * that time, so `/history`, `as_of` and `/revisions` show the site's past as it was. Each event's metadata also
 * carries `imported` (format `wordpress`, the source, the item's id there, the original time, when it was imported).
 *
 * The whole site is read and checked before anything is written (not WordPress, refused credentials, a malformed
 * answer, a reference to something missing, parents that loop: an error naming the item, nothing written). Writes
 * go through the ordinary operations and deciders, so the events are the ones the API appends.
 *
 * Ids are kept where free (src/import/ids.ts), else new ones with every reference rewritten and listed.
 * Rerunning is safe, also after a run killed half-way: users are found again by login, terms by slug, items,
 * revisions and autosaves by an import record (a name claim `wordpress-import` keyed by the source site and the id
 * there, owned by the id given here) made before anything of them is written, and an item's steps already in its
 * stream (by `imported.sourceId`) are not appended again.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Site } from '../../site';
import type { Actor, Role } from '../../access/capabilities';
import { ROLES } from '../../access/capabilities';
import type { EventMetadata, RecordedEvent } from '../../ports/eventStore';
import type { HttpFetcher } from '../../ports/httpFetcher';
import { createUser } from '../../resources/users/operations';
import { createTerm, ensureDefaultCategory, termSlugScope } from '../../resources/terms/operations';
import type { Taxonomy } from '../../resources/terms/events';
import { createItem } from '../../resources/content/operations';
import { contentDecider, evolveContent, initialContentState } from '../../resources/content/decider';
import type { ContentCommand, ContentState, PostInput } from '../../resources/content/decider';
import { contentStreamId } from '../../resources/content/events';
import type { ContentEvent } from '../../resources/content/events';
import { createAttachment, updateAttachment } from '../../resources/media/operations';
import { attachmentStreamId } from '../../resources/media/events';
import { answerableError } from '../../rest/domainErrors';
import { WordPressImportError, WordPressSource } from './source';
import type { WpMedia, WpPost, WpTerm, WpUser } from './source';
import { floatingDate, gmtMs, parentsFirst, timelineOf } from './timeline';
import type { Step } from './timeline';
import { blocksOf, lastReserved, reserveThrough } from '../ids';

export { WordPressImportError } from './source';

const KINDS = ['user', 'category', 'tag', 'attachment', 'page', 'post', 'revision', 'autosave'] as const;
export type LiveImportKind = (typeof KINDS)[number];

export interface LiveImportReport {
  source: string;
  dryRun: boolean;
  /** Per kind: created now, found already there (a rerun, or the same login/slug), skipped. */
  counts: Record<LiveImportKind, { created: number; existing: number; skipped: number }>;
  /** What was carried with another id than at the source, and why. */
  changedIds: { kind: LiveImportKind; from: number; to: number; reason: string }[];
  /** What was not carried, and why. */
  skipped: { kind: string; id: number; title: string; reason: string }[];
  /** Attachments not carried because their file could not be fetched. */
  missingFiles: { id: number; url: string; reason: string }[];
}

export interface LiveImportOptions {
  url: string;
  user: string;
  appPassword: string;
  dryRun?: boolean;
  /** Progress lines (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** The outbound client (tests); one allowing the source's host when not given. */
  http?: HttpFetcher;
  /** Bounds on one request (ms) and on one answer's size (bytes), when other than SOURCE_DEFAULTS. */
  limits?: { timeoutMs?: number; fileTimeoutMs?: number; maxJsonBytes?: number; maxFileBytes?: number };
}

interface Item {
  kind: 'post' | 'page';
  post: WpPost;
  steps: Step[];
}

/** Statuses an item is carried with (what `status=` asks for; trash and auto-drafts stay behind). */
const STATUSES = 'publish,future,draft,pending,private';
const RECORD_SCOPE = 'wordpress-import';
const ADMIN_ROLES: Role[] = ['administrator'];

export async function importWordPress(site: Site, options: LiveImportOptions): Promise<LiveImportReport> {
  const say = options.progress ?? (() => undefined);
  const dryRun = options.dryRun === true;
  const source = new WordPressSource({
    url: options.url,
    user: options.user,
    appPassword: options.appPassword,
    http: options.http,
    ...options.limits,
  });
  const counts = Object.fromEntries(
    KINDS.map((kind) => [kind, { created: 0, existing: 0, skipped: 0 }]),
  ) as LiveImportReport['counts'];
  const report: LiveImportReport = {
    source: source.site,
    dryRun,
    counts,
    changedIds: [],
    skipped: [],
    missingFiles: [],
  };

  // --- read and check everything ----------------------------------------------------------------------------------
  const who = await source.check();
  say(`reading ${source.site} ("${who.name}") as ${who.user}`);
  const users = await source.all('/wp/v2/users', {}, 'user', 'users', say);
  const categories = await source.all('/wp/v2/categories', {}, 'term', 'categories', say);
  const tags = await source.all('/wp/v2/tags', {}, 'term', 'tags', say);
  const media = await source.all('/wp/v2/media', { status: 'inherit,private' }, 'media', 'media', say);
  const items: Item[] = [];
  for (const [kind, route] of [
    ['page', 'pages'],
    ['post', 'posts'],
  ] as const) {
    const listed = await source.all(`/wp/v2/${route}`, { status: STATUSES }, 'post', route, say);
    for (const [index, post] of listed.entries()) {
      if (index > 0 && index % 50 === 0) say(`${route}: revisions of ${index} of ${listed.length} read`);
      if (post.type !== kind)
        throw new WordPressImportError(`${route}: item ${post.id} is of type "${post.type}", not ${kind}`);
      const revisions = await source.all(
        `/wp/v2/${route}/${post.id}/revisions`,
        {},
        'revision',
        `revisions of ${kind} ${post.id}`,
      );
      const autosaves = await source.list(
        `/wp/v2/${route}/${post.id}/autosaves`,
        'revision',
        `autosaves of ${kind} ${post.id}`,
      );
      items.push({ kind, post, steps: timelineOf(post, revisions, autosaves) });
    }
    say(`${route}: ${listed.length} read with their revisions`);
  }
  say(
    `${users.length} users, ${categories.length} categories, ${tags.length} tags, ${media.length} media, ${items.length} posts and pages`,
  );
  const plan = checkedPlan(users, categories, tags, media, items);

  // --- which ids are there already, which are kept ------------------------------------------------------------------
  const recordKey = (id: number) => `${createHash('sha256').update(source.site).digest('hex').slice(0, 16)}-${id}`;
  const importedAt = new Date(site.clock.now()).toISOString();
  const requestId = `import-${randomUUID()}`;
  /** The site as of a moment of the source's past: the decider's dates and the events' times are that moment's. */
  const at = (ms: number, sourceId: string): Site => {
    const moment = Number.isFinite(ms) ? ms : site.clock.now();
    const wrapped = Object.create(site) as Site;
    const metadata = (userId: number | null, request: string): EventMetadata => ({
      ...site.metadata(userId, request),
      at: new Date(moment).toISOString(),
      imported: {
        format: 'wordpress',
        source: source.site,
        sourceId,
        originalAt: new Date(moment).toISOString(),
        importedAt,
      },
    });
    Object.defineProperty(wrapped, 'metadata', { value: metadata });
    Object.defineProperty(wrapped, 'clock', { value: { now: () => moment } });
    return wrapped;
  };
  const settle = async (position: number) => {
    // Later writes read what earlier ones made (a parent term, a parent page): wait for the read model.
    if (position > 0) await site.settle(position);
  };
  if (!dryRun) await settle((await ensureDefaultCategory(site)).position);

  const userIds = new Map<number, number>();
  const usersMark = await lastReserved(site, 'users');
  for (const user of users) {
    const existing = await site.claims.ownerOf('user-login', user.username.toLowerCase());
    if (existing !== null) userIds.set(user.id, existing);
  }
  const termIds = new Map<number, number>();
  const termsMark = await lastReserved(site, 'terms');
  for (const [taxonomy, terms] of [
    ['category', categories],
    ['post_tag', tags],
  ] as const) {
    for (const term of terms) {
      const existing = await site.claims.ownerOf(termSlugScope(taxonomy), term.slug);
      if (existing !== null) termIds.set(term.id, existing);
    }
  }
  const contentIds = new Map<number, number>();
  const contentMark = await lastReserved(site, 'content');
  for (const id of plan.contentSourceIds) {
    const existing = await site.claims.ownerOf(RECORD_SCOPE, recordKey(id));
    if (existing !== null) contentIds.set(id, existing);
  }
  // Kept: free here (past the sequence's last block), or in a block an earlier run of this import reserved.
  const ours = {
    users: await blocksOf(site, 'users', source.site),
    terms: await blocksOf(site, 'terms', source.site),
    content: await blocksOf(site, 'content', source.site),
  };
  const keptUsers = new Set(
    users
      .filter((user) => !userIds.has(user.id) && (user.id > usersMark.last || ours.users(user.id)))
      .map((user) => user.id),
  );
  const keptTerms = new Set(
    [...categories, ...tags]
      .filter((term) => !termIds.has(term.id) && (term.id > termsMark.last || ours.terms(term.id)))
      .map((term) => term.id),
  );
  const keptContent = new Set(
    plan.contentSourceIds.filter((id) => !contentIds.has(id) && (id > contentMark.last || ours.content(id))),
  );
  if (!dryRun) {
    const reservation = { format: 'wordpress', source: source.site, importedAt };
    const past = (kept: Set<number>, mark: { last: number }) => new Set([...kept].filter((id) => id > mark.last));
    for (const [sequence, kept, mark] of [
      ['users', keptUsers, usersMark],
      ['terms', keptTerms, termsMark],
      ['content', keptContent, contentMark],
    ] as const) {
      const reserving = past(kept, mark);
      await reserveThrough(site, sequence, mark, reserving, reservation);
      // Ids another process took meanwhile are not kept.
      for (const id of past(kept, mark)) if (!reserving.has(id)) kept.delete(id);
    }
  }
  const changed = (kind: LiveImportKind, from: number, to: number) => {
    if (from !== to)
      report.changedIds.push({ kind, from, to, reason: dryRun ? 'id taken: a new one will be given' : 'id taken' });
  };

  // --- users --------------------------------------------------------------------------------------------------------
  for (const user of users) {
    if (userIds.has(user.id)) {
      counts.user.existing++;
      continue;
    }
    counts.user.created++;
    if (dryRun) {
      userIds.set(user.id, keptUsers.has(user.id) ? user.id : 0);
      changed('user', user.id, userIds.get(user.id)!);
      continue;
    }
    try {
      const roles = user.roles.filter((role): role is Role => (ROLES as readonly string[]).includes(role));
      const { id, position } = await createUser(
        at(gmtMs(user.registered_date), `user-${user.id}`),
        {
          id: keptUsers.has(user.id) ? user.id : undefined,
          login: user.username,
          email: user.email,
          password: null,
          roles,
          displayName: user.name,
          firstName: user.first_name,
          lastName: user.last_name,
          nickname: user.nickname,
          description: user.description,
          url: user.url,
          locale: user.locale,
          slug: user.slug,
        },
        null,
        requestId,
      );
      await settle(position);
      userIds.set(user.id, id);
      changed('user', user.id, id);
      say(`user ${user.username}: ${id}`);
    } catch (error) {
      throw new WordPressImportError(`user ${user.id} "${user.username}": ${messageOf(error)}`);
    }
  }

  // --- terms, parents first -----------------------------------------------------------------------------------------
  for (const [taxonomy, terms] of [
    ['category', plan.categories],
    ['post_tag', tags],
  ] as const) {
    const kind = taxonomy === 'category' ? 'category' : 'tag';
    for (const term of terms) {
      if (termIds.has(term.id)) {
        counts[kind].existing++;
        continue;
      }
      counts[kind].created++;
      if (dryRun) {
        termIds.set(term.id, keptTerms.has(term.id) ? term.id : 0);
        changed(kind, term.id, termIds.get(term.id)!);
        continue;
      }
      try {
        const parent = taxonomy === 'category' && (term.parent ?? 0) > 0 ? termIds.get(term.parent!)! : 0;
        const outcome = await createTerm(
          at(site.clock.now(), `term-${term.id}`),
          taxonomy as Taxonomy,
          {
            name: term.name,
            slug: term.slug,
            description: term.description,
            ...(taxonomy === 'category' ? { parent } : {}),
          },
          null,
          requestId,
          keptTerms.has(term.id) ? term.id : undefined,
        );
        await settle(outcome.position);
        termIds.set(term.id, outcome.id);
        changed(kind, term.id, outcome.id);
        say(`${kind} ${term.slug}: ${outcome.id}`);
      } catch (error) {
        throw new WordPressImportError(`${kind} ${term.id} "${term.slug}": ${messageOf(error)}`);
      }
    }
  }

  // --- content ids: import records before anything is written, so references can be rewritten ----------------------
  for (const id of plan.contentSourceIds) {
    if (contentIds.has(id)) continue;
    if (dryRun) {
      contentIds.set(id, keptContent.has(id) ? id : 0);
      continue;
    }
    const wanted = keptContent.has(id) ? id : await site.ids.content.nextId();
    const claimed = await site.claims.claimExact(
      RECORD_SCOPE,
      recordKey(id),
      wanted,
      at(site.clock.now(), `record-${id}`).metadata(null, requestId),
    );
    contentIds.set(id, claimed ? wanted : ((await site.claims.ownerOf(RECORD_SCOPE, recordKey(id))) ?? wanted));
  }
  const actorOf = (sourceUser: number): Actor => ({ id: userIds.get(sourceUser) ?? 0, roles: ADMIN_ROLES });
  const userIdOf = (sourceUser: number): number | null => userIds.get(sourceUser) ?? null;

  // --- media --------------------------------------------------------------------------------------------------------
  const carriedMedia = new Set<number>();
  for (const attachment of media) {
    const target = contentIds.get(attachment.id)!;
    const title = attachment.title.raw;
    const [existing] = target > 0 ? await site.store.readStream(attachmentStreamId(target), { maxCount: 1 }) : [];
    if (existing) {
      counts.attachment.existing++;
      carriedMedia.add(attachment.id);
      continue;
    }
    if (dryRun) {
      counts.attachment.created++;
      carriedMedia.add(attachment.id);
      changed('attachment', attachment.id, target);
      continue;
    }
    const file = await source.download(attachment.source_url);
    if ('missing' in file) {
      counts.attachment.skipped++;
      report.missingFiles.push({ id: attachment.id, url: attachment.source_url, reason: file.missing });
      report.skipped.push({
        kind: 'attachment',
        id: attachment.id,
        title,
        reason: `its file could not be fetched (${file.missing})`,
      });
      say(`attachment ${attachment.id}: file missing`);
      continue;
    }
    try {
      const when = at(gmtMs(attachment.date_gmt), `attachment-${attachment.id}`);
      const actor = actorOf(attachment.author);
      const parent = attachment.post !== null && attachment.post > 0 ? contentIds.get(attachment.post) : undefined;
      const outcome = await createAttachment(
        when,
        {
          body: file.bytes,
          filename:
            decodeURIComponent(new URL(attachment.source_url).pathname.split('/').pop() ?? '') ||
            `file-${attachment.id}`,
        },
        {
          title,
          caption: attachment.caption.raw,
          description: attachment.description.raw,
          alt_text: attachment.alt_text,
          author: actor.id,
          comment_status: attachment.comment_status === 'open' ? 'open' : 'closed',
          ping_status: attachment.ping_status === 'open' ? 'open' : 'closed',
          ...(attachment.status === 'private' ? { status: 'private' } : {}),
          ...(parent !== undefined ? { post: parent } : {}),
          date_gmt: attachment.date_gmt,
        },
        actor,
        requestId,
        { chosenId: target },
      );
      let position = outcome.position;
      if (attachment.slug && outcome.state.attachment && outcome.state.attachment.slug !== attachment.slug) {
        position = (await updateAttachment(when, target, { slug: attachment.slug }, actor, requestId)).position;
      }
      await settle(position);
      counts.attachment.created++;
      carriedMedia.add(attachment.id);
      changed('attachment', attachment.id, target);
      say(`attachment ${attachment.id}: ${target}`);
    } catch (error) {
      // A file this site does not take (its type, its size) leaves the attachment out; anything else stops.
      if (answerableError(error) === null)
        throw new WordPressImportError(`attachment ${attachment.id} "${title}": ${messageOf(error)}`);
      counts.attachment.skipped++;
      report.skipped.push({
        kind: 'attachment',
        id: attachment.id,
        title,
        reason: `refused here: ${messageOf(error)}`,
      });
    }
  }

  // --- pages (parents first), then posts, each with its past -----------------------------------------------------------
  for (const item of plan.items) {
    const { post, kind } = item;
    const target = contentIds.get(post.id)!;
    const name = `${kind} ${post.id} "${post.title.raw}"`;
    const featured =
      post.featured_media > 0 && carriedMedia.has(post.featured_media) ? contentIds.get(post.featured_media)! : 0;
    if (post.featured_media > 0 && featured === 0)
      report.skipped.push({
        kind: 'featured image',
        id: post.id,
        title: post.title.raw,
        reason: `featured image ${post.featured_media} not set: that attachment is not carried`,
      });
    const revisionSteps = item.steps.filter((step) => step.kind === 'revision' || step.kind === 'autosave');
    if (dryRun && target > 0 && (await site.store.readStream(contentStreamId(target), { maxCount: 1 })).length > 0) {
      // Already imported; a dry run does not look into how much of its past is there.
      counts[kind].existing++;
      for (const step of revisionSteps) counts[step.kind].existing++;
      continue;
    }
    if (dryRun) {
      counts[kind].created++;
      changed(kind, post.id, target);
      for (const step of revisionSteps) {
        const sourceId = step.kind === 'revision' ? step.revision.id : step.autosave.id;
        counts[step.kind].created++;
        changed(step.kind, sourceId, contentIds.get(sourceId)!);
      }
      continue;
    }
    const fields = finalFields(item, { users: userIds, terms: termIds, content: contentIds }, featured);
    try {
      const written = await replayItem(site, at, item, target, fields, {
        contentIds,
        userIdOf,
        actorOf,
        requestId,
        report,
        say,
      });
      counts[kind][written.created ? 'created' : 'existing']++;
      if (written.created) changed(kind, post.id, target);
      for (const step of revisionSteps) {
        const sourceId = step.kind === 'revision' ? step.revision.id : step.autosave.id;
        if (written.skipped.has(step.sourceId)) counts[step.kind].skipped++;
        else if (written.appended.has(step.sourceId)) {
          counts[step.kind].created++;
          changed(step.kind, sourceId, contentIds.get(sourceId)!);
        } else counts[step.kind].existing++;
      }
    } catch (error) {
      throw new WordPressImportError(`${name}: ${messageOf(error)}`);
    }
  }
  say('done');
  return report;
}

interface Plan {
  categories: WpTerm[];
  items: Item[];
  /** Every id of the content sequence the source uses: media, posts, pages, revisions, autosaves. */
  contentSourceIds: number[];
}

/** References checked (authors, terms, parents), categories and pages ordered parents first. */
function checkedPlan(users: WpUser[], categories: WpTerm[], tags: WpTerm[], media: WpMedia[], items: Item[]): Plan {
  const userIds = new Set(users.map((user) => user.id));
  const logins = new Set<string>();
  for (const user of users) {
    if (user.username.trim() === '') throw new WordPressImportError(`user ${user.id}: no username`);
    if (logins.has(user.username.toLowerCase()))
      throw new WordPressImportError(`user ${user.id} "${user.username}": the login appears twice`);
    logins.add(user.username.toLowerCase());
  }
  const categoryIds = new Set(categories.map((term) => term.id));
  const tagIds = new Set(tags.map((term) => term.id));
  const seen = new Set<number>();
  const once = (id: number, what: string) => {
    if (seen.has(id)) throw new WordPressImportError(`${what}: its id is used twice at the source`);
    seen.add(id);
  };
  for (const attachment of media) {
    once(attachment.id, `attachment ${attachment.id}`);
    if (!userIds.has(attachment.author) && attachment.author !== 0)
      throw new WordPressImportError(
        `attachment ${attachment.id} "${attachment.title.raw}": its author ${attachment.author} is not among the site's users`,
      );
  }
  for (const { post, kind, steps } of items) {
    const name = `${kind} ${post.id} "${post.title.raw}"`;
    once(post.id, name);
    if (!userIds.has(post.author))
      throw new WordPressImportError(`${name}: its author ${post.author} is not among the site's users`);
    for (const id of post.categories ?? [])
      if (!categoryIds.has(id))
        throw new WordPressImportError(`${name}: its category ${id} is not among the site's categories`);
    for (const id of post.tags ?? [])
      if (!tagIds.has(id)) throw new WordPressImportError(`${name}: its tag ${id} is not among the site's tags`);
    for (const step of steps) {
      if (step.kind === 'revision') once(step.revision.id, `revision ${step.revision.id} of ${name}`);
      if (step.kind === 'autosave') once(step.autosave.id, `autosave ${step.autosave.id} of ${name}`);
    }
  }
  const orderedCategories = parentsFirst(
    categories,
    (term) => term.id,
    (term) => term.parent ?? 0,
    (term) => `category ${term.id} "${term.slug}"`,
  );
  const orderedPages = parentsFirst(
    items.filter((item) => item.kind === 'page'),
    (item) => item.post.id,
    (item) => item.post.parent ?? 0,
    (item) => `page ${item.post.id} "${item.post.title.raw}"`,
  );
  return {
    categories: orderedCategories,
    items: [...orderedPages, ...items.filter((item) => item.kind === 'post')],
    contentSourceIds: [...seen],
  };
}

/** The item's fields as the source has them now, references rewritten. */
function finalFields(
  item: Item,
  ids: { users: Map<number, number>; terms: Map<number, number>; content: Map<number, number> },
  featured: number,
): PostInput {
  const { post, kind } = item;
  const input: PostInput = {
    status: post.status,
    password: post.password,
    author: ids.users.get(post.author)!,
    featured_media: featured,
    comment_status: post.comment_status === 'open' ? 'open' : 'closed',
    ping_status: post.ping_status === 'open' ? 'open' : 'closed',
    template: post.template,
    ...(floatingDate(post) || post.date_gmt === null ? {} : { date_gmt: post.date_gmt }),
  };
  if (kind === 'post') {
    input.sticky = post.sticky === true;
    if (post.format) input.format = post.format;
    input.categories = (post.categories ?? []).map((id) => ids.terms.get(id)!);
    input.tags = (post.tags ?? []).map((id) => ids.terms.get(id)!);
  } else {
    input.parent = (post.parent ?? 0) > 0 ? ids.content.get(post.parent!)! : 0;
    input.menu_order = post.menu_order ?? 0;
  }
  return input;
}

interface ReplayContext {
  contentIds: Map<number, number>;
  userIdOf: (sourceUser: number) => number | null;
  actorOf: (sourceUser: number) => Actor;
  requestId: string;
  report: LiveImportReport;
  say: (line: string) => void;
}

/**
 * Appends the item's steps not yet in its stream, in order: an item half-written by a run that stopped is finished
 * where it stopped. A revision whose text equals the one before it makes no revision here (nor did it there,
 * unless something else changed), and an autosave that would save the author's own draft is not one here: both are
 * skipped, and listed.
 */
async function replayItem(
  site: Site,
  at: (ms: number, sourceId: string) => Site,
  item: Item,
  id: number,
  fields: PostInput,
  ctx: ReplayContext,
): Promise<{ created: boolean; appended: Set<string>; skipped: Set<string> }> {
  const { post, kind } = item;
  const stream = contentStreamId(id);
  const events = await site.store.readStream(stream);
  const done = new Set(events.map(importedSourceId).filter((value): value is string => value !== null));
  const appended = new Set<string>();
  const skipped = new Set<string>();
  const hasRevisions = item.steps.some((step) => step.kind === 'revision');
  const timezone = site.settings.timezone;
  let created = false;
  for (const step of item.steps) {
    if (done.has(step.sourceId)) continue;
    const when = at(step.at, step.sourceId);
    const userId = ctx.userIdOf(step.author);
    const metadata = when.metadata(userId, ctx.requestId);
    const actorId = userId ?? 0;
    if (step.kind === 'create') {
      if (events.length > 0) throw new WordPressImportError(`its id ${id} is already used here by something else`);
      const outcome = await createItem(
        when,
        kind,
        { ...fields, ...step.text, ...(post.slug ? { slug: post.slug } : {}) },
        ctx.actorOf(step.author),
        ctx.requestId,
        id,
      );
      await site.settle(outcome.position);
      created = true;
      appended.add(step.sourceId);
      continue;
    }
    const state = fold(await site.store.readStream(stream));
    if (!state.exists || !state.post)
      throw new WordPressImportError(`its stream ${stream} holds no item to add ${step.sourceId} to`);
    let command: ContentCommand;
    if (step.kind === 'autosave') {
      const autosaveId = ctx.contentIds.get(step.autosave.id)!;
      const text = {
        title: step.autosave.title.raw,
        content: step.autosave.content.raw,
        excerpt: step.autosave.excerpt.raw,
      };
      command = { kind: 'autosave', id, postType: kind, input: text, autosaveId, actorId, now: step.at, timezone };
      const probe = contentDecider.decide(command, state);
      if (!probe.some((event) => event.type === 'PostAutosaved')) {
        skipped.add(step.sourceId);
        ctx.report.skipped.push({
          kind: 'autosave',
          id: step.autosave.id,
          title: post.title.raw,
          reason: "it would save its author's own draft here, or equals the item",
        });
        continue;
      }
    } else {
      const input: PostInput =
        step.kind === 'revision'
          ? { title: step.revision.title.raw, content: step.revision.content.raw, excerpt: step.revision.excerpt.raw }
          : { ...fields, title: post.title.raw, content: post.content.raw, excerpt: post.excerpt?.raw ?? '' };
      const revisionId = step.kind === 'revision' ? ctx.contentIds.get(step.revision.id)! : -1;
      command = {
        kind: 'update',
        id,
        postType: kind,
        input,
        slug: state.post.slug,
        revisionId: hasRevisions ? revisionId : null,
        actorId,
        now: step.at,
        timezone,
      };
      const probe = contentDecider.decide(command, state);
      if (step.kind === 'revision' && !probe.some((event) => event.type === 'PostRevised')) {
        skipped.add(step.sourceId);
        ctx.report.skipped.push({
          kind: 'revision',
          id: step.revision.id,
          title: post.title.raw,
          reason: 'its text equals the revision before it',
        });
        continue;
      }
      if (step.kind === 'final') {
        const [updated, revised] = probe as ContentEvent[];
        const changes = updated?.type === 'PostUpdated' ? Object.keys(updated.data.changes) : [];
        if (changes.length === 0 && !revised) continue;
        // The source has the text it has now without a revision of it: a last one is made with a new id.
        if (revised) command = { ...command, revisionId: await site.ids.content.nextId() };
      }
    }
    const result = await site.commands.handle(stream, contentDecider, async () => command, metadata);
    await site.settle(result.position);
    appended.add(step.sourceId);
  }
  if (created) ctx.say(`${kind} ${post.id}: ${id}, ${appended.size - 1} steps of its past`);
  else if (appended.size > 0) ctx.say(`${kind} ${post.id}: finished (${appended.size} steps)`);
  return { created: created || appended.size > 0, appended, skipped };
}

const fold = (events: readonly RecordedEvent[]): ContentState =>
  events.reduce((state, event) => evolveContent(state, event as unknown as ContentEvent), initialContentState());

const importedSourceId = (event: RecordedEvent): string | null => {
  const imported = event.metadata.imported as { format?: unknown; sourceId?: unknown } | undefined;
  return imported?.format === 'wordpress' && typeof imported.sourceId === 'string' ? imported.sourceId : null;
};

function messageOf(error: unknown): string {
  const refusal = answerableError(error);
  return refusal !== null
    ? `${refusal.code}: ${refusal.message}`
    : error instanceof Error
      ? error.message
      : String(error);
}
