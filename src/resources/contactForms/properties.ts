/**
 * A contact form's properties: their defaults (a new form's template), how a request's values are taken
 * in, how the REST API shows them, and the configuration check whose findings a write answers with.
 * Pure functions; the site's name and URL come in as arguments.
 */
import type { ContactFormProperties, MailTemplate } from './events';
import { scanFormTags } from './formTags';
import type { FormTag } from './formTags';

export const DEFAULT_TITLE = 'Untitled';
export const DEFAULT_LOCALE = 'en_US';

/** The message texts a new form starts with (they are what clients see, so they match the form plug-in's). */
export const DEFAULT_MESSAGES: Readonly<Record<string, string>> = {
  mail_sent_ok: 'Thank you for your message. It has been sent.',
  mail_sent_ng: 'There was an error trying to send your message. Please try again later.',
  validation_error: 'One or more fields have an error. Please check and try again.',
  spam: 'There was an error trying to send your message. Please try again later.',
  accept_terms: 'You must accept the terms and conditions before sending your message.',
  invalid_required: 'Please fill out this field.',
  invalid_too_long: 'This field has a too long input.',
  invalid_too_short: 'This field has a too short input.',
  invalid_number: 'Please enter a number.',
  number_too_small: 'This field has a too small number.',
  number_too_large: 'This field has a too large number.',
  invalid_email: 'Please enter an email address.',
  invalid_url: 'Please enter a URL.',
  invalid_tel: 'Please enter a telephone number.',
};

/** Answered to anonymous submitters of a form with `subscribers_only: true`. */
export const SUBSCRIBERS_ONLY_MESSAGE = 'This contact form is available only for logged in users.';

/** A new form: name, email, subject and an optional message, mailed to the site. */
export function defaultProperties(siteTitleTag = '[_site_title]'): ContactFormProperties {
  const footer = `-- \nThis e-mail was sent from a contact form on ${siteTitleTag} ([_site_url])`;
  return {
    form: [
      '<label> Your name\n    [text* your-name] </label>',
      '<label> Your email\n    [email* your-email] </label>',
      '<label> Subject\n    [text* your-subject] </label>',
      '<label> Your message (optional)\n    [textarea your-message] </label>',
      '[submit "Submit"]',
    ].join('\n\n'),
    mail: {
      subject: `${siteTitleTag} "[your-subject]"`,
      sender: `${siteTitleTag} <[_site_admin_email]>`,
      body: `From: [your-name] <[your-email]>\nSubject: [your-subject]\n\nMessage Body:\n[your-message]\n\n${footer}`,
      recipient: '[_site_admin_email]',
      additional_headers: 'Reply-To: [your-email]',
      attachments: '',
      use_html: false,
      exclude_blank: false,
    },
    mail_2: {
      active: false,
      subject: `${siteTitleTag} "[your-subject]"`,
      sender: `${siteTitleTag} <[_site_admin_email]>`,
      body: `Message Body:\n[your-message]\n\n${footer}`,
      recipient: '[your-email]',
      additional_headers: 'Reply-To: [_site_admin_email]',
      attachments: '',
      use_html: false,
      exclude_blank: false,
    },
    messages: { ...DEFAULT_MESSAGES },
    additional_settings: '',
  };
}

// --- taking values in ------------------------------------------------------------------------------------------

/** Text as a PHP string cast would give it; arrays and objects give nothing (ignored). */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '';
  return undefined;
}

const truthy = (value: unknown): boolean =>
  value === true ||
  value === 1 ||
  (typeof value === 'string' && value !== '' && value !== '0' && value.toLowerCase() !== 'false');

/** A title as stored: tags stripped, trimmed, never empty. */
export function sanitizeTitle(value: string): string {
  const title = value.replace(/<[^>]*>/g, '').trim();
  return title === '' ? DEFAULT_TITLE : title;
}

/** A locale such as `en_US` or `ja`; anything else means the default. */
export const sanitizeLocale = (value: string): string =>
  /^[a-z]{2,3}(?:_[a-zA-Z_]{2,})?$/.test(value) ? value : DEFAULT_LOCALE;

/** A mail template from a request: every key present, missing ones empty (not the defaults), as the plug-in stores it. */
export function sanitizeMail(input: unknown, withActive: boolean): MailTemplate {
  const source =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const text = (key: string) => (scalarText(source[key]) ?? '').trim();
  return {
    ...(withActive ? { active: truthy(source.active) } : {}),
    subject: text('subject'),
    sender: text('sender'),
    body: scalarText(source.body) ?? '',
    recipient: text('recipient'),
    additional_headers: text('additional_headers'),
    attachments: text('attachments'),
    use_html: truthy(source.use_html),
    exclude_blank: truthy(source.exclude_blank),
  };
}

/** Messages from a request: only known keys, each given one replacing the current text. */
export function mergeMessages(current: Record<string, string>, input: unknown): Record<string, string> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return current;
  const next = { ...current };
  for (const key of Object.keys(next)) {
    const value = scalarText((input as Record<string, unknown>)[key]);
    if (value !== undefined) next[key] = value.replace(/<[^>]*>/g, '');
  }
  return next;
}

