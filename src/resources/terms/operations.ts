/**
 * Term operations: create, update and delete categories and tags, callable without HTTP; the bootstrap of the
 * default category; and what the posts slice asks about terms (which ids exist, a category's descendants,
 * post counts). The effects a decision needs happen here, around the pure decider: id reservation, slug
 * claims, and the read-model lookups that tell the decider about other terms.
 */
import { randomUUID } from 'node:crypto';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { IdSequence } from '../../core/ids';
import { WrongExpectedRevisionError } from '../../ports/eventStore';
import type { Filter } from '../../ports/readModel';
import { InvalidValue } from '../../core/errors';
import { sanitizeSlug } from '../../text/slug';
import { MEMBERSHIP_COLLECTION, TERM_COLLECTION, asciiLower, countedField } from '../../../projections/terms';
import type { TermDoc } from '../../../projections/terms';
import {
  DEFAULT_CATEGORY_ID,
  assertTermName,
  duplicateSlugError,
  findNameConflict,
  isHierarchical,
  termDecider,
  termExistsError,
} from './decider';
import type { TermCommand, TermState } from './decider';
import { termStreamId } from './events';
import type { Taxonomy, TermCreated, TermFields } from './events';
import { sanitizeTermDescription, sanitizeTermName } from './sanitize';

export { DEFAULT_CATEGORY_ID } from './decider';

export interface TaxonomyInfo {
  taxonomy: Taxonomy;
  /** The REST base under `core/v2/`, also the posts list parameter that filters by it. */
  restBase: 'categories' | 'tags';
  hierarchical: boolean;
  /** The first segment of the term's public URL. */
  linkBase: 'category' | 'tag';
}

export const TAXONOMIES: Record<Taxonomy, TaxonomyInfo> = {
  category: { taxonomy: 'category', restBase: 'categories', hierarchical: true, linkBase: 'category' },
  post_tag: { taxonomy: 'post_tag', restBase: 'tags', hierarchical: false, linkBase: 'tag' },
};

/** Slugs are unique within a taxonomy. */
export const termSlugScope = (taxonomy: Taxonomy): string => `term-${taxonomy}`;

/** What a client may write; absent fields are defaulted (create) or left unchanged (update). */
export interface TermInput {
  name?: string;
  slug?: string;
  description?: string;
  /** Categories only. */
  parent?: number;
}

export interface TermWriteOutcome {
  id: number;
  state: TermState;
  /** Global position of the last event written, for read-your-writes. */
  position: number;
}

export const parentMissing = (): InvalidValue => new InvalidValue('term', ['parent'], 'unknownReference');

// --- ids -------------------------------------------------------------------------------------------------------

/** Terms have their own sequence, as in WordPress; one per site object, since it keeps its block in memory. */
const sequences = new WeakMap<Site, IdSequence>();

function termSequence(site: Site): IdSequence {
  let sequence = sequences.get(site);
  if (!sequence) {
    // Terms are created rarely: no block, so no gaps.
    sequence = new IdSequence(site.store, 'terms', 1, () => site.metadata(null, `system-${randomUUID()}`));
    sequences.set(site, sequence);
  }
  return sequence;
}

/** The next term id. Id 1 belongs to the default category, whether or not it has been created yet. */
export async function nextTermId(site: Site): Promise<number> {
  for (;;) {
    const id = await termSequence(site).nextId();
    if (id > DEFAULT_CATEGORY_ID) return id;
  }
}

// --- bootstrap -------------------------------------------------------------------------------------------------

/**
 * Creates "Uncategorized" (id 1, slug `uncategorized`) unless its stream exists. Safe to run on every start
 * and from several processes at once: the first append to an absent stream wins, the others see the
 * conflict and do nothing. Run it before `site.projector.start()` (the projector then reads it like any
 * other event), or settle on the returned position afterwards.
 */
