/** PHP trim()'s default character set: space, \t, \n, \r, NUL, \v. */
const PHP_TRIM_DEFAULT = ' \t\n\r\0\x0B';

/** Whether a UTF-16 code unit is in PHP trim()'s default set. */
function isPhpTrimmed(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 0 || c === 11;
}

/**
 * PHP's trim(): strips the given characters (by default PHP's set, which leaves \f and Unicode spaces alone, unlike
 * String.prototype.trim) from both ends. A loop: the regex form tried a match at every space of a long text.
 */
export function phpTrim(text: string, chars: string = PHP_TRIM_DEFAULT): string {
  let start = 0;
  let end = text.length;
  if (chars === PHP_TRIM_DEFAULT) {
    while (start < end && isPhpTrimmed(text.charCodeAt(start))) start++;
    while (end > start && isPhpTrimmed(text.charCodeAt(end - 1))) end--;
  } else {
    while (start < end && chars.includes(text[start]!)) start++;
    while (end > start && chars.includes(text[end - 1]!)) end--;
  }
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
