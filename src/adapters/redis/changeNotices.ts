/**
 * Tells a process that another process may have changed the shared Redis read model, as soon as Redis says so:
 * every message on the subscriber connection (the applied position the projector publishes after each commit,
 * `<prefix>projector:applied` in coordination.ts, and the generation switches PROMOTE publishes,
 * `<prefix>gen:switched` in readModel.ts) and every reconnect of that connection (messages may have been missed).
 * The shared response cache (src/http/responseCache.ts) moves its version on at each notice; the site also polls
 * the applied position, in case a message is lost.
 *
 * A notice other than an applied position is told twice: at once, and again after a round trip on the command
 * connection. The read model adapter reloads which generation it reads when it hears of a switch, with a command on
 * that connection sent from its own listener (registered before this one, on the same event): once this round trip is answered, the
 * reload is too, so an answer computed after the second notice reads the new generation.
 */
import type { Redis } from 'ioredis';

export function watchRedisChanges(
  options: { redis: Redis; subscriber: Redis; prefix: string },
  onChange: () => void,
): () => void {
  const { redis, subscriber, prefix } = options;
  const applied = `${prefix}projector:applied`;
  const switched = `${prefix}gen:switched`;
  const appliedChannel = Buffer.from(applied);
  const afterReadModelReload = () => {
    onChange();
    redis.ping().then(onChange, onChange);
  };
  // The buffer event: ioredis emits it after the string one, and the read model adapter listens to it.
  const onMessage = (channel: Buffer) => {
    if (channel.equals(appliedChannel)) onChange();
    else afterReadModelReload();
  };
  subscriber.on('messageBuffer', onMessage);
  subscriber.on('ready', afterReadModelReload);
  // Both are subscribed by their owners already; subscribing again changes nothing and makes this module self-contained.
  subscriber.subscribe(applied, switched).catch(() => undefined);
  return () => {
    subscriber.off('messageBuffer', onMessage).off('ready', afterReadModelReload);
  };
}
