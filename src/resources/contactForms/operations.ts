/**
 * Contact-form operations, callable without HTTP: the effects a decision needs (an id from the shared content
 * sequence, the slug claim, sending mail) happen here, around the pure deciders and the pure feedback check.
 */
import { randomUUID } from 'node:crypto';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import type { Filter, Order } from '../../ports/readModel';
import { formatLocal } from '../../text/dates';
import { sanitizeSlug } from '../../text/slug';
import { CONTACT_FORM_COLLECTION } from '../../../projections/contactForms';
import type { ContactFormDoc } from '../../../projections/contactForms';
import { contactFormDecider, mergeContactForm, submissionDecider } from './decider';
import type { ContactFormCommand, ContactFormState } from './decider';
import { contactFormStreamId, submissionStreamId } from './events';
import type { ContactFormFields, ContactFormSubmitted, SubmissionStatus } from './events';
import { composeMail, evaluateSubmission, postedDataHash } from './feedback';
import type { Evaluation, InvalidField, Submission } from './feedback';
import { DEFAULT_LOCALE, DEFAULT_TITLE, defaultProperties } from './properties';
import type { ContactFormInput } from './properties';

/** Slugs are unique among contact forms (posts of type `wpcf7_contact_form`). */
const SLUG_SCOPE = 'wpcf7_contact_form';

export interface ContactFormWriteOutcome {
  id: number;
  state: ContactFormState;
  position: number;
}

/** A form not (yet) saved: what a write without `context=save` answers with. */
export type UnsavedForm = Pick<ContactFormFields, 'title' | 'locale' | 'properties'>;

export async function readContactFormDoc(site: Site, id: number): Promise<ContactFormDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return (await site.readModel.get(CONTACT_FORM_COLLECTION, id)) as ContactFormDoc | null;
}

/** The template a new form starts from. */
export const newFormDefaults = (): UnsavedForm => ({
  title: DEFAULT_TITLE,
  locale: DEFAULT_LOCALE,
  properties: defaultProperties(),
});

/** A write's result without storing it. */
export const previewContactForm = (current: UnsavedForm, input: ContactFormInput): UnsavedForm =>
  mergeContactForm(current, input);

const now = (site: Site) => formatLocal(site.clock.now(), site.settings.timezone);

function* slugCandidates(base: string): Iterable<string> {
  yield base;
  for (let n = 2; ; n++) yield `${base}-${n}`;
}

export async function createContactForm(
  site: Site,
  input: ContactFormInput,
  actor: Actor,
  requestId: string,
): Promise<ContactFormWriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const id = await site.ids.content.nextId();
  const defaults = newFormDefaults();
  const title = input.title ?? defaults.title;
  let claimed: string | null = null;
  const prepare = async (): Promise<ContactFormCommand> => {
    claimed ??= await site.claims.claimFirstFree(
      SLUG_SCOPE,
      slugCandidates(sanitizeSlug(title) || String(id)),
      id,
      metadata,
    );
    return { kind: 'create', id, slug: claimed, input, defaults, actorId: actor.id, now: now(site) };
  };
  try {
    const result = await site.commands.handle(contactFormStreamId(id), contactFormDecider, prepare, metadata);
    return { id, state: result.state, position: result.position };
  } catch (error) {
    if (claimed !== null) await site.claims.release(SLUG_SCOPE, claimed, id, metadata);
    throw error;
  }
}

export async function updateContactForm(
  site: Site,
  id: number,
  input: ContactFormInput,
  actor: Actor,
  requestId: string,
): Promise<ContactFormWriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const result = await site.commands.handle(
    contactFormStreamId(id),
    contactFormDecider,
    async (): Promise<ContactFormCommand> => ({ kind: 'update', id, input, now: now(site) }),
    metadata,
  );
  return { id, state: result.state, position: result.position };
}

