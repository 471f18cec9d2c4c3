/**
 * `palimpsest option get|set NAME [VALUE]`: the site options WordPress keeps outside its REST settings (its
 * discussion options, such as `require_name_email`), read from and written to the site-settings stream. A running
 * server sees a change at once: it reads the option from the read model, which the event reaches like any other.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import { openSite } from '../bootstrap';
import { UsageError } from './usage';
import { DISCUSSION_OPTION_DEFAULTS, isDiscussionOption } from '../resources/settings/decider';
import { loggedDiscussionOption, setDiscussionOption } from '../resources/settings/operations';

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no']);

/** A boolean option's value as typed: 1/0, true/false, on/off, yes/no; `default` for null. */
export function parseOptionValue(text: string): boolean | null {
  const value = text.trim().toLowerCase();
  if (value === 'default') return null;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new UsageError(`option values are 1 or 0 (true/false, on/off, yes/no), or "default"; got "${text}"`);
}

export async function optionCommand(
  command: 'option get' | 'option set',
  args: string[],
  siteConfig: () => Config,
): Promise<number> {
  const [name, value, ...extra] = args;
  const setting = command === 'option set';
  if (name === undefined || (setting && value === undefined))
    throw new UsageError(setting ? 'needs NAME and VALUE' : 'needs NAME', command);
  if (extra.length > 0 || (!setting && value !== undefined))
    throw new UsageError(`unexpected argument "${extra[0] ?? value}"`, command);
  if (!isDiscussionOption(name))
    throw new UsageError(
      `unknown option "${name}"; the options are: ${Object.keys(DISCUSSION_OPTION_DEFAULTS).join(', ')}`,
      command,
    );
  const parsed = setting ? parseOptionValue(value!) : undefined;
  const config = siteConfig();
  const site = await openSite(config);
  try {
    if (parsed !== undefined) {
      const position = await setDiscussionOption(site, name, parsed, null, `cli-${randomUUID()}`);
      if (config.redisUrl && position > 0) await site.settle(position);
    }
    console.log(`${name} ${(await loggedDiscussionOption(site, name)) ? 1 : 0}`);
    return 0;
  } finally {
    await site.close();
  }
}
