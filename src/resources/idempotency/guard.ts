/**
 * Safe retries (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): a POST, PUT, PATCH or DELETE of a
 * signed-in caller that carries an `Idempotency-Key` is carried out once; a retry with the same key and the same
 * request is answered with the first answer and appends nothing.
 *
 * Everything is in the event log, so a retry on another API node, after a restart or after a failure whose outcome the
 * client could not know (a 503, a lost connection) is answered the same:
 * - A key lives in its own stream, `idempotency-{scope}` (the scope: a hash of the user id and the key). The first
 *   request claims it by appending `IdempotencyKeyClaimed` to the stream expected absent (or at the revision it read,
 *   for an expired or released key): of two requests at once exactly one append succeeds; the other reads the claim
 *   and answers 409 (in flight), or replays the answer once there is one.
 * - The request then runs; every event appended for it carries the key in its metadata (context.ts). Its answer is
 *   appended as `IdempotentResponseRecorded` (status, headers, the body's JSON), unless it is one a retry should not
 *   get again (5xx, 409, 429): then `IdempotencyKeyReleased` when it appended nothing (a retry runs anew), or
 *   `IdempotentRequestEnded` when it did (a retry answers from what it changed).
 * - A retry reads the stream: the same request fingerprint with an answer replays it (`Idempotent-Replayed: true`); a
 *   different fingerprint answers 422; a claim without an outcome answers 409 while it is younger than the in-flight
 *   window (the request may still be running), and after it, or once the request ended without an answer, the answer
 *   is made again from what the request changed: the `idempotency` projection indexes the events carrying the key,
 *   and the resource they name is read back as the same caller (201 with its Location for a create). A claim that
 *   changed nothing is taken over and run anew.
 * - A key expires `ttlMs` after its claim (24 hours by default): the same key then starts a new request.
 *
 * Keys of anonymous callers are not honoured (they would share answers between everyone), nor on endpoints whose
 * answer holds a secret shown once (Endpoint.answersSecret), which would then be kept in the log.
 */
import { WrongExpectedRevisionError } from '../../ports/eventStore';
import type { EventMetadata, EventStore, NewEvent } from '../../ports/eventStore';
import type { Doc, ReadModel } from '../../ports/readModel';
import type { Clock } from '../../ports/clock';
import { restError } from '../../rest/errors';
import { errorResult } from '../../rest/dispatch';
import type { Endpoint, RestRequest, RestResult } from '../../rest/route';
import { serializeBody } from '../../rest/serialized';
import { servingKeyed, uniqueRequestId } from './context';
import type { KeyedRequest } from './context';
import { IDEMPOTENCY_COLLECTION, foldKeyStream, idempotencyScope, idempotencyStream } from './keys';
import { KEYED_METHODS, parseIdempotencyKey, requestFingerprint } from './header';
import type {
  IdempotencyKeyClaimed,
  IdempotencyKeyReleased,
  IdempotentRequestEnded,
  IdempotentResponseRecorded,
  KeyState,
} from './keys';

/** How long a key is kept after its claim, by default. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim without an outcome is taken for a request still running: longer than any request takes (a write
 * waits at most READ_YOUR_WRITES_TIMEOUT_MS for the read model; bodies are bounded).
 */
export const DEFAULT_IN_FLIGHT_MS = 60_000;
/** Claims tried before a request that keeps losing the race for its key is answered 409. */
const CLAIM_TRIES = 3;

export interface IdempotencyDeps {
  store: EventStore;
  readModel: ReadModel;
  clock: Clock;
  metadata(userId: number | null, requestId: string): EventMetadata;
  /** Waits (bounded) until the read model has applied `position`. */
  settle(position: number): Promise<void>;
  /** `{siteUrl}/`, for a recovered create's Location. */
  apiRoot: string;
  log?: (message: string, detail?: unknown) => void;
}

export interface IdempotencyOptions {
  ttlMs?: number;
  inFlightMs?: number;
}

/** A document of the `idempotency` projection, as the guard reads it. */
interface KeyDoc extends Doc {
  claim: number;
  requestId: string;
  resources: { type: string; streamId: string; path: string | null }[];
}

/** The resource events a create makes: a recovered create is answered 201, as the create itself. */
const CREATED = new Set([
  'PostCreated',
  'AttachmentCreated',
  'UserRegistered',
  'TermCreated',
  'MenuCreated',
  'MenuItemCreated',
  'CommentCreated',
  'ContactFormCreated',
]);

