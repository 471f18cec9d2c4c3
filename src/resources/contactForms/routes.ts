/**
 * The `contact-form/v1` namespace of the second instance: contact forms (list, create, read, update, delete),
 * feedback submission and refill. As the form plug-in registers them, the routes declare no args (the index
 * shows none and nothing is validated up front), permission failures are always 403, and the permission
 * check runs before the existence check. Writes store the form only with `context=save`; otherwise they
 * answer with what the form would be.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canEditContactForms, canReadContactForms } from '../../access/capabilities';
import { restError } from '../../rest/errors';
import { isUnsafeKey } from '../../rest/query';
import type { RestError } from '../../rest/errors';
import { allowEveryone, ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { Order } from '../../ports/readModel';
import { CONTACT_FORM_COLLECTION } from '../../../projections/contactForms';
import type { ContactFormDoc } from '../../../projections/contactForms';
import { contactFormStreamId } from './events';
import { readWritten } from '../../projection/written';
import { NotFound } from '../../core/errors';
import { restErrorOf } from '../../rest/domainErrors';
import { sanitizeUnitTag } from './feedback';
import {
  createContactForm,
  deleteContactForm,
  listContactForms,
  newFormDefaults,
  previewContactForm,
  readContactFormDoc,
  submitFeedback,
  updateContactForm,
} from './operations';
import type { UnsavedForm } from './operations';
import { configErrors, contactFormInput, presentProperties } from './properties';

export const CONTACT_FORM_NAMESPACE = 'contact-form/v1';
const BASE = `/${CONTACT_FORM_NAMESPACE}/contact-forms`;
const ITEM = `${BASE}/(?P<id>\\d+)`;

const forbidden = (message: string): RestError => restError('wpcf7_forbidden', message, 403);
const NOT_ALLOWED_ITEM = 'You are not allowed to access the requested contact form.';

/** PHP's `(int)` of a parameter: leading digits of text, 0 for anything else. */
export function phpInt(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return 0;
  const m = /^\s*([+-]?\d+)/.exec(value);
  return m ? Number.parseInt(m[1]!, 10) : 0;
}

/** PHP's truthiness of a parameter. */
const phpTruthy = (value: unknown): boolean =>
  !(
    value === undefined ||
    value === null ||
    value === false ||
    value === '' ||
    value === '0' ||
    value === 0 ||
    (Array.isArray(value) && value.length === 0)
  );

function present(
  doc: { id: number | null; slug: string | null } & UnsavedForm,
  extra: 'properties' | 'config' | 'none',
) {
  const body: Record<string, unknown> = { id: doc.id, slug: doc.slug, title: doc.title, locale: doc.locale };
  if (extra !== 'none') body.properties = presentProperties(doc.properties);
  if (extra === 'config') body.config_errors = configErrors(doc.properties);
  return body;
}

const headerText = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? '') : (value ?? '');

export function contactFormRoutes(site: Site): RouteDefinition[] {
  const editRule = (ctx: HandlerContext) => (canEditContactForms(ctx.actor) ? true : forbidden(NOT_ALLOWED_ITEM));
  const existing = async (ctx: HandlerContext): Promise<ContactFormDoc> => {
    const doc = await readContactFormDoc(site, phpInt(ctx.params.id));
    if (!doc) throw restErrorOf(new NotFound('contactForm'));
    return doc;
  };
  const saving = (ctx: HandlerContext) => ctx.params.context === 'save';

  return [
    {
      namespace: CONTACT_FORM_NAMESPACE,
      path: BASE,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: (ctx) =>
            canReadContactForms(ctx.actor) ? true : forbidden('You are not allowed to access contact forms.'),
          handle: async (ctx) =>
            ok((await listContactForms(site, listOptions(ctx.params))).map((doc) => present(doc, 'none'))),
        },
        {
          methods: ['POST'],
          args: {},
          permission: (ctx) =>
            canEditContactForms(ctx.actor) ? true : forbidden('You are not allowed to create a contact form.'),
          // Creating, editing and deleting forms take publish_pages; submitting feedback (below) is open to anyone.
          signedInOnly: true,
          handle: async (ctx) => {
            if (phpInt(ctx.params.id) !== 0)
              throw restError('wpcf7_post_exists', 'Cannot create existing contact form.', 400);
            const input = contactFormInput(ctx.params);
            if (!saving(ctx))
              return ok(present({ id: null, slug: null, ...previewContactForm(newFormDefaults(), input) }, 'config'));
            const outcome = await createContactForm(site, input, ctx.actor as Actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await writtenContactForm(site, outcome.id, outcome.position);
            if (!doc) throw restError('wpcf7_cannot_save', 'There was an error saving the contact form.', 500);
            return ok(present(doc, 'config'));
          },
        },
      ],
    },
    {
      namespace: CONTACT_FORM_NAMESPACE,
      path: ITEM,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: editRule,
          handle: async (ctx) => ok(present(await existing(ctx), 'properties')),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: {},
          permission: editRule,
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = await existing(ctx);
            const input = contactFormInput(ctx.params);
            if (!saving(ctx))
              return ok(present({ id: doc.id, slug: doc.slug, ...previewContactForm(doc, input) }, 'config'));
            const outcome = await updateContactForm(site, doc.id, input, ctx.actor as Actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const saved = await writtenContactForm(site, doc.id, outcome.position);
            if (!saved) throw restErrorOf(new NotFound('contactForm'));
            return ok(present(saved, 'config'));
          },
        },
        {
          methods: ['DELETE'],
          args: {},
          permission: editRule,
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = await existing(ctx);
            const outcome = await deleteContactForm(site, doc.id, ctx.actor as Actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok({ deleted: true });
          },
        },
      ],
    },
    {
      namespace: CONTACT_FORM_NAMESPACE,
      path: `${ITEM}/feedback`,
      endpoints: [
        {
          methods: ['POST'],
          args: {},
          permission: allowEveryone,
          handle: async (ctx) => {
            // Compared as sent (case included), as the form plug-in does.
            if (!headerText(ctx.request.headers['content-type']).startsWith('multipart/form-data')) {
              throw restError('wpcf7_unsupported_media_type', 'The request payload format is not supported.', 415);
            }
            const form = await existing(ctx);
            const fields = await formFields(ctx);
            // Version 5.6 answers a missing unit tag like any other submission (later versions refuse it with 400).
            const unitTag = sanitizeUnitTag(ctx.params._wpcf7_unit_tag);
            const outcome = await submitFeedback(
              site,
              form,
              {
                posted: { ...ctx.params, ...fields },
                unitTag,
                userAgent: headerText(ctx.request.headers['user-agent']),
                signedIn: ctx.actor !== null,
                remoteIp: ctx.request.ip ?? '',
              },
              ctx.actor,
              ctx.request.requestId,
            );
            return ok({
              contact_form_id: form.id,
              status: outcome.status,
              message: outcome.message,
              invalid_fields: outcome.invalidFields,
              posted_data_hash: outcome.postedDataHash,
              into: `#${unitTag}`,
              ...(outcome.demoMode ? { demo_mode: true } : {}),
            });
          },
        },
      ],
    },
    {
      namespace: CONTACT_FORM_NAMESPACE,
      path: `${ITEM}/refill`,
      endpoints: [
        {
          methods: ['GET'],
          args: {},
          permission: allowEveryone,
          // Only quiz and captcha fields have anything to refill, and neither is supported.
          handle: async (ctx) => {
            await existing(ctx);
            return ok([]);
          },
        },
      ],
    },
  ];
}

