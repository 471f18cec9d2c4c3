/**
 * The REST edge's reading of the domain's refusals (src/core/errors.ts): each one answered with the code, message,
 * status and data WordPress 6.1 answers for the same refusal. The tables are keyed by the domain error's kind and
 * subject (and, for invalid values, the fields and rule); a refusal missing from them is a bug and answers a 500.
 */
import {
  AlreadyExists,
  CannotProcess,
  ConcurrentChange,
  DomainError,
  ForbiddenByRule,
  InvalidTransition,
  InvalidValue,
  NotFound,
  NotPermitted,
  NothingChanged,
  type Subject,
} from '../core/errors';
import { RestError, restError } from './errors';

type Answer = readonly [code: string, message: string, status: number];

const NOT_FOUND: Partial<Record<Subject, Answer>> = {
  post: ['rest_post_invalid_id', 'Invalid post ID.', 404],
  attachment: ['rest_post_invalid_id', 'Invalid post ID.', 404],
  menuItem: ['rest_post_invalid_id', 'Invalid post ID.', 404],
  comment: ['rest_comment_invalid_id', 'Invalid comment ID.', 404],
  term: ['rest_term_invalid', 'Term does not exist.', 404],
  menu: ['rest_term_invalid', 'Term does not exist.', 404],
  user: ['rest_user_invalid_id', 'Invalid user ID.', 404],
  applicationPassword: ['rest_application_password_not_found', 'Application password not found.', 404],
  contactForm: ['wpcf7_not_found', 'The requested contact form was not found.', 404],
  globalStyles: ['rest_global_styles_not_found', 'No global styles config exist with that id.', 404],
  webhook: ['rest_webhook_invalid_id', 'Invalid webhook ID.', 404],
  autosave: ['rest_post_no_autosave', 'There is no autosave revision for this post.', 404],
  attachmentFile: ['rest_unknown_attachment', 'Unable to get meta information for file.', 404],
};

/** Not found as the parent of what the command addresses (an item's autosaves or revisions). */
const PARENT_NOT_FOUND: Partial<Record<Subject, Answer>> = {
  post: ['rest_post_invalid_parent', 'Invalid post parent ID.', 404],
  menuItem: ['rest_post_invalid_parent', 'Invalid post parent ID.', 404],
};

/** Creating over an existing stream. */
const EXISTING_ID: Partial<Record<Subject, Answer>> = {
  post: ['rest_post_exists', 'Cannot create existing post.', 400],
  attachment: ['rest_post_exists', 'Cannot create existing post.', 400],
  menuItem: ['rest_post_exists', 'Cannot create existing post.', 400],
  comment: ['rest_comment_exists', 'Cannot create existing comment.', 400],
  term: ['rest_term_exists', 'Cannot create existing term.', 400],
  menu: ['rest_term_exists', 'Cannot create existing term.', 400],
  user: ['existing_user_login', 'Sorry, that username already exists!', 400],
  contactForm: ['wpcf7_post_exists', 'Cannot create existing contact form.', 400],
  submission: ['wpcf7_submission_exists', 'This submission has already been recorded.', 409],
};

/** Another one with the same name, slug or email, `subject.by`, where the answer needs no details. */
const EXISTING_OTHER: Partial<Record<string, Answer>> = {
  'user.name': ['existing_user_login', 'Sorry, that username already exists!', 400],
  'user.slug': ['rest_user_invalid_slug', 'Invalid slug.', 400],
  'applicationPassword.name': ['application_password_duplicate_name', 'Each application name should be unique.', 409],
  'comment.content': [
    'comment_duplicate',
    'Duplicate comment detected; it looks as though you&#8217;ve already said that!',
    409,
  ],
  // Every free name was tried: WordPress's own upload handling fails this way too, as an unknown error.
  'attachmentFile.name': ['rest_upload_unknown_error', 'Could not find a free file name.', 500],
};

/** WordPress's user insertion refuses a taken email on create; its REST update checks it first, as a bad value. */
const EXISTING_EMAIL: Record<'create' | 'update', Answer> = {
  create: ['existing_user_email', 'Sorry, that email address is already used!', 400],
  update: ['rest_user_invalid_email', 'Invalid email address.', 400],
};

