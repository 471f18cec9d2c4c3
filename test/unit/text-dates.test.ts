import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatGmt,
  formatLocal,
  formatLocalMysql,
  gmtOffsetHours,
  isRestDate,
  isValidTimeZone,
  localToInstant,
  parseRestDate,
  parseRestDateGmt,
} from '../../src/text/dates';

const utc = (s: string) => Date.parse(s + 'Z');
/** The REST pair (date, date_gmt) WordPress answers for a `date` input on a site in `zone`. */
const pair = (value: string, zone: string) => {
  const ms = parseRestDate(value, zone);
  return ms === null ? null : [formatLocal(ms, zone), formatGmt(ms)];
};

test('formatGmt / formatLocal shape', () => {
  const ms = utc('2016-12-12T19:00:00');
  assert.is(formatGmt(ms), '2016-12-12T19:00:00');
  assert.is(formatLocal(ms, 'UTC'), '2016-12-12T19:00:00');
  assert.is(formatLocal(ms), '2016-12-12T19:00:00');
  assert.is(formatLocal(ms, 'America/New_York'), '2016-12-12T14:00:00');
  assert.is(formatLocal(ms, 'Europe/Berlin'), '2016-12-12T20:00:00');
  assert.is(formatLocal(ms, 'Asia/Kolkata'), '2016-12-13T00:30:00');
  assert.is(formatLocal(ms, 'Asia/Kathmandu'), '2016-12-13T00:45:00');
  assert.is(formatLocal(ms, '+05:30'), '2016-12-13T00:30:00');
  assert.is(formatLocal(ms, '-03:00'), '2016-12-12T16:00:00');
  assert.is(formatLocalMysql(ms, 'Europe/Berlin'), '2016-12-12 20:00:00');
});

test('formatting drops milliseconds (floor, also before 1970)', () => {
  assert.is(formatGmt(utc('2021-01-01T10:00:00') + 999), '2021-01-01T10:00:00');
  assert.is(formatGmt(-1), '1969-12-31T23:59:59');
  assert.is(formatLocal(-1, 'Europe/Berlin'), '1970-01-01T00:59:59');
});

test('formatLocal across the Berlin DST changes', () => {
  const z = 'Europe/Berlin';
  assert.is(formatLocal(utc('2021-03-28T00:59:59'), z), '2021-03-28T01:59:59');
  assert.is(formatLocal(utc('2021-03-28T01:00:00'), z), '2021-03-28T03:00:00');
  assert.is(formatLocal(utc('2021-10-31T00:59:59'), z), '2021-10-31T02:59:59');
  assert.is(formatLocal(utc('2021-10-31T01:00:00'), z), '2021-10-31T02:00:00');
});

test('years outside 1000–9999 keep WordPress formatting (reference values)', () => {
  assert.is(formatLocal(parseRestDate('0000-01-01T00:00:00Z')!, 'Europe/Berlin'), '0000-01-01T00:53:28'); // local mean time
  assert.is(formatGmt(parseRestDate('0000-01-01T00:00:00Z')!), '0000-01-01T00:00:00');
  assert.is(formatLocal(parseRestDate('9999-12-31T23:59:59Z')!, 'Europe/Berlin'), '10000-01-01T00:59:59');
});

