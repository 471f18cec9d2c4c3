/**
 * What a user's global styles may hold: the keys of the theme.json format (version 2, WordPress 6.1's), anything
 * else dropped, as WordPress drops it when it reads the record. Pure.
 *
 * A shape maps each allowed key to `LEAF` (any value) or to the shape of its object; an object value where a
 * shape is expected is pruned by it, any other value there but null is dropped, and an object left empty is dropped
 * too.
 */

const LEAF = null;
type Shape = { readonly [key: string]: Shape | null };

const keys = (...names: string[]): Shape => Object.fromEntries(names.map((name) => [name, LEAF]));

/** Style properties of the site, an element or a block. */
const STYLE_PROPERTIES: Shape = {
  border: keys('color', 'radius', 'style', 'width', 'top', 'right', 'bottom', 'left'),
  color: keys('background', 'gradient', 'text'),
  filter: keys('duotone'),
  shadow: LEAF,
  spacing: keys('margin', 'padding', 'blockGap'),
  typography: keys(
    'fontFamily',
    'fontSize',
    'fontStyle',
    'fontWeight',
    'letterSpacing',
    'lineHeight',
    'textDecoration',
    'textTransform',
  ),
};

/** Elements styled on their own; links and buttons also in their interactive states. */
const ELEMENTS = ['link', 'heading', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'button', 'caption', 'cite'];
const STATES = [':visited', ':hover', ':focus', ':active'];

const elementShape = (name: string): Shape =>
  name === 'link' || name === 'button'
    ? { ...STYLE_PROPERTIES, ...Object.fromEntries(STATES.map((state) => [state, STYLE_PROPERTIES])) }
    : STYLE_PROPERTIES;
const ELEMENT_STYLES: Shape = Object.fromEntries(ELEMENTS.map((name) => [name, elementShape(name)]));

const SETTINGS: Shape = {
  appearanceTools: LEAF,
  useRootPaddingAwareAlignments: LEAF,
  border: keys('color', 'radius', 'style', 'width'),
  color: keys(
    'background',
    'custom',
    'customDuotone',
    'customGradient',
    'defaultDuotone',
    'defaultGradients',
    'defaultPalette',
    'duotone',
    'gradients',
    'link',
    'palette',
    'text',
  ),
  custom: LEAF,
  layout: keys('contentSize', 'definitions', 'wideSize'),
  spacing: keys('customSpacingSize', 'spacingSizes', 'spacingScale', 'blockGap', 'margin', 'padding', 'units'),
  typography: keys(
    'fluid',
    'customFontSize',
    'dropCap',
    'fontFamilies',
    'fontSizes',
    'fontStyle',
    'fontWeight',
    'letterSpacing',
    'lineHeight',
    'textDecoration',
    'textTransform',
  ),
};

/** A block's name, `namespace/name` (lower-case letters, digits and dashes). */
const BLOCK_NAME = /^[a-z][a-z0-9-]*\/[a-z][a-z0-9-]*$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function prune(value: Record<string, unknown>, shape: Shape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!Object.hasOwn(shape, key)) continue;
    const inner = shape[key];
    // A null stays where an object is expected, as WordPress leaves it (it only prunes what it can descend into).
    if (inner === LEAF || inner === undefined || entry === null) out[key] = entry;
    else if (isObject(entry)) {
      const pruned = prune(entry, inner);
      if (Object.keys(pruned).length > 0) out[key] = pruned;
    }
  }
  return out;
}

/** Each `blocks` entry named like a block, pruned by `shape`. */
function pruneBlocks(
  value: unknown,
  shape: (block: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!BLOCK_NAME.test(name) || !isObject(entry)) continue;
    const pruned = shape(entry);
    if (Object.keys(pruned).length > 0) out[name] = pruned;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function styleNode(value: Record<string, unknown>): Record<string, unknown> {
  const out = prune(value, STYLE_PROPERTIES);
  if (isObject(value.elements)) {
    const elements = prune(value.elements, ELEMENT_STYLES);
    if (Object.keys(elements).length > 0) out.elements = elements;
  }
  return out;
}

/** The site's styles: style properties, `elements` and per-block `blocks` (each with its own elements). */
export function sanitizeStyles(value: Record<string, unknown>): Record<string, unknown> {
  const out = styleNode(value);
  const blocks = pruneBlocks(value.blocks, styleNode);
  if (blocks) out.blocks = blocks;
  return out;
}

/** The site's settings, and per-block `blocks` settings. */
export function sanitizeSettings(value: Record<string, unknown>): Record<string, unknown> {
  const out = prune(value, SETTINGS);
  const blocks = pruneBlocks(value.blocks, (block) => prune(block, SETTINGS));
  if (blocks) out.blocks = blocks;
  return out;
}
