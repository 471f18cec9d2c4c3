/** The webhooks' settings, folded from their stream (a few events: webhooks are created and changed by hand). */
import type { EventStore } from '../ports/eventStore';
import { webhooksDecider } from './decider';
import type { WebhooksState } from './decider';
import type { WebhookEvent } from './events';
import { WEBHOOKS_STREAM } from './events';

export async function readWebhooks(store: EventStore): Promise<WebhooksState> {
  let state = webhooksDecider.initialState();
  for (const event of await store.readStream(WEBHOOKS_STREAM))
    state = webhooksDecider.evolve(state, event as unknown as WebhookEvent);
  return state;
}
