/** Whether a start replays the whole log into memory (serve then lets V8 grow the heap as it will until caught up). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openSite } from '../../src/bootstrap';
import { loadConfig } from '../../src/config';
import { replaysWholeLogIntoMemory } from '../../src/main';
import { ensureDefaultCategory } from '../../src/resources/terms/operations';

const test = suite('start-up replay of the whole log');

test('a data folder without a snapshot replays; after a clean stop (snapshot written) it does not; Redis never', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-replay-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '8080' });
  try {
    const first = await openSite(config);
    assert.is(await replaysWholeLogIntoMemory(first, config), true, 'an empty data folder');
    assert.is(
      await replaysWholeLogIntoMemory(first, { ...config, redisUrl: 'redis://127.0.0.1:6379' }),
      false,
      'a Redis read model is not the heap',
    );
    await first.startProjector();
    await ensureDefaultCategory(first);
    await first.close();
    assert.ok(fs.existsSync(path.join(dataDir, 'read-model.snapshot')), 'the clean stop wrote a snapshot');

    const second = await openSite(config);
    assert.is(await replaysWholeLogIntoMemory(second, config), false, 'the snapshot was loaded');
    await second.startProjector();
    await second.close();

    fs.rmSync(path.join(dataDir, 'read-model.snapshot'));
    const third = await openSite(config);
    assert.is(await replaysWholeLogIntoMemory(third, config), true, 'the snapshot deleted: the log is replayed');
    await third.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
