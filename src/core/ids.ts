import { WrongExpectedRevisionError } from '../ports/eventStore';
import type { EventMetadata, EventStore } from '../ports/eventStore';

/**
 * Integer id sequences, as WordPress has them (posts, pages, attachments, revisions, autosaves and menu items
 * share one; users and terms have their own).
 *
 * The sequence lives in the event store as a stream of `IdBlockReserved` events. A process reserves a block
 * with one optimistic append and then hands ids out of it from memory, so no request waits on a shared
 * counter; several processes reserving at once simply retry on the conflict. Ids of a block left unused when
 * a process stops are skipped, which WordPress clients tolerate (WordPress itself leaves gaps).
 */
export const ID_BLOCK_RESERVED = 'IdBlockReserved';

export interface IdBlockReserved {
  sequence: string;
  first: number;
  last: number;
}

export class IdSequence {
  private next = 0;
  private last = -1;
  private reserving: Promise<void> | null = null;

  constructor(
    private readonly store: EventStore,
    readonly sequence: string,
    private readonly blockSize: number,
    private readonly metadata: () => EventMetadata,
  ) {}

  get streamId(): string {
    return `ids-${this.sequence}`;
  }

  async nextId(): Promise<number> {
    while (this.next > this.last) {
      // One reservation at a time per process; concurrent callers wait for it and then share the block.
      this.reserving ??= this.reserveBlock().finally(() => {
        this.reserving = null;
      });
      await this.reserving;
    }
    return this.next++;
  }

  private async reserveBlock(): Promise<void> {
    for (;;) {
      const [latest] = await this.store.readStream(this.streamId, { direction: 'backwards', maxCount: 1 });
      const previousLast = latest ? (latest.data as IdBlockReserved).last : 0;
      const block: IdBlockReserved = {
        sequence: this.sequence,
        first: previousLast + 1,
        last: previousLast + this.blockSize,
      };
      try {
        await this.store.appendToStream(
          this.streamId,
          [{ type: ID_BLOCK_RESERVED, data: block, metadata: this.metadata() }],
          { expectedRevision: latest ? latest.revision : 'no_stream' },
        );
        this.next = block.first;
        this.last = block.last;
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
  }
}
