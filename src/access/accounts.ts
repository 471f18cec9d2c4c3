/**
 * The Accounts port: what authentication (src/rest/authenticate.ts) needs from the users slice, which provides it
 * (src/resources/users/accounts.ts) through the composition root: authentication does not depend on the users
 * slice, which depends on access for roles and password hashing. It lives in src/access rather than src/ports
 * because it speaks of command handling (src/core), which itself depends on src/ports.
 */
import type { Clock } from '../ports/clock';
import type { EventMetadata } from '../ports/eventStore';
import type { CommandHandler } from '../core/commandHandler';

/** What appending a command takes (a Site has it). */
export interface CommandContext {
  commands: CommandHandler;
  clock: Clock;
  metadata(userId: number | null, requestId: string): EventMetadata;
}

export interface Accounts {
  /** The stream an account's events are on: its users document is folded from it. */
  streamOf(userId: number): string;
  /**
   * Records that the account's application password `uuid` was used now, from `ip`; nothing when its use was
   * recorded less than USAGE_RECORD_INTERVAL_MS ago.
   */
  recordApplicationPasswordUse(
    site: CommandContext,
    userId: number,
    uuid: string,
    ip: string | null,
    requestId: string,
  ): Promise<unknown>;
}
