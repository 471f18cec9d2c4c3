/**
 * Delivers the event log to webhooks (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64>`, signed with the `standardwebhooks` package). It runs in the one process that
 * runs the projector (the lease holder with Redis; src/site.ts starts and stops it with the projector), off the log:
 * a write never waits for a delivery.
 *
 * Each active webhook has a worker that reads the log after its checkpoint, in log order, and delivers each event it
 * takes, one at a time: an event is not sent before the previous one was delivered, so a receiver gets them in order.
 * Every outcome is appended to the webhook's `webhook-deliveries-{id}` stream with the revision the worker expects
 * (a second deliverer that overlapped is refused there and starts over from the records): a success moves the
 * checkpoint on, a failure records when the next attempt is due (exponential backoff with jitter), and once a
 * delivery has failed for `deadLetterAfterMs` since its first attempt it is dead-lettered and the webhook disabled
 * (`WebhookDisabled`). A stop or a crash between a send and its record sends the event again: at least once.
 */
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock } from '../ports/clock';
import { WrongExpectedRevisionError } from '../ports/eventStore';
import type { EventMetadata, EventStore, ExpectedRevision, RecordedEvent, Subscription } from '../ports/eventStore';
import type { HttpFetcher } from '../ports/httpFetcher';
import type { CommandHandler } from '../core/commandHandler';
import { auditEntry } from '../resources/audit/log';
import { webhooksDecider } from './decider';
import type { Webhook } from './decider';
import { backoffDelay, resumePoint, takesEvent } from './deliveries';
import type { BackoffPolicy, ResumePoint } from './deliveries';
import { WEBHOOKS_STREAM, deliveriesStreamId, deliveryIdOf } from './events';
import type { DeliveryRecordEvent } from './events';
import { readWebhooks } from './read';

export interface DelivererOptions {
  store: EventStore;
  clock: Clock;
  /** Outgoing HTTP to the receivers: the outbound client with the webhook allow-list, following no redirect. */
  http: HttpFetcher;
  commands: CommandHandler;
  /** Metadata of the events the deliverer appends (the system's). */
  metadata: () => EventMetadata;
  backoff: BackoffPolicy;
  deadLetterAfterMs: number;
  /** Bound on one delivery (ms). */
  timeoutMs: number;
  /** How often an idle worker looks at the log, in case it was not told of new events (ms). */
  pollMs?: number;
  /** In [0, 1): the jitter (Math.random when not given). */
  random?: () => number;
  log?: (message: string, detail?: unknown) => void;
}

/** Events read from the log at once. */
const BATCH = 100;
/** Most bytes of a receiver's answer read (the answer is not used; only its status). */
const ANSWER_MAX_BYTES = 64 * 1024;

/** The records' stream moved under this worker (another deliverer overlapped): start over from the records. */
class RecordsMoved extends Error {}

class Worker {
  stopped = false;
  private wakeUp: (() => void) | null = null;
  done: Promise<void> = Promise.resolve();

  constructor(public webhook: Webhook) {}

  /** Waits `ms`, or less when woken or stopped. */
  pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, Math.max(0, ms));
      const self = this;
      function finish() {
        clearTimeout(timer);
        if (self.wakeUp === finish) self.wakeUp = null;
        resolve();
      }
      this.wakeUp = finish;
    });
  }

  wake(): void {
    this.wakeUp?.();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    return this.done;
  }
}

export class WebhookDeliverer {
  private readonly workers = new Map<number, Worker>();
  private subscription: Subscription | null = null;
  private running = false;
  private reconciling: Promise<void> = Promise.resolve();
  private started: Promise<void> = Promise.resolve();
  private poll: NodeJS.Timeout | null = null;

  constructor(private readonly options: DelivererOptions) {}

