/**
 * Events of contact forms (`contact-form-{id}`; a form is a post of type `wpcf7_contact_form`, so its id comes
 * from the shared content sequence) and of feedback submissions (`contact-form-submission-{uuid}`, one stream
 * per submission, so busy forms never contend). Who and when are in the metadata; docs/events.md is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

/** One mail template of a form (`mail`, `mail_2`): mail-tags such as `[your-name]` are replaced when sent. */
export interface MailTemplate {
  active?: boolean;
  subject: string;
  sender: string;
  body: string;
  recipient: string;
  additional_headers: string;
  attachments: string;
  use_html: boolean;
  exclude_blank: boolean;
}

/** What a form is made of, as stored. */
export interface ContactFormProperties {
  /** The form template: HTML with form-tags such as `[email* your-email]`. */
  form: string;
  mail: MailTemplate;
  mail_2: MailTemplate;
  /** Message texts by key (`mail_sent_ok`, `invalid_required`…). */
  messages: Record<string, string>;
  /** `name: value` lines. */
  additional_settings: string;
}

export interface ContactFormFields {
  title: string;
  /** Unique among contact forms; fixed at creation, as a saved form keeps its post name. */
  slug: string;
  locale: string;
  properties: ContactFormProperties;
  author: number;
  /** Site-local creation and modification times (`YYYY-MM-DDTHH:MM:SS`). */
  date: string;
  modified: string;
}

export interface ContactFormCreated {
  id: number;
  form: ContactFormFields;
}

export interface ContactFormUpdated {
  id: number;
  /** Only what changed, plus `modified`. */
  changes: Partial<Omit<ContactFormFields, 'slug' | 'author' | 'date'>>;
}

export interface ContactFormDeleted {
  id: number;
  slug: string;
}

/** How a submission ended (the feedback response's `status`). */
export const SUBMISSION_STATUSES = [
  'mail_sent',
  'mail_failed',
  'validation_failed',
  'acceptance_missing',
  'spam',
  'aborted',
  'error',
] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

export interface ContactFormSubmitted {
  /** The submission's own id (its stream). */
  submission: string;
  /** The form submitted. */
  formId: number;
  status: SubmissionStatus;
  /** The values of the form's own fields, as posted (hidden `_wpcf7*` fields and unknown fields are not kept). */
  postedData: Record<string, string | string[]>;
  /** Names of the fields that failed validation. */
  invalidFields: string[];
  unitTag: string;
  /** True when the form is in demo mode or skips mail: nothing was handed to the mailer. */
  mailSkipped: boolean;
  /** The submitter's address and user agent, as the form plug-in records them. */
  remoteIp: string;
  userAgent: string;
}

export type ContactFormEvent =
  | DomainEvent<'ContactFormCreated', ContactFormCreated>
  | DomainEvent<'ContactFormUpdated', ContactFormUpdated>
  | DomainEvent<'ContactFormDeleted', ContactFormDeleted>;

export type SubmissionEvent = DomainEvent<'ContactFormSubmitted', ContactFormSubmitted>;

export const CONTACT_FORM_EVENT_TYPES = ['ContactFormCreated', 'ContactFormUpdated', 'ContactFormDeleted'] as const;
export const contactFormStreamId = (id: number): string => `contact-form-${id}`;
export const submissionStreamId = (submission: string): string => `contact-form-submission-${submission}`;
