/**
 * A TCP proxy on a free loopback port in front of another loopback port, for fault tests: `stall()` stops
 * forwarding in both directions while keeping every connection open and accepting new ones (what a hung server looks
 * like to a client: nothing answers, nothing closes); `resume()` forwards what was held back and carries on.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StallingProxy {
  port: number;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallingProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<StallingProxy> {
  let stalled = false;
  /** Per direction of every connection: what arrived while stalled, delivered on resume. */
  const held = new Map<net.Socket, { to: net.Socket; chunks: Buffer[] }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    const forward = (from: net.Socket, to: net.Socket) => {
      const entry = { to, chunks: [] as Buffer[] };
      held.set(from, entry);
      from.on('data', (chunk: Buffer) => {
        if (stalled) entry.chunks.push(chunk);
        else to.write(chunk);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      held.delete(client);
      held.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const entry of held.values()) for (const chunk of entry.chunks.splice(0)) entry.to.write(chunk);
    },
    async close() {
      for (const socket of held.keys()) socket.destroy();
      held.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
