/**
 * A test-only EventStoreDB node: a gRPC server on the service definitions the client package ships, answering the
 * part of the protocol that `@eventstore/db-client` uses for our event-store port, with the events in memory
 * (see ./log.ts for the log's rules).
 *
 * What it implements:
 * - ServerFeatures.GetSupportedMethods (the client's first call; it decides BatchAppend versus Append) and
 *   Gossip.Read (one leader, for `esdb+discover://` connection strings);
 * - Streams.BatchAppend and Streams.Append with expected-revision checks, idempotent retries and
 *   wrong-expected-version answers in each call's own shape;
 * - Streams.Read: one stream or `$all`, both directions, from start / end / a revision or position, with a count
 *   (a missing stream answers "stream not found");
 * - Streams.Read as a `$all` subscription: confirmation, catch-up from start / end / an exclusive position, an event
 *   type or stream name filter (prefixes or a regular expression), checkpoints every window of considered events and
 *   when caught up, "caught up", then live events.
 * Everything else answers UNIMPLEMENTED, so a client that starts relying on more of the protocol fails loudly.
 *
 * For failure tests it can drop every open subscription, append the node's own (`$`-typed) events, and stop and
 * start listening on the same port without losing the log, as a node restart looks to a client.
 */
import { randomUUID } from 'node:crypto';
import {
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerReadableStream,
  type ServerWritableStream,
  type StatusObject,
} from '@grpc/grpc-js';
import type {
  BatchAppendReq,
  BatchAppendResp,
  ReadReq,
  ReadResp,
  AppendReq,
  AppendResp,
} from '@eventstore/db-client/generated/streams_pb';
import type { StreamIdentifier, UUID } from '@eventstore/db-client/generated/shared_pb';
import type { IStreamsServer } from '@eventstore/db-client/generated/streams_grpc_pb';
import type { IServerFeaturesServer } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import type { IGossipServer } from '@eventstore/db-client/generated/gossip_grpc_pb';
import * as pb from './generated';
import {
  InvalidPositionError,
  TransactionLog,
  type AppendOutcome,
  type Expected,
  type ProposedEvent,
  type StoredEvent,
} from './log';

export interface FakeEventStoreDbOptions {
  /** Answer ServerFeatures with UNIMPLEMENTED, as nodes before 21.10 do, so the client appends with Streams.Append. */
  withoutServerFeatures?: boolean;
}

export interface FakeEventStoreDb {
  readonly port: number;
  /** Single node, no TLS: what the adapter is configured with. */
  readonly connectionString: string;
  /** The same node found through gossip. */
  readonly discoveryConnectionString: string;
  readonly log: TransactionLog;
  /** Calls received per method name (`BatchAppend`, `Append`, `Read`, `GetSupportedMethods`, `Gossip.Read`). */
  readonly calls: Map<string, number>;
  openSubscriptionCount(): number;
  /** Ends every open subscription with UNAVAILABLE, as a node that restarts or loses leadership does. */
  dropSubscriptions(): number;
  /**
   * The next `count` appends are written but their answers are lost: the call fails with UNAVAILABLE after the
   * write, as when a connection drops between the node's commit and its reply.
   */
  loseAcknowledgements(count: number): void;
  /** An event the node writes itself, such as statistics: a `$`-typed event in a `$`-stream. */
  appendSystemEvent(streamId?: string, type?: string): StoredEvent;
  /**
   * Restarts the node on an older backup of its log, the one taken when it held its first `count` events (see
   * TransactionLog.restoreBackup): connections are cut, and clients reconnect to the older log.
   */
  restoreBackup(count: number): Promise<void>;
  /** Stops listening and cuts every connection; the log survives for `start()`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const { ReadReq: ReadRequest } = pb.streams;
const Options = ReadRequest.Options;
/** The node reads `$all` in pages of this many events; a filtered subscription's default checkpoint window. */
const READ_BATCH_SIZE = 32;
const SERVER_VERSION = '23.10.0-palimpsest-test-server';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class RpcError extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
  ) {
    super(message);
  }
  toStatus(): Partial<StatusObject> {
    return { code: this.code, details: this.message };
  }
}