const ALREADY_IN: Partial<Record<Subject, Partial<Record<string, Answer>>>> = {
  post: { trash: ['rest_already_trashed', 'The post has already been deleted.', 410] },
  comment: { trash: ['rest_already_trashed', 'The comment has already been trashed.', 410] },
};

/** Other refused transitions, `subject.from>to`. */
const TRANSITIONS: Partial<Record<string, Answer>> = {
  'webhookDelivery.notDeadLettered>redelivered': [
    'rest_webhook_delivery_not_dead_lettered',
    'Only the delivery that stopped the webhook can be redelivered.',
    409,
  ],
};

/** `subject.rule`. */
const FORBIDDEN: Partial<Record<string, Answer>> = {
  'term.defaultTerm': ['rest_cannot_delete', 'Sorry, you are not allowed to delete this term.', 403],
  'comment.flood': ['comment_flood', 'You are posting comments too quickly. Slow down.', 400],
};

/** `subject.fields.rule`, the fields joined with commas. Posts and attachments share theirs. */
const INVALID_VALUE: Partial<Record<string, Answer>> = {
  'comment.content.empty': ['rest_comment_content_invalid', 'Invalid comment content.', 400],
  'comment.author_name,author_email.required': [
    'rest_comment_author_data_required',
    'Creating a comment requires valid author name and email values.',
    400,
  ],
  // Stricter than WordPress, which keeps any parent id (see docs/compatibility.md).
  'comment.parent.unknownReference': [
    'rest_comment_invalid_parent',
    'The parent comment must exist on the same post.',
    400,
  ],
  'post.date.outOfRange': ['invalid_date', 'Invalid date.', 400],
  'post.sticky,password.conflicting': ['rest_invalid_field', 'A post can not be sticky and have a password.', 400],
  'post.password.conflictsWithCurrent': ['rest_invalid_field', 'A sticky post can not be password protected.', 400],
  'post.sticky.conflictsWithCurrent': [
    'rest_invalid_field',
    'A password protected post can not be set to sticky.',
    400,
  ],
  'post.title,content,excerpt.empty': ['empty_content', 'Content, title, and excerpt are empty.', 400],
  // WordPress's term insertion reports this without a status (a 500 with `data` null): bad input here, a 400.
  'term.name.empty': ['empty_term_name', 'A name is required for this term.', 400],
  'menu.name.empty': ['empty_term_name', 'A name is required for this term.', 400],
  'menuItem.object.unknownReference': ['rest_post_invalid_type', 'Invalid post type.', 400],
  'menuItem.title.required': ['rest_title_required', 'The title is required when using a custom menu item type.', 400],
  'menuItem.url.required': ['rest_url_required', 'The url is required when using a custom menu item type.', 400],
  'menuItem.menu.unknownReference': ['invalid_menu_id', 'Invalid menu ID.', 400],
  'term.parent.unknownReference': ['rest_term_invalid', 'Parent term does not exist.', 400],
  'comment.author.unknownReference': ['rest_comment_author_invalid', 'Invalid comment author ID.', 400],
  // WordPress's user insertion reports these without a status (a 500 with `data` null): bad input here, a 400.
  'user.login.empty': ['empty_user_login', 'Cannot create a user with an empty login name.', 400],
  'user.login.tooLong': ['user_login_too_long', 'Username may not be longer than 60 characters.', 400],
  'user.slug.tooLong': ['user_nicename_too_long', 'Nicename may not be longer than 50 characters.', 400],
  'user.url.tooLong': ['user_url_too_long', 'User URL may not be longer than 100 characters.', 400],
  'user.login.unparsable': [
    'invalid_username',
    'This username is invalid because it uses illegal characters. Please enter a valid username.',
    400,
  ],
  'user.email.unparsable': ['invalid_email', 'Invalid email address.', 400],
  'applicationPassword.name.empty': [
    'application_password_empty_name',
    'An application name is required to create an application password.',
    400,
  ],
};

/** `subject.change`. */
const NOTHING_CHANGED: Partial<Record<string, Answer>> = {
  'post.autosave': [
    'rest_autosave_no_changes',
    'There is nothing to save. The autosave and the post content are the same.',
    400,
  ],
  'menuItem.autosave': [
    'rest_autosave_no_changes',
    'There is nothing to save. The autosave and the post content are the same.',
    400,
  ],
};

