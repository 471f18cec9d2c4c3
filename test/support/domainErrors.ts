/** Asserts a decision refused with a domain error, of the given code and with the given fields (subject, rule…). */
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/core/errors';

export function rejectsWith(
  fn: () => unknown,
  expected: { code: DomainError['code'] } & Record<string, unknown>,
): DomainError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, DomainError);
    const actual = Object.fromEntries(
      Object.keys(expected).map((key) => [key, (error as unknown as Record<string, unknown>)[key]]),
    );
    assert.equal(actual, expected);
    return error as DomainError;
  }
  return assert.unreachable(`expected ${JSON.stringify(expected)}`) as never;
}
