/** s3rver ships no types; test/support/s3.ts uses the little of it that it needs. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: { name: string }[];
    allowMismatchedSignatures?: boolean;
  }

  type Middleware = (ctx: any, next: () => Promise<void>) => Promise<void>;

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware list: a step put first runs before s3rver's routes. */
    middleware: Middleware[];
    store: { existsObject(bucket: string, key: string): Promise<boolean> };
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
