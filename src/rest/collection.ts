/**
 * Collection responses: `X-WP-Total`, `X-WP-TotalPages` and the `Link` header with `prev`/`next`, built from
 * the request's own query parameters as WordPress does (the caller passes them sanitized, as WordPress has
 * them by then), and the out-of-range page error.
 */
import { restError } from './errors';
import type { RestResult } from './route';

export interface Page {
  total: number;
  page: number;
  perPage: number;
}

export function pageCount({ total, perPage }: Page): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** WordPress refuses a page beyond the last one, unless there is nothing at all. */
export function assertPageInRange(page: Page, code = 'rest_post_invalid_page_number'): void {
  const pages = pageCount(page);
  if (page.total > 0 && page.page > pages) {
    throw restError(code, 'The page number requested is larger than the number of pages available.', 400);
  }
}

export function collectionResult(items: unknown[], page: Page, collectionUrl: string, query: Record<string, unknown>): RestResult {
  const pages = pageCount(page);
  const headers: Record<string, string> = {
    'X-WP-Total': String(page.total),
    'X-WP-TotalPages': String(pages),
  };
  const links: string[] = [];
  if (page.page > 1) links.push(`<${pageUrl(collectionUrl, query, Math.min(page.page - 1, Math.max(pages, 0)))}>; rel="prev"`);
  if (pages > page.page) links.push(`<${pageUrl(collectionUrl, query, page.page + 1)}>; rel="next"`);
  if (links.length > 0) headers.Link = links.join(', ');
  return { status: 200, body: items, headers };
}

/**
 * The collection URL with the original query parameters and `page` set. As WordPress's add_query_arg(), a `page`
 * already in the query keeps its place (otherwise it comes last), and a parameter without a value is written
 * bare (`?_embed&page=2`).
 */
function pageUrl(base: string, query: Record<string, unknown>, page: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, page })) appendParam(params, key, value);
  return `${base}?${params.toString().replace(/=(&|$)/g, '$1')}`;
}

function appendParam(params: URLSearchParams, key: string, value: unknown): void {
  if (Array.isArray(value)) value.forEach((v, i) => appendParam(params, `${key}[${i}]`, v));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) appendParam(params, `${key}[${k}]`, v);
  // PHP's urlencode() writes true as 1, and false and null as nothing.
  else params.append(key, typeof value === 'boolean' ? (value ? '1' : '') : String(value ?? ''));
}
