/**
 * Events of the term streams (`term-{id}`): categories and tags. Each event names its taxonomy, so that
 * projections can route it without the stream's history. Who and when are in the event metadata;
 * `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

export type Taxonomy = 'category' | 'post_tag';

/** The stored fields of a term, as stored after WordPress's save-time sanitising. */
export interface TermFields {
  /** HTML-escaped as WordPress stores it ("A &amp; B"). */
  name: string;
  /** Unique within the taxonomy. */
  slug: string;
  /** Filtered to WordPress's basic inline tags. */
  description: string;
  /** 0 for a top-level term, and always 0 for tags. */
  parent: number;
}

export interface TermCreated extends TermFields {
  id: number;
  taxonomy: Taxonomy;
}

export interface TermUpdated {
  id: number;
  taxonomy: Taxonomy;
  /** Only the fields whose values changed. */
  changes: Partial<TermFields>;
}

export interface TermDeleted {
  id: number;
  taxonomy: Taxonomy;
  /** The deleted term's parent, which inherits its children (each child gets its own `TermUpdated`). */
  parent: number;
}

export type TermEvent =
  | DomainEvent<'TermCreated', TermCreated>
  | DomainEvent<'TermUpdated', TermUpdated>
  | DomainEvent<'TermDeleted', TermDeleted>;

export const TERM_EVENT_TYPES = ['TermCreated', 'TermUpdated', 'TermDeleted'] as const;

export const termStreamId = (id: number): string => `term-${id}`;
