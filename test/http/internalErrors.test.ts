/**
 * A failure that is not a RestError (a bug, a broken adapter) is answered with WordPress's critical-error answer:
 * a 500 JSON error with the API's headers, never koa's plain-text 500, whether the step that failed threw or rejected.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import type { DocId, ReadModel } from '../../src/ports/readModel';
import { logger } from '../../src/logger';
import { createApp } from '../../src/app';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

const test = suite('internal errors');
/** Post ids whose read throws (`peek`, a synchronous read) and rejects (`get`). */
const THROWS = 4242;
const REJECTS = 4243;
let t: TestSite;
let logged: unknown[];
const logError = logger.error;

/** The memory read model, failing to read post THROWS (`peek` throws) and post REJECTS (`get` rejects). */
function brokenReadModel(): ReadModel {
  const inner = createMemoryReadModel();
  const post = (collection: string, id: DocId, which: number) => collection === 'post' && id === which;
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'peek')
        return (collection: string, id: DocId) => {
          if (post(collection, id, THROWS)) throw new Error('the read model threw');
          // Not at hand: read with `get`.
          if (post(collection, id, REJECTS)) return undefined;
          return target.peek!(collection, id);
        };
      if (property === 'get')
        return async (collection: string, id: DocId) => {
          if (post(collection, id, REJECTS)) throw new Error('the read model rejected');
          return target.get(collection, id);
        };
      return Reflect.get(target, property, target);
    },
  });
}

test.before.each(async () => {
  logged = [];
  // What the app logs as failed requests (pino's error level), kept instead of written.
  logger.error = ((entry: unknown) => void logged.push(entry)) as typeof logger.error;
  t = await startTestSite({ readModel: brokenReadModel(), responseCache: { entries: 0 } });
});
test.after.each(async () => {
  logger.error = logError;
  await t.close();
});

test('a read that throws or rejects is a WordPress 500, logged, with the API headers', async () => {
  for (const [when, id] of [
    ['throws', THROWS],
    ['rejects', REJECTS],
  ] as const) {
    const answer = await t.request('GET', `/core/v2/posts/${id}`);
    assert.is(answer.status, 500, when);
    assert.equal(
      answer.body,
      {
        code: 'internal_server_error',
        message: 'There has been a critical error on this site.',
        data: { status: 500 },
      },
      when,
    );
    assert.is(answer.headers.get('content-type'), 'application/json; charset=UTF-8', when);
    assert.is(answer.headers.get('x-content-type-options'), 'nosniff', when);
  }
  assert.equal(
    logged.map((entry) => String((entry as { err: Error }).err.message)),
    ['the read model threw', 'the read model rejected'],
  );
  // Other posts are read as ever.
  assert.is((await t.request('GET', '/core/v2/posts/1')).status, 404);
});

test("koa's errors: a client gone and koa's own refusals are not logged; anything else is, as JSON", () => {
  const { koa } = createApp(t.site);
  const failure = (props: Record<string, unknown>) => Object.assign(new Error('failed'), props);
  for (const code of ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE'])
    koa.emit('error', failure({ code }));
  koa.emit('error', failure({ status: 404 }));
  koa.emit('error', failure({ status: 400, expose: true }));
  assert.equal(logged, []);
  const broken = failure({ code: 'EMFILE' });
  koa.emit('error', broken);
  assert.equal(logged, [{ err: broken }]);
});

test.run();
