/**
 * An item's past, as the steps that replay it: its creation, each revision (an update by the revision's author at
 * the revision's time, which makes that revision here as it did there), each autosave, and a last update at the
 * item's modification time when something is still to set. Pure: the source's answers come in, steps go out.
 *
 * WordPress 6.1 makes no revision when an item is created and one after every update (the first always, later
 * ones when the text changed), holding the text the update left. The text an item had before its first update is
 * not kept anywhere, so the creation is given the first revision's text: the first update then changes no text
 * and makes that first revision, as it did there.
 */
import type { WpPost, WpRevision } from './source';
import { WordPressImportError } from './source';

export type Step =
  | { kind: 'create'; at: number; author: number; sourceId: string; text: Text }
  | { kind: 'revision'; at: number; author: number; sourceId: string; revision: WpRevision }
  | { kind: 'autosave'; at: number; author: number; sourceId: string; autosave: WpRevision }
  | { kind: 'final'; at: number; author: number; sourceId: string };

export interface Text {
  title: string;
  content: string;
  excerpt: string;
}

/** Milliseconds of a REST UTC date-time (`2024-05-01T12:00:00`, maybe with `Z` or `+00:00`). */
export const gmtMs = (value: string): number => Date.parse(`${value.replace(/(Z|[+-]00:00)$/, '')}Z`);

/** Order among steps of the same second: what made a state before what saw it. */
const RANK: Record<Step['kind'], number> = { create: 0, revision: 1, final: 2, autosave: 3 };

/** Whether a draft's date floats: WordPress answers a floating date_gmt computed from its date, equal to modified. */
export function floatingDate(item: WpPost): boolean {
  return (
    (item.status === 'draft' || item.status === 'pending') &&
    (item.date_gmt === null || item.date_gmt === item.modified_gmt)
  );
}

/**
 * The steps of one item, in the order they happened. Revisions and autosaves are told apart by their slug
 * (`{id}-autosave-v1`), since WordPress's revisions collection lists autosaves too.
 */
export function timelineOf(item: WpPost, revisions: readonly WpRevision[], autosaves: readonly WpRevision[]): Step[] {
  const byTime = (a: WpRevision, b: WpRevision) => gmtMs(a.date_gmt) - gmtMs(b.date_gmt) || a.id - b.id;
  const isAutosave = (revision: WpRevision) => revision.slug.includes('-autosave-');
  const saved = revisions.filter((revision) => !isAutosave(revision)).sort(byTime);
  const autosaved = new Map<number, WpRevision>();
  for (const autosave of [...autosaves, ...revisions.filter(isAutosave)]) autosaved.set(autosave.id, autosave);
  for (const revision of [...saved, ...autosaved.values()]) {
    if (revision.parent !== item.id)
      throw new WordPressImportError(
        `${item.type} ${item.id}: its revision ${revision.id} names ${revision.parent} as its parent`,
      );
  }
  const modified = gmtMs(item.modified_gmt);
  const dated = floatingDate(item) || item.date_gmt === null ? Number.POSITIVE_INFINITY : gmtMs(item.date_gmt);
  const first = saved[0];
  const created = Math.min(dated, modified, first ? gmtMs(first.date_gmt) : Number.POSITIVE_INFINITY);
  const textOf = (source: WpPost | WpRevision): Text => ({
    title: source.title.raw,
    content: source.content.raw,
    excerpt: source.excerpt?.raw ?? '',
  });
  const steps: Step[] = [
    { kind: 'create', at: created, author: item.author, sourceId: `post-${item.id}`, text: textOf(first ?? item) },
  ];
  for (const revision of saved)
    steps.push({
      kind: 'revision',
      at: gmtMs(revision.date_gmt),
      author: revision.author,
      sourceId: `revision-${revision.id}`,
      revision,
    });
  const last = saved.at(-1);
  // A post published on a date after its last change was scheduled, then published when that date came.
  const publishedLater = item.status === 'publish' && Number.isFinite(dated) && dated > modified ? dated : modified;
  const finalAt = Math.max(publishedLater, last ? gmtMs(last.date_gmt) : created);
  steps.push({ kind: 'final', at: finalAt, author: last?.author ?? item.author, sourceId: `post-${item.id}-final` });
  for (const autosave of autosaved.values())
    steps.push({
      kind: 'autosave',
      at: gmtMs(autosave.date_gmt),
      author: autosave.author,
      sourceId: `autosave-${autosave.id}`,
      autosave,
    });
  return steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => a.step.at - b.step.at || RANK[a.step.kind] - RANK[b.step.kind] || a.index - b.index)
    .map(({ step }) => step);
}

/**
 * Items with every parent before its children. A parent not among them, or parents that loop, is an error naming
 * the item.
 */
export function parentsFirst<T>(
  items: readonly T[],
  idOf: (item: T) => number,
  parentOf: (item: T) => number,
  name: (item: T) => string,
): T[] {
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const ordered: T[] = [];
  const done = new Set<number>();
  const visit = (item: T, path: number[]) => {
    const id = idOf(item);
    if (done.has(id)) return;
    if (path.includes(id))
      throw new WordPressImportError(`${name(item)}: its parents loop (${[...path, id].join(' -> ')})`);
    const parent = parentOf(item);
    if (parent > 0) {
      const found = byId.get(parent);
      if (!found)
        throw new WordPressImportError(
          `${name(item)}: its parent ${parent} is not among what the site answered (in the trash, or not readable?)`,
        );
      visit(found, [...path, id]);
    }
    done.add(id);
    ordered.push(item);
  };
  for (const item of items) visit(item, []);
  return ordered;
}
