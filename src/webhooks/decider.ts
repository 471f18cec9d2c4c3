/**
 * The decider of webhooks' settings: a pure function of (command, state) over the one `webhooks` stream. The
 * secret, the time and the log's head come in the command; the URL was judged against the allow-list before.
 */
import type { Decider } from '../core/commandHandler';
import { InvalidTransition, NotFound } from '../core/errors';
import type { WebhookEvent, WebhookSubscription, WebhookUpdated } from './events';

export interface Webhook extends WebhookSubscription {
  id: number;
  active: boolean;
  fromPosition: number;
  secret: string;
  created: string;
  modified: string;
  /** Why deliveries stopped by themselves; null while active or switched off by hand. */
  disabledReason: 'dead_letter' | null;
  /** The dead-lettered delivery, while `disabledReason` is `dead_letter`. */
  deadLetter: string | null;
}

export interface WebhooksState {
  /** By id, in creation order. */
  webhooks: Map<number, Webhook>;
  /** The highest id ever given out (ids are never reused). */
  lastId: number;
}

export type WebhookChanges = WebhookUpdated['changes'];

export type WebhookCommand =
  | {
      kind: 'create';
      subscription: WebhookSubscription;
      active: boolean;
      fromPosition: number;
      secret: string;
      now: string;
    }
  | { kind: 'update'; id: number; changes: WebhookChanges; now: string }
  | { kind: 'delete'; id: number }
  | { kind: 'disable'; id: number; delivery: string }
  | { kind: 'redeliver'; id: number; delivery: string };

const webhookNotFound = (): NotFound => new NotFound('webhook');

export const initialWebhooksState = (): WebhooksState => ({ webhooks: new Map(), lastId: 0 });

export function evolveWebhooks(state: WebhooksState, event: WebhookEvent): WebhooksState {
  const webhooks = new Map(state.webhooks);
  switch (event.type) {
    case 'WebhookCreated': {
      const { id, url, events, streams, description, active, fromPosition, secret, created } = event.data;
      webhooks.set(id, {
        id,
        url,
        events,
        streams,
        description,
        active,
        fromPosition,
        secret,
        created,
        modified: created,
        disabledReason: null,
        deadLetter: null,
      });
      return { webhooks, lastId: Math.max(state.lastId, id) };
    }
    case 'WebhookUpdated': {
      const current = webhooks.get(event.data.id);
      if (!current) return state;
      const next = { ...current, ...event.data.changes, modified: event.data.modified };
      // Switched on by hand: whatever stopped it is over.
      if (event.data.changes.active === true) Object.assign(next, { disabledReason: null, deadLetter: null });
      webhooks.set(current.id, next);
      return { ...state, webhooks };
    }
    case 'WebhookDeleted':
      webhooks.delete(event.data.id);
      return { ...state, webhooks };
    case 'WebhookDisabled': {
      const current = webhooks.get(event.data.id);
      if (!current) return state;
      webhooks.set(current.id, {
        ...current,
        active: false,
        disabledReason: event.data.reason,
        deadLetter: event.data.delivery,
      });
      return { ...state, webhooks };
    }
    case 'WebhookRedeliveryRequested': {
      const current = webhooks.get(event.data.id);
      if (!current) return state;
      webhooks.set(current.id, { ...current, active: true, disabledReason: null, deadLetter: null });
      return { ...state, webhooks };
    }
  }
}

function decideWebhooks(command: WebhookCommand, state: WebhooksState): WebhookEvent[] {
  if (command.kind === 'create') {
    const id = state.lastId + 1;
    return [
      {
        type: 'WebhookCreated',
        data: {
          id,
          ...command.subscription,
          active: command.active,
          fromPosition: command.fromPosition,
          secret: command.secret,
          created: command.now,
        },
      },
    ];
  }
  const current = state.webhooks.get(command.id);
  switch (command.kind) {
    case 'update': {
      if (!current) throw webhookNotFound();
      const changes: WebhookChanges = {};
      for (const [key, value] of Object.entries(command.changes) as [keyof WebhookChanges, unknown][]) {
        if (value !== undefined && JSON.stringify(value) !== JSON.stringify(current[key]))
          (changes as Record<string, unknown>)[key] = value;
      }
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'WebhookUpdated', data: { id: current.id, changes, modified: command.now } }];
    }
    case 'delete':
      if (!current) throw webhookNotFound();
      return [{ type: 'WebhookDeleted', data: { id: current.id } }];
    case 'disable':
      // Deleted or switched off meanwhile: nothing left to stop.
      if (!current?.active) return [];
      return [{ type: 'WebhookDisabled', data: { id: current.id, reason: 'dead_letter', delivery: command.delivery } }];
    case 'redeliver':
      if (!current) throw webhookNotFound();
      if (current.deadLetter !== command.delivery) {
        // Only the delivery that stopped the webhook is waiting to be sent again.
        throw new InvalidTransition('webhookDelivery', 'notDeadLettered', 'redelivered');
      }
      return [{ type: 'WebhookRedeliveryRequested', data: { id: current.id, delivery: command.delivery } }];
  }
}

export const webhooksDecider: Decider<WebhooksState, WebhookCommand, WebhookEvent> = {
  initialState: initialWebhooksState,
  evolve: evolveWebhooks,
  decide: decideWebhooks,
};
