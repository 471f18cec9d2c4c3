#!/usr/bin/env node
// The `palimpsest` command: runs the CLI compiled to JavaScript (bin/build.js builds it first when the sources
// changed), on plain node without a TypeScript loader.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from './build.js';

const built = await ensureBuilt();
const { main } = await import(pathToFileURL(path.join(built, 'src', 'cli', 'index.js')).href);
process.exitCode = await main(process.argv.slice(2));
