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

const sameMembers = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && JSON.stringify([...a].map(String).sort()) === JSON.stringify([...b].map(String).sort());

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
  // ---- not built yet
  {
    id: 'terms-default-category',
    category: 'not-built',
    text: 'Terms (issue 3, part 3, being built now): a post that names no category is not yet put in "Uncategorized" (term 1), so categories is [] where WordPress has [1], and categories=1 finds nothing.',
    reference: /@uncategorized/,
  },
  {
    id: 'terms-uncategorized-list',
    category: 'not-built',
    text: 'Terms (issue 3, part 3, being built now): no post is in "Uncategorized" yet, so the list filtered by it is empty.',
    step: /^posts\.list\.uncategorized$/,
  },
  {
    id: 'terms-unknown-ids',
    category: 'not-built',
    text: 'Terms (issue 3, part 3, being built now): term ids that name no term are kept on the post; WordPress drops them.',
    at: /(categories|tags)$/,
    palimpsest: /@\?/,
  },
  {
    id: 'terms-include-children',
    category: 'not-built',
    text: 'Terms (issue 3, part 3, being built now): include_children does not follow the category tree yet (src/api.ts gives every category no descendants), so a post in the child category is not found through its parent.',
    step: /\.categories(-exclude)?-children$|\.categories-include-children$/,
  },
  {
    id: 'terms-order',
    category: 'bug',
    text: 'A post\'s categories and tags are listed in the order they were given; WordPress lists a post\'s term ids by term name (terms are being built now, issue 3 part 3).',
    at: /(categories|tags)$/,
    kind: 'value',
    when: (d) => sameMembers(d.reference, d.palimpsest),
  },
  {
    id: 'media-menu-items-oembed',
    category: 'not-built',
    text: 'Media, menu items and the oEmbed embed/proxy routes are in the interface but not built yet; no issue covers them so far.',
    kind: 'routes',
    at: /^routes (core\/v2\/(media|menu-items)|oembed\/1\.0\/(embed|proxy))$/,
  },
  // ---- bugs (docs/compatibility.md, "Open differences")
  {
    id: 'generated-slug',
    category: 'bug',
    text: 'generated_slug is the slug the title would give (made unique; a numeric slug of a page gets -2), whatever the actual slug; palimpsest returns the actual slug (with __trashed on trashed posts, the bare id on an untitled page).',
    at: /generated_slug$/,
  },
  {
    id: 'trashed-permalink-template',
    category: 'bug',
    text: 'For a trashed post WordPress gives permalink_template as the plain link {site}/?p=ID; palimpsest keeps {site}/%postname%/.',
    at: /permalink_template$/,
    reference: /\?p=/,
  },
  {
    id: 'trashed-empty-slug',
    category: 'bug',
    text: 'Trashing an item whose slug is empty (a draft or pending item without an explicit slug) gives it the slug "__trashed" in WordPress; palimpsest leaves "".',
    at: /slug$/,
    reference: /^"__trashed"$/,
  },
  {
    id: 'delete-previous-links',
    category: 'bug',
    text: 'The previous item in a force-delete answer carries no _links in WordPress (it is the data of the prepared item only); palimpsest includes them.',
    kind: 'keys',
    at: /previous$/,
  },
  {
    id: 'invalid-template',
    category: 'bug',
    text: 'A template the theme does not provide is rejected by WordPress (400 rest_invalid_param, "template is not one of ."); palimpsest accepts it and creates the post.',
    step: /^posts\.create\.invalid-template$/,
  },
  {
    id: 'sticky-on-protected-message',
    category: 'bug',
    text: 'Making a password-protected post sticky: WordPress says "A password protected post can not be set to sticky."; palimpsest gives the message of the other case ("A post can not be sticky and have a password.", meant for both in one request).',
    step: /^posts\.update\.sticky-on-protected$/,
  },
  {
    id: 'jsonp-callback',
    category: 'bug',
    text: '_jsonp is not handled: WordPress answers an invalid callback name with 400 rest_callback_invalid (and a valid one with a JavaScript body); palimpsest ignores the parameter.',
    step: /jsonp/,
  },
  {
    id: 'json-error-code',
    category: 'bug',
    text: 'rest_invalid_json always reports json_error_code 4 "Syntax error"; PHP distinguishes the kind of failure (an unterminated string is 3, "Control character error, possibly incorrectly encoded").',
    at: /json_error_(code|message)$/,
  },
  {
    id: 'action-links',
    category: 'bug',
    text: 'In edit context WordPress adds the wp:action-* links (publish, unfiltered-html, sticky, assign-author, create/assign categories and tags) that tell a client what the user may do; palimpsest sends none.',
    kind: 'keys',
    at: /_links$/,
    reference: /wp:action-/,
  },
  {
    id: 'embed-replies',
    category: 'bug',
    text: '_embed embeds the replies link as a rest_no_route error (there is no comments route); WordPress embeds the empty comment list, and leaves out a rel whose embeds are all empty. Comments are outside the interface, so replies should not appear under _embedded.',
    kind: 'keys',
    at: /_embedded$/,
    palimpsest: /replies/,
  },
  {
    id: 'page-hierarchical-link',
    category: 'bug',
    text: 'The permalink of a child page includes its ancestors (/parent/child/), and so do its guid (fixed at creation), its Link rel="alternate" header and its permalink_template (/parent/%pagename%/); palimpsest uses /child/.',
    reference: /parent-page\/(%pagename%|[^/"]+)\/"?$/,
  },
  {
    id: 'revision-excerpt',
    category: 'bug',
    text: 'A revision or autosave with an empty excerpt has excerpt.rendered "" in WordPress; palimpsest generates an excerpt from the content as it does for posts.',
    step: /revisions|autosaves/,
    at: /excerpt\.rendered$/,
    reference: /^""$/,
  },
  {
    id: 'autosave-own-draft-response',
    category: 'bug',
    text: 'POST .../autosaves on one\'s own draft updates the draft and answers it in revision shape: WordPress gives date and date_gmt null for a floating draft, the draft\'s own slug ("" here), the guid of the item (?page_id= for a page) and no _links (its parent is 0); palimpsest gives dates, an autosave slug ("ID-autosave-v1"), ?p= and _links.',
    step: /autosaves\.create\.own-draft$/,
  },
  {
    id: 'revisions-link-header',
    category: 'bug',
    text: 'A paginated revisions list carries Link rel="next"/"prev" headers in WordPress; palimpsest sends none.',
    step: /^revisions\.list/,
    at: /^header Link/,
  },
  {
    id: 'batch-fields',
    category: 'bug',
    text: 'A batch sub-request whose path has ?_fields= gets its response filtered in WordPress (rest_post_dispatch runs for each sub-request); palimpsest returns the whole item.',
    step: /^batch\.mixed$/,
    at: /^\$\.responses\[3\]\.body$/,
  },
  {
    id: 'batch-error-allow',
    category: 'bug',
    text: 'In a batch, a sub-request that matched a route but failed (validation, permission, rest_batch_not_allowed) carries the route\'s Allow header, judged for the caller (the admin may not DELETE a revision in 6.1, so only GET); palimpsest sends no Allow on failed sub-requests and lists DELETE on the not-batchable one.',
    at: /^\$\.responses\[\d+\]\.headers(\.Allow)?$/,
    reference: /Allow|GET/,
  },
  {
    id: 'php-empty-array',
    category: 'bug',
    text: 'Where WordPress has an empty PHP array it sends [] (the headers of an error in _envelope and in batch entries, the empty properties of the batch route\'s body and headers arguments); palimpsest sends {}.',
    kind: 'type',
    reference: /array \[\]/,
    palimpsest: /object \{\}/,
  },
  {
    id: 'index-write-args',
    category: 'bug',
    text: 'In the index and OPTIONS, the title, content and excerpt write arguments have type "object" with their properties (raw, rendered, protected, block_version, each with description and context) in WordPress; palimpsest lists type ["string","object"] and only raw with its type.',
    at: /args\.(title|content|excerpt)\.(type|properties)/,
  },
  {
    id: 'options-description',
    category: 'bug',
    text: 'OPTIONS: WordPress\'s schema has links (the hyper-schema of the wp:action-* relations), no arg_options, and content.protected in the embed context too, and a route without parameters carries _links.self; palimpsest differs on each.',
    step: /\.options/,
  },
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