/**
 * The submitted fields with PHP's reading of repeated `name[]` parts (a list), which the generic form
 * parsing flattens to the last value; checkboxes and multiple selects post their choices that way.
 */
async function formFields(ctx: HandlerContext): Promise<Record<string, unknown>> {
  const lists = ctx.request.multipartFields;
  if (lists)
    return listedFields(
      Object.entries(lists).flatMap(([key, values]) => values.map((value): [string, string] => [key, value])),
    );
  const body = ctx.request.rawBody;
  if (!body || body.length === 0) return {};
  const parsed = await new Response(body, {
    headers: { 'content-type': headerText(ctx.request.headers['content-type']) },
  })
    .formData()
    .catch(() => null);
  if (!parsed) return {};
  return listedFields([...parsed.entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function listedFields(entries: readonly [string, string][]): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) {
    if (isUnsafeKey(key.endsWith('[]') ? key.slice(0, -2) : key)) continue;
    if (key.endsWith('[]')) {
      const name = key.slice(0, -2);
      const list = Array.isArray(fields[name]) ? (fields[name] as string[]) : [];
      fields[name] = [...list, value];
    } else fields[key] = value;
  }
  return fields;
}

/** Every form by default, by id ascending; `per_page`, `offset`, `order`, `orderby` and `search` as a post query takes them. */
/** A page size or offset as a count: PHP's integers reach past JavaScript's exact ones, and no list is that long. */
const countable = (n: number): number => Math.min(Math.abs(n), Number.MAX_SAFE_INTEGER);

function listOptions(params: Record<string, unknown>) {
  let limit: number | null = null;
  if (phpTruthy(params.per_page)) {
    const perPage = phpInt(params.per_page);
    // A post query shows the site's default page size for 0, and every item for -1.
    limit = perPage === 0 ? 10 : perPage === -1 ? null : countable(perPage);
  }
  const offset = limit !== null && phpTruthy(params.offset) ? countable(phpInt(params.offset)) : 0;
  const order = phpTruthy(params.order) ? (String(params.order).toUpperCase() === 'ASC' ? 'asc' : 'desc') : 'asc';
  const orderby = phpTruthy(params.orderby) ? String(params.orderby) : 'ID';
  const field: Record<string, string> = {
    ID: 'id',
    title: 'title',
    post_title: 'title',
    name: 'slug',
    post_name: 'slug',
    date: 'date',
    post_date: 'date',
    modified: 'modified',
    post_modified: 'modified',
  };
  // An order the query does not know falls back to the date.
  const sortOrder: Order = { kind: 'field', field: field[orderby] ?? 'date', direction: order };
  const search = typeof params.search === 'string' && phpTruthy(params.search) ? params.search.trim() : '';
  return { limit, offset, order: sortOrder, search };
}

/** The form as the write at `position` left it, for the write's answer (also while its projection rebuilds). */
function writtenContactForm(site: Site, id: number, position: number): Promise<ContactFormDoc | null> {
  return readWritten<ContactFormDoc>(site, {
    projection: 'contact-forms',
    collection: CONTACT_FORM_COLLECTION,
    id,
    stream: contactFormStreamId(id),
    position,
  });
}
