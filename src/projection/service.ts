/**
 * Running the projector when several processes share a read model: only the holder of the projector lease applies
 * events. The service renews the lease every third of its lifetime, also while the projector starts (a start may
 * rebuild a projection from the whole log, for longer than the lease lasts); a process that cannot get it waits on
 * standby and takes over once the holder's lease expires (it died, or stalled). Every commit carries the lease's fencing
 * token, so a holder that stalled past its expiry has its next commit refused instead of overwriting its successor.
 * After each commit the holder publishes the position every projection has applied, which API nodes wait on.
 */
import type { AppliedProgress, Lease } from '../ports/coordination';
import type { StaleCommitError } from '../ports/readModel';
import type { Projector } from './runner';

export type ProjectorState = 'starting' | 'active' | 'standby' | 'stopped';

export class ProjectorService {
  private fence: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The projector's start in the current (or last) term; renewals do not wait for it. */
  private starting: Promise<void> = Promise.resolve();
  private ticking: Promise<void> = Promise.resolve();
  /** Ends start()'s wait once the projections not being rebuilt have caught up in the first term. */
  private caughtUp: () => void = () => undefined;
  private stopped = false;
  /** The lease could not be renewed at the last try (logged once until it can again). */
  private leaseUnreachable = false;
  state: ProjectorState = 'starting';

  constructor(
    private readonly options: {
      projector: Projector;
      lease: Lease;
      progress: AppliedProgress;
      /** What runs only while this process holds the lease, beside the projector (webhook deliveries). */
      alongside?: { start(): void; stop(): Promise<void> };
      log?: (message: string, detail?: unknown) => void;
    },
  ) {}

  /**
   * Tries for the lease once (catching up if it gets it), then keeps trying in the background. Resolves on standby,
   * or once the projections not being rebuilt have caught up: a rebuild of a changed projection goes on after that.
   */
  async start(): Promise<void> {
    const caughtUp = new Promise<void>((resolve) => (this.caughtUp = resolve));
    await this.tick();
    const every = Math.max(50, Math.floor(this.options.lease.ttlMs / 3));
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, every);
    // Renewals run from here on, whether or not the term's start (a catch-up, perhaps a rebuild) is over.
    await Promise.race([this.starting, caughtUp]);
  }

  /** The fencing token of the term in progress, or null on standby. */
  get currentFence(): number | null {
    return this.fence;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const { lease, projector, log } = this.options;
    let fence: number | null;
    try {
      fence = await lease.acquire();
    } catch (error) {
      // Redis unreachable: commits cannot land either, and the fence guards them when it comes back.
      if (!this.leaseUnreachable)
        log?.('projector: could not renew the lease', error instanceof Error ? error.message : error);
      this.leaseUnreachable = true;
      return;
    }
    if (this.leaseUnreachable) log?.('projector: the lease can be renewed again');
    this.leaseUnreachable = false;
    if (this.stopped) return;
    if (fence === this.fence) {
      // Renewed, or still on standby (also when this process never held it).
      if (fence === null) this.state = 'standby';
      return;
    }
    if (this.fence !== null) {
      log?.(`projector: lease term ${this.fence} ended${fence === null ? ' (another process holds it)' : ''}`);
      await this.options.alongside?.stop();
      await projector.stop();
      this.fence = null;
    }
    if (fence === null) {
      this.state = 'standby';
      return;
    }
    this.fence = fence;
    this.state = 'active';
    log?.(`projector: holding the lease (term ${fence}), catching up`);
    // The projector starts without holding up the renewals: with a start that outlasted the lease (a rebuild), a
    // standby would take over and start the same rebuild, replacing this one's staged generation, and so on for ever.
    // A term's start waits for the previous term's to be over (one start at a time on the projector).
    this.starting = this.starting.then(() => this.startTerm(fence));
  }

  /** Starts the projector for a term; once it is up, stops it again if the term ended meanwhile. */
  private async startTerm(fence: number): Promise<void> {
    const { projector, log } = this.options;
    if (this.fence !== fence || this.stopped) return;
    try {
      await projector.start({
        fence,
        onApplied: (position) => {
          this.options.progress
            .publish(position, fence)
            .catch((error) => log?.('projector: could not publish the applied position', error));
        },
        onFenced: (error: StaleCommitError) => {
          if (this.fence === fence) {
            this.fence = null;
            this.state = 'standby';
            this.options.alongside
              ?.stop()
              .catch((error) => log?.('projector: could not stop what runs beside it', error));
          }
          log?.(`projector: term ${fence} fenced off`, error.message);
        },
        onCaughtUp: () => {
          // Nothing may have been applied yet in this term (caught up already): publish where it stands.
          if (this.fence === fence && projector.failures.length === 0 && projector.refusal === null) {
            this.options.progress
              .publish(projector.appliedPosition, fence)
              .catch((error) => log?.('projector: could not publish the applied position', error));
          }
          this.caughtUp();
        },
      });
      // Nothing may have been applied in this term (caught up already): publish where it stands.
      if (this.fence === fence && projector.failures.length === 0 && projector.refusal === null)
        await this.options.progress.publish(projector.appliedPosition, fence);
    } catch (error) {
      log?.('projector: failed to start', error);
    }
    // The term ended while it started (the stop then came before what the start went on to open): stop what it opened.
    if (this.fence !== fence) await projector.stop();
    else if (!this.stopped) this.options.alongside?.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.options.alongside?.stop();
    await this.options.projector.stop();
    if (this.fence !== null) await this.options.lease.release().catch(() => undefined);
    this.fence = null;
    this.state = 'stopped';
  }
}
