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

/**
 * Route groups of WordPress 6.1 that the interface does not include and palimpsest does not serve (of the templates,
 * only the list, the lookup and one template are served: see classic-theme-templates).
 */
const OUTSIDE_INTERFACE =
  /^routes (core\/v2\/(templates|template-parts|navigation|comments|search|block-renderer|block-types|settings|plugins|sidebars|widget-types|widgets|block-directory|pattern-directory)|(site-health|block-editor)\/v1.*)$/;

export const EXPLANATIONS: readonly Explanation[] = [
  // ---- deliberate
  {
    id: 'bad-credentials-401',
    category: 'deliberate',
    text: 'A wrong application password or an unknown login is answered 401 (incorrect_password, invalid_username) before routing; WordPress 6.1.9 treats the request as anonymous (see the reference digest, Corrections 1). The Allow and pagination headers of the anonymous answer are missing for the same reason.',
    step: /\.(wrong-password|unknown-user)$/,
  },
  {
    id: 'attachment-featured-media',
    category: 'deliberate',
    text: "The interface lists featured_media (integer) among a media attachment's fields on the first instance; WordPress 6.1 gives attachments none (there only audio and video attachments may have a featured image).",
    kind: 'keys',
    reference: /^\[\]$/,
    palimpsest: /^\["featured_media"\]$/,
  },
  {
    id: 'anonymous-body-unread',
    category: 'deliberate',
    text: 'An anonymous write to a route where no endpoint admits an anonymous caller is answered by its permission rule (401) without reading the body, so that no anonymous body is buffered; WordPress validates the body first and answers its 400 for an invalid field or malformed JSON.',
    step: /\.(anonymous-invalid-status|invalid-json-anonymous|anonymous-invalid)$/,
  },
  {
    id: 'upload-type-status',
    category: 'deliberate',
    text: "A file whose type is not allowed is refused with WordPress's code and message but status 400: bad input is never a 500 here, where WordPress answers 500.",
    step: /^media\.upload\.disallowed-type(-multipart)?$/,
    at: /^(status|\$\.data\.status)$/,
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
    // Only where palimpsest's side is the footnotes meta; any other meta difference is not this one.
    palimpsest: /footnotes/,
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
    text: 'The posts, pages, media and menu-items list arguments include search_columns, from the interface (the post list parameters, which media and menu items take too; WordPress 6.2 added it; 6.1 lists no such argument).',
    kind: 'keys',
    palimpsest: /^\["search_columns"\]$/,
  },
  {
    id: 'history-extensions',
    category: 'deliberate',
    text: "Extensions beyond WordPress, palimpsest's own (history, time travel, restore, audit log, projections): the routes /core/v2/{posts,pages,blocks,media}/{id}/history, .../revisions/{id}/restore, /audit/v1, /projections/v1, the as_of argument and the audit/v1 and projections/v1 namespaces.",
    palimpsest: /history|restore|audit\/v1|projections\/v1|as_of/,
  },
  {
    id: 'route-patterns-for-clients',
    category: 'deliberate',
    text: "Two route patterns are written so that a client reading the index can parse them, matching the same paths: a template's id without the group inside its named group, the variations' stylesheet with its parentheses as \\x28 and \\x29. WordPress 6.1's own patterns stop wpapi's discovery (it takes the first \")\" for the end of a named group).",
    kind: 'routes',
    at: /^routes core\/v2\/(templates|global-styles)$/,
    when: (d) =>
      (Array.isArray(d.reference) && d.reference.length === 0) || /\/variations"\]$/.test(JSON.stringify(d.reference)),
  },
  {
    id: 'routes-outside-interface',
    category: 'deliberate',
    text: 'WordPress 6.1 routes that the interface does not include and that are not served: template parts, navigation, block types and the block renderer, plugins, widgets and sidebars, the block and pattern directories, and of the templates their revisions, autosaves and writes; site-health and block-editor routes are "not listed", and only their namespace indexes are served.',
    kind: 'routes',
    at: OUTSIDE_INTERFACE,
  },
  {
    id: 'types-not-served',
    category: 'deliberate',
    text: 'Post types whose routes are not served (wp_template_part, wp_navigation: template parts and navigation are outside the interface) are left out of /types, so no listed rest_base answers 404; /types/wp_template_part is then an unknown type (404 rest_type_invalid).',
    kind: 'keys',
    at: /^\$$/,
    when: (d) =>
      Array.isArray(d.reference) &&
      d.reference.length > 0 &&
      d.reference.every((k) => /^wp_(template_part|navigation)$/.test(String(k))),
    step: /^types\.list\./,
  },
  {
    id: 'types-not-served-item',
    category: 'deliberate',
    text: 'The post type wp_template_part is not served (see types-not-served): its description is 404 rest_type_invalid here.',
    step: /^types\.item\.not-served$/,
  },
  {
    id: 'index-front-page-fields',
    category: 'deliberate',
    text: 'The index gives page_for_posts, page_on_front and show_on_front, as WordPress 6.7 does (the block editor reads them from it); WordPress 6.1 does not. The image processing fields a newer editor also asks for (image_sizes, image_size_threshold, …) are left out: they would tell it to make the sub-sizes itself, which the server does here.',
    kind: 'keys',
    at: /^\$$/,
    palimpsest: /^\["page_for_posts","page_on_front","show_on_front"\]$/,
  },
  {
    id: 'classic-theme',
    category: 'deliberate',
    text: "The active theme is a record of palimpsest's defaults, a classic theme (no block templates), where the reference runs the block theme Twenty Twenty-Three: its name, texts, supports, base global styles and style variations (none here) differ, and so do the ids and stylesheets its links name.",
    step: /^editor\.(themes\.active|global-styles\.(theme|variations|record|save|restore))(\.author)?$/,
    when: (d) => d.kind !== 'status' && d.kind !== 'code',
  },
  {
    id: 'classic-theme-index-link',
    category: 'deliberate',
    text: "The index links the active theme by its stylesheet, which names palimpsest's own theme where the reference names Twenty Twenty-Three (see classic-theme).",
    at: /^\$\._links\["wp:active-theme"\]\[0\]\.href$/,
  },
  {
    id: 'classic-theme-templates',
    category: 'deliberate',
    text: "Without a block theme there are no templates: the list is empty, a lookup finds nothing (WordPress's answer for a classic theme: every field of the template null, so no is_custom), and none can be made or changed here, so the template routes offer GET only (WordPress offers POST, PUT, PATCH and DELETE, and serves template revisions and autosaves).",
    step: /^editor\.(templates\.|options\.templates\.)/,
  },
  {
    id: 'block-patterns-none',
    category: 'deliberate',
    text: "No block patterns or pattern categories are registered unless the deployment gives some (BLOCK_PATTERNS_DIR); WordPress registers its own and the theme's, and loads more from wordpress.org.",
    step: /^editor\.block-patterns\.(patterns|categories)$/,
    kind: 'length',
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
  {
    id: 'menu-order-ties',
    category: 'deliberate',
    text: "Menu items are listed by menu_order, and items of equal menu_order come in MySQL's undefined order on the reference; palimpsest breaks ties by id. The items agree; only the order among equal menu_order differs.",
    step: /^menuItems\.(list|roles)\./,
    kind: 'value',
    at: /^\$\[\*\]\.id$/,
    when: (d) => sameMembers(d.reference, d.palimpsest),
  },
  {
    id: 'upload-without-content-type',
    category: 'deliberate',
    text: "A raw upload without a Content-Type header is refused (400 rest_upload_no_content_type), as WordPress's own check does and the reference digest records; the reference behind nginx/php-fpm always receives a CONTENT_TYPE (empty), which that check lets through, so it stores the file.",
    step: /^media\.upload\.no-content-type$/,
  },
  {
    id: 'allow-after-invalid-param',
    category: 'deliberate',
    text: 'For a request refused for an invalid parameter, WordPress computes the Allow header by running the permission checks with the invalid value (post=nope is read as post 0, which nobody may edit, so POST is left out); palimpsest judges methods by the caller alone.',
    step: /^media\.upload\.invalid-field$/,
    kind: 'header',
    at: /^header Allow$/,
  },
  {
    id: 'media-dangling-parent',
    category: 'deliberate',
    text: 'Updating an attachment with a post that does not exist is refused (403 rest_cannot_edit, as WordPress refuses it on upload); WordPress 6.1 stores the dangling parent on update. The item deleted afterwards shows that parent (post, link) on the reference only.',
    step: /^media\.(update\.post-missing|delete\.force)$/,
    at: /^(status|code|header Allow|\$\.previous\.(post|link|permalink_template))$/,
  },
  {
    id: 'rotation-canvas',
    category: 'deliberate',
    text: "An image rotated by an angle that is not a right angle gets a canvas that holds it; the image libraries round its size differently (WordPress's 992x992 for the 800x600 image at 45 degrees, sharp's 990x990), and the description's srcset names that width.",
    step: /^media\.edit\.rotate-45$/,
    at: /^\$\.(media_details\.(width|height|sizes\.full\.(width|height))|description\.rendered)$/,
  },
  // ---- not built yet: none (the menu-item autosave routes are built since the run of 2026-11-24).
  // ---- bugs (docs/compatibility.md, "Open differences"): none open in the last run.
];

/** Both lists hold the same values, whatever their order. */
function sameMembers(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const sorted = (list: unknown[]) => JSON.stringify(list.map(String).sort());
  return sorted(a) === sorted(b);
}

export function explain(
  stepName: string,
  difference: Difference,
  explanations: readonly Explanation[] = EXPLANATIONS,
): Explanation | null {
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
