/**
 * The Redis read model's Lua scripts: the files of lua/, read once when this module loads, and run by EVALSHA.
 * Redis runs Lua 5.1: locals only (globals are refused), no integer division, 1-based arrays.
 *
 * A script file is sent as it is written but for two substitutions, made here at load time and nowhere else:
 *   --#include <name>   (a whole line) is replaced by the text of lua/<name>.lua, a fragment shared by several
 *                        scripts (common, vocabulary, partitionPage); a fragment includes nothing itself;
 *   ${NAME}             is replaced by the constant NAME of CONSTANTS below, a value the scripts share with the
 *                        TypeScript that prepares their arguments (the text index's token limits).
 * An include of a missing fragment, an unknown constant, or an include inside a fragment throws when this module
 * loads, so a typo stops the start instead of reaching Redis.
 *
 * The files are read from the lua/ folder beside this module: src/readModel/redis/lua/ when the sources run (tsx),
 * dist/<build>/src/readModel/redis/lua/ when the build runs (bin/build.js copies every .lua file of src/ there).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { LONG_TOKEN_BYTES, LONG_TOKENS, MIN_TOKEN_BYTES } from './text';

/** A script argument: key parts and encoded values are bytes, the rest text. */
export type Token = Buffer | string;

const LUA_DIR = new URL('./lua/', import.meta.url);

const CONSTANTS: Readonly<Record<string, string>> = {
  LONG_TOKENS,
  LONG_TOKEN_BYTES: String(LONG_TOKEN_BYTES),
  MIN_TOKEN_BYTES: String(MIN_TOKEN_BYTES),
};

const INCLUDE = /^--#include (\S+)$/gm;
const INCLUDES = /^--#include /m;
const CONSTANT = /\$\{([^}]*)\}/g;

const read = (file: string): string => readFileSync(new URL(`${file}.lua`, LUA_DIR), 'utf8');

/** The script lua/<file>.lua with its includes and constants substituted (see the header). */
function load(file: string): string {
  const included = read(file).replace(INCLUDE, (_, fragment: string) => {
    const text = read(fragment);
    if (INCLUDES.test(text))
      throw new Error(`lua/${fragment}.lua, included by lua/${file}.lua, includes another fragment`);
    return text.endsWith('\n') ? text.slice(0, -1) : text;
  });
  return included.replace(CONSTANT, (_, constant: string) => {
    const value = CONSTANTS[constant];
    if (value === undefined) throw new Error(`lua/${file}.lua names an unknown constant \${${constant}}`);
    return value;
  });
}

export class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

export const COMMIT_SCRIPT = new Script(load('commit'));
export const BULK_VOCABULARY_SCRIPT = new Script(load('bulkVocabulary'));
export const PROMOTE_SCRIPT = new Script(load('promote'));
export const STAGE_SCRIPT = new Script(load('stage'));
export const RESERVE_SCRIPT = new Script(load('reserve'));
export const ADD_ONE_SCRIPT = new Script(load('addOne'));
export const QUERY_SCRIPT = new Script(load('query'));
/** Sent by EVAL: run by hand (`palimpsest projections sweep`), so rarely that caching it would gain nothing. */
export const SWEEP_PLAN_SCRIPT = new Script(load('sweepPlan'));

/** EVALSHA; after a SCRIPT FLUSH or a restart, one EVAL puts the script back in the cache. */
export async function run(connection: Redis, script: Script, args: Token[]): Promise<unknown> {
  try {
    return await connection.evalsha(script.sha, 0, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return connection.eval(script.source, 0, ...args);
  }
}
