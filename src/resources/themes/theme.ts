/**
 * The site's theme, as `/core/v2/themes` describes it: there is no theme code here, so it is a record of what the
 * site renders with and supports. A classic theme (no block templates): the block editor then offers no template
 * editing, and a template lookup finds nothing. Its base global styles are the defaults the block editor starts
 * from; an administrator's user global styles are laid over them (src/resources/globalStyles).
 */
import { POST_FORMATS } from '../content/schema';

export interface ThemeRecord {
  /** Identifies the theme (its directory, in WordPress). */
  stylesheet: string;
  /** The parent theme's stylesheet; its own for a theme without a parent. */
  template: string;
  name: string;
  description: string;
  author: string;
  authorUri: string;
  themeUri: string;
  version: string;
  requiresPhp: string;
  requiresWp: string;
  textdomain: string;
  tags: readonly string[];
  /** The features the theme declares, by their REST name; the others take their default (THEME_FEATURES). */
  supports: Readonly<Record<string, unknown>>;
  /** The theme's global settings and styles (theme.json, version 2), before the user's. */
  baseSettings: Readonly<Record<string, unknown>>;
  baseStyles: Readonly<Record<string, unknown>>;
  /** Its style variations (none). */
  variations: readonly Record<string, unknown>[];
}

const preset = (name: string, slug: string, field: string, value: string | number) => ({ name, slug, [field]: value });

export const ACTIVE_THEME: ThemeRecord = {
  stylesheet: 'palimpsest',
  template: 'palimpsest',
  name: 'Palimpsest',
  description:
    'The defaults of a palimpsest site: a classic theme without block templates, whose front end is rendered elsewhere.',
  author: 'palimpsest',
  authorUri: '',
  themeUri: '',
  version: '1.0',
  requiresPhp: '',
  requiresWp: '6.1',
  textdomain: 'palimpsest',
  tags: [],
  supports: {
    // Posts and pages take a featured image; every post format is accepted; embeds are responsive.
    'post-thumbnails': true,
    formats: [...POST_FORMATS],
    'responsive-embeds': true,
  },
  baseSettings: {
    color: {
      background: true,
      custom: true,
      customGradient: true,
      defaultPalette: true,
      link: false,
      text: true,
      palette: {
        default: [
          preset('Black', 'black', 'color', '#000000'),
          preset('Dark grey', 'dark-grey', 'color', '#3c3c3c'),
          preset('Light grey', 'light-grey', 'color', '#e0e0e0'),
          preset('White', 'white', 'color', '#ffffff'),
          preset('Blue', 'blue', 'color', '#1d4ed8'),
          preset('Red', 'red', 'color', '#b91c1c'),
          preset('Green', 'green', 'color', '#15803d'),
        ],
      },
    },
    spacing: { units: ['px', 'em', 'rem', 'vh', 'vw', '%'], padding: false, margin: false, blockGap: null },
    typography: {
      customFontSize: true,
      dropCap: true,
      lineHeight: false,
      fontSizes: {
        default: [
          preset('Small', 'small', 'size', '13px'),
          preset('Medium', 'medium', 'size', '20px'),
          preset('Large', 'large', 'size', '36px'),
          preset('Extra Large', 'x-large', 'size', '42px'),
        ],
      },
    },
    border: { color: false, radius: false, style: false, width: false },
  },
  baseStyles: {
    spacing: { blockGap: '24px' },
  },
  variations: [],
};

/** A theme feature as `/themes` shows it: its REST name and the schema of its value (its default included). */
export interface ThemeFeature {
  name: string;
  schema: Record<string, unknown>;
}

const flag = (name: string, description: string): ThemeFeature => ({
  name,
  schema: { description, type: 'boolean', default: false },
});
const options = (name: string, description: string, properties: Record<string, unknown>): ThemeFeature => ({
  name,
  schema: { description, type: ['boolean', 'object'], default: false, properties, additionalProperties: false },
});
const presets = (name: string, description: string, properties: Record<string, unknown>): ThemeFeature => ({
  name,
  schema: {
    description,
    type: ['boolean', 'array'],
    default: false,
    items: { type: 'object', properties, additionalProperties: false },
  },
});
const text = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer' };
const oneOf = (...values: string[]) => ({ type: 'string', enum: values });

