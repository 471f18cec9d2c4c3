/**
 * The site's metrics registry: prom-client's, one per site (no module-level state, so several sites in one process
 * never share series), plus collectors that set gauges from where their values live (projector lag, cache sizes)
 * just before each scrape, all together.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from 1 ms to 10 s, which covers a cached read up to a write waiting out its read-your-writes bound. */
export const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MetricsRegistry {
  private readonly prometheus = new Registry();
  private readonly collectors: (() => Promise<void> | void)[] = [];

  /** The exposition format's content type (text, version 0.0.4). */
  get contentType(): string {
    return this.prometheus.contentType;
  }

  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.prometheus] });
  }

  gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.prometheus] });
  }

  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: readonly number[] = DEFAULT_BUCKETS,
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets: [...buckets], registers: [this.prometheus] });
  }

  /** Runs before every scrape, to set gauges from their sources. */
  collect(collector: () => Promise<void> | void): void {
    this.collectors.push(collector);
  }

  /** The exposition text. A collector that fails leaves its gauges as they were (the scrape still answers). */
  async render(): Promise<string> {
    await Promise.all(
      this.collectors.map(async (collect) => {
        try {
          await collect();
        } catch {
          // Reported through the gauges it could not set (their age), and /readyz.
        }
      }),
    );
    return this.prometheus.metrics();
  }
}