export class IdempotencyGuard {
  private readonly ttlMs: number;
  private readonly inFlightMs: number;
  /** Reads a resource back as the request's caller (the dispatcher's GET), for a recovered answer. */
  present: (request: RestRequest, path: string) => Promise<RestResult> = async () => ({ status: 404, body: null });

  constructor(
    private readonly deps: IdempotencyDeps,
    options: IdempotencyOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
    this.inFlightMs = options.inFlightMs ?? DEFAULT_IN_FLIGHT_MS;
  }

  /** Runs `serve` for the request, once per key; as it is when the request carries no key or its key is not honoured here. */
  async guard(
    request: RestRequest,
    endpoint: Endpoint | null,
    serve: (request: RestRequest) => Promise<RestResult>,
  ): Promise<RestResult> {
    const header = request.headers['idempotency-key'];
    if (
      header === undefined ||
      !KEYED_METHODS.has(request.method) ||
      request.actor === null ||
      endpoint === null ||
      endpoint.answersSecret === true
    )
      return serve(request);
    const parsed = parseIdempotencyKey(header);
    if (parsed === null) return serve(request);
    if (!('key' in parsed)) return errorResult(parsed);
    return this.keyed(request, parsed.key, serve);
  }

  private async keyed(
    request: RestRequest,
    key: string,
    serve: (request: RestRequest) => Promise<RestResult>,
  ): Promise<RestResult> {
    const userId = request.actor!.id;
    const scope = idempotencyScope(userId, key);
    const stream = idempotencyStream(scope);
    const fingerprint = requestFingerprint(request);
    for (let tries = 0; ; tries++) {
      const state = foldKeyStream(await this.deps.store.readStream(stream));
      const now = this.deps.clock.now();
      const claim = state.claim !== null && now - state.claim.at < this.ttlMs ? state.claim : null;
      if (claim !== null) {
        if (claim.fingerprint !== fingerprint) return errorResult(reused());
        if (state.outcome !== null) return replayed(state.outcome);
        if (state.ended !== 'released') {
          const young = now - claim.at < this.inFlightMs;
          // Still running, as far as anyone can tell.
          if (state.ended === null && young) return inFlight();
          const recovered = await this.recover(request, scope, state);
          if (recovered !== null) return recovered;
          // Nothing of it in the read model: an append that is known to have landed is waited for; one whose outcome
          // was unknown is taken for failed once the in-flight window is over (no store commits an append that late).
          if (young || state.appended) return inFlight();
        }
      }
      // Free (never used, expired, released, or abandoned without changing anything): claim it. The request is served
      // under a request id no other keyed request being served has (context.ts), which its claim names.
      const served = withRequestId(request, uniqueRequestId(request.requestId));
      const claimed: IdempotencyKeyClaimed = {
        scope,
        userId,
        key,
        fingerprint,
        method: request.method,
        path: request.path,
      };
      const appended = await this.append(stream, 'IdempotencyKeyClaimed', claimed, state.revision, served);
      if (appended === 'conflict') {
        // Another request claimed or answered meanwhile: judge again on the stream as it is now.
        if (tries + 1 < CLAIM_TRIES) continue;
        return inFlight();
      }
      return this.run(
        served,
        { key, scope, userId, requestId: served.requestId, appended: 0, uncertain: false },
        stream,
        appended,
        serve,
      );
    }
  }

  /** Serves the claimed request, then records its answer (or that it ended without one). */
  private async run(
    request: RestRequest,
    keyed: KeyedRequest,
    stream: string,
    claimRevision: number,
    serve: (request: RestRequest) => Promise<RestResult>,
  ): Promise<RestResult> {
    let result: RestResult;
    try {
      result = await servingKeyed(keyed, () => serve(request));
    } catch (error) {
      await this.end(request, keyed, stream, claimRevision, 500);
      throw error;
    }
    if (result.status >= 500 || result.status === 409 || result.status === 429) {
      await this.end(request, keyed, stream, claimRevision, result.status);
      return result;
    }
    await this.record(request, stream, claimRevision, result, false);
    return result;
  }

  /** The request ended without an answer to keep. */
  private async end(
    request: RestRequest,
    keyed: KeyedRequest,
    stream: string,
    claimRevision: number,
    status: number,
  ): Promise<void> {
    const changed = keyed.appended > 0 || keyed.uncertain;
    const type = changed ? 'IdempotentRequestEnded' : 'IdempotencyKeyReleased';
    const data: IdempotentRequestEnded | IdempotencyKeyReleased = changed
      ? { scope: keyed.scope, status, appended: keyed.appended > 0 }
      : { scope: keyed.scope, status };
    await this.append(stream, type, data, claimRevision, request).catch((error) =>
      this.deps.log?.(`[${request.requestId}] could not record the end of a keyed request`, error),
    );
  }

