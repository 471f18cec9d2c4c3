/**
 * Equality as WordPress's database compares text. Its tables use MySQL's `utf8mb4_unicode_520_ci` collation, so a
 * lookup such as the duplicate-comment check (`comment_content = %s`) ignores case and accents and trailing
 * spaces: "Café " finds "cafe". `collationKey` folds a string to a key that two strings share when such a
 * comparison finds them equal. It approximates the collation (compatibility decomposition, combining marks
 * dropped, lower case, `ß` as `ss`) rather than implementing its weight tables, which is close enough for the
 * texts people type.
 */

/** A key equal for strings the collation calls equal (see above). */
export function collationKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ +$/, '');
}

/** Whether the collation calls the two equal. */
export const collationEquals = (a: string, b: string): boolean => a === b || collationKey(a) === collationKey(b);
