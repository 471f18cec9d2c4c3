/**
 * The site: every dependency the routes and operations need, assembled once by the composition root
 * (main.ts, the CLI, or a test) from the ports' adapters. No module-level singletons: whoever needs the
 * site is handed it.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from './ports/clock';
import type { EventMetadata, EventStore } from './ports/eventStore';
import type { ReadModel } from './ports/readModel';
import { CommandHandler } from './core/commandHandler';
import { IdSequence } from './core/ids';
import { NameClaims } from './core/claims';
import { Projector } from './projection/runner';
import type { Projection } from './projection/projection';
import builtInProjections from '../projections/index';

export interface SiteSettings {
  siteUrl: string;
  name: string;
  description: string;
  timezone: string;
  /** Key for application-password hashes. */
  authSecret: string;
  idBlockSize: number;
  readYourWritesTimeoutMs: number;
}

export interface Site {
  settings: SiteSettings;
  /** `{siteUrl}/`: every route path is appended to it. */
  apiRoot: string;
  clock: Clock;
  store: EventStore;
  readModel: ReadModel;
  commands: CommandHandler;
  ids: { content: IdSequence; users: IdSequence };
  claims: NameClaims;
  projector: Projector;
  /** Metadata for an event appended on behalf of `userId` while serving `requestId`. */
  metadata(userId: number | null, requestId: string): EventMetadata;
  /** Waits until the read model reflects `position` (bounded), so a write's answer can be read back at once. */
  settle(position: number): Promise<void>;
  close(): Promise<void>;
}

export interface SiteAdapters {
  store: EventStore;
  readModel: ReadModel;
  clock: Clock;
  projections?: readonly Projection[];
}

export function createSite(settings: SiteSettings, adapters: SiteAdapters): Site {
  const { store, readModel, clock } = adapters;
  const metadata = (userId: number | null, requestId: string): EventMetadata => ({
    userId,
    requestId,
    at: new Date(clock.now()).toISOString(),
  });
  const system = () => metadata(null, `system-${randomUUID()}`);
  const projector = new Projector({
    store,
    readModel,
    projections: adapters.projections ?? builtInProjections,
    log: (message, detail) => console.error(message, detail ?? ''),
  });
  return {
    settings,
    apiRoot: `${settings.siteUrl}/`,
    clock,
    store,
    readModel,
    commands: new CommandHandler(store),
    ids: {
      content: new IdSequence(store, 'content', settings.idBlockSize, system),
      // Users are created rarely and from two processes (server and CLI): no block, no gaps.
      users: new IdSequence(store, 'users', 1, system),
    },
    claims: new NameClaims(store),
    projector,
    metadata,
    async settle(position) {
      if (position <= 0) return;
      const reached = await projector.waitFor(position, settings.readYourWritesTimeoutMs);
      if (!reached) console.error(`read model did not reach position ${position} within ${settings.readYourWritesTimeoutMs} ms`);
    },
    async close() {
      await projector.stop();
      await readModel.close();
      await store.close();
    },
  };
}
