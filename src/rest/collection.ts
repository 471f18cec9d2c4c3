/**
 * Collection responses: `X-WP-Total`, `X-WP-TotalPages` and the `Link` header with `prev`/`next`, built from
 * the request's own query parameters as WordPress does (the caller passes them sanitized, as WordPress has
 * them by then), and the out-of-range page error.
 */
import { restError } from './errors';
import { PHP_INT_LIMIT } from './args/phpTypes';
import type { HandlerContext, RestResult } from './route';

export interface Page {
  total: number;
  page: number;
  perPage: number;
}

export function pageCount({ total, perPage }: Page): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/**
 * A list offset as the read model takes it: at least 0 and at most 2^53 - 1 (`offset=1e400` or a huge `page` is past
 * every match either way).
 */
export function readModelOffset(offset: number): number {
  return Number.isNaN(offset) ? 0 : Math.min(Math.max(0, offset), Number.MAX_SAFE_INTEGER);
}

/** Whether a list's `offset` argument decides its window: WordPress pages by `page` when the offset is absent or 0. */
export function offsetGiven(params: Record<string, unknown>): params is { offset: number } {
  return typeof params.offset === 'number' && params.offset !== 0;
}

/** WordPress refuses a page beyond the last one, unless there is nothing at all. */
export function assertPageInRange(page: Page, code = 'rest_post_invalid_page_number'): void {
  const pages = pageCount(page);
  if (page.total > 0 && page.page > pages) {
    throw restError(code, 'The page number requested is larger than the number of pages available.', 400);
  }
}

/**
 * The longest Link header the API writes. The paging links repeat the request's query (twice), so a long query
 * would make a header several times its size, beyond what proxies accept (nginx's default header buffer is 4 KB) and
 * a way to amplify a request. A longer header is left out, and the discovery link stays; X-WP-Total and
 * X-WP-TotalPages still say where the pages end. WordPress writes any length.
 */
export const MAX_LINK_HEADER_LENGTH = 4096;

export function boundedLink(header: string): string | null {
  return header.length <= MAX_LINK_HEADER_LENGTH ? header : null;
}

/** Who may have an item of a list: its reader, and (for the edit context) its editor. */
export interface ListAccess<T> {
  mayRead(item: T): boolean | Promise<boolean>;
  mayEdit(item: T): boolean | Promise<boolean>;
}

/**
 * The items of a list page the caller may have, in order: WordPress leaves out each item the caller may not read and,
 * in the edit context, each item the caller may not edit, since an edit-context item carries what only its editors
 * may see (raw fields, the password). The page's totals stay the query's, counted before this, as WordPress's do.
 */
export async function listableItems<T>(items: readonly T[], context: unknown, access: ListAccess<T>): Promise<T[]> {
  const edit = context === 'edit';
  const verdicts = await Promise.all(
    items.map(async (item) => (await access.mayRead(item)) && (!edit || (await access.mayEdit(item)))),
  );
  return items.filter((_, i) => verdicts[i]);
}

export function collectionResult(
  items: unknown[],
  page: Page,
  collectionUrl: string,
  query: Record<string, unknown>,
): RestResult {
  const pages = pageCount(page);
  const headers: Record<string, string> = {
    'X-WP-Total': String(page.total),
    'X-WP-TotalPages': String(pages),
  };
  const hasPrev = page.page > 1;
  const hasNext = pages > page.page;
  if (hasPrev || hasNext) {
    const pageUrl = pageUrlOf(collectionUrl, query);
    const links: string[] = [];
    if (hasPrev) links.push(`<${pageUrl(Math.min(page.page - 1, Math.max(pages, 0)))}>; rel="prev"`);
    if (hasNext) links.push(`<${pageUrl(page.page + 1)}>; rel="next"`);
    const link = boundedLink(links.join(', '));
    if (link !== null) headers.Link = link;
  }
  return { status: 200, body: items, headers };
}

/**
 * The query string as the paging links repeat it: WordPress sanitizes the request's parameters in place, so each
 * registered argument sent in the query is written as validation coerced it (`exclude=1,2` →
 * `exclude[0]=1&exclude[1]=2`, `offset=1e3` → `offset=1000`); one the body overrides, and any unregistered one, as sent.
 */
export function linkQuery(ctx: Pick<HandlerContext, 'request' | 'params'>): Record<string, unknown> {
  const { query, json, form } = ctx.request;
  const overridden = (key: string) =>
    (json !== null && Object.hasOwn(json, key)) || (form !== null && Object.hasOwn(form, key));
  return Object.fromEntries(
    Object.entries(query).map(([key, value]) => [
      key,
      ctx.params[key] !== undefined && !overridden(key) ? ctx.params[key] : value,
    ]),
  );
}

/**
 * The collection URL with the original query parameters and `page` set. As WordPress's add_query_arg(), a `page`
 * already in the query keeps its place (otherwise it comes last), and a parameter without a value is written
 * bare (`?_embed&page=2`). The parameters are encoded once for both links, as URLSearchParams would encode them.
 */
function pageUrlOf(base: string, query: Record<string, unknown>): (page: number) => string {
  const before: string[] = [];
  const after: string[] = [];
  let pageSeen = false;
  for (const key in query) {
    if (!Object.hasOwn(query, key)) continue;
    if (key === 'page') pageSeen = true;
    else appendParam(pageSeen ? after : before, key, query[key]);
  }
  const head = before.length > 0 ? `${base}?${before.join('&')}&page=` : `${base}?page=`;
  const tail = after.length > 0 ? `&${after.join('&')}` : '';
  return (page) => `${head}${page}${tail}`;
}

function appendParam(params: string[], key: string, value: unknown): void {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      appendParam(params, `${key}[${i}]`, v);
    });
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) appendParam(params, `${key}[${k}]`, v);
  else {
    // PHP's urlencode() writes true as 1, and false and null as nothing; an empty value is written bare.
    const text = formEncode(
      typeof value === 'boolean'
        ? value
          ? '1'
          : ''
        : typeof value === 'number'
          ? phpIntegerText(value)
          : String(value ?? ''),
    );
    params.push(text === '' ? formEncode(key) : `${formEncode(key)}=${text}`);
  }
}

/**
 * A number as PHP writes it in a link. An integer argument beyond PHP's integers is held at PHP_INT_MAX or PHP_INT_MIN
 * (src/rest/args.ts), which JavaScript holds as ±2^63: PHP writes its bounds.
 */
function phpIntegerText(value: number): string {
  if (value >= PHP_INT_LIMIT) return '9223372036854775807';
  if (value <= -PHP_INT_LIMIT) return '-9223372036854775808';
  return String(value);
}

/** application/x-www-form-urlencoded, as URLSearchParams writes it: encodeURIComponent, also `!'()~`, space as `+`. */
function formEncode(text: string): string {
  if (/^[\w.-]*$/.test(text)) return text;
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    // A lone surrogate: URLSearchParams writes it as U+FFFD.
    return new URLSearchParams([['', text]]).toString().slice(1);
  }
  return encoded.replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}
