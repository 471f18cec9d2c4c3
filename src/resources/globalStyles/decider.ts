/**
 * The user global styles decider: making a theme's record, and WordPress's save rules for it, as pure functions of
 * (command, state). The id arrives in the command.
 */
import type { Decider } from '../../core/commandHandler';
import { NotFound } from '../../core/errors';
import type { GlobalStylesEvent, ThemeJsonObject } from './events';
import { sanitizeSettings, sanitizeStyles } from './sanitize';

export interface GlobalStylesState {
  exists: boolean;
  id: number;
  stylesheet: string;
  title: string;
  styles: ThemeJsonObject;
  settings: ThemeJsonObject;
}

export type GlobalStylesCommand =
  | { kind: 'create'; id: number; stylesheet: string; title: string }
  /** Validated input: `styles` and `settings` objects replace the stored ones whole; `title` a string or `{raw}`. */
  | { kind: 'change'; input: { title?: unknown; styles?: unknown; settings?: unknown } };

export const initialGlobalStylesState = (): GlobalStylesState => ({
  exists: false,
  id: 0,
  stylesheet: '',
  title: '',
  styles: {},
  settings: {},
});

export function evolveGlobalStyles(state: GlobalStylesState, event: GlobalStylesEvent): GlobalStylesState {
  switch (event.type) {
    case 'GlobalStylesCreated':
      return {
        exists: true,
        id: event.data.id,
        stylesheet: event.data.stylesheet,
        title: event.data.title,
        styles: {},
        settings: {},
      };
    case 'GlobalStylesChanged':
      return { ...state, ...event.data.changes };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * An object sent for styles or settings. WordPress takes a list too (a PHP array either way): its keys are numbers,
 * which no theme.json key is, so it stands for an empty object.
 */
const asObject = (value: unknown): Record<string, unknown> | null =>
  isObject(value) ? value : Array.isArray(value) ? {} : null;

/** The title sent: a string, or `{raw}` with a non-empty raw (WordPress ignores an empty one). */
function titleOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.raw === 'string' && value.raw !== '') return value.raw;
  return undefined;
}

function decide(command: GlobalStylesCommand, state: GlobalStylesState): GlobalStylesEvent[] {
  if (command.kind === 'create') {
    if (state.exists) return [];
    return [
      { type: 'GlobalStylesCreated', data: { id: command.id, stylesheet: command.stylesheet, title: command.title } },
    ];
  }
  if (!state.exists) throw new NotFound('globalStyles');
  const changes: { title?: string; styles?: ThemeJsonObject; settings?: ThemeJsonObject } = {};
  const { input } = command;
  const sentStyles = asObject(input.styles);
  if (sentStyles) {
    const styles = sanitizeStyles(sentStyles);
    if (JSON.stringify(styles) !== JSON.stringify(state.styles)) changes.styles = styles;
  }
  const sentSettings = asObject(input.settings);
  if (sentSettings) {
    const settings = sanitizeSettings(sentSettings);
    if (JSON.stringify(settings) !== JSON.stringify(state.settings)) changes.settings = settings;
  }
  const title = titleOf(input.title);
  if (title !== undefined && title !== state.title) changes.title = title;
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'GlobalStylesChanged', data: { id: state.id, changes } }];
}

export const globalStylesDecider: Decider<GlobalStylesState, GlobalStylesCommand, GlobalStylesEvent> = {
  initialState: initialGlobalStylesState,
  evolve: evolveGlobalStyles,
  decide,
};
