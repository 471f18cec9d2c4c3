/**
 * `palimpsest option get|set NAME [VALUE]`: the site options WordPress keeps outside its REST settings (its
 * discussion options, such as `require_name_email`), read from and written to the site-settings stream. A running
 * server sees a change at once: it reads the option from the read model, which the event reaches like any other.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../config';
import { openSite } from '../bootstrap';
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
  throw new Error(`option values are 1 or 0 (true/false, on/off, yes/no), or "default"; got "${text}"`);
}

export async function optionCommand(sub: string | undefined, args: string[]): Promise<number> {
  const [name, value] = args;
  if ((sub !== 'get' && sub !== 'set') || name === undefined || (sub === 'set' && value === undefined)) {
    throw new Error('usage: palimpsest option get NAME | palimpsest option set NAME VALUE');
  }
  if (!isDiscussionOption(name)) throw new Error(`unknown option "${name}"; known: ${Object.keys(DISCUSSION_OPTION_DEFAULTS).join(', ')}`);
  const parsed = sub === 'set' ? parseOptionValue(value!) : undefined;
  const config = loadConfig();
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
