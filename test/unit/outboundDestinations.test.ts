/**
 * Which addresses outgoing requests may reach (public unicast only) and how OUTBOUND_ALLOWED_HOSTS is read and
 * matched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  isAllowedDestination,
  isAllowedName,
  isPublicAddress,
  parseAllowedHosts,
} from '../../src/adapters/http/destinations';
import { ConfigError, loadConfig } from '../../src/config';

const test = suite('outbound destinations');

test('special-purpose addresses are not public', () => {
  const refused = [
    // IPv4: loopback, unspecified, private, CGNAT, link-local and metadata, multicast, broadcast, reserved blocks.
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '169.254.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '192.88.99.1',
    // IPv6: unspecified, loopback, IPv4-mapped, IPv4-compatible, SIIT, NAT64, 6to4, Teredo, unique local (the
    // metadata fd00:ec2::254 too), link-local (with a zone), site-local, multicast, discard, documentation,
    // and unallocated space outside 2000::/3.
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '::7f00:1',
    '::127.0.0.1',
    '::808:808',
    '::ffff:0:7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2001::1',
    'fc00::1',
    'fd12:3456::1',
    'fd00:ec2::254',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    '4000::1',
    '[::1]',
    // Not an address at all.
    'localhost',
    '',
    '127.1',
    '2130706433',
  ];
  for (const address of refused) assert.is(isPublicAddress(address), false, address);
});

test('public unicast addresses are public', () => {
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '[2606:4700::1]',
  ]) {
    assert.is(isPublicAddress(address), true, address);
  }
});

test('the allow-list reads names, addresses and ranges, each with an optional port', () => {
  const allowed = parseAllowedHosts(
    ' wp.internal, localhost:8081\n127.0.0.1:9000 10.0.0.0/8 [::1]:8080 fd00::/8 [fd00::/8]:443 ::1 Intranet.Example.',
  );
  assert.equal(
    allowed.map((entry) =>
      entry.kind === 'name'
        ? `${entry.name} ${entry.port}`
        : `${entry.range[0].toString()}/${entry.range[1]} ${entry.port}`,
    ),
    [
      'wp.internal null',
      'localhost 8081',
      '127.0.0.1/32 9000',
      '10.0.0.0/8 null',
      '::1/128 8080',
      'fd00::/8 null',
      'fd00::/8 443',
      '::1/128 null',
      'intranet.example null',
    ],
  );
  assert.equal(parseAllowedHosts(''), []);
  assert.equal(parseAllowedHosts(undefined), []);
});

test('entries it cannot read are errors, not silently ignored', () => {
  for (const entry of [
    'http://wp.internal',
    'wp.internal:',
    'wp.internal:0',
    'wp.internal:70000',
    'host:port',
    '10.0.0.0/33',
    '10.0.0/8',
    'a_b.example',
    '127.1',
    '0x7f000001',
    '[::1',
    'fd00::/8:443',
    '*.example',
  ]) {
    assert.throws(() => parseAllowedHosts(entry), /not a host name/, entry);
  }
});

test('matching: ports, ranges, IPv4-mapped forms, names', () => {
  const allowed = parseAllowedHosts('127.0.0.1:9000, 10.0.0.0/8, [fd00::/8]:443, wp.internal:8081');
  assert.ok(isAllowedDestination(allowed, '127.0.0.1', 9000, '127.0.0.1'));
  assert.not.ok(isAllowedDestination(allowed, '127.0.0.1', 9001, '127.0.0.1'));
  assert.ok(isAllowedDestination(allowed, 'db.test', 5432, '10.1.2.3'));
  assert.ok(isAllowedDestination(allowed, 'db.test', 5432, '::ffff:10.1.2.3'));
  assert.ok(isAllowedDestination(allowed, 'db.test', 5432, '11.1.2.3'), 'public addresses need no entry');
  assert.not.ok(isAllowedDestination(allowed, 'db.test', 5432, '192.168.0.1'));
  assert.ok(isAllowedDestination(allowed, 'v6.test', 443, 'fd00::5'));
  assert.not.ok(isAllowedDestination(allowed, 'v6.test', 80, 'fd00::5'));
  assert.ok(isAllowedDestination(allowed, 'WP.internal.', 8081, '127.0.0.1'));
  assert.not.ok(isAllowedDestination(allowed, 'wp.internal', 80, '127.0.0.1'));
  assert.ok(isAllowedName(allowed, 'wp.internal', 8081));
  assert.not.ok(isAllowedName(allowed, 'wp.internal', 8082));
  assert.not.ok(isAllowedName(allowed, '127.0.0.1', 9000), 'an address entry is not a name');
});

test('OUTBOUND_ALLOWED_HOSTS is read by the configuration, and a bad entry stops the start', () => {
  assert.equal(loadConfig({}, '/tmp').outboundAllowedHosts, []);
  assert.is(loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'localhost:8081,10.0.0.0/8' }, '/tmp').outboundAllowedHosts.length, 2);
  assert.throws(
    () => loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'localhost:http' }, '/tmp'),
    (error: unknown) => error instanceof ConfigError && /OUTBOUND_ALLOWED_HOSTS/.test((error as Error).message),
  );
});

test.run();
