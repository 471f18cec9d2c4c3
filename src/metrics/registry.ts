/**
 * A small Prometheus metrics registry (text exposition format 0.0.4): counters, gauges and histograms with
 * labels. One registry per site (no module-level state); gauges whose value lives elsewhere (projector lag) are
 * read by collectors just before each scrape.
 */

type Labels = Record<string, string>;

interface Metric {
  readonly name: string;
  render(out: string[]): void;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const formatLabels = (labels: Labels, extra = ''): string => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
};
const formatNumber = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN');

export class Counter implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, private readonly help: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = JSON.stringify(labels);
    const series = this.values.get(key);
    if (series) series.value += by;
    else this.values.set(key, { labels, value: by });
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const { labels, value } of this.values.values()) out.push(`${this.name}${formatLabels(labels)} ${formatNumber(value)}`);
  }
}

export class Gauge implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, private readonly help: string) {}
  set(value: number, labels: Labels = {}): void {
    this.values.set(JSON.stringify(labels), { labels, value });
  }
  get(labels: Labels = {}): number | undefined {
    return this.values.get(JSON.stringify(labels))?.value;
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`);
    for (const { labels, value } of this.values.values()) out.push(`${this.name}${formatLabels(labels)} ${formatNumber(value)}`);
  }
}

/** Seconds: from 1 ms to 10 s, which covers a cached read up to a write waiting out its read-your-writes bound. */
export const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly labels: Labels, private readonly buckets: readonly number[]) {
    this.counts = new Array(buckets.length).fill(0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    // Stored per bucket (not cumulative); render accumulates.
    const i = this.buckets.findIndex((bound) => value <= bound);
    if (i >= 0) this.counts[i]! += 1;
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, HistogramSeries>();
  constructor(readonly name: string, private readonly help: string, private readonly buckets: readonly number[] = DEFAULT_BUCKETS) {}
  /** The series for these labels: keep it to observe without a lookup. */
  child(labels: Labels = {}): HistogramSeries {
    const key = JSON.stringify(labels);
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = new HistogramSeries(labels, this.buckets)));
    return series;
  }
  observe(value: number, labels: Labels = {}): void {
    this.child(labels).observe(value);
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        out.push(`${this.name}_bucket${formatLabels(series.labels, `le="${bound}"`)} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${formatLabels(series.labels, 'le="+Inf"')} ${series.count}`);
      out.push(`${this.name}_sum${formatLabels(series.labels)} ${formatNumber(series.sum)}`);
      out.push(`${this.name}_count${formatLabels(series.labels)} ${series.count}`);
    }
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  private readonly collectors: (() => Promise<void> | void)[] = [];

  counter(name: string, help: string): Counter {
    return this.register(new Counter(name, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.register(new Gauge(name, help));
  }
  histogram(name: string, help: string, buckets?: readonly number[]): Histogram {
    return this.register(new Histogram(name, help, buckets));
  }
  /** Runs before every scrape, to set gauges from their sources. */
  collect(collector: () => Promise<void> | void): void {
    this.collectors.push(collector);
  }

  /** The exposition text. A collector that fails leaves its gauges as they were (the scrape still answers). */
  async render(): Promise<string> {
    await Promise.all(this.collectors.map(async (collect) => {
      try {
        await collect();
      } catch {
        // Reported through the gauges it could not set (their age), and /readyz.
      }
    }));
    const out: string[] = [];
    for (const metric of this.metrics.values()) metric.render(out);
    return `${out.join('\n')}\n`;
  }

  private register<M extends Metric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} is registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}