export async function ensureDefaultCategory(site: Site): Promise<{ created: boolean; position: number }> {
  const streamId = termStreamId(DEFAULT_CATEGORY_ID);
  const [existing] = await site.store.readStream(streamId, { maxCount: 1 });
  if (existing) return { created: false, position: 0 };
  const metadata = site.metadata(null, `bootstrap-${randomUUID()}`);
  const slug = await site.claims.claimFirstFree(
    termSlugScope('category'),
    termSlugCandidates('uncategorized', []),
    DEFAULT_CATEGORY_ID,
    metadata,
  );
  const data: TermCreated = {
    id: DEFAULT_CATEGORY_ID,
    taxonomy: 'category',
    name: 'Uncategorized',
    slug,
    description: '',
    parent: 0,
  };
  try {
    const result = await site.store.appendToStream(streamId, [{ type: 'TermCreated', data, metadata }], {
      expectedRevision: 'no_stream',
    });
    return { created: true, position: result.position };
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return { created: false, position: 0 };
    throw error;
  }
}

// --- writes ----------------------------------------------------------------------------------------------------

/**
 * Slug candidates in WordPress's order: the base; for a child term, the base followed by its ancestors' slugs
 * one by one (`child-parent`, `child-parent-grandparent`); then numbered versions of the longest form.
 */
export function* termSlugCandidates(
  base: string,
  ancestorSlugs: readonly string[],
): Generator<string, never, undefined> {
  yield base;
  let longest = base;
  for (const slug of ancestorSlugs) {
    longest = `${longest}-${slug}`;
    yield longest;
  }
  for (let n = 2; ; n++) yield `${longest}-${n}`;
}

/** `chosenId`: an id the caller reserved (an import keeping its source's ids); else the next one. */
export async function createTerm(
  site: Site,
  taxonomy: Taxonomy,
  input: TermInput,
  actor: Actor | null,
  requestId: string,
  chosenId?: number,
): Promise<TermWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const hierarchical = isHierarchical(taxonomy);
  const parent = hierarchical ? (input.parent ?? 0) : 0;
  const ancestors = parent !== 0 ? await ancestorChain(site, parent) : [];
  if (parent !== 0 && ancestors[0]?.taxonomy !== taxonomy) throw parentMissing();

  const name = sanitizeTermName(input.name ?? '');
  assertTermName(name);
  const description = sanitizeTermDescription(input.description ?? '');
  const explicitSlug = input.slug !== undefined && sanitizeSlug(input.slug) !== '' ? sanitizeSlug(input.slug) : null;
  const slugBase = explicitSlug ?? sanitizeSlug(name);
  const nameConflict = await nameConflictOf(site, taxonomy, { name, parent, explicitSlug, slug: slugBase });
  if (nameConflict !== null) throw termExistsError(taxonomy, nameConflict);

  const id = chosenId ?? (await nextTermId(site));
  const scope = termSlugScope(taxonomy);
  const claimed: string[] = [];
  const prepare = async (): Promise<TermCommand> => {
    // A name that leaves no slug gets its id as slug, as WordPress does.
    const base = slugBase !== '' ? slugBase : String(id);
    const slug = await site.claims.claimFirstFree(
      scope,
      termSlugCandidates(
        base,
        ancestors.map((a) => a.slug),
      ),
      id,
      metadata,
    );
    claimed.push(slug);
    return { kind: 'create', id, taxonomy, fields: { name, slug, description, parent }, nameConflict };
  };
  try {
    const result = await site.commands.handle(termStreamId(id), termDecider, prepare, metadata);
    await site.claims.releaseAllBut(scope, claimed, result.state.term?.slug ?? null, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(scope, claimed, null, id, metadata);
    throw error;
  }
}