/** The writable keys of a create or update request (already sanitised); absent keys are left as they are. */
export interface ContactFormInput {
  title?: string;
  locale?: string;
  form?: string;
  mail?: MailTemplate;
  mail_2?: MailTemplate;
  messages?: unknown;
  additional_settings?: string;
}

/** Reads the writable keys out of request params (no arg schema: the plug-in validates nothing up front). */
export function contactFormInput(params: Record<string, unknown>): ContactFormInput {
  const input: ContactFormInput = {};
  const title = scalarText(params.title);
  if (title !== undefined) input.title = sanitizeTitle(title);
  const locale = scalarText(params.locale);
  if (locale !== undefined) input.locale = sanitizeLocale(locale);
  const form = scalarText(params.form);
  if (form !== undefined) input.form = form;
  if (params.mail !== undefined) input.mail = sanitizeMail(params.mail, true);
  if (params.mail_2 !== undefined) input.mail_2 = sanitizeMail(params.mail_2, true);
  if (params.messages !== undefined) input.messages = params.messages;
  const settings = scalarText(params.additional_settings);
  if (settings !== undefined) input.additional_settings = settings;
  return input;
}

/** The properties a write leaves: the input over the current ones. */
export function applyInput(current: ContactFormProperties, input: ContactFormInput): ContactFormProperties {
  return {
    form: input.form ?? current.form,
    mail: input.mail ?? current.mail,
    mail_2: input.mail_2 ?? current.mail_2,
    messages: input.messages !== undefined ? mergeMessages(current.messages, input.messages) : current.messages,
    additional_settings: input.additional_settings ?? current.additional_settings,
  };
}

// --- additional settings ---------------------------------------------------------------------------------------

/** `name: value` lines, in order; other lines are ignored. */
export function parseAdditionalSettings(content: string): [string, string][] {
  const settings: [string, string][] = [];
  for (const line of content.split(/\r\n|\r|\n/)) {
    const m = /^([a-zA-Z0-9_]+)[\t ]*:(.*)$/.exec(line.trim());
    if (m) settings.push([m[1]!, m[2]!.trim()]);
  }
  return settings;
}

/** Whether a boolean setting is on (its last occurrence wins). */
export function settingIsOn(content: string, name: string): boolean {
  const values = parseAdditionalSettings(content).filter(([key]) => key === name);
  const last = values.at(-1)?.[1].toLowerCase();
  return last === 'on' || last === 'true' || last === '1';
}

// --- presentation ----------------------------------------------------------------------------------------------

const settingValue = (value: string): string | boolean => {
  const lower = value.toLowerCase();
  if (lower === 'on' || lower === 'true') return true;
  if (lower === 'off' || lower === 'false') return false;
  return value;
};

/** The `properties` object of a REST answer. */
export function presentProperties(properties: ContactFormProperties): Record<string, unknown> {
  return {
    form: { content: properties.form, fields: scanFormTags(properties.form).map((tag: FormTag) => ({ ...tag })) },
    mail: properties.mail,
    mail_2: properties.mail_2,
    messages: properties.messages,
    additional_settings: {
      content: properties.additional_settings,
      settings: parseAdditionalSettings(properties.additional_settings).map(([name, value]) => [
        name,
        settingValue(value),
      ]),
    },
  };
}

// --- configuration check ---------------------------------------------------------------------------------------

export interface ConfigError {
  message: string;
  link: string;
}

const MAILBOX_ERROR: ConfigError = {
  message: 'Invalid mailbox syntax is used.',
  link: 'https://contactform7.com/configuration-errors/invalid-mailbox-syntax/',
};

const ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

/** `a@b.example` or `Name <a@b.example>`. */
export function isMailbox(text: string): boolean {
  const trimmed = text.trim();
  const angle = /^[^<>]*<([^<>]+)>$/.exec(trimmed);
  return ADDRESS.test(angle ? angle[1]!.trim() : trimmed);
}

/** A comma-separated list of mailboxes, none empty. */
export const isMailboxList = (text: string): boolean => text.split(',').every((part) => isMailbox(part));

/**
 * The findings of the configuration check, by section (`mail.recipient`…), or `[]` when there are none.
 * Mail-tags are stood in for by a valid address, so only what is written literally is judged.
 */
export function configErrors(properties: ContactFormProperties): Record<string, ConfigError[]> | [] {
  const errors: Record<string, ConfigError[]> = {};
  const standIn = (text: string) => text.replace(/\[\s*[A-Za-z_][-0-9A-Za-z:._]*\s*\]/g, 'example@example.com');
  const check = (section: 'mail' | 'mail_2') => {
    const mail = properties[section];
    if (section === 'mail_2' && mail.active !== true) return;
    if (!isMailbox(standIn(mail.sender))) errors[`${section}.sender`] = [MAILBOX_ERROR];
    if (!isMailboxList(standIn(mail.recipient))) errors[`${section}.recipient`] = [MAILBOX_ERROR];
  };
  check('mail');
  check('mail_2');
  return Object.keys(errors).length === 0 ? [] : errors;
}
