/**
 * WordPress's save-time rules for each setting (its option sanitizers), as pure functions. A rule answers the value
 * to store, or `KEEP` when WordPress's sanitizer refuses the value and the option keeps what it had (the request
 * still succeeds, as in WordPress).
 */
import { stripTagsLikePhp } from '../../text/slug';
import type { StoredSettings } from './events';

export const KEEP = Symbol('keep the stored value');
/** Each setting's rule takes the value its schema validated. */
type Rules = { [K in keyof StoredSettings]?: (value: StoredSettings[K]) => StoredSettings[K] | typeof KEEP };

/**
 * esc_html: the five special characters as entities, except an `&` that already starts an entity (WordPress does not
 * encode those twice). Written here: the one escaper in src/rest is private to the validator.
 */
export function escapeHtmlOnce(text: string): string {
  return text
    .replace(/&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9A-Fa-f]+);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** absint. */
const absolute = (value: number): number => Math.abs(Math.trunc(value));

/** Installed languages besides the built-in English; no language packs are installed, so none. */
const INSTALLED_LANGUAGES: readonly string[] = [];

export const SANITIZERS: Rules = {
  title: (value: string) => escapeHtmlOnce(value),
  description: (value: string) => escapeHtmlOnce(value),
  // PHP's strip_tags: tags go, the surrounding spaces stay.
  date_format: (value: string) => stripTagsLikePhp(value),
  time_format: (value: string) => stripTagsLikePhp(value),
  start_of_week: absolute,
  default_category: absolute,
  page_on_front: absolute,
  page_for_posts: absolute,
  site_icon: absolute,
  // Nothing means one; below -1 ("all") the sign goes.
  posts_per_page: (value: number) => (value === 0 ? 1 : value < -1 ? -value : value),
  // The built-in English is the empty value; anything else must be an installed language pack.
  language: (value: string) => (value === '' || INSTALLED_LANGUAGES.includes(value) ? value : KEEP),
};
