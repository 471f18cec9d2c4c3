/**
 * Form-tags of a contact-form template (`[text* your-name minlength:2 "default"]`,
 * `[acceptance terms] I agree [/acceptance]`): parsed into the field list the REST API shows and the
 * feedback route validates against. Only the basic tag types are known; any other bracketed text is plain text.
 */

export const FIELD_BASETYPES = [
  'text',
  'email',
  'url',
  'tel',
  'number',
  'range',
  'textarea',
  'select',
  'checkbox',
  'radio',
  'acceptance',
] as const;
/** Types that may end in `*` (required). Radio buttons and acceptance boxes have no required variant. */
const REQUIRABLE = new Set(['text', 'email', 'url', 'tel', 'number', 'range', 'textarea', 'select', 'checkbox']);
const KNOWN_TYPES = new Set<string>([...FIELD_BASETYPES, ...[...REQUIRABLE].map((t) => `${t}*`), 'submit']);
/** Tags that may enclose content (`[acceptance x]…[/acceptance]`). */
const ENCLOSING = new Set(['acceptance']);

export interface FormTag {
  type: string;
  basetype: string;
  name: string;
  options: string[];
  raw_values: string[];
  labels: string[];
  values: string[];
  /** `"label|value"` values: the part shown and the part mailed. */
  pipes: [string, string][];
  content: string;
}

const NAME = /^[A-Za-z][-A-Za-z0-9_:.]*$/;
// The tag name, then everything up to the closing bracket (quoted values may contain `]`), then optional content.
const TAG =
  /\[(\[?)([a-zA-Z][0-9a-zA-Z:._-]*\*?)(?:[\r\n\t ]((?:"[^"]*"|'[^']*'|[^\]"'])*?))?(?:[\r\n\t ]*\/)?\](?:([^[]*?)\[\/\2\])?(\]?)/g;

/** Splits a tag's attribute text into bare options and quoted values, as they are written. */
function parseAttributes(text: string): { options: string[]; values: string[] } {
  const options: string[] = [];
  const values: string[] = [];
  const token = /"([^"]*)"|'([^']*)'|([^\s"']+)/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    if (m[3] !== undefined) options.push(m[3]);
    else values.push(m[1] ?? m[2] ?? '');
  }
  return { options, values };
}

/** Every known form-tag of a template, in order. `[[text x]]` (doubled brackets) is an escaped, literal tag. */
export function scanFormTags(template: string): FormTag[] {
  const tags: FormTag[] = [];
  for (const m of template.matchAll(TAG)) {
    const [, open, type, attributes = '', content = '', close] = m;
    if (open === '[' && close === ']') continue;
    if (!KNOWN_TYPES.has(type!)) continue;
    const basetype = type!.replace(/\*$/, '');
    const { options, values } = parseAttributes(attributes);
    let name = '';
    if (basetype !== 'submit') {
      name = options.shift() ?? '';
      if (!NAME.test(name)) continue;
    }
    const pipes = values.map((value): [string, string] => {
      const bar = value.indexOf('|');
      return bar === -1 ? [value, value] : [value.slice(0, bar), value.slice(bar + 1)];
    });
    tags.push({
      type: type!,
      basetype,
      name,
      options,
      raw_values: values,
      labels: pipes.map(([before]) => before),
      values: pipes.map(([before]) => before),
      pipes,
      content: ENCLOSING.has(basetype) ? content.trim() : '',
    });
  }
  return tags;
}

export const isRequired = (tag: FormTag): boolean => tag.type.endsWith('*');
export const hasOption = (tag: FormTag, option: string): boolean => tag.options.includes(option);

/** The value of an option `name:value` (the first one), or null. */
export function optionValue(tag: FormTag, name: string, pattern: RegExp = /^.*$/): string | null {
  for (const option of tag.options) {
    if (!option.startsWith(`${name}:`)) continue;
    const value = option.slice(name.length + 1);
    if (pattern.test(value)) return value;
  }
  return null;
}

/** The `id:` option, which feedback reports as `idref`. */
export const idOption = (tag: FormTag): string | null => optionValue(tag, 'id', /^[-0-9a-zA-Z_]+$/);

/** Length limits: `minlength:`/`maxlength:`, and the size shorthands `40/100` (text) or `40x10/100` (textarea). */
export function lengthLimits(tag: FormTag): { min: number | null; max: number | null } {
  const number = (value: string | null) => (value === null || value === '' ? null : Number(value));
  let max = number(optionValue(tag, 'maxlength', /^\d+$/));
  const min = number(optionValue(tag, 'minlength', /^\d+$/));
  if (max === null) {
    const shorthand = tag.basetype === 'textarea' ? /^\d*x\d*\/(\d+)$/ : /^\d*\/(\d+)$/;
    for (const option of tag.options) {
      const m = shorthand.exec(option);
      if (m) {
        max = Number(m[1]);
        break;
      }
    }
  }
  return { min, max };
}
