/** WEBHOOK_ALLOWED_HOSTS and WEBHOOK_DEAD_LETTER_AFTER_SECONDS. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config';

test('by default no host is allowed and a delivery is dead-lettered after three days', () => {
  const { webhooks } = loadConfig({}, '/tmp');
  assert.equal(webhooks, { allowedHosts: [], deadLetterAfterMs: 3 * 24 * 3600 * 1000 });
});

test('the allow-list and the bound are read from the environment', () => {
  const { webhooks } = loadConfig(
    { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1, hooks.internal:8443', WEBHOOK_DEAD_LETTER_AFTER_SECONDS: '90' },
    '/tmp',
  );
  assert.is(webhooks.allowedHosts.length, 2);
  assert.equal(webhooks.allowedHosts[1], { kind: 'name', name: 'hooks.internal', port: 8443 });
  assert.is(webhooks.deadLetterAfterMs, 90_000);
});

test('an entry that cannot be read is a configuration error naming the variable', () => {
  assert.throws(
    () => loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'host:99999' }, '/tmp'),
    (error: unknown) => error instanceof ConfigError && /^WEBHOOK_ALLOWED_HOSTS/.test((error as Error).message),
  );
});

test.run();