// From the REST digest (§4.1): site timezone America/New_York.
test('digest: dates on a New York site', () => {
  const z = 'America/New_York';
  assert.equal(pair('2016-12-12T14:00:00', z), ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
  assert.equal(pair('2016-12-12T18:00:00-01:00', z), ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
  const gmt = parseRestDateGmt('2016-12-12T19:00:00')!;
  assert.equal([formatLocal(gmt, z), formatGmt(gmt)], ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
});

test('digest: an offset on a UTC site', () => {
  assert.equal(pair('2010-01-01T02:00:00-10:00', 'UTC'), ['2010-01-01T12:00:00', '2010-01-01T12:00:00']);
});

// `date` / `date_gmt` of a post created over REST with this `date` on the reference install (timezone
// Europe/Berlin); null where it answered 400 rest_invalid_param.
const BERLIN: Array<[string, [string, string] | null]> = [
  ['2021-01-01 10:00:00', ['2021-01-01T10:00:00', '2021-01-01T09:00:00']],
  ['2021-01-01t10:00:00', ['2021-01-01T10:00:00', '2021-01-01T09:00:00']],
  ['2021-01-01T10:00:00\n', ['2021-01-01T10:00:00', '2021-01-01T09:00:00']],
  ['2021-01-01T10:00:00.5', ['2021-01-01T10:00:00', '2021-01-01T09:00:00']],
  ['2021-01-01T10:00:00.123456Z', ['2021-01-01T11:00:00', '2021-01-01T10:00:00']],
  ['2021-01-01T10:00:00.999999999999Z', ['2021-01-01T11:00:00', '2021-01-01T10:00:00']],
  ['2021-01-01T10:00:00Z\n', ['2021-01-01T11:00:00', '2021-01-01T10:00:00']],
  ['2021-01-01T10:00:00+05', ['2021-01-01T06:00:00', '2021-01-01T05:00:00']],
  ['2021-01-01T10:00:00+05:30', ['2021-01-01T05:30:00', '2021-01-01T04:30:00']],
  ['2021-01-01T10:00:00-10:00', ['2021-01-01T21:00:00', '2021-01-01T20:00:00']],
  ['2021-01-01T10:00:00-00:00', ['2021-01-01T11:00:00', '2021-01-01T10:00:00']],
  ['2021-01-01T10:00:00+14:00', ['2020-12-31T21:00:00', '2020-12-31T20:00:00']],
  ['2021-01-01T10:00:00+24:00', ['2020-12-31T11:00:00', '2020-12-31T10:00:00']],
  ['2021-01-01T10:00:00+05:59', ['2021-01-01T05:01:00', '2021-01-01T04:01:00']],
  ['2021-01-01T10:00:00+99', ['2020-12-28T08:00:00', '2020-12-28T07:00:00']],
  ['1969-07-20T20:17:00', ['1969-07-20T20:17:00', '1969-07-20T19:17:00']],
  // PHP's roll-over of out-of-range fields.
  ['2021-02-30T10:00:00', ['2021-03-02T10:00:00', '2021-03-02T09:00:00']],
  ['2021-02-29T10:00:00', ['2021-03-01T10:00:00', '2021-03-01T09:00:00']],
  ['2020-02-29T10:00:00', ['2020-02-29T10:00:00', '2020-02-29T09:00:00']],
  ['2021-04-31T00:00:00', ['2021-05-01T00:00:00', '2021-04-30T22:00:00']],
  ['2021-01-00T00:00:00', ['2020-12-31T00:00:00', '2020-12-30T23:00:00']],
  ['2021-00-10T00:00:00', ['2020-12-10T00:00:00', '2020-12-09T23:00:00']],
  ['2021-01-01T24:00:00', ['2021-01-02T00:00:00', '2021-01-01T23:00:00']],
  ['2021-01-01T24:59:59', ['2021-01-02T00:59:59', '2021-01-01T23:59:59']],
  ['2021-01-01T23:59:60', ['2021-01-02T00:00:00', '2021-01-01T23:00:00']],
  ['2021-12-31T24:00:00Z', ['2022-01-01T01:00:00', '2022-01-01T00:00:00']],
  // Spring forward (02:00 → 03:00): a missing time uses the winter offset.
  ['2021-03-28T01:59:59', ['2021-03-28T01:59:59', '2021-03-28T00:59:59']],
  ['2021-03-28T02:00:00', ['2021-03-28T03:00:00', '2021-03-28T01:00:00']],
  ['2021-03-28T02:30:00', ['2021-03-28T03:30:00', '2021-03-28T01:30:00']],
  ['2021-03-28T03:00:00', ['2021-03-28T03:00:00', '2021-03-28T01:00:00']],
  // Fall back (03:00 → 02:00): a repeated time is taken in winter time (the second occurrence).
  ['2021-10-31T01:30:00', ['2021-10-31T01:30:00', '2021-10-30T23:30:00']],
  ['2021-10-31T02:00:00', ['2021-10-31T02:00:00', '2021-10-31T01:00:00']],
  ['2021-10-31T02:30:00', ['2021-10-31T02:30:00', '2021-10-31T01:30:00']],
  ['2021-10-31T02:59:59', ['2021-10-31T02:59:59', '2021-10-31T01:59:59']],
  ['2021-10-31T03:00:00', ['2021-10-31T03:00:00', '2021-10-31T02:00:00']],
  // Rejected (400 rest_invalid_param).
  ['2010-60-01T02:00:00Z', null],
  ['2021-01-32T00:00:00', null],
  ['2021-01-01T25:00:00', null],
  ['2021-01-01T23:60:00', null],
  ['2021-01-01T23:59:61', null],
  ['2021-01-01T10:00:00+0530', null],
  ['2021-01-01T10:00:00+05:60', null],
  ['2021-01-01T10:00:00+25:00', null],
  ['2021-01-01T10:00:00-25:00', null],
  ['2021-01-01T10:00:00z', null],
  ['2021-01-01T10:00', null],
  ['2021-01-01T10:00:00.Z', null],
  [' 2021-01-01T10:00:00', null],
  ['2021-1-01T10:00:00Z', null],
  ['2021-01-01T1:00:00Z', null],
  ['12021-01-01T10:00:00Z', null],
  ['2021-01-01', null],
  ['', null],
  ['yesterday', null],
];

for (const [input, expected] of BERLIN) {
  test(`parseRestDate(${JSON.stringify(input)}) on a Berlin site`, () => {
    assert.equal(pair(input, 'Europe/Berlin'), expected);
    assert.is(isRestDate(input), expected !== null);
  });
}

test('parseRestDateGmt: no offset means UTC; offsets are honoured (reference values)', () => {
  const gmt = (v: string) => {
    const ms = parseRestDateGmt(v);
    return ms === null ? null : [formatLocal(ms, 'Europe/Berlin'), formatGmt(ms)];
  };
  assert.equal(gmt('2021-03-28T02:30:00'), ['2021-03-28T04:30:00', '2021-03-28T02:30:00']);
  assert.equal(gmt('2021-10-31T01:30:00'), ['2021-10-31T02:30:00', '2021-10-31T01:30:00']);
  assert.equal(gmt('2021-01-01T10:00:00+05:30'), ['2021-01-01T05:30:00', '2021-01-01T04:30:00']);
  assert.equal(gmt('2021-02-30T10:00:00'), ['2021-03-02T11:00:00', '2021-03-02T10:00:00']);
  assert.is(gmt('2010-60-01T02:00:00Z'), null);
});

test('parseRestDate returns whole seconds', () => {
  assert.is(parseRestDate('2021-01-01T10:00:00.987Z'), utc('2021-01-01T10:00:00'));
});

// PHP DateTime values (reference install) for wall-clock times near DST changes in other zones.
const LOCAL_TO_UTC: Array<[string, string, string]> = [
  ['America/New_York', '2021-03-14T02:30:00', '2021-03-14T07:30:00'], // gap: winter offset
  ['America/New_York', '2021-03-14T01:59:59', '2021-03-14T06:59:59'],
  ['America/New_York', '2021-03-14T03:00:00', '2021-03-14T07:00:00'],
  ['America/New_York', '2021-11-07T01:30:00', '2021-11-07T05:30:00'], // overlap west of UTC: first (daylight)
  ['America/New_York', '2021-11-07T01:00:00', '2021-11-07T05:00:00'],
  ['America/New_York', '2021-11-07T02:00:00', '2021-11-07T07:00:00'],
  ['Australia/Sydney', '2021-04-04T02:30:00', '2021-04-03T16:30:00'], // overlap east: second (standard)
  ['Australia/Sydney', '2021-10-03T02:30:00', '2021-10-02T16:30:00'], // gap
  ['Australia/Lord_Howe', '2021-04-04T01:45:00', '2021-04-03T15:15:00'], // 30-minute DST
  ['Australia/Lord_Howe', '2021-10-03T02:15:00', '2021-10-02T15:45:00'],
  ['Europe/Dublin', '2021-10-31T01:30:00', '2021-10-31T01:30:00'], // negative DST
  ['Europe/Dublin', '2021-03-28T01:30:00', '2021-03-28T01:30:00'],
  ['America/Sao_Paulo', '2018-11-04T00:30:00', '2018-11-04T03:30:00'], // midnight gap
  ['America/Sao_Paulo', '2019-02-16T23:30:00', '2019-02-17T01:30:00'], // overlap before midnight
  ['Pacific/Apia', '2011-12-30T12:00:00', '2011-12-30T22:00:00'], // the skipped day
  ['Asia/Kolkata', '2021-01-01T00:00:00', '2020-12-31T18:30:00'],
  ['Asia/Kathmandu', '2021-01-01T00:00:00', '2020-12-31T18:15:00'],
];

for (const [zone, wall, expected] of LOCAL_TO_UTC) {
  test(`localToInstant ${zone} ${wall}`, () => {
    assert.is(formatGmt(localToInstant(utc(wall), zone)), expected);
    assert.is(formatGmt(parseRestDate(wall, zone)!), expected);
  });
}

test('round trip: formatting then parsing gives the instant back outside overlaps', () => {
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', '+05:30'];
  for (const zone of zones) {
    for (let ms = utc('2020-01-01T00:00:00'); ms < utc('2022-01-01T00:00:00'); ms += 7 * 3_600_000 + 13_000) {
      const back = parseRestDate(formatLocal(ms, zone), zone)!;
      if (back !== ms) {
        // Only a repeated wall time may map elsewhere, and then to the same local time.
        assert.is(formatLocal(back, zone), formatLocal(ms, zone), `${zone} ${formatGmt(ms)}`);
      }
    }
  }
});

test('gmtOffsetHours', () => {
  assert.is(gmtOffsetHours('UTC', 0), 0);
  assert.is(gmtOffsetHours('Europe/Berlin', utc('2021-01-15T12:00:00')), 1);
  assert.is(gmtOffsetHours('Europe/Berlin', utc('2021-07-15T12:00:00')), 2);
  assert.is(gmtOffsetHours('Asia/Kolkata', utc('2021-07-15T12:00:00')), 5.5);
  assert.is(gmtOffsetHours('Asia/Kathmandu', utc('2021-07-15T12:00:00')), 5.75);
  assert.is(gmtOffsetHours('America/St_Johns', utc('2021-01-15T12:00:00')), -3.5);
  assert.is(gmtOffsetHours('America/New_York', utc('2021-07-15T12:00:00')), -4);
  assert.is(gmtOffsetHours('-03:00', 0), -3);
  // Local mean time +0:53:28, rounded to two decimals as WordPress does.
  assert.is(gmtOffsetHours('Europe/Berlin', utc('1850-01-01T00:00:00')), 0.89);
});

test('isValidTimeZone', () => {
  for (const z of [
    'UTC',
    'Europe/Berlin',
    'America/Argentina/Buenos_Aires',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'Etc/GMT+5',
    'America/Port-au-Prince',
  ]) {
    assert.ok(isValidTimeZone(z), z);
  }
  for (const z of ['', 'europe/berlin', 'utc', 'Foo/Bar', '+05:30', 'Europe/Berlin ', 'Mars/Olympus']) {
    assert.not.ok(isValidTimeZone(z), z);
  }
});

test('an invalid zone throws rather than formatting in the wrong zone', () => {
  assert.throws(() => formatLocal(0, 'Mars/Olympus'));
});

test.run();
