/**
 * A feedback submission judged against its form, as the form plug-in does, without side effects: the
 * logged-in-only setting, field validation from the form-tags, acceptance boxes, the spam check, then (when
 * all pass) the mails to send. The operation sends them through the Mailer and records the outcome.
 */
import { createHmac } from 'node:crypto';
import type { MailMessage } from '../../ports/mailer';
import type { ContactFormProperties, MailTemplate, SubmissionStatus } from './events';
import { hasOption, idOption, isRequired, lengthLimits, optionValue, scanFormTags } from './formTags';
import type { FormTag } from './formTags';
import { DEFAULT_MESSAGES, SUBSCRIBERS_ONLY_MESSAGE, settingIsOn } from './properties';

export interface Submission {
  /** Every parameter of the request (form fields and the hidden `_wpcf7*` ones). */
  posted: Record<string, unknown>;
  /** The sanitised unit tag (may be empty). */
  unitTag: string;
  userAgent: string;
  signedIn: boolean;
}

export interface InvalidField {
  field: string;
  message: string;
  idref: string | null;
  error_id: string;
}

export interface Evaluation {
  /** `ready` means every check passed: the mails are to be sent (or skipped) next. */
  status: Exclude<SubmissionStatus, 'mail_sent' | 'mail_failed'> | 'ready';
  message: string;
  invalidFields: InvalidField[];
  /** The values of the form's fields. */
  postedData: Record<string, string | string[]>;
  /** `demo_mode: on`: answered as sent, nothing mailed, and the answer says so. */
  demoMode: boolean;
  /** `skip_mail: on` (or demo mode): answered as sent, nothing mailed. */
  skipMail: boolean;
}

/** What a unit tag keeps: letters, digits, `_` and `-`. */
export const sanitizeUnitTag = (value: unknown): string =>
  typeof value === 'string' ? value.replace(/[^A-Za-z0-9_-]/g, '') : '';

const MULTIPLE = new Set(['checkbox', 'select', 'radio']);

/** A posted value as text (arrays, from `name[]`, give their values). */
function postedValue(tag: FormTag, raw: unknown): string | string[] {
  if (MULTIPLE.has(tag.basetype)) {
    const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
    return list
      .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
      .map(String)
      .filter((v) => v !== '');
  }
  return typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : '';
}

