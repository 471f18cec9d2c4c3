/**
 * Reads the block patterns a deployment gives (BLOCK_PATTERNS_DIR): every `*.json` file of the directory, in name
 * order, each `{"categories": [...], "patterns": [...]}` (either may be left out). A file that is not such JSON
 * stops the start with a message naming it and what is wrong, rather than serving half a library.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Ajv from 'ajv';
import { mergeLibraries } from './library';
import type { BlockPatternLibrary } from './library';

const strings = { type: 'array', items: { type: 'string' } };

const FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    categories: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'label'],
        properties: {
          name: { type: 'string', minLength: 1 },
          label: { type: 'string' },
          description: { type: 'string' },
        },
      },
    },
    patterns: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'title', 'content'],
        properties: {
          name: { type: 'string', minLength: 1 },
          title: { type: 'string' },
          content: { type: 'string' },
          description: { type: 'string' },
          viewport_width: { type: 'number', minimum: 0 },
          block_types: strings,
          post_types: strings,
          categories: strings,
          keywords: strings,
          inserter: { type: 'boolean' },
        },
      },
    },
  },
};

const validate = new Ajv({ allErrors: false }).compile<BlockPatternLibrary>(FILE_SCHEMA);

export class BlockPatternsError extends Error {}

/** The library of the directory's files. */
export async function loadBlockPatterns(dir: string): Promise<BlockPatternLibrary> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new BlockPatternsError(`BLOCK_PATTERNS_DIR ${dir}: ${(error as Error).message}`);
  }
  const libraries: BlockPatternLibrary[] = [];
  for (const name of names)
    libraries.push(parseLibrary(await fs.readFile(path.join(dir, name), 'utf8'), path.join(dir, name)));
  return mergeLibraries(libraries);
}

/** One file's library; `source` names it in errors. */
export function parseLibrary(text: string, source: string): BlockPatternLibrary {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BlockPatternsError(`${source}: not JSON (${(error as Error).message})`);
  }
  if (!validate(value)) {
    const [issue] = validate.errors ?? [];
    throw new BlockPatternsError(
      `${source}: ${issue ? `${issue.instancePath || '/'} ${issue.message}` : 'not a block pattern library'}`,
    );
  }
  return { categories: value.categories ?? [], patterns: value.patterns ?? [] };
}
