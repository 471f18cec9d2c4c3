/**
 * Events of a theme's user global styles (`global-styles-{stylesheet}`): the styles and settings an administrator
 * lays over the theme's own, as the block editor's global styles panel saves them. One record per theme, made the
 * first time it is needed (WordPress makes its `wp_global_styles` post then too). Who and when are in the event
 * metadata; `docs/events.md` is the catalogue.
 */
import type { DomainEvent } from '../../core/commandHandler';

/** A theme.json-shaped object (sanitized: only keys of the format's version 2). */
export type ThemeJsonObject = Record<string, unknown>;

export interface GlobalStylesCreated {
  /** Its id, from the content id sequence (WordPress's record is a post). */
  id: number;
  stylesheet: string;
  title: string;
}

export interface GlobalStylesChanged {
  id: number;
  /** Only what changed. */
  changes: { title?: string; styles?: ThemeJsonObject; settings?: ThemeJsonObject };
}

export type GlobalStylesEvent =
  | DomainEvent<'GlobalStylesCreated', GlobalStylesCreated>
  | DomainEvent<'GlobalStylesChanged', GlobalStylesChanged>;

export const GLOBAL_STYLES_EVENT_TYPES = ['GlobalStylesCreated', 'GlobalStylesChanged'] as const;

export const globalStylesStreamId = (stylesheet: string): string => `global-styles-${stylesheet}`;
