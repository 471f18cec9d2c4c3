/**
 * Why the domain rejects a command, in its own terms: which rule was broken, about what, with the details a message
 * needs. No HTTP status and no WordPress error code lives here; the REST edge (src/rest/domainErrors.ts) answers
 * each of these as WordPress answers the same refusal.
 */

/** The kinds of thing a command is about (an aggregate, or a part of one with its own identity). */
export type Subject =
  | 'post'
  | 'attachment'
  | 'attachmentFile'
  | 'autosave'
  | 'comment'
  | 'term'
  | 'menu'
  | 'menuItem'
  | 'user'
  | 'applicationPassword'
  | 'contactForm'
  | 'submission'
  | 'globalStyles'
  | 'settings'
  | 'webhook'
  | 'webhookDelivery';

/** The rule a refused command broke: stable, so the edge and the tests can rely on it. */
export type DomainErrorCode =
  | 'not_found'
  | 'already_exists'
  | 'invalid_transition'
  | 'forbidden'
  | 'invalid_value'
  | 'nothing_changed'
  | 'cannot_process'
  | 'not_permitted'
  | 'concurrent_change';

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;

  constructor(message: string) {
    // A refusal is an answer, not a fault: like a RestError, it captures no stack.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
}

/**
 * The command names something that does not exist (never did, was deleted, or is of another kind). `as` says how it
 * was named: as the subject addressed itself, or as the parent of what is addressed (an item's autosaves).
 */
export class NotFound extends DomainError {
  override readonly name = 'NotFound';
  readonly code = 'not_found';

  constructor(
    readonly subject: Subject,
    readonly as: 'itself' | 'parent' = 'itself',
  ) {
    super(as === 'parent' ? `no such parent ${subject}` : `no such ${subject}`);
  }
}

/**
 * What the command would create is already there: the same `id` (the stream exists), or another one with the same
 * `name`, `slug`, `email` or `content` (a user's name is their login; an attachment file's, every free name tried).
 * `existingId` names the other one when it is known; `value` is the name or slug that clashed; `scope` says where
 * names must be unique (among siblings under one parent, or in a whole taxonomy); `operation` says whether a create
 * or an update was refused, where WordPress answers the two apart (a user's email).
 */
export class AlreadyExists extends DomainError {
  override readonly name = 'AlreadyExists';
  readonly code = 'already_exists';

  constructor(
    readonly subject: Subject,
    readonly by: 'id' | 'name' | 'slug' | 'email' | 'content',
    readonly details: {
      existingId?: number;
      value?: string;
      scope?: 'parent' | 'taxonomy';
      operation?: 'create' | 'update';
    } = {},
  ) {
    super(`a ${subject} with this ${by} already exists`);
  }
}

/** The subject's state does not allow the change (trashing what is already in the trash). */
export class InvalidTransition extends DomainError {
  override readonly name = 'InvalidTransition';
  readonly code = 'invalid_transition';

  constructor(
    readonly subject: Subject,
    readonly from: string,
    readonly to: string,
  ) {
    super(`a ${subject} cannot go from ${from} to ${to}`);
  }
}

/**
 * A rule of the site forbids the command whatever its values: the default category is never deleted
 * (`defaultTerm`), a writer waits between comments (`flood`), the deployment owns a setting (`ownedByDeployment`,
 * with the setting as `field`).
 */
export class ForbiddenByRule extends DomainError {
  override readonly name = 'ForbiddenByRule';
  readonly code = 'forbidden';

  constructor(
    readonly subject: Subject,
    readonly rule: 'defaultTerm' | 'flood' | 'ownedByDeployment',
    readonly field?: string,
  ) {
    super(`the ${rule} rule forbids this change to a ${subject}${field === undefined ? '' : ` (${field})`}`);
  }
}

/**
 * A value the command carries breaks a rule: `fields` are the ones at fault (in the order they are reported).
 * - `required`, `empty`: missing, or nothing but whitespace;
 * - `tooLong`: longer than the subject keeps;
 * - `unparsable`: not a value of its type (a date, an email address, a username of the allowed characters);
 * - `outOfRange`: outside the range kept (a date before year one, a log position past `details.limit`);
 * - `unknownReference`: names something that does not exist (or not where it must be);
 * - `unsupportedType`: a file of a type the site does not take (`details.upload` says how it was sent: as a form's
 *   file or as the whole body);
 * - `conflicting`: the fields sent together exclude each other;
 * - `conflictsWithCurrent`: the field sent is excluded by the subject's current state.
 */
export class InvalidValue extends DomainError {
  override readonly name = 'InvalidValue';
  readonly code = 'invalid_value';

  constructor(
    readonly subject: Subject,
    readonly fields: readonly [string, ...string[]],
    readonly rule:
      | 'required'
      | 'empty'
      | 'tooLong'
      | 'unparsable'
      | 'outOfRange'
      | 'unknownReference'
      | 'unsupportedType'
      | 'conflicting'
      | 'conflictsWithCurrent',
    readonly details: { limit?: number; upload?: 'form' | 'body' } = {},
  ) {
    super(`invalid ${subject} ${fields.join(', ')}: ${rule}`);
  }
}

/** The command would record nothing new: an autosave of the very text the item holds. */
export class NothingChanged extends DomainError {
  override readonly name = 'NothingChanged';
  readonly code = 'nothing_changed';

  constructor(
    readonly subject: Subject,
    readonly change: 'autosave',
  ) {
    super(`the ${change} would change nothing of the ${subject}`);
  }
}

/**
 * The subject's content cannot be worked as asked: an image the editor cannot `load` (not an image after all, or
 * over the pixel limit), or whose `rotate` or `crop` fails.
 */
export class CannotProcess extends DomainError {
  override readonly name = 'CannotProcess';
  readonly code = 'cannot_process';

  constructor(
    readonly subject: Subject,
    readonly step: 'load' | 'rotate' | 'crop',
  ) {
    super(`cannot ${step} this ${subject}`);
  }
}

/**
 * The actor lacks the right to `action` the subject: read its history (`postType` names its type), its autosaves or
 * its revisions, or edit it. `signedIn` tells a caller who signed in and falls short from one who did not sign in
 * (the edge answers the first as refused, the second as asked to sign in).
 */
export class NotPermitted extends DomainError {
  override readonly name = 'NotPermitted';
  readonly code = 'not_permitted';

  constructor(
    readonly subject: Subject,
    readonly action: 'readHistory' | 'readAutosaves' | 'readRevisions' | 'edit',
    readonly signedIn: boolean,
    readonly details: { postType?: string } = {},
  ) {
    super(`${signedIn ? 'this user' : 'an anonymous caller'} may not ${action} this ${subject}`);
  }
}

/** Others kept changing the stream while the command was decided, more times than a command is retried. */
export class ConcurrentChange extends DomainError {
  override readonly name = 'ConcurrentChange';
  readonly code = 'concurrent_change';

  constructor(readonly streamId: string) {
    super(`${streamId} kept changing while the command was decided`);
  }
}
