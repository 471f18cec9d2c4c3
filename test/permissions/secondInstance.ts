/**
 * Who may do what on the second instance only (SITE_INSTANCE=second): the contact-form routes and the
 * `ext-disabled` status. Kept apart from table.ts because that table runs against one first-instance site and
 * the reference WordPress, which has neither. secondInstance.test.ts runs these rows against a second-instance
 * site; render.ts adds them to docs/permissions.md. Cells are written as in table.ts.
 *
 * Placeholders: `{form}` a contact form made by the administrator (fresh for every cell), `{post}` a post of
 * the administrator's in status `ext-disabled`.
 */
import type { Cells, Method } from './table';

export interface SecondInstanceRow {
  method: Method;
  path: string;
  variant: string;
  body?: Record<string, unknown>;
  /** Posted as multipart/form-data (feedback), not JSON. */
  multipart?: boolean;
  cells: Cells;
}

const F = (code: string) => `403 ${code}`;
const NO = F('wpcf7_forbidden');
const FORMS = '/contact-form/v1/contact-forms';

export const SECOND_INSTANCE_TABLE: readonly SecondInstanceRow[] = [
  {
    method: 'GET',
    path: FORMS,
    variant: 'list (read capability: edit_posts)',
    cells: [NO, NO, '200', '200', '200', '200'],
  },
  {
    method: 'POST',
    path: `${FORMS}?context=save`,
    variant: 'create (publish_pages)',
    body: { title: 'Made' },
    cells: [NO, NO, NO, NO, '200', '200'],
  },
  {
    method: 'POST',
    path: FORMS,
    variant: 'create without saving',
    body: { title: 'Tried' },
    cells: [NO, NO, NO, NO, '200', '200'],
  },
  {
    method: 'GET',
    path: `${FORMS}/{form}`,
    variant: 'read one (publish_pages, not the read capability)',
    cells: [NO, NO, NO, NO, '200', '200'],
  },
  {
    method: 'GET',
    path: `${FORMS}/999999`,
    variant: 'an unknown form: permission first',
    cells: [NO, NO, NO, NO, '404 wpcf7_not_found', '404 wpcf7_not_found'],
  },
  {
    method: 'POST',
    path: `${FORMS}/{form}?context=save`,
    variant: 'update',
    body: { title: 'Changed' },
    cells: [NO, NO, NO, NO, '200', '200'],
  },
  { method: 'DELETE', path: `${FORMS}/{form}`, variant: 'delete', cells: [NO, NO, NO, NO, '200', '200'] },
  {
    method: 'POST',
    path: `${FORMS}/{form}/feedback`,
    variant: 'submit feedback (public)',
    multipart: true,
    cells: ['200', '200', '200', '200', '200', '200'],
  },
  {
    method: 'GET',
    path: `${FORMS}/{form}/refill`,
    variant: 'refill (public)',
    cells: ['200', '200', '200', '200', '200', '200'],
  },
  {
    method: 'POST',
    path: '/core/v2/posts',
    variant: 'create a post as ext-disabled (no publishing right needed)',
    body: { title: 'Off', status: 'ext-disabled' },
    cells: ['401 rest_cannot_create', '403 rest_cannot_create', '201', '201', '201', '201'],
  },
  {
    method: 'GET',
    path: '/core/v2/posts/{post}',
    variant: "someone else's ext-disabled post (read like a draft)",
    cells: ['401 rest_forbidden', '403 rest_forbidden', '403 rest_forbidden', '403 rest_forbidden', '200', '200'],
  },
  {
    method: 'GET',
    path: '/core/v2/posts?status=ext-disabled',
    variant: 'list filter (needs edit_posts)',
    cells: [
      '400 rest_invalid_param/rest_forbidden_status',
      '400 rest_invalid_param/rest_forbidden_status',
      '200',
      '200',
      '200',
      '200',
    ],
  },
  {
    method: 'GET',
    path: '/core/v2/statuses/ext-disabled',
    variant: 'the status itself (seen by those who may edit items)',
    cells: ['401 rest_cannot_read_status', '403 rest_cannot_read_status', '200', '200', '200', '200'],
  },
  {
    method: 'GET',
    path: '/core/v2/pages?status=ext-disabled',
    variant: 'list filter (needs edit_pages)',
    cells: [
      '400 rest_invalid_param/rest_forbidden_status',
      '400 rest_invalid_param/rest_forbidden_status',
      '400 rest_invalid_param/rest_forbidden_status',
      '400 rest_invalid_param/rest_forbidden_status',
      '200',
      '200',
    ],
  },
];
