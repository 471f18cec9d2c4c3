/**
 * Differences that are known and explained, so the report separates them from new ones. Each entry says why:
 * a deliberate choice, a part not built yet (with its issue), or a bug in palimpsest (listed as an open
 * difference in docs/compatibility.md).
 */
import type { Difference, DifferenceKind } from './step';

export type Category = 'deliberate' | 'not-built' | 'bug';

export interface Explanation {
  id: string;
  category: Category;
  /** One or two sentences: what differs and why. */
  text: string;
  /** Which differences it covers: all given conditions must hold. */
  step?: RegExp;
  kind?: DifferenceKind | DifferenceKind[];
  at?: RegExp;
  /** Tested against JSON.stringify of the reference value and the palimpsest value. */
  reference?: RegExp;
  palimpsest?: RegExp;
  /** A further condition on the difference itself. */
  when?: (difference: Difference) => boolean;
}

/** Route groups of WordPress 6.1 that the interface does not include. */
const OUTSIDE_INTERFACE =
  /^routes (core\/v2\/(blocks|templates|template-parts|navigation|types|statuses|taxonomies|menus|comments|search|block-renderer|block-types|global-styles|settings|themes|plugins|sidebars|widget-types|widgets|block-directory|pattern-directory|block-patterns|menu-locations)|(site-health|block-editor)\/v1.*)$/;

export const EXPLANATIONS: readonly Explanation[] = [
  // ---- deliberate
  {
    id: 'bad-credentials-401',
    category: 'deliberate',
    text: 'A wrong application password or an unknown login is answered 401 (incorrect_password, invalid_username) before routing; WordPress 6.1.9 treats the request as anonymous (see the reference digest, Corrections 1). The Allow and pagination headers of the anonymous answer are missing for the same reason.',
    step: /\.(wrong-password|unknown-user)$/,
  },
  {
    id: 'gmt-offset-string',
    category: 'deliberate',
    text: 'The interface types gmt_offset as a string ("a number in text"); WordPress 6.1.9 sends a number (digest, Corrections 5).',
    at: /^\$\.gmt_offset$/,
  },
  {
    id: 'meta-footnotes',
    category: 'deliberate',
    text: 'The interface gives posts and pages a meta object with one property, footnotes; WordPress 6.1 registers no meta, so it sends meta as [] and its schema has properties [].',
    at: /(^|\.)meta(\.properties)?$/,
  },
  {
    id: 'search-columns',
    category: 'deliberate',
    text: 'search_columns is in the interface (WordPress 6.2 added it); 6.1 does not know it, ignores it and lists no such argument. Here it narrows the search to titles, so the post found only by its content is missing.',
    step: /^posts\.list\.search-columns$/,
  },
  {
    id: 'search-columns-arg',
    category: 'deliberate',
    text: 'The posts and pages list arguments include search_columns, from the interface (WordPress 6.2 added it; 6.1 lists no such argument).',
    kind: 'keys',
    palimpsest: /^\["search_columns"\]$/,
  },
  {
    id: 'history-extensions',
    category: 'deliberate',
    text: 'Extensions beyond WordPress from issue 5 (history, time travel, restore, audit log, projections): the routes /core/v2/{posts,pages}/{id}/history, .../revisions/{id}/restore, /audit/v1, /projections/v1, the as_of argument and the audit/v1 and projections/v1 namespaces.',
    palimpsest: /history|restore|audit\/v1|projections\/v1|as_of/,
  },
  {
    id: 'routes-outside-interface',
    category: 'deliberate',
    text: 'WordPress 6.1 routes that the interface does not include (blocks, templates, navigation, types, statuses, taxonomies, menus, comments, search, settings, themes, plugins, widgets, block directory and patterns, menu locations; site-health and block-editor routes are "not listed").',
    kind: 'routes',
    at: OUTSIDE_INTERFACE,
  },
  {
    id: 'index-active-theme',
    category: 'deliberate',
    text: 'For a signed-in editor or administrator WordPress links the active theme (wp:active-theme, with curies) from the index; themes are not part of the interface.',
    step: /^discovery\.index\.admin$/,
    at: /^\$\._links$/,
  },
  {
    id: 'orderby-ties',
    category: 'deliberate',
    text: 'orderby=author and orderby=parent leave equal values to MySQL, which returns them in no defined order; palimpsest breaks ties by id. The items agree; only the order among equal authors or parents differs.',
    step: /\.orderby-(author|parent)$/,
    at: /\[\*\]\.id$/,
  },
  {
    id: 'theme-templates',
    category: 'deliberate',
    text: 'Themes are outside the interface, so no template is offered and any template but "" is refused; the refusal names the theme\'s templates, which the reference theme has ("blank") and palimpsest does not ("template is not one of .").',
    step: /^posts\.create\.invalid-template$/,
    at: /template(\.message)?$/,
  },
  // ---- not built yet: none (the menu-item autosave routes are built since the run of 2026-11-24).
  // ---- bugs (docs/compatibility.md, "Open differences"): none open in the last run.
];

export function explain(stepName: string, difference: Difference, explanations: readonly Explanation[] = EXPLANATIONS): Explanation | null {
  for (const e of explanations) {
    if (e.step && !e.step.test(stepName)) continue;
    if (e.kind && !(Array.isArray(e.kind) ? e.kind.includes(difference.kind) : e.kind === difference.kind)) continue;
    if (e.at && !e.at.test(difference.at)) continue;
    if (e.reference && !e.reference.test(JSON.stringify(difference.reference) ?? 'undefined')) continue;
    if (e.palimpsest && !e.palimpsest.test(JSON.stringify(difference.palimpsest) ?? 'undefined')) continue;
    if (e.when && !e.when(difference)) continue;
    return e;
  }
  return null;
}
