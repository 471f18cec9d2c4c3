/**
 * `palimpsest projections rebuild`, exactly as the CLI runs it, then an explicit exit: with REDIS_URL the
 * CLI leaves its Redis connection open (the site's close does not quit the client bootstrap made), so
 * bin/palimpsest.js would not exit on its own.
 */
import { main } from '../src/cli/index';

process.exit(await main(['projections', 'rebuild']));
