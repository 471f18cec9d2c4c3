/**
 * The term decider: WordPress's write rules for categories and tags as pure functions of (command, state).
 * What a rule needs to know about other terms (a same-named sibling, the new parent's ancestors) and the
 * claimed slug arrive in the command; the operations gather them.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, ForbiddenByRule, InvalidValue, NotFound } from '../../core/errors';
import type { Taxonomy, TermEvent, TermFields } from './events';

/** "Uncategorized": it exists on every site, posts without a category are in it, and it cannot be deleted. */
export const DEFAULT_CATEGORY_ID = 1;

export const isHierarchical = (taxonomy: Taxonomy): boolean => taxonomy === 'category';

export interface TermState {
  exists: boolean;
  deleted: boolean;
  id: number;
  taxonomy: Taxonomy | null;
  term: TermFields | null;
}

export type TermCommand =
  /** `nameConflict`: the id of the term that makes this name a duplicate (see findNameConflict), or null. */
  | { kind: 'create'; id: number; taxonomy: Taxonomy; fields: TermFields; nameConflict: number | null }
  /**
   * Only the fields present change. `parentAncestors`: the requested parent and its ancestors, nearest first,
   * so that a parent which would make a loop can be refused.
   */
  | { kind: 'update'; id: number; taxonomy: Taxonomy; input: Partial<TermFields>; parentAncestors: readonly number[] }
  | { kind: 'delete'; id: number; taxonomy: Taxonomy }
  /** A child of a deleted term moves up to that term's parent (only if it is still under `from`). */
  | { kind: 'reparent'; id: number; taxonomy: Taxonomy; from: number; to: number };

/** Names are unique among a category's siblings, and in a whole taxonomy of tags. */
export function termExistsError(taxonomy: Taxonomy, termId: number): AlreadyExists {
  return new AlreadyExists('term', 'name', {
    existingId: termId,
    scope: isHierarchical(taxonomy) ? 'parent' : 'taxonomy',
  });
}

export const duplicateSlugError = (slug: string): AlreadyExists => new AlreadyExists('term', 'slug', { value: slug });

/** A name is required: after sanitising, something other than whitespace must be left. */
export function assertTermName(name: string): void {
  if (/^[ \t\n\r\0\x0B]*$/.test(name)) throw new InvalidValue('term', ['name'], 'empty');
}

export interface NameConflictQuery {
  hierarchical: boolean;
  /** The stored (sanitised) name. */
  name: string;
  /** The parent the new term goes under (0 for tags). */
  parent: number;
  /** The slug the client gave (sanitised), or null when it gave none (or one that sanitises to nothing). */
  explicitSlug: string | null;
  /** The slug before de-duplication: the explicit one, or the one derived from the name. */
  slug: string;
  /** The first term under `parent` whose name equals `name` ignoring ASCII case. */
  nameMatch: { id: number; slug: string } | null;
  /** Whether a term under `parent` has exactly this name. */
  exactSibling: boolean;
  /** The term of the taxonomy that has `slug`, wherever it is. */
  slugMatch: { id: number; parent: number } | null;
}

/**
 * WordPress refuses a new term whose name is already used at the same level, unless the client chose a slug
 * of its own that is free. Returns the id of the term that makes it a duplicate, or null.
 */
export function findNameConflict(q: NameConflictQuery): number | null {
  if (!q.nameMatch) return null;
  const slugIsTheMatch = q.explicitSlug === null || q.nameMatch.slug === q.slug;
  if (!slugIsTheMatch && !q.slugMatch) return null;
  if (!q.hierarchical) return q.nameMatch.id;
  if (slugIsTheMatch && q.exactSibling) return q.nameMatch.id;
  if (q.slugMatch && q.slugMatch.parent === q.parent) return q.slugMatch.id;
  return null;
}

export const initialTermState = (): TermState => ({ exists: false, deleted: false, id: 0, taxonomy: null, term: null });

export function evolveTerm(state: TermState, event: TermEvent): TermState {
  switch (event.type) {
    case 'TermCreated': {
      const { id, taxonomy, name, slug, description, parent } = event.data;
      return { exists: true, deleted: false, id, taxonomy, term: { name, slug, description, parent } };
    }
    case 'TermUpdated':
      return state.term ? { ...state, term: { ...state.term, ...event.data.changes } } : state;
    case 'TermDeleted':
      return { ...state, exists: false, deleted: true };
  }
}

function decide(command: TermCommand, state: TermState): TermEvent[] {
  const { id, taxonomy } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('term', 'id');
    const fields = { ...command.fields };
    assertTermName(fields.name);
    if (command.nameConflict !== null) throw termExistsError(taxonomy, command.nameConflict);
    if (!isHierarchical(taxonomy)) fields.parent = 0;
    return [{ type: 'TermCreated', data: { id, taxonomy, ...fields } }];
  }

  const current = state.term;
  if (command.kind === 'reparent') {
    if (!state.exists || !current || current.parent !== command.from) return [];
    return [{ type: 'TermUpdated', data: { id, taxonomy, changes: { parent: command.to } } }];
  }

  if (!state.exists || !current || state.taxonomy !== taxonomy) throw new NotFound('term');

  if (command.kind === 'delete') {
    if (taxonomy === 'category' && id === DEFAULT_CATEGORY_ID) {
      throw new ForbiddenByRule('term', 'defaultTerm');
    }
    return [{ type: 'TermDeleted', data: { id, taxonomy, parent: current.parent } }];
  }

  const { input } = command;
  const next: TermFields = { ...current };
  if (input.name !== undefined) {
    assertTermName(input.name);
    next.name = input.name;
  }
  if (input.description !== undefined) next.description = input.description;
  if (input.slug !== undefined) next.slug = input.slug;
  if (input.parent !== undefined && isHierarchical(taxonomy)) {
    // A term cannot sit under itself or under one of its own descendants: WordPress makes it top-level instead.
    const loops = input.parent === id || command.parentAncestors.includes(id);
    next.parent = loops ? 0 : input.parent;
  }
  const changes: Partial<TermFields> = {};
  for (const key of ['name', 'slug', 'description', 'parent'] as const) {
    if (next[key] !== current[key]) (changes as Record<string, unknown>)[key] = next[key];
  }
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'TermUpdated', data: { id, taxonomy, changes } }];
}

export const termDecider: Decider<TermState, TermCommand, TermEvent> = {
  initialState: initialTermState,
  evolve: evolveTerm,
  decide,
};
