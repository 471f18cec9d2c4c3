/**
 * The HttpFetcher on node's fetch: bounded in time (the whole exchange) and in body size, so that a slow or
 * huge answer from another site cannot hold a request or the process's memory.
 */
import type { HttpFetcher, HttpResponse } from '../../ports/httpFetcher';

export interface NodeFetcherOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

export function createNodeHttpFetcher(options: NodeFetcherOptions = {}): HttpFetcher {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  return {
    async get(url: string): Promise<HttpResponse> {
      const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs), headers: { 'user-agent': 'palimpsest oEmbed' } });
      const declared = Number(response.headers.get('content-length') ?? '0');
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw new Error(`response larger than ${maxBytes} bytes`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (response.body) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          size += chunk.length;
          if (size > maxBytes) throw new Error(`response larger than ${maxBytes} bytes`);
          chunks.push(chunk);
        }
      }
      return {
        status: response.status,
        contentType: (response.headers.get('content-type') ?? '').toLowerCase(),
        body: Buffer.concat(chunks).toString('utf8'),
      };
    },
  };
}
