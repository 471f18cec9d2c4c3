/**
 * Events of the site-settings stream (`site-settings`): the settings an administrator changes through
 * `/core/v2/settings`. Values not in any event are the deployment's defaults (src/config.ts). Who and when are in
 * the event metadata; `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

/** The settings stored by events; `url` and `timezone` belong to the deployment and are never stored. */
export interface StoredSettings {
  title: string;
  description: string;
  email: string;
  date_format: string;
  time_format: string;
  start_of_week: number;
  language: string;
  use_smilies: boolean;
  default_category: number;
  default_post_format: string;
  posts_per_page: number;
  show_on_front: string;
  page_on_front: number;
  page_for_posts: number;
  default_ping_status: string;
  default_comment_status: string;
  site_logo: number | null;
  site_icon: number;
}

/**
 * Site options WordPress keeps beside the settings but does not show through REST (its discussion options, registered
 * without `show_in_rest`): `/settings` neither shows nor changes them. `palimpsest option set` changes them.
 */
export interface DiscussionOptions {
  /** Comments need an author name and email (WordPress's default: on). */
  require_name_email: boolean;
}

export type DiscussionOptionName = keyof DiscussionOptions;

export type SettingName = keyof StoredSettings | DiscussionOptionName;

/** Each changed setting and its new value; null puts a setting back to its default (WordPress deletes the option). */
export type SettingChanges = { [K in SettingName]?: (StoredSettings & DiscussionOptions)[K] | null };

export interface SiteSettingsChanged {
  changes: SettingChanges;
}

export type SettingsEvent = DomainEvent<'SiteSettingsChanged', SiteSettingsChanged>;

export const SETTINGS_EVENT_TYPES = ['SiteSettingsChanged'] as const;

export const SETTINGS_STREAM = 'site-settings';
