/** A webhook receiver on a loopback port: records every request, answers with the status `answer` gives. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  /** The status it was answered with. */
  status: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** The status for the next request (default 200). */
  answer: (delivery: Omit<ReceivedDelivery, 'status'>) => number;
  /** Resolves once `until` holds, checked at each request; rejects after `timeoutMs`. */
  waitFor(until: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => 200,
    waitFor(until, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!until(receiver.received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `the receiver did not get what was awaited within ${timeoutMs} ms (${receiver.received.length} requests)`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const delivery = { headers, body: Buffer.concat(chunks).toString('utf8') };
      const status = receiver.answer(delivery);
      receiver.received.push({ ...delivery, status });
      // A redirect goes where the request's `to` parameter says.
      const to = new URL(request.url ?? '/', 'http://receiver').searchParams.get('to');
      response
        .writeHead(status, {
          'content-type': 'text/plain',
          ...(status >= 300 && status < 400 && to ? { location: to } : {}),
        })
        .end(status < 300 ? 'ok' : 'not now');
      for (const check of [...waiters]) check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}