export async function updateTerm(
  site: Site,
  taxonomy: Taxonomy,
  id: number,
  input: TermInput,
  actor: Actor | null,
  requestId: string,
): Promise<TermWriteOutcome> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const scope = termSlugScope(taxonomy);
  const claimed: string[] = [];
  let before: TermFields | null = null;
  const prepare = async (state: TermState): Promise<TermCommand> => {
    before = state.term;
    const current = state.term;
    if (!state.exists || !current || state.taxonomy !== taxonomy)
      return { kind: 'update', id, taxonomy, input: {}, parentAncestors: [] };
    const changes: Partial<TermFields> = {};
    // WordPress's order of refusals: the parent, then an empty name, then a slug in use.
    let parent = current.parent;
    let ancestors: TermDoc[] = [];
    if (input.parent !== undefined && isHierarchical(taxonomy)) {
      parent = input.parent;
      ancestors = parent !== 0 ? await ancestorChain(site, parent) : [];
      if (parent !== 0 && ancestors[0]?.taxonomy !== taxonomy) throw parentMissing();
      changes.parent = parent;
    }
    if (input.name !== undefined) {
      changes.name = sanitizeTermName(input.name);
      assertTermName(changes.name);
    }
    if (input.description !== undefined) changes.description = sanitizeTermDescription(input.description);

    let wanted = current.slug;
    let regenerated = false;
    if (input.slug !== undefined) {
      wanted = sanitizeSlug(input.slug);
      if (wanted === '') {
        // An empty slug asks for one made from the name.
        regenerated = true;
        wanted = sanitizeSlug(changes.name ?? current.name) || String(id);
      }
    }
    if (wanted !== current.slug) {
      if (await site.claims.claimExact(scope, wanted, id, metadata)) {
        claimed.push(wanted);
      } else if (regenerated || parent !== current.parent) {
        wanted = await site.claims.claimFirstFree(
          scope,
          termSlugCandidates(
            wanted,
            ancestors.map((a) => a.slug),
          ),
          id,
          metadata,
        );
        claimed.push(wanted);
      } else {
        throw duplicateSlugError(wanted);
      }
      changes.slug = wanted;
    }
    return { kind: 'update', id, taxonomy, input: changes, parentAncestors: ancestors.map((a) => a.id) };
  };
  try {
    const result = await site.commands.handle(termStreamId(id), termDecider, prepare, metadata);
    const previous = before as TermFields | null;
    const after = result.state.term;
    if (previous && after && previous.slug !== after.slug)
      await site.claims.release(scope, previous.slug, id, metadata);
    await site.claims.releaseAllBut(scope, claimed, after?.slug ?? null, id, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    await site.claims.releaseAllBut(scope, claimed, null, id, metadata);
    throw error;
  }
}

/**
 * Deletes a term for good. Its slug is freed, and its children (categories) move up to its parent, as
 * WordPress re-parents them; each move is a `TermUpdated` on the child's stream.
 */
export async function deleteTerm(
  site: Site,
  taxonomy: Taxonomy,
  id: number,
  actor: Actor | null,
  requestId: string,
): Promise<TermWriteOutcome & { previous: TermFields }> {
  const metadata = site.metadata(actor?.id ?? null, requestId);
  let last: TermFields | null = null;
  const result = await site.commands.handle(
    termStreamId(id),
    termDecider,
    async (state: TermState): Promise<TermCommand> => {
      last = state.term;
      return { kind: 'delete', id, taxonomy };
    },
    metadata,
  );
  const previous = last as TermFields | null;
  if (!previous) throw new Error('deleted a term without state');
  await site.claims.release(termSlugScope(taxonomy), previous.slug, id, metadata);
  let position = result.position;
  if (isHierarchical(taxonomy)) {
    const children = await termsWhere(site, [taxonomyFilter(taxonomy), { kind: 'any', field: 'parent', values: [id] }]);
    for (const child of children) {
      const moved = await site.commands.handle(
        termStreamId(child.id),
        termDecider,
        { kind: 'reparent', id: child.id, taxonomy, from: id, to: previous.parent },
        metadata,
      );
      position = Math.max(position, moved.position);
    }
  }
  return { id, state: result.state, position, previous };
}

// --- what the posts slice asks ---------------------------------------------------------------------------------

/**
 * The ids among `ids` that are terms of `taxonomy`, without duplicates, in the order WordPress shows a post's
 * terms (by name, then id). Unknown ids and ids of the other taxonomy are dropped, as WordPress drops them.
 */
export async function existingTermIds(site: Site, taxonomy: Taxonomy, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids)].filter((id) => Number.isInteger(id) && id > 0);
  if (wanted.length === 0) return [];
  const docs = (await site.readModel.getMany(TERM_COLLECTION, wanted)) as (TermDoc | null)[];
  return docs
    .filter((doc): doc is TermDoc => doc !== null && doc.taxonomy === taxonomy)
    .sort((a, b) => compareNames(a, b))
    .map((doc) => doc.id);
}

