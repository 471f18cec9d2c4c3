/**
 * A commit as COMMIT (lua/commit.lua) takes it: the checks made before it is sent (a Lua error part-way would not
 * roll back), its arguments, one section per projection's commit, and its refusals as StaleCommitError.
 */
import type { Redis } from 'ioredis';
import { StaleCommitError } from '../../ports/readModel';
import type { Commit } from '../../ports/readModel';
import type { PreparedCommit, PreparedWrite } from '../commit';
import { cesu8, KeyParts, ord } from './keys';
import { COMMIT_SCRIPT, run } from './scripts';
import type { Token } from './scripts';
import { distinctTokens } from './text';

export const staleCommit = (error: unknown): StaleCommitError | null => {
  if (!(error instanceof Error) || !error.message.startsWith('STALE ')) return null;
  const reason = error.message.startsWith('STALE fence')
    ? 'fence'
    : error.message.startsWith('STALE checkpoint')
      ? 'checkpoint'
      : 'generation';
  return new StaleCommitError(reason, error.message.slice(6));
};

/**
 * The key layout's version, stored in every checkpoint: a checkpoint of another layout reads as version -1, so
 * the projector rebuilds the projection into a new generation (2: text indexed by tokens instead of trigrams, and
 * C:k holding order members; 3: no posting sets or vocabulary entries for tokens under MIN_TOKEN_BYTES, empty texts
 * not stored in C:x; 4: index entries name their partition fields instead of listing their partition members).
 */
export const LAYOUT = 4;

export const checkpointJson = (prepared: PreparedCommit) => JSON.stringify({ ...prepared.checkpoint, layout: LAYOUT });

/** Checked before a commit is sent (a Lua error part-way would not roll back). */
export function checkTokens(commit: Commit): void {
  const { generation, fence } = commit;
  if (generation !== undefined && !(Number.isSafeInteger(generation) && generation >= 0))
    throw new RangeError('generation must be a non-negative integer');
  if (fence !== undefined && !Number.isSafeInteger(fence)) throw new RangeError('fence must be an integer');
  const expected = commit.expectedPosition;
  if (expected !== undefined && expected !== null && !(Number.isSafeInteger(expected) && expected >= 0))
    throw new RangeError('expectedPosition must be null or a non-negative integer');
}

/** One projection's part of a COMMIT call. */
export interface CommitSection {
  prepared: PreparedCommit;
  writes: readonly PreparedWrite[];
  /** The checkpoint's JSON, '' to leave it (a bulk commit's earlier steps). */
  checkpoint: string;
  generation?: number;
  fence?: number;
  expectedPosition?: number | null;
}

/** COMMIT's arguments for the sections (see lua/commit.lua). */
export function commitArgs(
  prefix: Buffer,
  sections: readonly CommitSection[],
  bulk: boolean,
  /** Told each text column's distinct tokens (a bulk commit adds their postings itself). */
  onTokens?: (write: PreparedWrite, column: string, tokens: string[]) => void,
): Token[] {
  const args: Token[] = [prefix, bulk ? '1' : '', String(sections.length)];
  const parts = new KeyParts();
  for (const { prepared, writes, checkpoint, generation, fence, expectedPosition } of sections) {
    args.push(
      cesu8(prepared.name),
      checkpoint,
      generation === undefined ? '' : String(generation),
      fence === undefined ? '' : String(fence),
      expectedPosition === undefined ? '' : expectedPosition === null ? '-' : String(expectedPosition),
      String(writes.length),
    );
  }
  for (const { writes } of sections) {
    for (const write of writes) {
      args.push(parts.name(write.collection), ord(write.id));
      if (write.json === undefined) {
        args.push('D');
        continue;
      }
      const { sort, sets, text } = write.entry;
      args.push('P', write.json, String(sort.size));
      for (const [field, key] of sort) args.push(parts.name(field), ord(key));
      let suffixes = 0;
      for (const values of sets.values()) suffixes += values.length;
      args.push(String(suffixes));
      for (const [field, values] of sets) for (const v of values) args.push(parts.setSuffix(field, v));
      args.push(String(text.size));
      for (const [column, value] of text) {
        const lowered = value.toLowerCase();
        const tokens = distinctTokens(lowered);
        onTokens?.(write, column, tokens);
        // A token never holds a space, so the script splits them again on spaces.
        args.push(parts.name(column), cesu8(lowered), cesu8(tokens.join(' ')));
      }
      args.push(String(write.entry.partitions.length));
      for (const field of write.entry.partitions) args.push(parts.name(field));
    }
  }
  return args;
}

export async function runCommit(redis: Redis, args: Token[]): Promise<unknown> {
  try {
    return await run(redis, COMMIT_SCRIPT, args);
  } catch (error) {
    throw staleCommit(error) ?? error;
  }
}
