/**
 * Sweeping the Redis read model of generations nobody uses (`palimpsest projections sweep`). Such keys are left by a
 * rebuild whose process died part-way (its staged generation), by a process that died within the grace between a
 * switch and the deletion of the generation it retired, and by a bulk write that landed after its generation was
 * replaced. Nothing else deletes them. See readModel.ts for the keys, lua/sweepPlan.lua for the plan, docs/operations.md
 * for when to run it.
 *
 * What is kept: every live generation (of a projection, of a collection), every staged generation whose build lease
 * (`gen:building:<G>`) is held, every generation retired less than `retiredGraceMs` ago (readers that have not yet
 * heard of the switch may still read it), and every generation numbered above the counter as the sweep read it (one
 * staged since). A staged generation without its lease is un-staged first, in the same script that reads what is
 * kept, so its builder, if it was only stalled, can commit nothing more into it (its commits are refused as stale).
 * Keys are found with SCAN (never KEYS) and deleted with UNLINK, a page at a time.
 */
import type { Redis } from 'ioredis';
import { generationOfKey } from './generationKeys';
import { cesu8, globEscape } from './keys';
import { SWEEP_PLAN_SCRIPT } from './scripts';

export interface SweepOptions {
  redis: Redis;
  prefix: string;
  /** A generation retired less than this long ago is kept (ms; default 60 s, well past the 5 s a switch waits). */
  retiredGraceMs?: number;
  /** Report what would go, deleting nothing. */
  dryRun?: boolean;
}

export interface SweepReport {
  /** Staged generations found without a build lease (their builder died), un-staged. */
  unstaged: { projection: string; generation: number }[];
  /** The generations whose keys were deleted (or would be, in a dry run), ascending. */
  generations: number[];
  /** How many keys were deleted (or would be). */
  keys: number;
}

const COLON = 0x3a;

/** A collection's name (its bytes as stored) as its keys spell it (keys.ts's `name`: '%' and ':' escaped), as latin1. */
function keyName(collection: Buffer): string {
  const out: number[] = [];
  for (const x of collection) {
    if (x === 0x25) out.push(0x25, 0x32, 0x35);
    else if (x === COLON) out.push(0x25, 0x33, 0x41);
    else out.push(x);
  }
  return Buffer.from(out).toString('latin1');
}

export async function sweepGenerations(options: SweepOptions): Promise<SweepReport> {
  const { redis } = options;
  const prefix = cesu8(options.prefix);
  const dryRun = options.dryRun === true;
  const reply = (await redis.callBuffer('EVAL', [
    SWEEP_PLAN_SCRIPT.source,
    0,
    prefix,
    String(options.retiredGraceMs ?? 60_000),
    dryRun ? '1' : '0',
  ])) as [Buffer, Buffer[], Buffer[], Buffer[]];
  const [seqReply, keptReply, collectionsReply, unstagedReply] = reply;
  const counter = Number(seqReply.toString());
  const kept = new Set(keptReply.map((g) => Number(g.toString())));
  // Generation 0 has no number in its keys: a collection's are orphaned once another generation of it is live.
  const liveOfCollection = new Map<string, number>();
  for (let i = 0; i < collectionsReply.length; i += 2)
    liveOfCollection.set(keyName(collectionsReply[i]!), Number(collectionsReply[i + 1]!.toString()));
  const unstaged: SweepReport['unstaged'] = [];
  for (let i = 0; i < unstagedReply.length; i += 2)
    unstaged.push({ projection: unstagedReply[i]!.toString(), generation: Number(unstagedReply[i + 1]!.toString()) });

  const orphaned = (generation: number, collection: string): boolean => {
    if (kept.has(generation)) return false;
    if (generation === 0) return (liveOfCollection.get(collection) ?? 0) !== 0;
    // Numbered above the counter as read: staged after the plan, by a builder the plan could not see.
    return generation <= counter;
  };

  const swept = new Set<number>();
  let keys = 0;
  const escaped = globEscape(prefix);
  for (const pattern of [
    Buffer.concat([escaped, Buffer.from('c:*')]),
    Buffer.concat([escaped, Buffer.from('g[0-9]*')]),
  ]) {
    let cursor = '0';
    do {
      const [next, found] = await redis.scanBuffer(cursor, 'MATCH', pattern as unknown as string, 'COUNT', 1000);
      cursor = next.toString();
      const doomed: Buffer[] = [];
      for (const key of found) {
        const parsed = generationOfKey(key, prefix);
        if (parsed === null || !orphaned(parsed.generation, parsed.collection)) continue;
        doomed.push(key);
        swept.add(parsed.generation);
      }
      keys += doomed.length;
      if (doomed.length > 0 && !dryRun) await redis.unlink(...(doomed as unknown as string[]));
    } while (cursor !== '0');
  }
  if (!dryRun) {
    // Retirements past the grace are done with, swept or not (their generation held no keys).
    const retired = await redis.hgetallBuffer(Buffer.concat([prefix, Buffer.from('gen:retired')]) as unknown as string);
    const done = Object.keys(retired).filter((generation) => !kept.has(Number(generation)));
    if (done.length > 0)
      await redis.hdel(Buffer.concat([prefix, Buffer.from('gen:retired')]) as unknown as string, ...done);
  }
  return { unstaged, generations: [...swept].sort((a, b) => a - b), keys };
}