/** `subject.step`. WordPress answers a failed rotation or crop as its own failure, a 500. */
const CANNOT_PROCESS: Partial<Record<string, Answer>> = {
  'attachment.load': ['rest_unknown_image_file_type', 'Unable to edit this image.', 400],
  'attachment.rotate': ['rest_image_rotation_failed', 'Unable to rotate this image.', 500],
  'attachment.crop': ['rest_image_crop_failed', 'Unable to crop this image.', 500],
};

/** `subject.action`: the code and message; the status is the caller's (see notPermitted). */
const NOT_PERMITTED: Partial<Record<string, readonly [code: string, message: string]>> = {
  'menuItem.readAutosaves': ['rest_cannot_read', 'Sorry, you are not allowed to view autosaves of this post.'],
  'menuItem.readRevisions': ['rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.'],
  'menuItem.edit': ['rest_cannot_edit', 'Sorry, you are not allowed to edit this post.'],
};

/** The columns of WordPress's comments table, whose names its length errors carry (`comment_author_column_length`). */
const COMMENT_COLUMNS: Partial<Record<string, string>> = {
  author_name: 'comment_author',
  author_email: 'comment_author_email',
  author_url: 'comment_author_url',
  content: 'comment_content',
};

/** `term_exists` carries the existing term's id twice more, as WordPress's `additional_data`. */
class TermExistsError extends RestError {
  constructor(
    message: string,
    readonly termId: number,
  ) {
    super('term_exists', message, { status: 400, term_id: termId });
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), additional_data: [this.termId, this.termId] };
  }
}

/** WordPress refuses a second menu of the same name, naming the existing one as `additional_data` too. */
class MenuExistsError extends RestError {
  constructor(
    name: string,
    readonly menuId: number,
  ) {
    super(
      'menu_exists',
      `The menu name <strong>${name}</strong> conflicts with another menu name. Please try another.`,
      { status: 400, term_id: menuId },
    );
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), additional_data: [this.menuId] };
  }
}

/** A parameter refused by its value's meaning: the parameter named, with why, under `params`. */
const refusedParam = (param: string, message: string): RestError =>
  restError('rest_invalid_param', `Invalid parameter(s): ${param}`, 400, { params: { [param]: message } });

/** An invalid parameter as WordPress's argument validation reports it: the parameter's own error under `details`. */
function invalidParam(param: string, code: string, message: string): RestError {
  return restError('rest_invalid_param', `Invalid parameter(s): ${param}`, 400, {
    params: { [param]: message },
    details: { [param]: { code, message, data: null } },
  });
}

const answered = (answer: Answer | undefined): RestError | null => (answer ? restError(...answer) : null);

function alreadyExists(error: AlreadyExists): RestError | null {
  const { subject, by, details } = error;
  if (by === 'id') return answered(EXISTING_ID[subject]);
  if (subject === 'user' && by === 'email') return answered(EXISTING_EMAIL[details.operation ?? 'create']);
  if (subject === 'term' && by === 'name' && details.existingId !== undefined) {
    const where = details.scope === 'parent' ? 'with this parent' : 'in this taxonomy';
    return new TermExistsError(`A term with the name provided already exists ${where}.`, details.existingId);
  }
  if (subject === 'term' && by === 'slug') {
    return restError(
      'duplicate_term_slug',
      `The slug &#8220;${details.value ?? ''}&#8221; is already in use by another term.`,
      400,
    );
  }
  if (subject === 'menu' && by === 'name' && details.existingId !== undefined)
    return new MenuExistsError(details.value ?? '', details.existingId);
  return answered(EXISTING_OTHER[`${subject}.${by}`]);
}

function forbidden(error: ForbiddenByRule): RestError | null {
  if (error.subject === 'settings' && error.rule === 'ownedByDeployment' && error.field !== undefined) {
    const variable = error.field === 'url' ? 'SITE_URL' : 'SITE_TIMEZONE';
    return invalidParam(
      error.field,
      'rest_setting_read_only',
      `${error.field} is set by the deployment (${variable}) and cannot be changed here.`,
    );
  }
  return answered(FORBIDDEN[`${error.subject}.${error.rule}`]);
}