  /** Starts delivering (at once; what it finds pending goes out in the background). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.started = this.open().catch((error) => this.options.log?.('webhooks: could not start delivering', error));
  }

  private async open(): Promise<void> {
    const { store } = this.options;
    const head = await store.headPosition();
    if (!this.running) return;
    // Told of every append (from any process sharing the store): settings changes start and stop workers, anything
    // else wakes idle workers. A poll covers a notice missed.
    this.subscription = store.subscribeToAll({
      after: head,
      onEvents: (events) => {
        if (events.some((event) => event.streamId === WEBHOOKS_STREAM)) this.reconcile();
        for (const worker of this.workers.values()) worker.wake();
      },
      onError: (error) => this.options.log?.('webhooks: the subscription to the log failed', error),
    });
    const every = this.options.pollMs ?? 1_000;
    this.poll = setInterval(() => this.reconcile(), every * 5);
    this.poll.unref();
    this.reconcile();
    await this.reconciling;
  }

  /** Makes the workers match the webhooks' settings: one per active webhook. Serialised. */
  private reconcile(): void {
    this.reconciling = this.reconciling.then(async () => {
      if (!this.running) return;
      let webhooks: Map<number, Webhook>;
      try {
        webhooks = (await readWebhooks(this.options.store)).webhooks;
      } catch (error) {
        this.options.log?.('webhooks: could not read the webhooks', error);
        return;
      }
      for (const [id, worker] of this.workers) {
        const current = webhooks.get(id);
        if (current?.active) worker.webhook = current;
        else {
          await worker.stop();
          this.workers.delete(id);
        }
      }
      for (const webhook of webhooks.values()) {
        if (!webhook.active || this.workers.has(webhook.id) || !this.running) continue;
        const worker = new Worker(webhook);
        this.workers.set(webhook.id, worker);
        worker.done = this.runWorker(worker);
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.poll) clearInterval(this.poll);
    await this.started;
    await this.reconciling;
    await this.subscription?.close();
    this.subscription = null;
    await Promise.all([...this.workers.values()].map((worker) => worker.stop()));
    this.workers.clear();
  }

  /** A worker's life: deliver from the records' resume point; after an error, start over from the records. */
  private async runWorker(worker: Worker): Promise<void> {
    while (!worker.stopped) {
      try {
        await this.deliverFromRecords(worker);
      } catch (error) {
        if (worker.stopped) return;
        if (!(error instanceof RecordsMoved))
          this.options.log?.(`webhooks: webhook ${worker.webhook.id} stopped on an error; starting over`, error);
        await worker.pause(this.options.pollMs ?? 1_000);
      }
    }
  }

  private async deliverFromRecords(worker: Worker): Promise<void> {
    const { store, clock } = this.options;
    const stream = deliveriesStreamId(worker.webhook.id);
    const [latest] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    let revision: ExpectedRevision = latest ? latest.revision : 'no_stream';
    const resume: ResumePoint = resumePoint(worker.webhook, latest, clock.now());
    let { checkpoint } = resume;
    let pending = resume.pending;
    const record = async (event: DeliveryRecordEvent): Promise<void> => {
      try {
        const result = await store.appendToStream(
          stream,
          [{ type: event.type, data: event.data, metadata: this.options.metadata() }],
          { expectedRevision: revision },
        );
        revision = result.nextExpectedRevision;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) throw new RecordsMoved();
        throw error;
      }
    };
    while (!worker.stopped) {
      const events = await store.readAll({ after: checkpoint, maxCount: BATCH });
      if (events.length === 0) {
        await worker.pause(this.options.pollMs ?? 1_000);
        continue;
      }
      for (const event of events) {
        if (worker.stopped) return;
        if (!takesEvent(worker.webhook, event)) {
          checkpoint = event.position;
          continue;
        }
        const resumed = pending?.eventId === event.id ? pending : null;
        pending = null;
        const delivered = await this.deliver(worker, event, checkpoint, resumed, record);
        if (!delivered) return;
        checkpoint = event.position;
      }
    }
  }

  /** Attempts one event until it is delivered (true), dead-lettered or the worker stops (false). */
  private async deliver(
    worker: Worker,
    event: RecordedEvent,
    before: number,
    resumed: ResumePoint['pending'],
    record: (event: DeliveryRecordEvent) => Promise<void>,
  ): Promise<boolean> {
    const { clock, backoff, deadLetterAfterMs } = this.options;
    const random = this.options.random ?? Math.random;
    const delivery = deliveryIdOf(event.id);
    const ref = { id: event.id, position: event.position, type: event.type, stream: event.streamId };
    let attempt = resumed?.attempt ?? 1;
    const firstAttemptAt = resumed?.firstAttemptAt ?? clock.now();
    // Resumed after a failure recorded before a restart: wait out what is left of that wait (never more than the longest).
    if (resumed) await worker.pause(Math.min(resumed.notBefore - clock.now(), backoff.maxMs));
    const body = JSON.stringify(auditEntry(event));
    for (;;) {
      if (worker.stopped) return false;
      const webhook = worker.webhook;
      const outcome = await this.send(webhook, delivery, body);
      const now = clock.now();
      const base = {
        webhook: webhook.id,
        delivery,
        event: ref,
        attempt,
        firstAttemptAt: new Date(firstAttemptAt).toISOString(),
        attemptedAt: new Date(now).toISOString(),
        status: outcome.status,
        latencyMs: outcome.latencyMs,
        error: outcome.error,
      };
      if (outcome.error === null) {
        await record({ type: 'WebhookDeliverySucceeded', data: { ...base, checkpoint: event.position } });
        return true;
      }
      if (now - firstAttemptAt >= deadLetterAfterMs) {
        await record({ type: 'WebhookDeliveryDeadLettered', data: { ...base, checkpoint: before } });
        // Recorded: the webhook must now be disabled, or a start over from the records would take it up again.
        for (;;) {
          try {
            await this.options.commands.handle(
              WEBHOOKS_STREAM,
              webhooksDecider,
              { kind: 'disable', id: webhook.id, delivery },
              this.options.metadata(),
            );
            break;
          } catch (error) {
            if (worker.stopped) return false;
            this.options.log?.(`webhooks: could not disable webhook ${webhook.id}; trying again`, error);
            await worker.pause(this.options.pollMs ?? 1_000);
          }
        }
        this.options.log?.(
          `webhooks: delivery ${delivery} to webhook ${webhook.id} dead-lettered after ${attempt} attempts; webhook disabled`,
        );
        return false;
      }
      const wait = backoffDelay(attempt, backoff, random);
      await record({
        type: 'WebhookDeliveryFailed',
        data: { ...base, checkpoint: before, nextAttemptAt: new Date(now + wait).toISOString() },
      });
      await worker.pause(wait);
      attempt++;
    }
  }

  /** One signed POST; `error` is null for a 2xx answer. */
  private async send(
    webhook: Webhook,
    delivery: string,
    body: string,
  ): Promise<{ status: number | null; latencyMs: number; error: string | null }> {
    const { clock, http, timeoutMs } = this.options;
    const at = new Date(clock.now());
    const started = performance.now();
    try {
      const signature = new Signer(webhook.secret).sign(delivery, at, body);
      const response = await http.request(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': delivery,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        timeoutMs,
        maxBytes: ANSWER_MAX_BYTES,
      });
      const latencyMs = Math.round(performance.now() - started);
      const ok = response.status >= 200 && response.status < 300;
      return { status: response.status, latencyMs, error: ok ? null : `the receiver answered ${response.status}` };
    } catch (error) {
      return {
        status: null,
        latencyMs: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }
}