export async function deleteContactForm(
  site: Site,
  id: number,
  actor: Actor,
  requestId: string,
): Promise<ContactFormWriteOutcome> {
  const metadata = site.metadata(actor.id, requestId);
  const result = await site.commands.handle(
    contactFormStreamId(id),
    contactFormDecider,
    { kind: 'delete', id },
    metadata,
  );
  const deleted = result.events[0]?.data as { slug?: string } | undefined;
  if (deleted?.slug) await site.claims.release(SLUG_SCOPE, deleted.slug, id, metadata);
  return { id, state: result.state, position: result.position };
}

export interface ListOptions {
  /** null: every form. */
  limit: number | null;
  offset: number;
  order: Order;
  search: string;
}

export async function listContactForms(site: Site, options: ListOptions): Promise<ContactFormDoc[]> {
  const filters: Filter[] = [];
  const terms = options.search.split(/\s+/).filter((term) => term !== '');
  if (terms.length > 0) filters.push({ kind: 'text', fields: ['title', 'content'], includes: terms, excludes: [] });
  const { items } = await site.readModel.query(CONTACT_FORM_COLLECTION, {
    filters,
    order: options.order,
    offset: options.offset,
    limit: options.limit,
  });
  return items as ContactFormDoc[];
}

// --- feedback --------------------------------------------------------------------------------------------------

export interface FeedbackOutcome {
  status: SubmissionStatus;
  message: string;
  invalidFields: InvalidField[];
  postedDataHash: string;
  demoMode: boolean;
  position: number;
}

/**
 * Judges a submission, sends its mails through the site's Mailer when it passes (a mailer failure is
 * `mail_failed`), and records it as a `ContactFormSubmitted` event on its own stream.
 */
export async function submitFeedback(
  site: Site,
  form: ContactFormDoc,
  submission: Submission & { remoteIp: string },
  actor: Actor | null,
  requestId: string,
): Promise<FeedbackOutcome> {
  const evaluation: Evaluation = evaluateSubmission(form.properties, submission);
  let status: SubmissionStatus;
  let message = evaluation.message;
  if (evaluation.status !== 'ready') status = evaluation.status;
  else {
    const sent = evaluation.skipMail ? true : await sendMails(site, form, evaluation, submission);
    status = sent ? 'mail_sent' : 'mail_failed';
    message = form.properties.messages[sent ? 'mail_sent_ok' : 'mail_sent_ng'] ?? '';
  }
  const id = randomUUID();
  const event: ContactFormSubmitted = {
    submission: id,
    formId: form.id,
    status,
    postedData: evaluation.postedData,
    invalidFields: evaluation.invalidFields.map((field) => field.field),
    unitTag: submission.unitTag,
    mailSkipped: evaluation.skipMail,
    remoteIp: submission.remoteIp,
    userAgent: submission.userAgent,
  };
  const metadata = site.metadata(actor?.id ?? null, requestId);
  const result = await site.commands.handle(
    submissionStreamId(id),
    submissionDecider,
    { kind: 'record', submission: event },
    metadata,
  );
  const hashed = status === 'mail_sent' || status === 'mail_failed';
  return {
    status,
    message,
    invalidFields: evaluation.invalidFields,
    postedDataHash: hashed ? postedDataHash(evaluation.postedData, site.settings.authSecret) : '',
    demoMode: evaluation.demoMode,
    position: result.position,
  };
}

/** The form's mail, then its second mail when active; false as soon as the mailer refuses one. */
async function sendMails(
  site: Site,
  form: ContactFormDoc,
  evaluation: Evaluation,
  submission: Submission & { remoteIp: string },
): Promise<boolean> {
  const host = new URL(site.settings.siteUrl).hostname;
  const context = {
    siteTitle: site.settings.name,
    siteUrl: site.settings.siteUrl,
    adminEmail: `wordpress@${host}`,
    remoteIp: submission.remoteIp,
    userAgent: submission.userAgent,
  };
  const templates = [form.properties.mail, ...(form.properties.mail_2.active === true ? [form.properties.mail_2] : [])];
  for (const template of templates) {
    try {
      await site.mailer.send(composeMail(template, form.properties, evaluation.postedData, context));
    } catch {
      return false;
    }
  }
  return true;
}
