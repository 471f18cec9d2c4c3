/**
 * Whether this process may answer from its read model, judged against the event store (src/projection/epoch.ts) when
 * first asked, then every `everyMs`, and again whenever the projector recorded an epoch. Requests read the last
 * judgement at once (no I/O on their path): while the read model is unbuilt (empty, wiped, being rebuilt from the
 * log), built from another log, or ahead of the store, the API answers 503 with Retry-After rather than partial or
 * foreign data (src/app.ts). A judgement that could not be made (the store or the read model did not answer) leaves
 * requests to meet that outage themselves.
 */
import type { ReadModelVerdict } from '../projection/epoch';

export type Judgement = { verdict: ReadModelVerdict; error?: undefined } | { verdict?: undefined; error: string };

export class ReadModelWatch {
  private last: Judgement | null = null;
  private pending: Promise<Judgement> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly judge: () => Promise<ReadModelVerdict>,
    private readonly everyMs: number,
  ) {}

  /** The last judgement; the first is made when first asked for (and the timer started then). */
  current(): Promise<Judgement> {
    return this.last !== null ? Promise.resolve(this.last) : this.refresh();
  }

  /** The last judgement made, or null while none has been. */
  latest(): Judgement | null {
    return this.last;
  }

  /** Judges again now (one judgement at a time: a call during one gets that one's, then another is made). */
  refresh(): Promise<Judgement> {
    this.startTimer();
    const previous = this.pending;
    const next = (previous ?? Promise.resolve()).catch(() => undefined).then(() => this.judgeOnce());
    this.pending = next;
    void next.finally(() => {
      if (this.pending === next) this.pending = null;
    });
    return next;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async judgeOnce(): Promise<Judgement> {
    let judgement: Judgement;
    try {
      judgement = { verdict: await this.judge() };
    } catch (error) {
      judgement = { error: error instanceof Error ? error.message : String(error) };
    }
    this.last = judgement;
    return judgement;
  }

  private startTimer(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setInterval(() => {
      if (this.pending === null) void this.refresh();
    }, this.everyMs);
    this.timer.unref();
  }
}

/** Why requests are refused now, or null when the read model may be served. */
export function refusalOf(judgement: Judgement): string | null {
  const { verdict } = judgement;
  if (!verdict || verdict.state === 'trusted') return null;
  return verdict.reason;
}
