/**
 * Content operations: create, update, trash and delete an item of a post type, callable without HTTP (routes,
 * batch and the CLI share them). The effects a decision needs happen here, around the pure decider: id
 * reservation, slug claims in the event store, and releasing what a failed or superseded write held.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canSaveUnfilteredHtml } from '../../access/capabilities';
import { sanitizeSlug } from '../../text/slug';
import { filterHtml } from '../../text/sanitizeHtml';
import { contentDecider, needsGeneratedSlug, resolveSchedule } from './decider';
import type { ContentCommand, ContentState, PostInput, WriteContext } from './decider';
import { slugCandidates } from './slugCandidates';
import { contentStreamId } from './events';
import type { PostFields, PostType } from './events';
import type { ContentDoc } from '../../../projections/content';

export interface WriteOutcome {
  id: number;
  state: ContentState;
  /** Global position of the write, for read-your-writes. */
  position: number;
}

/** Slugs are unique per post type; pages (hierarchical) only among siblings. */
export const slugScope = (postType: PostType, parent: number): string =>
  postType === 'page' ? `page-${parent}` : postType;

function writeContext(site: Site, actor: Actor): WriteContext {
  return { actorId: actor.id, now: site.clock.now(), timezone: site.settings.timezone };
}

interface Claim {
  scope: string;
  slug: string;
}

/**
 * Title, content and excerpt as this actor may save them: verbatim for those with `unfiltered_html` (editors,
 * administrators), otherwise filtered to WordPress's allowed HTML (titles to the smaller inline set).
 */
export function filterTextFields<T extends Pick<PostInput, 'title' | 'content' | 'excerpt'>>(
  input: T,
  actor: Actor,
): T {
  if (canSaveUnfilteredHtml(actor)) return input;
  const filtered = { ...input };
  if (filtered.title !== undefined) filtered.title = filterHtml(filtered.title, 'title');
  if (filtered.content !== undefined) filtered.content = filterHtml(filtered.content, 'post');
  if (filtered.excerpt !== undefined) filtered.excerpt = filterHtml(filtered.excerpt, 'post');
  return filtered;
}

/** `chosenId`: an id the caller reserved (an import keeping its source's ids); else the next one. */
export async function createItem(
  site: Site,
  postType: PostType,
  sent: PostInput,
  actor: Actor,
  requestId: string,
  chosenId?: number,
): Promise<WriteOutcome> {
  const input = filterTextFields(sent, actor);
  const metadata = site.metadata(actor.id, requestId);
  const id = chosenId ?? (await site.ids.content.nextId());
  const claims: Claim[] = [];
  const prepare = async (): Promise<ContentCommand> => {
    const ctx = writeContext(site, actor);
    const schedule = resolveSchedule(input, null, ctx);
    const explicit = input.slug !== undefined ? sanitizeSlug(input.slug) : '';
    const base =
      explicit !== '' ? explicit : needsGeneratedSlug(schedule.status, '') ? generatedSlug(input.title ?? '', id) : '';
    let slug = '';
    if (base !== '') {
      const scope = slugScope(postType, input.parent ?? 0);
      slug = await site.claims.claimFirstFree(scope, slugCandidates(base, postType), id, metadata);
      claims.push({ scope, slug });
    }
    // The guid is the permalink at creation, which for a child page is under its ancestors.
    const parentPath = postType === 'page' && (input.parent ?? 0) > 0 ? await ancestorPath(site, input.parent!) : '';
    return { kind: 'create', id, postType, input, slug, parentPath, ...ctx };
  };
  try {
    const result = await site.commands.handle(contentStreamId(id), contentDecider, prepare, metadata);
    await releaseAllBut(site, claims, result.state.post, id, metadata);
    const added = await joinAutoAddMenus(site, postType, id, null, result.state.post, actor, requestId);
    return { id, state: result.state, position: Math.max(result.position, added) };
  } catch (error) {
    await releaseAllBut(site, claims, null, id, metadata);
    throw error;
  }
}

export async function updateItem(
  site: Site,
  postType: PostType,
  id: number,
  sent: PostInput,
  actor: Actor,
  requestId: string,
): Promise<WriteOutcome> {
  const input = filterTextFields(sent, actor);
  const metadata = site.metadata(actor.id, requestId);
  const claims: Claim[] = [];
  let before: PostFields | null = null;
  const prepare = async (state: ContentState): Promise<ContentCommand> => {
    const ctx = writeContext(site, actor);
    const current = state.post;
    before = current;
    if (!state.exists || !current || state.postType !== postType) {
      return { kind: 'update', id, postType, input, slug: '', revisionId: null, ...ctx };
    }
    const schedule = resolveSchedule(input, current, ctx);
    const parent = input.parent ?? current.parent;
    const scope = slugScope(postType, parent);
    const explicit = input.slug !== undefined ? sanitizeSlug(input.slug) : '';
    let slug = current.slug;
    const scopeChanged = scope !== slugScope(postType, current.parent);
    if (explicit !== '' && (explicit !== current.slug || scopeChanged)) {
      slug = await site.claims.claimFirstFree(scope, slugCandidates(explicit, postType), id, metadata);
      claims.push({ scope, slug });
    } else if (needsGeneratedSlug(schedule.status, current.slug)) {
      slug = await site.claims.claimFirstFree(
        scope,
        slugCandidates(generatedSlug(input.title ?? current.title, id), postType),
        id,
        metadata,
      );
      claims.push({ scope, slug });
    } else if (scopeChanged && current.slug !== '') {
      slug = await site.claims.claimFirstFree(scope, slugCandidates(current.slug, postType), id, metadata);
      claims.push({ scope, slug });
    }
    // Reserve a revision id only when this update will make a revision (the decision is pure, so ask it).
    const probe: ContentCommand = { kind: 'update', id, postType, input, slug, revisionId: -1, ...ctx };
    const makesRevision = contentDecider.decide(probe, state).some((event) => event.type === 'PostRevised');
    return { ...probe, revisionId: makesRevision ? await site.ids.content.nextId() : null };
  };
  let outcome: WriteOutcome;
  let previous: PostFields | null;
  try {
    const result = await site.commands.handle(contentStreamId(id), contentDecider, prepare, metadata);
    const after = result.state.post;
    previous = before as PostFields | null;
    if (
      previous &&
      after &&
      previous.slug !== '' &&
      (previous.slug !== after.slug || previous.parent !== after.parent)
    ) {
      await site.claims.release(slugScope(postType, previous.parent), previous.slug, id, metadata);
    }
    await releaseAllBut(site, claims, after, id, metadata);
    const added = await joinAutoAddMenus(site, postType, id, previous, after, actor, requestId);
    outcome = { id, state: result.state, position: Math.max(result.position, added) };
  } catch (error) {
    await releaseAllBut(site, claims, null, id, metadata);
    throw error;
  }
  // Out of the trash: the comments hidden with the item come back (docs/events.md, comment streams).
  const after = outcome.state.post;
  if (previous?.status !== 'trash' || !after || after.status === 'trash') return outcome;
  const restored = await site.contentReactions.restored(site, id, outcome.position, actor, requestId);
  return { ...outcome, position: Math.max(outcome.position, restored) };
}

