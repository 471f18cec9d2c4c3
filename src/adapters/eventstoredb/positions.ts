/**
 * Positions in `$all`. EventStoreDB names a place in its log with two unsigned 64-bit numbers, the commit and the
 * prepare position, both byte offsets into the transaction log (so they grow with gaps). Every event written by a
 * gRPC append commits itself, and for such an event both numbers are the offset where its record starts. The port
 * uses one number, so the adapter uses that offset, the commit position, as the port's position and rebuilds the
 * pair from it as `{commit: n, prepare: n}`.
 *
 * - Order: offsets grow in commit order, so the number orders events exactly as `$all` does.
 * - Range: a number is exact below 2^53 bytes (8 PiB of log); past that the mapping refuses rather than round.
 * - JSON: the number is the only form a position leaves the adapter in, so checkpoints stored as JSON survive.
 * - Events from explicit transactions (the old TCP API) commit after their prepares and share a commit position;
 *   one number cannot tell them apart, so the mapping refuses them instead of skipping or repeating events.
 */

export interface EsdbPosition {
  commit: bigint;
  prepare: bigint;
}

export class PositionMappingError extends Error {
  override readonly name = 'PositionMappingError';
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** The port's position of an event EventStoreDB reported. */
export function toPortPosition(position: EsdbPosition | undefined): number {
  if (position === undefined) {
    throw new PositionMappingError(
      'EventStoreDB reported no position for an event (older servers omit it in stream reads)',
    );
  }
  const { commit, prepare } = position;
  if (commit !== prepare) {
    throw new PositionMappingError(
      `The event at commit ${commit} / prepare ${prepare} was written in an explicit transaction; its position has no single-number form`,
    );
  }
  if (commit < 0n || commit > MAX_EXACT)
    throw new PositionMappingError(`Position ${commit} is outside the exact range of a number`);
  return Number(commit);
}

/** The EventStoreDB position the port's `position` stands for. */
export function toEsdbPosition(position: number): EsdbPosition {
  if (!Number.isSafeInteger(position) || position < 0)
    throw new RangeError(`A position is a non-negative safe integer; got ${position}`);
  const offset = BigInt(position);
  return { commit: offset, prepare: offset };
}