  private async record(
    request: RestRequest,
    stream: string,
    revision: number,
    result: RestResult,
    recovered: boolean,
  ): Promise<void> {
    const json = result.body === null || result.body === undefined ? null : serializeBody(result.body);
    const recorded: IdempotentResponseRecorded = {
      scope: stream.slice('idempotency-'.length),
      status: result.status,
      headers: { ...(result.headers ?? {}) },
      body: json === null ? null : typeof json === 'string' ? json : json.toString('utf8'),
      ...(recovered ? { recovered: true } : {}),
    };
    // A failure to record (an answer too large for the store, a store outage) leaves the claim: a retry answers from
    // what the request changed instead.
    await this.append(stream, 'IdempotentResponseRecorded', recorded, revision, request).catch((error) =>
      this.deps.log?.(`[${request.requestId}] could not record the answer of a keyed request`, error),
    );
  }

  /** Appends one event at the expected revision: the new revision, or 'conflict'. */
  private async append(
    stream: string,
    type: string,
    data: object,
    expected: number | 'no_stream',
    request: RestRequest,
  ): Promise<number | 'conflict'> {
    const event: NewEvent = { type, data, metadata: this.deps.metadata(request.actor?.id ?? null, request.requestId) };
    try {
      return (await this.deps.store.appendToStream(stream, [event], { expectedRevision: expected }))
        .nextExpectedRevision;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return 'conflict';
      throw error;
    }
  }

  /**
   * The answer of a claimed request that will not give its own (it ended without one, or it is older than any request
   * runs), made from what it changed: the resource its events name, read as the same caller. Null when the read model
   * holds no event of it.
   */
  private async recover(request: RestRequest, scope: string, state: KeyState): Promise<RestResult | null> {
    const { store, readModel, settle } = this.deps;
    await settle(await store.headPosition());
    const doc = (await readModel.get(IDEMPOTENCY_COLLECTION, scope)) as KeyDoc | null;
    if (doc === null || doc.claim !== state.claim!.revision || doc.resources.length === 0) return null;
    // The resource the request addressed (an update's, or a create's new item in the collection it was posted to);
    // failing that, the first one with a route.
    const base = request.path.replace(/\/$/, '');
    const named =
      doc.resources.find((resource) => resource.path === base) ??
      doc.resources.find((resource) => resource.path?.startsWith(`${base}/`) === true) ??
      doc.resources.find((resource) => resource.path !== null);
    let result: RestResult;
    if (named) {
      const read = await this.present(request, named.path!);
      const created = CREATED.has(named.type) && request.method === 'POST' && base !== named.path;
      if (read.status === 200) {
        result = created
          ? {
              status: 201,
              body: read.body,
              headers: { ...(read.headers ?? {}), Location: `${this.deps.apiRoot}${named.path!.slice(1)}` },
            }
          : { status: 200, body: read.body, headers: read.headers ?? {} };
      } else
        result = {
          status: 200,
          body: { recovered: true, events: doc.resources.map(({ type, streamId }) => ({ type, stream: streamId })) },
          headers: {},
        };
    } else
      result = {
        status: 200,
        body: { recovered: true, events: doc.resources.map(({ type, streamId }) => ({ type, stream: streamId })) },
        headers: {},
      };
    await this.record(request, idempotencyStream(scope), state.revision as number, result, true);
    return withReplayHeader(result);
  }
}

const reused = () =>
  restError(
    'rest_idempotency_key_reused',
    'This Idempotency-Key was already used for another request. Send a new key with a new request.',
    422,
  );

function inFlight(): RestResult {
  const error = restError(
    'rest_idempotency_key_in_flight',
    'A request with this Idempotency-Key is still being processed. Try again shortly.',
    409,
  );
  return { ...errorResult(error), headers: { 'Retry-After': '1' } };
}

const withRequestId = (request: RestRequest, requestId: string): RestRequest =>
  requestId === request.requestId ? request : { ...request, requestId };

const withReplayHeader = (result: RestResult): RestResult => ({
  ...result,
  headers: { ...(result.headers ?? {}), 'Idempotent-Replayed': 'true' },
});

/** The recorded answer: its JSON parsed again serialises to the same bytes (it was made by JSON.stringify). */
function replayed(outcome: IdempotentResponseRecorded): RestResult {
  return withReplayHeader({
    status: outcome.status,
    headers: { ...outcome.headers },
    body: outcome.body === null ? null : (JSON.parse(outcome.body) as unknown),
  });
}
