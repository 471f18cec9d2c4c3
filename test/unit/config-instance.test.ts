/** SITE_INSTANCE: which of the two described sites this is. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config';

test('SITE_INSTANCE defaults to first and accepts second', () => {
  assert.is(loadConfig({}, '/tmp').instance, 'first');
  assert.is(loadConfig({ SITE_INSTANCE: '' }, '/tmp').instance, 'first');
  assert.is(loadConfig({ SITE_INSTANCE: 'second' }, '/tmp').instance, 'second');
});

test('any other SITE_INSTANCE is a configuration error', () => {
  assert.throws(
    () => loadConfig({ SITE_INSTANCE: 'third' }, '/tmp'),
    (error: unknown) => error instanceof ConfigError && /SITE_INSTANCE/.test((error as Error).message),
  );
});

test.run();
