/**
 * Coordination between processes that share a read model: the projector lease (only its holder applies events, and
 * its fencing token guards every commit) and the applied position API nodes wait on. Used by the projector service
 * (src/projection/service.ts); adapters: src/adapters/redis/coordination.ts, and single-process stand-ins in src/site.ts.
 */
export interface Lease {
  readonly ttlMs: number;
  readonly owner: string;
  /** Takes or renews the lease: its fencing token, or null while another process holds it. */
  acquire(): Promise<number | null>;
  /** Gives the lease up at once (a clean stop), so a standby need not wait for the expiry. */
  release(): Promise<void>;
  /** Who holds it now, if anyone. */
  holder(): Promise<string | null>;
}

/** The lowest log position every projection has applied, shared between processes. */
export interface AppliedProgress {
  /**
   * Raises it to `position`, if `fence` is still the newest lease; false when refused. The caller has committed up to
   * `position`, so this process's own waiters are released at once, before the shared value is raised.
   */
  publish(position: number, fence: number): Promise<boolean>;
  /**
   * The value as this process knows it: read from the shared store, and never below what it knew before (waiters rely
   * on it only rising).
   */
  applied(): Promise<number>;
  /** The value the shared store holds now, as it is (0 when it holds none: never published, or lost), for readiness. */
  current(): Promise<number>;
  /** Resolves true once it reaches `position`, or false after `timeoutMs`; rejects when the shared store cannot be read. */
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}