/** The theme features WordPress 6.1 describes in REST, in its order (the schema of `theme_supports`). */
export const THEME_FEATURES: readonly ThemeFeature[] = [
  flag('align-wide', 'Whether wide and full alignments are offered.'),
  flag('automatic-feed-links', 'Whether feed links are added to the head of pages.'),
  flag('block-templates', 'Whether templates are made of blocks.'),
  flag('block-template-parts', 'Whether template parts are made of blocks.'),
  options('custom-background', 'The custom background the theme offers, if any.', {
    'default-image': { type: 'string', format: 'uri' },
    'default-preset': oneOf('default', 'fill', 'fit', 'repeat', 'custom'),
    'default-position-x': oneOf('left', 'center', 'right'),
    'default-position-y': oneOf('left', 'center', 'right'),
    'default-size': oneOf('auto', 'contain', 'cover'),
    'default-repeat': oneOf('repeat-x', 'repeat-y', 'repeat', 'no-repeat'),
    'default-attachment': oneOf('scroll', 'fixed'),
    'default-color': text,
  }),
  options('custom-header', 'The custom header the theme offers, if any.', {
    'default-image': { type: 'string', format: 'uri' },
    'random-default': bool,
    width: int,
    height: int,
    'flex-height': bool,
    'flex-width': bool,
    'default-text-color': text,
    'header-text': bool,
    uploads: bool,
    video: bool,
  }),
  options('custom-logo', 'The custom logo the theme offers, if any.', {
    width: int,
    height: int,
    'flex-width': bool,
    'flex-height': bool,
    'header-text': { type: 'array', items: text },
    'unlink-homepage-logo': bool,
  }),
  flag('customize-selective-refresh-widgets', 'Whether widgets refresh selectively in the customizer.'),
  flag('dark-editor-style', 'Whether the editor is styled for a dark background.'),
  flag('disable-custom-colors', 'Whether custom colors are turned off.'),
  flag('disable-custom-font-sizes', 'Whether custom font sizes are turned off.'),
  flag('disable-custom-gradients', 'Whether custom gradients are turned off.'),
  flag('disable-layout-styles', 'Whether generated layout styles are turned off.'),
  presets('editor-color-palette', "The theme's color palette, if it has its own.", {
    name: text,
    slug: text,
    color: text,
  }),
  presets('editor-font-sizes', "The theme's font sizes, if it has its own.", {
    name: text,
    size: { type: 'number' },
    slug: text,
  }),
  presets('editor-gradient-presets', "The theme's gradients, if it has its own.", {
    name: text,
    gradient: text,
    slug: text,
  }),
  flag('editor-styles', "Whether the editor loads the theme's editor styles."),
  {
    name: 'html5',
    schema: {
      description: 'The markup the theme writes as HTML5.',
      type: ['boolean', 'array'],
      default: false,
      items: {
        type: 'string',
        enum: ['search-form', 'comment-form', 'comment-list', 'gallery', 'caption', 'script', 'style'],
      },
    },
  },
  {
    name: 'formats',
    schema: {
      description: 'The post formats supported.',
      type: 'array',
      default: ['standard'],
      items: { type: 'string', enum: [...POST_FORMATS] },
    },
  },
  {
    name: 'post-thumbnails',
    schema: {
      description: 'The post types that take a featured image, or true for all of them.',
      type: ['boolean', 'array'],
      default: false,
      items: text,
    },
  },
  flag('responsive-embeds', 'Whether embedded content is responsive.'),
  flag('title-tag', 'Whether the theme manages the document title.'),
  flag('wp-block-styles', 'Whether the default block styles are loaded for viewing.'),
];

/** Every feature's value for the theme: what it declares, or the feature's default. */
export function themeSupports(theme: ThemeRecord): Record<string, unknown> {
  return Object.fromEntries(
    THEME_FEATURES.map((feature) => [
      feature.name,
      Object.hasOwn(theme.supports, feature.name) ? theme.supports[feature.name] : feature.schema.default,
    ]),
  );
}
