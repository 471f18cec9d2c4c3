/**
 * The client's address: the socket's peer, or, through proxies named in TRUSTED_PROXIES, the rightmost
 * X-Forwarded-For entry that is not a trusted proxy; and TRUSTED_PROXIES as configuration reads it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { clientAddressOf, compileTrustedProxies } from '../../src/http/clientAddress';
import { ConfigError, loadConfig } from '../../src/config';

const test = suite('client address');

/** A request as far as the address is concerned: its socket's peer and its X-Forwarded-For. */
const request = (peer: string, forwardedFor?: string): IncomingMessage =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

test('no trusted proxies: the socket’s peer, whatever X-Forwarded-For says', () => {
  assert.is(clientAddressOf(request('192.0.2.1', '127.0.0.1'), compileTrustedProxies([])), '192.0.2.1');
  assert.is(clientAddressOf(request('::ffff:192.0.2.1', '10.0.0.1'), null), '192.0.2.1');
  assert.is(clientAddressOf(request('2001:db8::1'), null), '2001:db8::1');
});

test('trusted proxies: the rightmost untrusted hop; entries left of it are the client’s own and ignored', () => {
  const trust = compileTrustedProxies(['10.0.0.0/8', '192.0.2.10']);
  // A request straight from an untrusted peer: its header is not read.
  assert.is(clientAddressOf(request('203.0.113.1', '198.51.100.1'), trust), '203.0.113.1');
  // Through one trusted proxy.
  assert.is(clientAddressOf(request('192.0.2.10', '198.51.100.1'), trust), '198.51.100.1');
  assert.is(clientAddressOf(request('::ffff:192.0.2.10', '198.51.100.1'), trust), '198.51.100.1');
  // Through two; a forged entry on the left changes nothing.
  assert.is(clientAddressOf(request('192.0.2.10', '127.0.0.1, 198.51.100.1, 10.1.1.1'), trust), '198.51.100.1');
  // A trusted proxy that was sent no header: the proxy itself is the last address known.
  assert.is(clientAddressOf(request('192.0.2.10'), trust), '192.0.2.10');
  // Every hop trusted: the leftmost is as far as the chain goes.
  assert.is(clientAddressOf(request('192.0.2.10', '10.0.0.5, 10.0.0.6'), trust), '10.0.0.5');
  // IPv6 ranges and proxy-addr's named ranges.
  const v6 = compileTrustedProxies(['loopback', 'fd00::/8']);
  assert.is(clientAddressOf(request('::1', '2001:db8::7, fd00::2'), v6), '2001:db8::7');
});

test('TRUSTED_PROXIES: none by default; addresses and CIDRs, comma- or space-separated; anything else refused at start', () => {
  assert.equal(loadConfig({}).trustedProxies, []);
  assert.equal(loadConfig({ TRUSTED_PROXIES: '172.31.250.250, 10.0.0.0/8 ::1' }).trustedProxies, [
    '172.31.250.250',
    '10.0.0.0/8',
    '::1',
  ]);
  for (const bad of ['nginx', '10.0.0.0/33', '300.1.1.1']) {
    assert.throws(
      () => loadConfig({ TRUSTED_PROXIES: bad }),
      (error: unknown) => error instanceof ConfigError && /TRUSTED_PROXIES/.test((error as Error).message),
      bad,
    );
  }
});

test.run();
