/**
 * Bounds of the columns WordPress stores numbers in. Where its REST schema lets any integer through, MySQL (not in
 * strict mode, as WordPress runs it) stores a value past a column's range at the nearer bound, and that bound is what
 * WordPress answers and sorts by from then on (checked against the reference instance).
 */

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A value as a signed 32-bit column (`int(11)`, e.g. `wp_posts.menu_order`) keeps it. */
export function asInt32Column(value: number): number {
  return Math.min(Math.max(value, INT32_MIN), INT32_MAX);
}
