import { WrongExpectedRevisionError } from '../ports/eventStore';
import type { EventMetadata, EventStore } from '../ports/eventStore';

/**
 * Unique names (post slugs within their scope, user logins, emails) are claimed in the event store, never
 * looked up in a read model: every name has its own stream, and whoever appends `NameClaimed` to it first,
 * with an optimistic expected revision, owns the name until it appends `NameReleased`. Two requests racing
 * for one name therefore cannot both win, on one process or several.
 */
export const NAME_CLAIMED = 'NameClaimed';
export const NAME_RELEASED = 'NameReleased';

export interface NameClaimEvent {
  scope: string;
  name: string;
  owner: number;
}

export const claimStreamId = (scope: string, name: string): string => `name-${scope}-${name}`;

export class NameClaims {
  constructor(private readonly store: EventStore) {}

  /** The current owner of a name, or null. */
  async ownerOf(scope: string, name: string): Promise<number | null> {
    const [latest] = await this.store.readStream(claimStreamId(scope, name), { direction: 'backwards', maxCount: 1 });
    return latest && latest.type === NAME_CLAIMED ? (latest.data as NameClaimEvent).owner : null;
  }

  /**
   * Claims exactly `name` for `owner`. Returns false when someone else holds it. Claiming a name one already
   * owns succeeds without appending.
   */
  async claimExact(scope: string, name: string, owner: number, metadata: EventMetadata): Promise<boolean> {
    const streamId = claimStreamId(scope, name);
    const claimed = [{ type: NAME_CLAIMED, data: { scope, name, owner } satisfies NameClaimEvent, metadata }];
    // Most names were never claimed: try that first, which saves reading the stream; a name with a history
    // refuses it, and is then looked at.
    try {
      await this.store.appendToStream(streamId, claimed, { expectedRevision: 'no_stream' });
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
    for (;;) {
      const [latest] = await this.store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
      if (latest && latest.type === NAME_CLAIMED) return (latest.data as NameClaimEvent).owner === owner;
      try {
        await this.store.appendToStream(streamId, claimed, {
          expectedRevision: latest ? latest.revision : 'no_stream',
        });
        return true;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // Someone appended in between: look again at the same name.
      }
    }
  }

  /** Claims the first free name among `candidates` (e.g. slug, slug-2, slug-3, …) and returns it. */
  async claimFirstFree(
    scope: string,
    candidates: Iterable<string>,
    owner: number,
    metadata: EventMetadata,
  ): Promise<string> {
    for (const candidate of candidates) {
      if (await this.claimExact(scope, candidate, owner, metadata)) return candidate;
    }
    throw new Error(`no free name in scope ${scope}`);
  }

  /**
   * Releases every name of `claimed` but `kept`: the names a write claimed while preparing its command (a retry
   * claims again) and did not keep, after it succeeded (`kept` is the name it recorded) or failed (`kept` null).
   */
  async releaseAllBut(
    scope: string,
    claimed: readonly string[],
    kept: string | null,
    owner: number,
    metadata: EventMetadata,
  ): Promise<void> {
    for (const name of claimed) if (name !== kept) await this.release(scope, name, owner, metadata);
  }

  /** Releases a name if `owner` holds it; a no-op otherwise. */
  async release(scope: string, name: string, owner: number, metadata: EventMetadata): Promise<void> {
    const streamId = claimStreamId(scope, name);
    for (;;) {
      const [latest] = await this.store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
      if (!latest || latest.type !== NAME_CLAIMED || (latest.data as NameClaimEvent).owner !== owner) return;
      try {
        await this.store.appendToStream(
          streamId,
          [{ type: NAME_RELEASED, data: { scope, name, owner } satisfies NameClaimEvent, metadata }],
          { expectedRevision: latest.revision },
        );
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
  }
}
