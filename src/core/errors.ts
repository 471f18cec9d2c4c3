/**
 * Why the domain rejects a command, in its own terms: which rule was broken, about what, with the details a message
 * needs. No HTTP status and no WordPress error code lives here; the REST edge (src/rest/domainErrors.ts) answers
 * each of these as WordPress answers the same refusal.
 */

/** The kinds of thing a command is about (an aggregate, or a part of one with its own identity). */
export type Subject =
  | 'post'
  | 'attachment'
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

/** The command names something that does not exist (never did, was deleted, or is of another kind). */
export class NotFound extends DomainError {
  override readonly name = 'NotFound';
  readonly code = 'not_found';

  constructor(readonly subject: Subject) {
    super(`no such ${subject}`);
  }
}

/**
 * What the command would create is already there: the same `id` (the stream exists), or another one with the same
 * `name`, `slug` or `content`. `existingId` names the other one when it is known; `value` is the name or slug
 * that clashed; `scope` says where names must be unique (among siblings under one parent, or in a whole taxonomy).
 */
export class AlreadyExists extends DomainError {
  override readonly name = 'AlreadyExists';
  readonly code = 'already_exists';

  constructor(
    readonly subject: Subject,
    readonly by: 'id' | 'name' | 'slug' | 'content',
    readonly details: { existingId?: number; value?: string; scope?: 'parent' | 'taxonomy' } = {},
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
 * - `unparsable`, `outOfRange`: not a value of its type, or one before the range kept (dates);
 * - `unknownReference`: names something that does not exist (or not where it must be);
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
      | 'conflicting'
      | 'conflictsWithCurrent',
  ) {
    super(`invalid ${subject} ${fields.join(', ')}: ${rule}`);
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
