/**
 * What HTML a user without `unfiltered_html` may save, as data: WordPress 6.1's allowed tags and attributes
 * for post content and excerpts, the smaller set for titles, the URL protocols, and the CSS a `style`
 * attribute may carry. Observed on the reference WordPress 6.1.9 (every HTML element and attribute saved by a
 * contributor, then read back), not taken from its source.
 */

/** Attributes every post-content element takes (a `data-` attribute of any name counts too). */
export const GLOBAL_ATTRIBUTES: readonly string[] = [
  'aria-describedby', 'aria-details', 'aria-hidden', 'aria-label', 'aria-labelledby',
  'class', 'dir', 'id', 'lang', 'role', 'style', 'title', 'xml:lang',
];

/** Post content and excerpts: each element with the attributes of its own (besides the global ones). */
export const POST_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'name', 'rel', 'rev', 'target', 'download'],
  abbr: [], acronym: [], address: [],
  area: ['alt', 'coords', 'href', 'nohref', 'shape', 'target'],
  article: ['align'], aside: ['align'],
  audio: ['autoplay', 'controls', 'loop', 'muted', 'preload', 'src'],
  b: [], bdo: [], big: [],
  blockquote: ['cite'],
  br: [],
  button: ['disabled', 'name', 'type', 'value'],
  caption: ['align'], cite: [], code: [],
  col: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  colgroup: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  dd: [], del: ['datetime'],
  details: ['align', 'open'],
  dfn: [], div: ['align'], dl: [], dt: [], em: [], fieldset: [],
  figcaption: ['align'], figure: ['align'],
  font: ['color', 'face', 'size'],
  footer: ['align'],
  h1: ['align'], h2: ['align'], h3: ['align'], h4: ['align'], h5: ['align'], h6: ['align'],
  header: ['align'], hgroup: ['align'],
  hr: ['align', 'noshade', 'size', 'width'],
  i: [],
  img: ['align', 'alt', 'border', 'height', 'hspace', 'loading', 'longdesc', 'src', 'usemap', 'vspace', 'width'],
  ins: ['cite', 'datetime'],
  kbd: [], label: ['for'], legend: ['align'],
  li: ['align', 'value'],
  main: ['align'], map: ['name'], mark: [], menu: ['type'], nav: ['align'],
  ol: ['reversed', 'start', 'type'],
  p: ['align'], pre: ['width'], q: ['cite'],
  rb: [], rp: [], rt: [], rtc: [], ruby: [],
  s: [], samp: [], section: ['align'], small: [], span: ['align'], strike: [], strong: [], sub: [],
  summary: ['align'], sup: [],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'rules', 'summary', 'width'],
  tbody: ['align', 'char', 'charoff', 'valign'],
  td: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  textarea: ['cols', 'disabled', 'name', 'readonly', 'rows'],
  tfoot: ['align', 'char', 'charoff', 'valign'],
  th: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  thead: ['align', 'char', 'charoff', 'valign'],
  title: [],
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
  track: ['default', 'kind', 'label', 'src', 'srclang'],
  tt: [], u: [], ul: ['type'], var: [],
  video: ['autoplay', 'controls', 'height', 'loop', 'muted', 'playsinline', 'poster', 'preload', 'src', 'width'],
};

/**
 * Elements kept without any attribute. WordPress admits `<object>` only for a PDF in the site's own uploads;
 * anything else loses its attributes.
 */
export const BARE_POST_ELEMENTS: readonly string[] = ['object'];

/** Titles: a few inline elements, without global attributes. */
export const TITLE_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title'],
  abbr: ['title'], acronym: ['title'],
  b: [],
  blockquote: ['cite'],
  cite: [], code: [],
  del: ['datetime'],
  em: [], i: [],
  q: ['cite'],
  s: [], strike: [], strong: [],
};

/** Attributes that stand alone (`<video controls>`); any other attribute keeps an empty value as `=""`. */
export const VALUELESS_ATTRIBUTES: readonly string[] = [
  'autoplay', 'controls', 'default', 'disabled', 'download', 'loop', 'muted', 'nohref', 'noshade', 'nowrap', 'open',
  'playsinline', 'readonly', 'reversed',
];

/** Attributes whose value must be a valueless flag, or it is dropped. */
export const FLAG_ONLY_ATTRIBUTES: readonly string[] = ['download'];

/** Attributes holding a URL, whose protocol must be one of URL_PROTOCOLS. */
export const URL_ATTRIBUTES: readonly string[] = [
  'action', 'archive', 'background', 'cite', 'classid', 'codebase', 'data', 'formaction', 'href', 'icon', 'longdesc',
  'manifest', 'poster', 'profile', 'src', 'usemap', 'xmlns',
];

export const URL_PROTOCOLS: readonly string[] = [
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms',
  'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn',
];

/** CSS properties a `style` attribute may set (custom properties, `--name`, too). */
export const CSS_PROPERTIES: readonly string[] = [
  'align-content', 'align-items', 'align-self',
  'background', 'background-attachment', 'background-blend-mode', 'background-color', 'background-image',
  'background-position', 'background-size',
  'border', 'border-bottom', 'border-bottom-color', 'border-bottom-left-radius', 'border-bottom-right-radius',
  'border-bottom-style', 'border-bottom-width', 'border-collapse', 'border-color', 'border-left', 'border-left-color',
  'border-left-style', 'border-left-width', 'border-radius', 'border-right', 'border-right-color', 'border-right-style',
  'border-right-width', 'border-spacing', 'border-style', 'border-top', 'border-top-color', 'border-top-left-radius',
  'border-top-right-radius', 'border-top-style', 'border-top-width', 'border-width',
  'caption-side', 'clear', 'color',
  'column-count', 'column-fill', 'column-gap', 'column-rule', 'column-span', 'column-width', 'columns',
  'cursor', 'direction', 'filter',
  'flex', 'flex-basis', 'flex-direction', 'flex-flow', 'flex-grow', 'flex-shrink', 'flex-wrap', 'float',
  'font', 'font-family', 'font-size', 'font-style', 'font-variant', 'font-weight',
  'gap', 'grid-auto-columns', 'grid-auto-rows', 'grid-column-end', 'grid-column-gap', 'grid-column-start', 'grid-gap',
  'grid-row-end', 'grid-row-gap', 'grid-row-start', 'grid-template-columns', 'grid-template-rows',
  'height', 'justify-content', 'justify-items', 'justify-self', 'letter-spacing', 'line-height', 'list-style-type',
  'margin', 'margin-block-end', 'margin-block-start', 'margin-bottom', 'margin-inline-end', 'margin-inline-start',
  'margin-left', 'margin-right', 'margin-top',
  'max-height', 'max-width', 'min-height', 'min-width', 'object-fit', 'object-position', 'overflow',
  'padding', 'padding-block-end', 'padding-block-start', 'padding-bottom', 'padding-inline-end', 'padding-inline-start',
  'padding-left', 'padding-right', 'padding-top',
  'row-gap', 'text-align', 'text-decoration', 'text-indent', 'text-transform', 'vertical-align', 'width',
];

/** Properties whose value may hold `url(…)` (with an allowed protocol). */
export const CSS_URL_PROPERTIES: readonly string[] = ['background', 'background-image', 'cursor'];
/** Properties whose value may hold a gradient function. */
export const CSS_GRADIENT_PROPERTIES: readonly string[] = ['background', 'background-image'];
/** Functions any property's value may use. */
export const CSS_FUNCTIONS: readonly string[] = ['var', 'calc', 'min', 'max', 'minmax', 'clamp'];
