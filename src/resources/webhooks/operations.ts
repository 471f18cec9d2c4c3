/**
 * Webhook operations, callable without HTTP: the effects a decision needs (the secret, the clock, the log's head)
 * happen here, around the pure decider (src/webhooks/decider.ts). Settings are read by folding the `webhooks`
 * stream and deliveries from each webhook's records, so no read model is involved and a write reads back at once.
 */
import { randomBytes } from 'node:crypto';
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { PositionNotInLogError } from '../../ports/eventStore';
import { webhooksDecider } from '../../webhooks/decider';
import { InvalidValue, NotFound } from '../../core/errors';
import type { Webhook, WebhookChanges } from '../../webhooks/decider';
import { WEBHOOKS_STREAM, deliveriesStreamId } from '../../webhooks/events';
import type { WebhookSubscription } from '../../webhooks/events';
import { readWebhooks } from '../../webhooks/read';
import { resumePoint, summarize } from '../../webhooks/deliveries';
import type { DeliverySummary } from '../../webhooks/deliveries';

/** `whsec_` and 32 random bytes in base64, as Standard Webhooks writes a symmetric secret. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export async function listWebhooks(site: Site): Promise<Webhook[]> {
  return [...(await readWebhooks(site.store)).webhooks.values()];
}

export async function readWebhook(site: Site, id: number): Promise<Webhook> {
  const webhook = (await readWebhooks(site.store)).webhooks.get(id);
  if (!webhook) throw new NotFound('webhook');
  return webhook;
}

/** Where the webhook's deliveries stand: every event it takes up to this log position was delivered. */
export async function deliveredPosition(site: Site, webhook: Webhook): Promise<number> {
  const [latest] = await site.store.readStream(deliveriesStreamId(webhook.id), { direction: 'backwards', maxCount: 1 });
  return resumePoint(webhook, latest, site.clock.now()).checkpoint;
}

const now = (site: Site) => new Date(site.clock.now()).toISOString();

export interface CreateWebhookInput {
  subscription: WebhookSubscription;
  active: boolean;
  /** Absent: the head of the log now (only events from now on). */
  fromPosition?: number;
}

export async function createWebhook(
  site: Site,
  input: CreateWebhookInput,
  actor: Actor,
  requestId: string,
): Promise<Webhook> {
  const metadata = site.metadata(actor.id, requestId);
  const secret = newWebhookSecret();
  const result = await site.commands.handle(
    WEBHOOKS_STREAM,
    webhooksDecider,
    async () => {
      const head = await site.store.headPosition();
      if (input.fromPosition !== undefined && input.fromPosition > head) {
        throw new InvalidValue('webhook', ['from_position'], 'outOfRange', { limit: head });
      }
      if (input.fromPosition !== undefined && input.fromPosition > 0 && input.fromPosition <= head)
        await mustBeAPosition(site, input.fromPosition);
      return {
        kind: 'create' as const,
        subscription: input.subscription,
        active: input.active,
        fromPosition: input.fromPosition ?? head,
        secret,
        now: now(site),
      };
    },
    metadata,
  );
  const created = result.events[0]!.data as { id: number };
  return result.state.webhooks.get(created.id)!;
}

/** EventStoreDB's positions are byte offsets: most numbers below the head name no event, and reading after one fails. */
async function mustBeAPosition(site: Site, position: number): Promise<void> {
  try {
    await site.store.readAll({ fromPosition: position, maxCount: 1 });
  } catch (error) {
    if (!(error instanceof PositionNotInLogError)) throw error;
    throw new InvalidValue('webhook', ['from_position'], 'unknownReference');
  }
}

export async function updateWebhook(
  site: Site,
  id: number,
  changes: WebhookChanges,
  actor: Actor,
  requestId: string,
): Promise<Webhook> {
  const result = await site.commands.handle(
    WEBHOOKS_STREAM,
    webhooksDecider,
    { kind: 'update', id, changes, now: now(site) },
    site.metadata(actor.id, requestId),
  );
  return result.state.webhooks.get(id)!;
}

export async function deleteWebhook(site: Site, id: number, actor: Actor, requestId: string): Promise<void> {
  await site.commands.handle(
    WEBHOOKS_STREAM,
    webhooksDecider,
    { kind: 'delete', id },
    site.metadata(actor.id, requestId),
  );
}

/** Switches the webhook on again, resuming with its dead-lettered delivery. */
export async function redeliver(
  site: Site,
  id: number,
  delivery: string,
  actor: Actor,
  requestId: string,
): Promise<Webhook> {
  const result = await site.commands.handle(
    WEBHOOKS_STREAM,
    webhooksDecider,
    { kind: 'redeliver', id, delivery },
    site.metadata(actor.id, requestId),
  );
  return result.state.webhooks.get(id)!;
}

/** Records read from the end of a webhook's deliveries stream at once, and at most for one page. */
const SCAN_CHUNK = 200;
const SCAN_MAX = 10_000;

/**
 * One page of a webhook's deliveries, newest first: each delivery as its latest record shows it. The records are
 * read from the end of the stream until the page (and one more, to know whether there is a next) is full, within a
 * bound of records read; `next` tells whether more deliveries follow.
 */
export async function listDeliveries(
  site: Site,
  webhookId: number,
  page: number,
  perPage: number,
): Promise<{ deliveries: DeliverySummary[]; next: boolean }> {
  const stream = deliveriesStreamId(webhookId);
  const wanted = page * perPage + 1;
  const seen = new Map<string, DeliverySummary>();
  let from: number | undefined;
  for (let read = 0; seen.size < wanted && read < SCAN_MAX; ) {
    const chunk = await site.store.readStream(stream, {
      direction: 'backwards',
      maxCount: SCAN_CHUNK,
      ...(from === undefined ? {} : { fromRevision: from }),
    });
    for (const record of chunk) {
      const summary = summarize(record);
      if (summary && !seen.has(summary.id)) seen.set(summary.id, summary);
    }
    read += chunk.length;
    const last = chunk[chunk.length - 1];
    if (chunk.length < SCAN_CHUNK || !last || last.revision === 0) break;
    from = last.revision - 1;
  }
  const all = [...seen.values()];
  return { deliveries: all.slice((page - 1) * perPage, page * perPage), next: all.length > page * perPage };
}
