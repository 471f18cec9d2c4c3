#!/usr/bin/env node
// The `palimpsest` command: loads the TypeScript sources through tsx, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
process.exitCode = await main(process.argv.slice(2));
