/**
 * Site-settings operations, callable without HTTP: what the settings are now (the stored values over the
 * deployment's defaults) and changing them through the decider.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { readCurrent } from '../../projection/written';
import { SETTINGS_COLLECTION, SETTINGS_DOC_ID } from '../../../projections/settings';
import type { SettingsDoc } from '../../../projections/settings';
import { SETTINGS_STREAM } from './events';
import type { DiscussionOptionName, DiscussionOptions, StoredSettings } from './events';
import { DISCUSSION_OPTION_DEFAULTS, STORED_SETTINGS, currentSettings, settingsDecider } from './decider';
import type { DeploymentSettings, SettingsState } from './decider';

/** Every setting as `/settings` shows it: the deployment's two, then the stored ones, in WordPress's order. */
export type SiteSettingsView = StoredSettings & DeploymentSettings;

/**
 * The defaults: title and tagline from SITE_NAME and SITE_DESCRIPTION, the rest as a fresh WordPress has them.
 * There is no administrator address in the environment: `admin@` the site's host stands in (a host without a dot
 * gets `.localdomain`, so the address passes WordPress's email check and can be sent back unchanged).
 */
export function settingsDefaults(site: Pick<Site, 'settings'>): StoredSettings {
  const host = new URL(site.settings.siteUrl).hostname.replace(/^\[|\]$/g, '');
  const mailHost = host.includes('.') ? host : `${host || 'localhost'}.localdomain`;
  return {
    title: site.settings.name,
    description: site.settings.description,
    email: `admin@${mailHost}`,
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
}

export function deploymentSettings(site: Pick<Site, 'settings'>): DeploymentSettings {
  // As the index's timezone_string: UTC is a site without a named zone.
  return { url: site.settings.siteUrl, timezone: site.settings.timezone === 'UTC' ? '' : site.settings.timezone };
}

function view(site: Site, stored: Partial<StoredSettings>): SiteSettingsView {
  const values = currentSettings({ stored }, settingsDefaults(site));
  const { url, timezone } = deploymentSettings(site);
  const ordered: Record<string, unknown> = {};
  for (const name of ['title', 'description', 'url', 'email', 'timezone', ...STORED_SETTINGS.slice(3)]) {
    ordered[name] = name === 'url' ? url : name === 'timezone' ? timezone : values[name as keyof StoredSettings];
  }
  return ordered as unknown as SiteSettingsView;
}

/** The settings now, as the read model has them. */
export async function readSettings(site: Site): Promise<SiteSettingsView> {
  const doc = await readCurrent<SettingsDoc>(site, {
    projection: 'settings',
    collection: SETTINGS_COLLECTION,
    id: SETTINGS_DOC_ID,
    stream: SETTINGS_STREAM,
  });
  const { id: _id, ...stored } = doc ?? { id: SETTINGS_DOC_ID };
  return view(site, stored as Partial<StoredSettings>);
}

export interface SettingsWriteOutcome {
  settings: SiteSettingsView;
  /** Global position of the event written (0 when nothing changed), for read-your-writes. */
  position: number;
}

/** Changes the settings given in `input` (validated values; null for the default back). */
export async function changeSettings(
  site: Site,
  input: Record<string, unknown>,
  actor: Actor,
  requestId: string,
): Promise<SettingsWriteOutcome> {
  const command = {
    kind: 'change' as const,
    input,
    defaults: settingsDefaults(site),
    deployment: deploymentSettings(site),
  };
  const result = await site.commands.handle<SettingsState, typeof command, never>(
    SETTINGS_STREAM,
    settingsDecider as never,
    command,
    site.metadata(actor.id, requestId),
  );
  return { settings: view(site, result.state.stored), position: result.position };
}

/** A discussion option now (stored, or its default); not part of `/settings`, as in WordPress. */
export async function readDiscussionOption<K extends DiscussionOptionName>(
  site: Site,
  name: K,
): Promise<DiscussionOptions[K]> {
  const doc = await readCurrent<SettingsDoc>(site, {
    projection: 'settings',
    collection: SETTINGS_COLLECTION,
    id: SETTINGS_DOC_ID,
    stream: SETTINGS_STREAM,
  });
  const stored = doc?.[name];
  return stored === undefined || stored === null ? DISCUSSION_OPTION_DEFAULTS[name] : (stored as DiscussionOptions[K]);
}

/** Sets a discussion option (null: back to its default); `userId` null for the CLI. Returns the position written (0: no change). */
export async function setDiscussionOption<K extends DiscussionOptionName>(
  site: Site,
  name: K,
  value: DiscussionOptions[K] | null,
  userId: number | null,
  requestId: string,
): Promise<number> {
  const result = await site.commands.handle(
    SETTINGS_STREAM,
    settingsDecider,
    { kind: 'option', name, value },
    site.metadata(userId, requestId),
  );
  return result.position;
}

/** A discussion option as the log has it (the CLI's read: no read model needed). */
export async function loggedDiscussionOption<K extends DiscussionOptionName>(
  site: Site,
  name: K,
): Promise<DiscussionOptions[K]> {
  const { state } = await site.commands.load(SETTINGS_STREAM, settingsDecider);
  return (state.stored[name] ?? DISCUSSION_OPTION_DEFAULTS[name]) as DiscussionOptions[K];
}