const ALLOWED_SCHEMES = new Set([
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

export const isEmail = (value: string): boolean =>
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(
    value,
  );
export const isUrl = (value: string): boolean => {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  return scheme !== undefined && ALLOWED_SCHEMES.has(scheme);
};
export const isTel = (value: string): boolean =>
  /^[+]?(?:\([0-9]+\)|[0-9]+)(?:[/ -]*(?:\([0-9]+\)|[0-9]+))*$/.test(value.trim());
export const isNumber = (value: string): boolean => /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(value);

/** The first problem with one field's value, as a message key, or null. */
function fieldProblem(tag: FormTag, value: string | string[], acceptanceAsValidation: boolean): string | null {
  const required = isRequired(tag);
  if (Array.isArray(value)) return required && value.length === 0 ? 'invalid_required' : null;
  switch (tag.basetype) {
    case 'acceptance':
      if (!acceptanceAsValidation || hasOption(tag, 'optional')) return null;
      return accepted(tag, value) ? null : 'accept_terms';
    case 'number':
    case 'range': {
      const text = value.replace(/\n/g, ' ').trim();
      if (text === '') return required ? 'invalid_required' : null;
      if (!isNumber(text)) return 'invalid_number';
      const min = optionValue(tag, 'min', /^-?\d+(?:\.\d+)?$/);
      const max = optionValue(tag, 'max', /^-?\d+(?:\.\d+)?$/);
      if (min !== null && Number(text) < Number(min)) return 'number_too_small';
      if (max !== null && Number(text) > Number(max)) return 'number_too_large';
      return null;
    }
    default: {
      // Text fields lose line breaks and surrounding blanks; a textarea keeps what was typed.
      const text = tag.basetype === 'textarea' ? value : value.replace(/\n/g, ' ').trim();
      if (text === '') return required ? 'invalid_required' : null;
      if (tag.basetype === 'email' && !isEmail(text)) return 'invalid_email';
      if (tag.basetype === 'url' && !isUrl(text)) return 'invalid_url';
      if (tag.basetype === 'tel' && !isTel(text)) return 'invalid_tel';
      // Lengths in UTF-16 code units, as the browser's maxlength counts, with CRLF as one break.
      const length = text.replace(/\r\n/g, '\n').length;
      const { min, max } = lengthLimits(tag);
      if (max !== null && length > max) return 'invalid_too_long';
      if (min !== null && length < min) return 'invalid_too_short';
      return null;
    }
  }
}

/** A ticked acceptance box is accepted; with `invert`, an unticked one is. */
const accepted = (tag: FormTag, value: string): boolean => (value !== '') !== hasOption(tag, 'invert');

export function evaluateSubmission(properties: ContactFormProperties, submission: Submission): Evaluation {
  const settings = properties.additional_settings;
  const message = (key: string) => properties.messages[key] ?? DEFAULT_MESSAGES[key] ?? '';
  const tags = scanFormTags(properties.form).filter((tag) => tag.basetype !== 'submit');
  const postedData: Record<string, string | string[]> = {};
  for (const tag of tags) postedData[tag.name] = postedValue(tag, submission.posted[tag.name]);
  const demoMode = settingIsOn(settings, 'demo_mode');
  const base = {
    postedData,
    demoMode,
    skipMail: demoMode || settingIsOn(settings, 'skip_mail'),
    invalidFields: [] as InvalidField[],
  };

  if (settingIsOn(settings, 'subscribers_only') && !submission.signedIn)
    return { ...base, status: 'error', message: SUBSCRIBERS_ONLY_MESSAGE };

  const acceptanceAsValidation = settingIsOn(settings, 'acceptance_as_validation');
  const invalidFields: InvalidField[] = [];
  const seen = new Set<string>();
  for (const tag of tags) {
    if (seen.has(tag.name)) continue;
    const problem = fieldProblem(tag, postedData[tag.name]!, acceptanceAsValidation);
    if (problem === null) continue;
    seen.add(tag.name);
    invalidFields.push({
      field: tag.name,
      message: message(problem),
      idref: idOption(tag),
      error_id: `${submission.unitTag}-ve-${tag.name.replace(/\./g, '_')}`,
    });
  }
  if (invalidFields.length > 0)
    return { ...base, status: 'validation_failed', message: message('validation_error'), invalidFields };

  if (!acceptanceAsValidation) {
    const missing = tags.some(
      (tag) =>
        tag.basetype === 'acceptance' && !hasOption(tag, 'optional') && !accepted(tag, postedData[tag.name] as string),
    );
    if (missing) return { ...base, status: 'acceptance_missing', message: message('accept_terms') };
  }
  // The plug-in's own spam rule: a browser always sends a user agent of some length.
  if (submission.userAgent.length < 2) return { ...base, status: 'spam', message: message('spam') };
  return { ...base, status: 'ready', message: '' };
}

/** The answer's `posted_data_hash`: a keyed digest of the posted values (only sent and failed mails have one). */
export const postedDataHash = (postedData: Record<string, string | string[]>, key: string): string =>
  createHmac('md5', key).update(JSON.stringify(postedData)).digest('hex');

export interface MailContext {
  siteTitle: string;
  siteUrl: string;
  adminEmail: string;
  remoteIp: string;
  userAgent: string;
}

/**
 * A mail template with its mail-tags replaced: `[field]` by the posted value (choices joined by `, `, piped
 * choices by their mailed part), `[_site_title]`-style special tags by the site's. Unknown tags stay as written.
 */
export function composeMail(
  template: MailTemplate,
  properties: ContactFormProperties,
  postedData: Record<string, string | string[]>,
  context: MailContext,
): MailMessage {
  const tags = new Map(scanFormTags(properties.form).map((tag) => [tag.name, tag]));
  const special: Record<string, string> = {
    _site_title: context.siteTitle,
    _site_url: context.siteUrl,
    _site_admin_email: context.adminEmail,
    _remote_ip: context.remoteIp,
    _user_agent: context.userAgent,
  };
  const replace = (text: string) =>
    text.replace(/\[\s*([A-Za-z_][-0-9A-Za-z:._]*)\s*\]/g, (whole, name: string) => {
      if (Object.hasOwn(special, name)) return special[name]!;
      if (!Object.hasOwn(postedData, name)) return whole;
      const value = postedData[name]!;
      const tag = tags.get(name);
      const mailed = (v: string) => tag?.pipes.find(([before]) => before === v)?.[1] ?? v;
      return Array.isArray(value) ? value.map(mailed).join(', ') : mailed(value);
    });
  return {
    to: replace(template.recipient),
    from: replace(template.sender),
    subject: replace(template.subject),
    body: replace(template.body),
    additionalHeaders: replace(template.additional_headers),
    html: template.use_html,
  };
}