/**
 * `ids` (without duplicates, in the given order) followed by every category below them, nearest first: what
 * `include_children` matches. Ids that are not categories are kept as given and contribute no children.
 */
export async function descendantCategoryIds(site: Site, ids: readonly number[]): Promise<number[]> {
  const out = [...new Set(ids)];
  const seen = new Set(out);
  let frontier = out;
  while (frontier.length > 0) {
    const children = await termsWhere(site, [
      taxonomyFilter('category'),
      { kind: 'any', field: 'parent', values: frontier },
    ]);
    frontier = children.map((c) => c.id).filter((id) => !seen.has(id));
    for (const id of frontier) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** WordPress's `count`: how many published posts have each term (one count query per term). */
export async function termCounts(site: Site, taxonomy: Taxonomy, ids: readonly number[]): Promise<Map<number, number>> {
  const field = countedField(taxonomy);
  const unique = [...new Set(ids)];
  const totals = await Promise.all(
    unique.map(async (id) => {
      const { total } = await site.readModel.query(MEMBERSHIP_COLLECTION, {
        filters: [{ kind: 'any', field, values: [id] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: 0,
      });
      return [id, total] as const;
    }),
  );
  return new Map(totals);
}

// --- read-model helpers ----------------------------------------------------------------------------------------

export const taxonomyFilter = (taxonomy: Taxonomy): Filter => ({ kind: 'any', field: 'taxonomy', values: [taxonomy] });

/** Every term matching the filters, by id. */
export async function termsWhere(site: Site, filters: readonly Filter[]): Promise<TermDoc[]> {
  const { items } = await site.readModel.query(TERM_COLLECTION, {
    filters,
    order: { kind: 'field', field: 'id', direction: 'asc' },
    offset: 0,
    limit: null,
  });
  return items as TermDoc[];
}

export async function readTermDoc(site: Site, id: number): Promise<TermDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get(TERM_COLLECTION, id)) as TermDoc | null;
}

/** The term `id` and its ancestors, nearest first; empty when `id` is not a term. Stops at a loop. */
export async function ancestorChain(site: Site, id: number): Promise<TermDoc[]> {
  const chain: TermDoc[] = [];
  const seen = new Set<number>();
  let next = id;
  while (next > 0 && !seen.has(next)) {
    seen.add(next);
    const doc = await readTermDoc(site, next);
    if (!doc) break;
    chain.push(doc);
    next = doc.parent;
  }
  return chain;
}

/** The duplicate-name check's facts, gathered from the read model, judged by the decider's rule. */
async function nameConflictOf(
  site: Site,
  taxonomy: Taxonomy,
  candidate: { name: string; parent: number; explicitSlug: string | null; slug: string },
): Promise<number | null> {
  const sameLevel = await termsWhere(site, [
    taxonomyFilter(taxonomy),
    { kind: 'any', field: 'parent', values: [candidate.parent] },
    { kind: 'any', field: 'name_lower', values: [asciiLower(candidate.name)] },
  ]);
  const nameMatch = sameLevel[0];
  if (!nameMatch) return null;
  const [slugMatch] =
    candidate.slug === ''
      ? []
      : await termsWhere(site, [taxonomyFilter(taxonomy), { kind: 'any', field: 'slug', values: [candidate.slug] }]);
  return findNameConflict({
    hierarchical: isHierarchical(taxonomy),
    ...candidate,
    nameMatch: { id: nameMatch.id, slug: nameMatch.slug },
    exactSibling: sameLevel.some((t) => t.name === candidate.name),
    slugMatch: slugMatch ? { id: slugMatch.id, parent: slugMatch.parent } : null,
  });
}

/** By name as MySQL's case-insensitive collation orders it (approximated by lower case), then by id. */
export function compareNames(a: TermDoc, b: TermDoc): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
}

/** Releases the slugs this write claimed but did not end up with (a failure, or a retry that chose another). */