const unimplemented = (what: string) =>
  new RpcError(GrpcStatus.UNIMPLEMENTED, `the test EventStoreDB server does not implement ${what}`);
const invalid = (what: string) => new RpcError(GrpcStatus.INVALID_ARGUMENT, what);
const asRpcError = (error: unknown): RpcError => {
  if (error instanceof RpcError) return error;
  if (error instanceof InvalidPositionError)
    return new RpcError(GrpcStatus.OUT_OF_RANGE, `Invalid position: ${error.message}`);
  return new RpcError(GrpcStatus.INTERNAL, error instanceof Error ? error.message : String(error));
};

// --- message helpers ---

function streamName(identifier: StreamIdentifier | undefined): string {
  if (!identifier) throw invalid('a stream identifier is required');
  return Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
}

function streamIdentifier(name: string): StreamIdentifier {
  return new pb.shared.StreamIdentifier().setStreamName(Buffer.from(name, 'utf8'));
}

function uuidText(uuid: UUID | undefined): string {
  if (!uuid) throw invalid('an event id is required');
  let text: string;
  if (uuid.getValueCase() === pb.shared.UUID.ValueCase.STRUCTURED) {
    const structured = uuid.getStructured()!;
    const hex = (bits: string) => BigInt.asUintN(64, BigInt(bits)).toString(16).padStart(16, '0');
    const all = hex(structured.getMostSignificantBits()) + hex(structured.getLeastSignificantBits());
    text = `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20)}`;
  } else {
    text = uuid.getString();
  }
  if (!UUID_PATTERN.test(text)) throw invalid(`"${text}" is not a UUID`);
  return text.toLowerCase();
}

function uuidMessage(text: string, structured: boolean): UUID {
  const uuid = new pb.shared.UUID();
  if (!structured) return uuid.setString(text);
  const hex = text.replace(/-/g, '');
  const signed = (part: string) => BigInt.asIntN(64, BigInt(`0x${part}`)).toString();
  return uuid.setStructured(
    new pb.shared.UUID.Structured()
      .setMostSignificantBits(signed(hex.slice(0, 16)))
      .setLeastSignificantBits(signed(hex.slice(16))),
  );
}

function proposedEvent(message: {
  getId(): UUID | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}): ProposedEvent {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  if (!type) throw invalid('the "type" metadata property is required');
  if (!contentType) throw invalid('the "content-type" metadata property is required');
  return {
    id: uuidText(message.getId()),
    type,
    contentType,
    data: message.getData_asU8(),
    metadata: message.getCustomMetadata_asU8(),
  };
}

function eventMessage(event: StoredEvent, structuredIds: boolean): ReadResp {
  const recorded = new pb.streams.ReadResp.ReadEvent.RecordedEvent()
    .setId(uuidMessage(event.id, structuredIds))
    .setStreamIdentifier(streamIdentifier(event.streamId))
    .setStreamRevision(String(event.revision))
    .setCommitPosition(String(event.position))
    .setPreparePosition(String(event.position))
    .setData(event.data)
    .setCustomMetadata(event.metadata);
  recorded
    .getMetadataMap()
    .set('type', event.type)
    .set('content-type', event.contentType)
    .set('created', event.createdTicks);
  const read = new pb.streams.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(String(event.position));
  return new pb.streams.ReadResp().setEvent(read);
}

function checkpointMessage(position: number): ReadResp {
  return new pb.streams.ReadResp().setCheckpoint(
    new pb.streams.ReadResp.Checkpoint().setCommitPosition(String(position)).setPreparePosition(String(position)),
  );
}

/** Positions and revisions travel as decimal strings (uint64); anything past 2^53 means "the end" here. */
const toNumber = (decimal: string) => Number(decimal);

