/**
 * A second process for the SQLite event-store tests:
 *
 *   node --import tsx test/support/sqliteAppender.ts <file> <streamId> <count>
 *
 * Appends <count> events to <streamId> one at a time and prints `acknowledged <revision> <position>` as soon as
 * each append has resolved, so the parent knows exactly what was acknowledged when it kills this process.
 */
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore';

const [file, streamId, count] = process.argv.slice(2);
if (!file || !streamId || !count) throw new Error('usage: sqliteAppender.ts <file> <streamId> <count>');

const store = openSqliteEventStore({ file });
for (let n = 0; n < Number(count); n++) {
  const { nextExpectedRevision, position } = await store.appendToStream(
    streamId,
    [
      {
        type: 'Appended',
        data: { n, pid: process.pid },
        metadata: { userId: null, requestId: `appender-${process.pid}`, at: new Date().toISOString() },
      },
    ],
    { expectedRevision: 'any' },
  );
  // Writes to a pipe are synchronous on POSIX, so once this returns the parent can read the line.
  process.stdout.write(`acknowledged ${nextExpectedRevision} ${position}\n`);
}
await store.close();
