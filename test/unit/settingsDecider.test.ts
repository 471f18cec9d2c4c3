/** Given events / when command / then events: WordPress's save rules for the site settings, without any I/O. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialSettingsState, isKnownTimeZone, settingsDecider } from '../../src/resources/settings/decider';
import type { SettingsState } from '../../src/resources/settings/decider';
import type { SettingChanges, SettingsEvent, StoredSettings } from '../../src/resources/settings/events';
import { escapeHtmlOnce } from '../../src/resources/settings/sanitize';
import { rejectsWith } from '../support/domainErrors';

const test = suite('settings decider');

const defaults: StoredSettings = {
  title: 'palimpsest',
  description: '',
  email: 'admin@example.org',
  date_format: 'F j, Y',
  time_format: 'g:i a',
  start_of_week: 1,
  language: 'en_US',
  use_smilies: true,
  default_category: 1,
  default_post_format: '0',
  posts_per_page: 10,
  show_on_front: 'posts',
  page_on_front: 0,
  page_for_posts: 0,
  default_ping_status: 'open',
  default_comment_status: 'open',
  site_logo: null,
  site_icon: 0,
};
const deployment = { url: 'http://127.0.0.1:9000', timezone: 'Europe/Berlin' };

const changed = (changes: SettingChanges): SettingsEvent => ({ type: 'SiteSettingsChanged', data: { changes } });
const given = (events: SettingsEvent[]): SettingsState => events.reduce(settingsDecider.evolve, initialSettingsState());
const when = (input: Record<string, unknown>, events: SettingsEvent[] = []) =>
  settingsDecider.decide({ kind: 'change', input, defaults, deployment }, given(events));

const rejects = rejectsWith;

test('a change records only the settings whose values change', () => {
  assert.equal(when({ title: 'News', posts_per_page: 10, use_smilies: false }), [
    changed({ title: 'News', use_smilies: false }),
  ]);
});

test('sending the current values changes nothing: no event', () => {
  assert.equal(when({ ...defaults, url: deployment.url, timezone: deployment.timezone }), []);
  assert.equal(when({ title: 'News' }, [changed({ title: 'News' })]), []);
});

test('title and tagline are stored HTML-escaped, existing entities once', () => {
  assert.equal(when({ title: '<b>A</b> & "B" \'C\' &amp; &#8220;' }), [
    changed({ title: '&lt;b&gt;A&lt;/b&gt; &amp; &quot;B&quot; &#039;C&#039; &amp; &#8220;' }),
  ]);
  assert.is(escapeHtmlOnce('Tom & Jerry &copy;'), 'Tom &amp; Jerry &copy;');
});

test('formats lose their tags, keeping their spaces', () => {
  assert.equal(when({ date_format: '<b>Y</b>', time_format: 'H:i <x>' }), [
    changed({ date_format: 'Y', time_format: 'H:i ' }),
  ]);
});

test('numbers as WordPress saves them: absint, and posts_per_page 0 is 1, below -1 loses its sign', () => {
  assert.equal(when({ start_of_week: -2, default_category: -5, page_on_front: -5, page_for_posts: 7, site_icon: -5 }), [
    changed({ start_of_week: 2, default_category: 5, page_on_front: 5, page_for_posts: 7, site_icon: 5 }),
  ]);
  assert.equal(when({ posts_per_page: 0 }), [changed({ posts_per_page: 1 })]);
  assert.equal(when({ posts_per_page: -3 }), [changed({ posts_per_page: 3 })]);
  assert.equal(when({ posts_per_page: -1 }), [changed({ posts_per_page: -1 })]);
});

test('an unknown language is dropped and the setting kept; the empty one (built-in English) is taken', () => {
  assert.equal(when({ language: 'xx_YY' }), []);
  assert.equal(when({ language: '' }), [changed({ language: '' })]);
});

test('null puts a stored setting back to its default; for a setting at its default it changes nothing', () => {
  assert.equal(when({ title: null }, [changed({ title: 'News' })]), [changed({ title: null })]);
  assert.equal(when({ title: null }), []);
  const state = given([changed({ title: 'News', site_logo: 9 }), changed({ title: null })]);
  assert.equal(state.stored, { site_logo: 9 });
});

test('the deployment owns url and timezone: the same value passes, another is refused', () => {
  assert.equal(when({ url: deployment.url, timezone: 'Europe/Berlin' }), []);
  const owned = (field: string) =>
    ({ code: 'forbidden', subject: 'settings', rule: 'ownedByDeployment', field }) as const;
  rejects(() => when({ url: 'http://example.org' }), owned('url'));
  rejects(() => when({ timezone: 'America/New_York' }), owned('timezone'));
  rejects(() => when({ timezone: '' }), owned('timezone'));
});

test('an unknown time zone is dropped silently, as WordPress does, and nothing else is refused for it', () => {
  assert.equal(when({ timezone: 'Mars/Base', title: 'News' }), [changed({ title: 'News' })]);
  assert.equal(when({ timezone: 'UTC+3' }), []);
});

test('time-zone names: known zones with their own capitals, no offsets', () => {
  assert.ok(isKnownTimeZone('Europe/Berlin'));
  assert.ok(isKnownTimeZone('America/Argentina/Buenos_Aires'));
  assert.ok(isKnownTimeZone('UTC'));
  assert.not.ok(isKnownTimeZone('europe/berlin'));
  assert.not.ok(isKnownTimeZone('+03:00'));
  assert.not.ok(isKnownTimeZone('Mars/Base'));
});

test('discussion options: /settings input cannot change them; the option command records a change only', () => {
  assert.equal(when({ require_name_email: false }), []);
  const option = (value: boolean | null, events: SettingsEvent[] = []) =>
    settingsDecider.decide({ kind: 'option', name: 'require_name_email', value }, given(events));
  assert.equal(option(true), [], 'on is the default');
  assert.equal(option(false), [changed({ require_name_email: false })]);
  assert.equal(option(false, [changed({ require_name_email: false })]), []);
  assert.equal(option(null, [changed({ require_name_email: false })]), [changed({ require_name_email: null })]);
  assert.equal(option(null), []);
  // A settings change keeps the option as it was.
  assert.equal(given([changed({ require_name_email: false }), changed({ title: 'News' })]).stored, {
    require_name_email: false,
    title: 'News',
  });
});

test.run();