function invalidValue(error: InvalidValue): RestError | null {
  const subject = error.subject === 'attachment' ? 'post' : error.subject;
  const [field] = error.fields;
  if (subject === 'post' && error.rule === 'unparsable' && error.fields.length === 1)
    return invalidParam(field, 'rest_invalid_date', 'Invalid date.');
  if (subject === 'comment' && error.rule === 'tooLong' && COMMENT_COLUMNS[field] !== undefined) {
    return restError(`${COMMENT_COLUMNS[field]}_column_length`, 'Comment field exceeds maximum length allowed.', 400);
  }
  if (subject === 'post' && field === 'file' && error.rule === 'unsupportedType') {
    // Under the code of the path the file came by. WordPress answers it 500; it is the client's input, so 400.
    const code = error.details.upload === 'form' ? 'rest_upload_unknown_error' : 'rest_upload_sideload_error';
    return restError(code, 'Sorry, you are not allowed to upload this file type.', 400);
  }
  if (subject === 'webhook' && field === 'from_position' && error.rule === 'outOfRange')
    return refusedParam(field, `from_position is beyond the end of the log (${error.details.limit ?? ''}).`);
  if (subject === 'webhook' && field === 'from_position' && error.rule === 'unknownReference')
    return refusedParam(field, 'from_position is not a position of the log.');
  if (subject === 'menuItem' && error.rule === 'required' && error.fields.length > 1) {
    // A custom link missing both its title and its url reports both, the url as an additional error.
    const [first, ...others] = error.fields.map((one) => INVALID_VALUE[`menuItem.${one}.required`]);
    const refusal = answered(first);
    for (const other of others) if (other && refusal) refusal.also(other[0], other[1], { status: other[2] });
    return refusal;
  }
  return answered(INVALID_VALUE[`${subject}.${error.fields.join(',')}.${error.rule}`]);
}

/** 401 for a caller who did not sign in, 403 for one who did, as rest_authorization_required_code() decides. */
function notPermitted(error: NotPermitted): RestError | null {
  const status = error.signedIn ? 403 : 401;
  if (error.action === 'readHistory') {
    const type = error.details.postType ?? error.subject;
    return restError('rest_cannot_read', `Sorry, you are not allowed to view the history of this ${type}.`, status);
  }
  const answer = NOT_PERMITTED[`${error.subject}.${error.action}`];
  return answer ? restError(answer[0], answer[1], status) : null;
}

/** The WordPress error answering a domain refusal. */
export function restErrorOf(error: DomainError): RestError {
  let refusal: RestError | null = null;
  if (error instanceof NotFound)
    refusal = answered((error.as === 'parent' ? PARENT_NOT_FOUND : NOT_FOUND)[error.subject]);
  else if (error instanceof AlreadyExists) refusal = alreadyExists(error);
  else if (error instanceof InvalidTransition) {
    refusal = answered(
      ALREADY_IN[error.subject]?.[error.from === error.to ? error.to : ''] ??
        TRANSITIONS[`${error.subject}.${error.from}>${error.to}`],
    );
  } else if (error instanceof ForbiddenByRule) refusal = forbidden(error);
  else if (error instanceof InvalidValue) refusal = invalidValue(error);
  else if (error instanceof NothingChanged) refusal = answered(NOTHING_CHANGED[`${error.subject}.${error.change}`]);
  else if (error instanceof CannotProcess) refusal = answered(CANNOT_PROCESS[`${error.subject}.${error.step}`]);
  else if (error instanceof NotPermitted) refusal = notPermitted(error);
  else if (error instanceof ConcurrentChange) {
    refusal = restError(
      'rest_conflict',
      'The item was changed by another request at the same time. Please try again.',
      409,
    );
  }
  if (refusal === null) throw new Error(`no REST answer for the domain error ${error.name}: ${error.message}`);
  return refusal;
}

/** What a thrown value is answered with when it is a refusal (a RestError, or a domain error mapped to one); null for a fault. */
export function answerableError(error: unknown): RestError | null {
  if (error instanceof RestError) return error;
  if (error instanceof DomainError) return restErrorOf(error);
  return null;
}
