/** WordPress's string formats for arguments: the checks (rest_parse_date, is_email…) and the sanitizers. */
import { isIPv6 } from 'node:net';
import { phpTrim } from '../../text/phpTrim';

// PHP's `$` also matches just before a final newline, hence the `\n?` in the patterns below.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2})(?::(\d{2}))?)?\n?$/;

/**
 * WordPress's shape check, then what PHP's strtotime() accepts: month up to 12, day up to 31 (it rolls
 * over, so the 30th of February passes), hour up to 24, second up to 60.
 */
export function isWpDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (month > 12 || day > 31 || hour > 24 || minute > 59 || second > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 24 || Number(m[8] ?? 0) > 59)) return false;
  return true;
}

/** WordPress's is_email rules. */
export function isWpEmail(value: string): boolean {
  if (Buffer.byteLength(value) < 6) return false;
  if (value.indexOf('@', 1) === -1) return false;
  const at = value.indexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (/\.{2,}/.test(domain)) return false;
  if (phpTrim(domain, ' \t\n\r\0\x0B.') !== domain) return false;
  const subs = domain.split('.');
  if (subs.length < 2) return false;
  return subs.every((sub) => phpTrim(sub, ' \t\n\r\0\x0B-') === sub && /^[a-z0-9-]+$/i.test(sub));
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\n?$/;
export function isWpIp(value: string): boolean {
  return IPV4.test(value) || isIPv6(value);
}

export function isWpUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n?$/.test(value);
}

export function isWpHexColor(value: string): boolean {
  return /^#([A-Fa-f0-9]{3}){1,2}\n?$/.test(value);
}

/** WordPress's own format rules, not ajv-formats': rest_parse_date, is_email and friends accept and refuse other strings. */
export const FORMAT_CHECKS: Record<string, (value: string) => boolean> = {
  'date-time': isWpDateTime,
  email: isWpEmail,
  ip: isWpIp,
  uuid: isWpUuid,
  'hex-color': isWpHexColor,
  // WordPress only sanitizes these.
  uri: () => true,
  'text-field': () => true,
  'textarea-field': () => true,
};

// Sanitizers applied to formatted strings

const ALLOWED_PROTOCOLS = new Set([
  'http',
  'https',
  'ftp',
  'ftps',
  'mailto',
  'news',
  'irc',
  'irc6',
  'ircs',
  'gopher',
  'nntp',
  'feed',
  'telnet',
  'mms',
  'rtsp',
  'sms',
  'svn',
  'tel',
  'fax',
  'xmpp',
  'webcal',
  'urn',
]);

/**
 * WordPress's sanitize_url (esc_url for the database): drops characters URLs cannot hold, presumes http:// for a
 * bare host, and empties a URL whose scheme is not an allowed protocol (javascript:, data:…).
 */
export function sanitizeUrl(input: string): string {
  if (input === '') return '';
  let url = input.replace(/^[ \t\n\r\0\x0B]+/, '').replace(/ /g, '%20');
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\uffff]/gi, '');
  if (url === '') return '';
  if (!/^mailto:/i.test(url)) {
    while (/%0[ad]/i.test(url)) url = url.replace(/%0[ad]/gi, '');
  }
  url = url.replace(/;\/\//g, '://');
  if (!url.includes(':') && !['/', '#', '?'].includes(url[0]!) && !/^[a-z0-9-]+?\.php/i.test(url))
    url = `http://${url}`;
  if (/[[\]]/.test(url)) {
    // Brackets may stay in an (IPv6) host, not after it.
    const front = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? '';
    url = front + url.slice(front.length).replace(/\[/g, '%5B').replace(/\]/g, '%5D');
  }
  if (url.startsWith('/')) return url;
  const colon = /:|&#0*58;|&#x0*3a;/i.exec(url);
  if (colon && !/\/\?/.test(url.slice(0, colon.index))) {
    const protocol = url.slice(0, colon.index).replace(/\s/g, '').toLowerCase();
    if (!ALLOWED_PROTOCOLS.has(protocol)) return '';
    return `${protocol}:${phpTrim(url.slice(colon.index + colon[0].length))}`;
  }
  return url;
}