/** A top-level page that has just been published joins the menus with auto_add on (site.contentReactions). */
async function joinAutoAddMenus(
  site: Site,
  postType: PostType,
  id: number,
  before: PostFields | null,
  after: PostFields | null,
  actor: Actor,
  requestId: string,
): Promise<number> {
  if (postType !== 'page' || !after || after.status !== 'publish' || before?.status === 'publish' || after.parent !== 0)
    return 0;
  return site.contentReactions.pagePublished(site, id, actor, requestId);
}

export async function trashItem(
  site: Site,
  postType: PostType,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<WriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  let original: PostFields | null = null;
  const prepare = async (state: ContentState): Promise<ContentCommand> => {
    original = state.post;
    const ctx = writeContext(site, actor);
    const probe: ContentCommand = { kind: 'trash', id, postType, revisionId: -1, ...ctx };
    const makesRevision = contentDecider.decide(probe, state).some((event) => event.type === 'PostRevised');
    return { ...probe, revisionId: makesRevision ? await site.ids.content.nextId() : null };
  };
  const result = await site.commands.handle(contentStreamId(id), contentDecider, prepare, metadata);
  const previous = original as PostFields | null;
  // The trashed item is renamed `slug__trashed`, which frees its slug for others.
  if (previous && previous.slug !== '')
    await site.claims.release(slugScope(postType, previous.parent), previous.slug, id, metadata);
  // Its comments are hidden with it (docs/events.md, comment streams).
  const hidden = await site.contentReactions.trashed(site, id, result.position, actor, requestId);
  return { id, state: result.state, position: Math.max(result.position, hidden) };
}

export async function deleteItem(
  site: Site,
  postType: PostType,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<WriteOutcome & { previous: PostFields }> {
  const metadata = site.metadata(actor.id, requestId);
  let previous: PostFields | null = null;
  const result = await site.commands.handle(
    contentStreamId(id),
    contentDecider,
    async (state: ContentState): Promise<ContentCommand> => {
      previous = state.post;
      return { kind: 'delete', id, postType };
    },
    metadata,
  );
  const last = previous as PostFields | null;
  if (!last) throw new Error('deleted an item without state');
  if (last.slug !== '' && last.status !== 'trash')
    await site.claims.release(slugScope(postType, last.parent), last.slug, id, metadata);
  // Its comments go with it (docs/events.md, comment streams).
  const gone = await site.contentReactions.deleted(site, id, result.position, actor, requestId);
  return { id, state: result.state, position: Math.max(result.position, gone), previous: last };
}

/**
 * The path of a page's ancestors' slugs, `grandparent/parent/`, starting from `parentId`: what a child page's
 * permalink is under (ancestors without a slug are skipped, as WordPress skips them). Stops at a loop.
 */
export async function ancestorPath(
  site: Site,
  parentId: number,
  cache = new Map<number, Promise<ContentDoc | null>>(),
): Promise<string> {
  let path = '';
  const seen = new Set<number>();
  for (let id = parentId; id > 0 && !seen.has(id); ) {
    seen.add(id);
    let pending = cache.get(id);
    if (!pending) {
      pending = site.readModel.get('page', id) as Promise<ContentDoc | null>;
      cache.set(id, pending);
    }
    const page = await pending;
    if (!page) break;
    if (page.slug !== '') path = `${page.slug}/${path}`;
    id = page.parent;
  }
  return path;
}

function generatedSlug(title: string, id: number): string {
  return sanitizeSlug(title) || String(id);
}

/** Releases claims this write made but did not end up using (a failed write, or a retry that chose another). */
async function releaseAllBut(
  site: Site,
  claims: Claim[],
  post: PostFields | null,
  id: number,
  metadata: ReturnType<Site['metadata']>,
): Promise<void> {
  for (const claim of claims) {
    const kept =
      post !== null && post.slug === claim.slug && claim.scope === slugScope(postTypeOfScope(claim.scope), post.parent);
    if (!kept) await site.claims.release(claim.scope, claim.slug, id, metadata);
  }
}

const postTypeOfScope = (scope: string): PostType =>
  scope.startsWith('page-') ? 'page' : scope === 'wp_block' ? 'wp_block' : 'post';
