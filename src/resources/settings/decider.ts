/**
 * The site-settings decider: WordPress's save rules for `/settings` as pure functions of (command, state). The
 * defaults (from the deployment's environment) and the deployment's own settings arrive in the command.
 */
import type { Decider } from '../../core/commandHandler';
import { ForbiddenByRule } from '../../core/errors';
import type { DiscussionOptionName, DiscussionOptions, SettingChanges, SettingsEvent, StoredSettings } from './events';
import { KEEP, SANITIZERS } from './sanitize';

export const STORED_SETTINGS: readonly (keyof StoredSettings)[] = [
  'title',
  'description',
  'email',
  'date_format',
  'time_format',
  'start_of_week',
  'language',
  'use_smilies',
  'default_category',
  'default_post_format',
  'posts_per_page',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
  'default_ping_status',
  'default_comment_status',
  'site_logo',
  'site_icon',
];

/** The discussion options and their defaults (a fresh WordPress's). */
export const DISCUSSION_OPTION_DEFAULTS: DiscussionOptions = { require_name_email: true };

export const isDiscussionOption = (name: string): name is DiscussionOptionName =>
  Object.hasOwn(DISCUSSION_OPTION_DEFAULTS, name);

/** What the events stored: only settings changed through the API or the CLI (the others read as their defaults). */
export interface SettingsState {
  stored: Partial<StoredSettings & DiscussionOptions>;
}

/** The settings the deployment owns (SITE_URL, SITE_TIMEZONE), as `/settings` shows them. */
export interface DeploymentSettings {
  url: string;
  /** The time-zone name, or '' for UTC (as WordPress shows a site without a named zone). */
  timezone: string;
}

export interface ChangeSettings {
  kind: 'change';
  /** The validated request values; null asks for the default back. Unknown names are ignored. */
  input: Record<string, unknown>;
  defaults: StoredSettings;
  deployment: DeploymentSettings;
}

/** Sets one discussion option (null: back to its default). */
export interface SetDiscussionOption {
  kind: 'option';
  name: DiscussionOptionName;
  value: DiscussionOptions[DiscussionOptionName] | null;
}

export const initialSettingsState = (): SettingsState => ({ stored: {} });

export function evolveSettings(state: SettingsState, event: SettingsEvent): SettingsState {
  const stored: Record<string, unknown> = { ...state.stored };
  for (const [name, value] of Object.entries(event.data.changes)) {
    if (value === null) delete stored[name];
    else stored[name] = value;
  }
  return { stored: stored as Partial<StoredSettings> };
}

/** The value every setting has: stored, or else its default. */
export function currentSettings(state: SettingsState, defaults: StoredSettings): StoredSettings {
  return { ...defaults, ...state.stored };
}

/** A time-zone name as PHP lists them: a known zone, written with its own capitals (no offsets like "+03:00"). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone !== 'UTC' && !/^[A-Z][A-Za-z_-]*(?:\/[A-Z0-9][A-Za-z0-9_+-]*){1,2}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Refusal of a change to a setting the deployment owns. */
const deploymentSettingError = (name: 'url' | 'timezone'): ForbiddenByRule =>
  new ForbiddenByRule('settings', 'ownedByDeployment', name);

function checkDeploymentSettings(input: Record<string, unknown>, deployment: DeploymentSettings): void {
  const url = input.url;
  if (url !== undefined && url !== deployment.url) throw deploymentSettingError('url');
  const timezone = input.timezone;
  if (timezone === undefined || timezone === deployment.timezone) return;
  if (timezone === 'UTC' && deployment.timezone === '') return;
  // WordPress's sanitizer drops a name it does not know and keeps the zone: so do we. A real change is refused.
  if (timezone === null || timezone === '' || isKnownTimeZone(String(timezone)))
    throw deploymentSettingError('timezone');
}

function decide(command: ChangeSettings | SetDiscussionOption, state: SettingsState): SettingsEvent[] {
  if (command.kind === 'option') {
    const { name, value } = command;
    if (value === null)
      return Object.hasOwn(state.stored, name)
        ? [{ type: 'SiteSettingsChanged', data: { changes: { [name]: null } } }]
        : [];
    if (value === (state.stored[name] ?? DISCUSSION_OPTION_DEFAULTS[name])) return [];
    return [{ type: 'SiteSettingsChanged', data: { changes: { [name]: value } } }];
  }
  checkDeploymentSettings(command.input, command.deployment);
  const current = currentSettings(state, command.defaults);
  const changes: Record<string, unknown> = {};
  for (const name of STORED_SETTINGS) {
    const given = command.input[name];
    if (given === undefined) continue;
    if (given === null) {
      if (Object.hasOwn(state.stored, name)) changes[name] = null;
      continue;
    }
    // The schema validated the value as the setting's type.
    const sanitize = SANITIZERS[name] as ((value: unknown) => unknown) | undefined;
    const value = sanitize ? sanitize(given) : given;
    if (value === KEEP || value === current[name]) continue;
    changes[name] = value;
  }
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'SiteSettingsChanged', data: { changes: changes as SettingChanges } }];
}

export const settingsDecider: Decider<SettingsState, ChangeSettings | SetDiscussionOption, SettingsEvent> = {
  initialState: initialSettingsState,
  evolve: evolveSettings,
  decide,
};