/** Writes with backpressure: waits for the client to drain before writing more. Resolves early when `signal` aborts. */
async function send(
  call: ServerWritableStream<ReadReq, ReadResp>,
  message: ReadResp,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) return;
  if (call.write(message)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function compileFilter(filter: InstanceType<typeof Options.FilterOptions>): {
  allows(event: StoredEvent): boolean;
  checkpointInterval: number;
} {
  const onStreams = filter.getFilterCase() === Options.FilterOptions.FilterCase.STREAM_IDENTIFIER;
  const expression = onStreams ? filter.getStreamIdentifier() : filter.getEventType();
  if (!expression) throw invalid('a filter needs a stream identifier or event type expression');
  const field = (event: StoredEvent) => (onStreams ? event.streamId : event.type);
  const regex = expression.getRegex();
  const prefixes = expression.getPrefixList();
  // An empty regex means "use the prefixes", as the node reads the expression.
  const pattern = regex ? new RegExp(regex) : undefined;
  const window = filter.getWindowCase() === Options.FilterOptions.WindowCase.MAX ? filter.getMax() : READ_BATCH_SIZE;
  const multiplier = filter.getCheckpointintervalmultiplier();
  if (multiplier < 1) throw invalid('the checkpoint interval multiplier must be at least 1');
  return {
    allows: pattern
      ? (event) => pattern.test(field(event))
      : (event) => prefixes.some((prefix) => field(event).startsWith(prefix)),
    checkpointInterval: window * multiplier,
  };
}

// --- the node ---

export async function startFakeEventStoreDb(options: FakeEventStoreDbOptions = {}): Promise<FakeEventStoreDb> {
  const log = new TransactionLog();
  const calls = new Map<string, number>();
  const subscriptions = new Set<{ controller: AbortController; call: ServerWritableStream<ReadReq, ReadResp> }>();
  const count = (method: string) => calls.set(method, (calls.get(method) ?? 0) + 1);
  let port = 0;
  let server: Server | undefined;
  let acknowledgementsToLose = 0;
  const loseThisAcknowledgement = (outcome: AppendOutcome) => {
    if (outcome.kind !== 'written' || acknowledgementsToLose === 0) return false;
    acknowledgementsToLose -= 1;
    return true;
  };
  const lostAcknowledgement = {
    code: GrpcStatus.UNAVAILABLE,
    details: 'the test server lost the connection after writing',
  };

  // A fresh node has written events of its own before any client appends.
  log.appendSystemEvent('$settings', '$settings', { $userStreamAcl: { $r: '$all' } });
  log.appendSystemEvent('$user-admin', '$UserCreated', { loginName: 'admin' });

  function readStream(options: InstanceType<typeof Options>, structuredIds: boolean): ReadResp[] {
    const streamOptions = options.getStream()!;
    const events = log.streamEvents(streamName(streamOptions.getStreamIdentifier()));
    if (!events || events.length === 0) {
      return [
        new pb.streams.ReadResp().setStreamNotFound(
          new pb.streams.ReadResp.StreamNotFound().setStreamIdentifier(streamOptions.getStreamIdentifier()),
        ),
      ];
    }
    const maxCount = toNumber(options.getCount());
    const last = events.length - 1;
    const { RevisionOptionCase } = Options.StreamOptions;
    const revisionCase = streamOptions.getRevisionOptionCase();
    let selected: readonly StoredEvent[];
    if (options.getReadDirection() === Options.ReadDirection.FORWARDS) {
      const from =
        revisionCase === RevisionOptionCase.START
          ? 0
          : revisionCase === RevisionOptionCase.END
            ? last + 1
            : toNumber(streamOptions.getRevision());
      selected = events.slice(from, from + maxCount);
    } else {
      const from =
        revisionCase === RevisionOptionCase.START
          ? 0
          : revisionCase === RevisionOptionCase.END
            ? last
            : Math.min(toNumber(streamOptions.getRevision()), last);
      selected = events.slice(Math.max(0, from - maxCount + 1), from + 1).reverse();
    }
    return selected.map((event) => eventMessage(event, structuredIds));
  }

  function readAll(options: InstanceType<typeof Options>, structuredIds: boolean): ReadResp[] {
    const allOptions = options.getAll()!;
    const maxCount = toNumber(options.getCount());
    const { AllOptionCase } = Options.AllOptions;
    const allCase = allOptions.getAllOptionCase();
    const position = () => toNumber(allOptions.getPosition()!.getCommitPosition());
    let selected: readonly StoredEvent[];
    if (options.getReadDirection() === Options.ReadDirection.FORWARDS) {
      const start =
        allCase === AllOptionCase.START
          ? 0
          : allCase === AllOptionCase.END
            ? log.events.length
            : log.forwardStart(position());
      selected = log.events.slice(start, start + maxCount);
    } else {
      const end =
        allCase === AllOptionCase.START
          ? 0
          : allCase === AllOptionCase.END
            ? log.events.length
            : log.backwardEnd(position());
      selected = log.events.slice(Math.max(0, end - maxCount), end).reverse();
    }
    return selected.map((event) => eventMessage(event, structuredIds));
  }

  async function subscribeToAll(
    call: ServerWritableStream<ReadReq, ReadResp>,
    options: InstanceType<typeof Options>,
    structuredIds: boolean,
  ) {
    const allOptions = options.getAll()!;
    const filter =
      options.getFilterOptionCase() === Options.FilterOptionCase.FILTER
        ? compileFilter(options.getFilter()!)
        : undefined;
    const { AllOptionCase } = Options.AllOptions;
    // Delivery starts after this position (exclusive); -1 is "before the first record".
    let after: number;
    switch (allOptions.getAllOptionCase()) {
      case AllOptionCase.START:
        after = -1;
        break;
      case AllOptionCase.END:
        after = log.lastEvent()?.position ?? -1;
        break;
      default: {
        after = toNumber(allOptions.getPosition()!.getCommitPosition());
        const last = log.lastEvent();
        const isEventPosition = log.events[log.firstIndexAfter(after - 1)]?.position === after;
        // Like a read, a subscription cannot start inside a record.
        if (!isEventPosition && last !== undefined && after < last.position && after >= log.events[0]!.position) {
          throw new InvalidPositionError(`${after} is inside a record`);
        }
      }
    }

    const controller = new AbortController();
    const { signal } = controller;
    const entry = { controller, call };
    subscriptions.add(entry);
    call.on('cancelled', () => controller.abort());
    try {
      await send(
        call,
        new pb.streams.ReadResp().setConfirmation(
          new pb.streams.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()),
        ),
        signal,
      );
      let caughtUp = false;
      let considered = 0;
      let lastConsidered: number | undefined;
      while (!signal.aborted) {
        const start = log.firstIndexAfter(after);
        const page = log.events.slice(start, start + READ_BATCH_SIZE);
        if (page.length === 0) {
          if (!caughtUp) {
            // Going live always tells a filtered subscription how far it has looked.
            if (filter && lastConsidered !== undefined) await send(call, checkpointMessage(lastConsidered), signal);
            await send(call, new pb.streams.ReadResp().setCaughtUp(new pb.streams.ReadResp.CaughtUp()), signal);
            caughtUp = true;
            // Appends may have landed while those were sent; look again before waiting for the next one.
            continue;
          }
          await log.nextAppend(signal);
          continue;
        }
        for (const event of page) {
          if (signal.aborted) break;
          considered += 1;
          if (!filter || filter.allows(event)) await send(call, eventMessage(event, structuredIds), signal);
          after = event.position;
          lastConsidered = event.position;
          if (filter && considered % filter.checkpointInterval === 0)
            await send(call, checkpointMessage(event.position), signal);
        }
      }
    } finally {
      subscriptions.delete(entry);
    }
  }

  const streamsService: IStreamsServer = {
    read(call) {
      count('Read');
      const options = call.request.getOptions();
      const fail = (error: unknown) => call.emit('error', asRpcError(error).toStatus());
      try {
        if (!options) throw invalid('read options are required');
        const structuredIds = options.getUuidOption()?.getContentCase() === Options.UUIDOption.ContentCase.STRUCTURED;
        const streamCase = options.getStreamOptionCase();
        const isSubscription = options.getCountOptionCase() === Options.CountOptionCase.SUBSCRIPTION;
        const isFiltered = options.getFilterOptionCase() === Options.FilterOptionCase.FILTER;
        if (isSubscription) {
          if (streamCase !== Options.StreamOptionCase.ALL) throw unimplemented('subscriptions to one stream');
          subscribeToAll(call, options, structuredIds).catch(fail);
          return;
        }
        if (isFiltered) throw unimplemented('filtered reads (the client only filters subscriptions)');
        const messages =
          streamCase === Options.StreamOptionCase.STREAM
            ? readStream(options, structuredIds)
            : readAll(options, structuredIds);
        const signal = new AbortController().signal;
        (async () => {
          for (const message of messages) await send(call, message, signal);
          call.end();
        })().catch(fail);
      } catch (error) {
        fail(error);
      }
    },

    batchAppend(call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>) {
      count('BatchAppend');
      // One call carries many appends, each split over requests that share a correlation id until `is_final`.
      const pending = new Map<
        string,
        { options: InstanceType<typeof pb.streams.BatchAppendReq.Options>; events: ProposedEvent[] }
      >();
      call.on('data', (request: BatchAppendReq) => {
        const correlationId = request.getCorrelationId();
        const key = correlationId ? uuidText(correlationId) : '';
        const response = new pb.streams.BatchAppendResp().setCorrelationId(correlationId);
        try {
          let append = pending.get(key);
          if (!append) {
            const options = request.getOptions();
            if (!options) throw invalid('the first request of an append carries its options');
            append = { options, events: [] };
            pending.set(key, append);
          }
          for (const message of request.getProposedMessagesList()) append.events.push(proposedEvent(message));
          if (!request.getIsFinal()) return;
          pending.delete(key);
          const { options } = append;
          const name = streamName(options.getStreamIdentifier());
          response.setStreamIdentifier(options.getStreamIdentifier());
          const { ExpectedStreamPositionCase } = pb.streams.BatchAppendReq.Options;
          let expected: Expected;
          switch (options.getExpectedStreamPositionCase()) {
            case ExpectedStreamPositionCase.STREAM_POSITION:
              expected = { kind: 'revision', revision: toNumber(options.getStreamPosition()) };
              response.setStreamPosition(options.getStreamPosition());
              break;
            case ExpectedStreamPositionCase.NO_STREAM:
              expected = { kind: 'no_stream' };
              response.setNoStream(new pb.googleEmpty());
              break;
            case ExpectedStreamPositionCase.STREAM_EXISTS:
              expected = { kind: 'stream_exists' };
              response.setStreamExists(new pb.googleEmpty());
              break;
            default:
              expected = { kind: 'any' };
              response.setAny(new pb.googleEmpty());
          }
          const outcome = log.append(name, expected, append.events);
          if (loseThisAcknowledgement(outcome)) {
            call.emit('error', lostAcknowledgement);
            return;
          }
          if (outcome.kind === 'wrong_expected_version') {
            const details = new pb.shared.WrongExpectedVersion();
            if (outcome.current < 0) details.setCurrentNoStream(new pb.googleEmpty());
            else details.setCurrentStreamRevision(String(outcome.current));
            if (expected.kind === 'revision') details.setExpectedStreamPosition(String(expected.revision));
            else if (expected.kind === 'no_stream') details.setExpectedNoStream(new pb.googleEmpty());
            else if (expected.kind === 'stream_exists') details.setExpectedStreamExists(new pb.googleEmpty());
            else details.setExpectedAny(new pb.googleEmpty());
            const packed = new pb.googleAny();
            packed.pack(details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
            response.setError(
              new pb.status.Status()
                .setCode(pb.code.Code.FAILED_PRECONDITION)
                .setMessage(
                  `Append failed due to WrongExpectedVersion. Stream: ${name}, Expected version: ${describe(expected)}, Current version: ${outcome.current}`,
                )
                .setDetails(packed),
            );
          } else {
            response.setSuccess(batchSuccess(outcome));
          }
        } catch (error) {
          pending.delete(key);
          const failure = asRpcError(error);
          response.setError(new pb.status.Status().setCode(failure.code as number).setMessage(failure.message));
        }
        call.write(response);
      });
      call.on('end', () => call.end());
    },

    append(call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>) {
      count('Append');
      let options: InstanceType<typeof pb.streams.AppendReq.Options> | undefined;
      const events: ProposedEvent[] = [];
      let failure: RpcError | undefined;
      call.on('data', (request: AppendReq) => {
        try {
          if (request.hasOptions()) options = request.getOptions();
          else if (!options) throw invalid('an append starts with its options');
          else events.push(proposedEvent(request.getProposedMessage()!));
        } catch (error) {
          failure ??= asRpcError(error);
        }
      });
      call.on('end', () => {
        if (failure || !options) return callback((failure ?? invalid('an append needs options')).toStatus());
        const { ExpectedStreamRevisionCase } = pb.streams.AppendReq.Options;
        const expectedCase = options.getExpectedStreamRevisionCase();
        const expected: Expected =
          expectedCase === ExpectedStreamRevisionCase.REVISION
            ? { kind: 'revision', revision: toNumber(options.getRevision()) }
            : expectedCase === ExpectedStreamRevisionCase.NO_STREAM
              ? { kind: 'no_stream' }
              : expectedCase === ExpectedStreamRevisionCase.STREAM_EXISTS
                ? { kind: 'stream_exists' }
                : { kind: 'any' };
        let outcome: AppendOutcome;
        try {
          outcome = log.append(streamName(options.getStreamIdentifier()), expected, events);
        } catch (error) {
          return callback(asRpcError(error).toStatus());
        }
        if (loseThisAcknowledgement(outcome)) return callback(lostAcknowledgement);
        const response = new pb.streams.AppendResp();
        if (outcome.kind === 'wrong_expected_version') {
          const wrong = new pb.streams.AppendResp.WrongExpectedVersion();
          if (outcome.current < 0) wrong.setCurrentNoStream(new pb.shared.Empty());
          else wrong.setCurrentRevision(String(outcome.current));
          if (expected.kind === 'revision') wrong.setExpectedRevision(String(expected.revision));
          else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new pb.shared.Empty());
          else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new pb.shared.Empty());
          else wrong.setExpectedAny(new pb.shared.Empty());
          response.setWrongExpectedVersion(wrong);
        } else {
          const success = new pb.streams.AppendResp.Success().setCurrentRevision(String(outcome.lastRevision));
          if (outcome.kind === 'written') {
            success.setPosition(
              new pb.streams.AppendResp.Position()
                .setCommitPosition(String(outcome.position))
                .setPreparePosition(String(outcome.position)),
            );
          } else {
            success.setNoPosition(new pb.shared.Empty());
          }
          response.setSuccess(success);
        }
        callback(null, response);
      });
    },

    delete(_call, callback) {
      callback(unimplemented('Streams.Delete').toStatus());
    },
    tombstone(_call, callback) {
      callback(unimplemented('Streams.Tombstone').toStatus());
    },
  };

  const serverFeaturesService: IServerFeaturesServer = {
    getSupportedMethods(_call, callback) {
      count('GetSupportedMethods');
      if (options.withoutServerFeatures)
        return callback({ code: GrpcStatus.UNIMPLEMENTED, details: 'Method not found' });
      const method = (serviceName: string, methodName: string, features: string[] = []) =>
        new pb.serverFeatures.SupportedMethod()
          .setServiceName(serviceName)
          .setMethodName(methodName)
          .setFeaturesList(features);
      callback(
        null,
        new pb.serverFeatures.SupportedMethods()
          .setEventStoreServerVersion(SERVER_VERSION)
          .setMethodsList([
            method('event_store.client.streams.streams', 'read', ['position', 'events']),
            method('event_store.client.streams.streams', 'append'),
            method('event_store.client.streams.streams', 'batchappend'),
            method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
            method('event_store.client.gossip.gossip', 'read'),
          ]),
      );
    },
  };

  const gossipService: IGossipServer = {
    read(_call, callback) {
      count('Gossip.Read');
      const member = new pb.gossip.MemberInfo()
        .setInstanceId(uuidMessage('3f2504e0-4f89-41d3-9a0c-0305e82c3301', false))
        .setTimeStamp(String(BigInt(Date.now()) * 10_000n))
        .setState(pb.gossip.MemberInfo.VNodeState.LEADER)
        .setIsAlive(true)
        .setHttpEndPoint(new pb.gossip.EndPoint().setAddress('127.0.0.1').setPort(port));
      callback(null, new pb.gossip.ClusterInfo().setMembersList([member]));
    },
  };

  async function listen(): Promise<void> {
    const next = new Server();
    next.addService(pb.streamsGrpc.StreamsService, streamsService);
    next.addService(pb.serverFeaturesGrpc.ServerFeaturesService, serverFeaturesService);
    next.addService(pb.gossipGrpc.GossipService, gossipService);
    port = await new Promise<number>((resolve, reject) => {
      next.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      );
    });
    server = next;
  }

  function endSubscriptions(code: GrpcStatus, details: string): number {
    const open = [...subscriptions];
    for (const { controller, call } of open) {
      controller.abort();
      call.emit('error', { code, details });
    }
    subscriptions.clear();
    return open.length;
  }

  await listen();

  const stop = async () => {
    for (const { controller } of subscriptions) controller.abort();
    subscriptions.clear();
    server?.forceShutdown();
    server = undefined;
  };
  const start = async () => {
    if (!server) await listen();
  };

  return {
    get port() {
      return port;
    },
    get connectionString() {
      return `esdb://127.0.0.1:${port}?tls=false`;
    },
    get discoveryConnectionString() {
      return `esdb+discover://127.0.0.1:${port}?tls=false`;
    },
    log,
    calls,
    openSubscriptionCount: () => subscriptions.size,
    loseAcknowledgements: (count) => {
      acknowledgementsToLose = count;
    },
    dropSubscriptions: () => endSubscriptions(GrpcStatus.UNAVAILABLE, 'the test server dropped the subscription'),
    appendSystemEvent: (streamId = '$stats-127.0.0.1:2113', type = '$statsCollected') =>
      log.appendSystemEvent(streamId, type, { proc: { cpu: 1 } }),
    async restoreBackup(count) {
      await stop();
      log.restoreBackup(count);
      await start();
    },
    stop,
    start,
    async close() {
      for (const { controller } of subscriptions) controller.abort();
      subscriptions.clear();
      server?.forceShutdown();
      server = undefined;
    },
  };
}

function batchSuccess(outcome: Exclude<AppendOutcome, { kind: 'wrong_expected_version' }>) {
  const success = new pb.streams.BatchAppendResp.Success();
  if (outcome.lastRevision < 0) success.setNoStream(new pb.googleEmpty());
  else success.setCurrentRevision(String(outcome.lastRevision));
  // A retried append is acknowledged without a position, as the node does when it recognises the event ids.
  if (outcome.kind === 'written') {
    success.setPosition(
      new pb.shared.AllStreamPosition()
        .setCommitPosition(String(outcome.position))
        .setPreparePosition(String(outcome.position)),
    );
  } else {
    success.setNoPosition(new pb.googleEmpty());
  }
  return success;
}

function describe(expected: Expected): string {
  return expected.kind === 'revision' ? String(expected.revision) : expected.kind;
}
