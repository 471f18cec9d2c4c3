/**
 * `POST /batch/v1`: up to 25 sub-requests run in-process through the same pipeline as HTTP requests
 * (match, validate, permission, handler), as the same caller, in order. Only endpoints flagged
 * `allowBatch` may be batched. With `validation: require-all-validate` nothing runs unless every
 * sub-request matches a batchable route and validates; permission checks are not part of that validation (a
 * refused sub-request runs and answers its own 401/403, as in WordPress 6.1).
 */
import { restError, RestError } from './errors';
import { answerableError } from './domainErrors';
import type { Dispatcher, Prepared } from './dispatch';
import { errorResult, phpMap } from './dispatch';
import { applyFields } from './schema';
import { isUnsafeKey, parseQuery } from './query';
import { validateArgs } from './args/routeArgs';
import type { RestRequest, RestResult, RouteDefinition } from './route';
import { allowEveryone } from './route';

interface SubRequest {
  method: string;
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string | string[]>;
}

type Envelope = { body: unknown; status: number; headers: Record<string, string> | [] };

/** A sub-response as WordPress lists it; headers as a PHP array (`[]` when there are none). */
const envelope = (result: RestResult): Envelope => ({
  body: result.body,
  status: result.status,
  headers: phpMap(result.headers ?? {}),
});

export function batchRoute(dispatcher: () => Dispatcher): RouteDefinition {
  return {
    namespace: '',
    path: '/batch/v1',
    endpoints: [
      {
        methods: ['POST'],
        args: {
          validation: { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal' },
          requests: {
            required: true,
            type: 'array',
            maxItems: 25,
            items: {
              type: 'object',
              properties: {
                method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
                path: { type: 'string', required: true },
                // Empty property maps, which WordPress (PHP) lists as [].
                body: { type: 'object', properties: [] as never, additionalProperties: true },
                headers: {
                  type: 'object',
                  properties: [] as never,
                  additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
                },
              },
            },
          },
        },
        permission: allowEveryone,
        async handle(ctx) {
          const d = dispatcher();
          const requests = (ctx.params.requests as SubRequest[]).map((sub) => toRequest(sub, ctx.request));
          const prepared = await Promise.all(requests.map((request) => prepareForBatch(d, request)));
          if (ctx.params.validation === 'require-all-validate') {
            const invalid = prepared.map((p, i) => !('matched' in p) && failsValidation(d, requests[i]!));
            if (invalid.some(Boolean)) {
              // WordPress reports these failures before any response filter runs: without Allow headers.
              const responses = prepared.map((p, i) => (invalid[i] ? { ...(p as Envelope), headers: [] } : null));
              return { status: 207, body: { failed: 'validation', responses } };
            }
          }
          const responses: Envelope[] = [];
          // Sequentially, like WordPress: a later request may depend on an earlier one's effect.
          for (let i = 0; i < requests.length; i++) {
            const request = requests[i]!;
            const serve = async (served: RestRequest): Promise<RestResult> => {
              // A request prepared before its predecessors ran is prepared again now, against the current state
              // (its permission too: WordPress checks it when the request runs).
              const fresh = i === 0 && served === request ? prepared[0]! : await prepareForBatch(d, served);
              return 'matched' in fresh ? withFields(await d.execute(fresh), request) : unenveloped(fresh);
            };
            // A sub-request with its own Idempotency-Key header is run once per key, as over HTTP.
            responses.push(envelope(await d.guarded(request, serve, true)));
          }
          return { status: 207, body: { responses } };
        },
      },
    ],
  };
}

/** A refusal's envelope as the result it was made from (enveloping it again gives the same envelope). */
const unenveloped = (refusal: Envelope): RestResult => ({
  status: refusal.status,
  body: refusal.body,
  headers: Array.isArray(refusal.headers) ? {} : refusal.headers,
});

function toRequest(sub: SubRequest, parent: RestRequest): RestRequest {
  const questionMark = sub.path.indexOf('?');
  const path = questionMark === -1 ? sub.path : sub.path.slice(0, questionMark);
  const query = questionMark === -1 ? {} : parseQuery(sub.path.slice(questionMark + 1));
  // Lower-casing can make a name (`__PROTO__`) that would set a prototype: no prototype, and no such name.
  const headers: Record<string, string | string[] | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(sub.headers ?? {}))
    if (!isUnsafeKey(name.toLowerCase())) headers[name.toLowerCase()] = value;
  return {
    method: (sub.method ?? 'POST').toUpperCase(),
    path,
    query,
    json: sub.body ?? null,
    form: null,
    headers,
    actor: parent.actor,
    requestId: parent.requestId,
    ip: parent.ip,
  };
}

async function prepareForBatch(d: Dispatcher, request: RestRequest): Promise<Prepared | Envelope> {
  const found = d.match(request.path, request.method);
  if (found?.endpoint && !found.endpoint.allowBatch) {
    const error = restError('rest_batch_not_allowed', 'The requested route does not support batch requests.', 400);
    return envelope(await d.refused(request, error));
  }
  try {
    const prepared = await d.prepare(request);
    // Refusals carry the route's Allow header, as over HTTP.
    return prepared instanceof RestError ? envelope(await d.refused(request, prepared)) : prepared;
  } catch (error) {
    const refusal = answerableError(error);
    if (refusal !== null) return envelope(errorResult(refusal));
    throw error;
  }
}

/**
 * Whether a sub-request fails what `require-all-validate` checks: matching a route, the route allowing
 * batches, a parseable body and its arguments. Its permission is not checked here.
 */
function failsValidation(d: Dispatcher, request: RestRequest): boolean {
  const path = request.path.length > 1 && request.path.endsWith('/') ? request.path.slice(0, -1) : request.path;
  const found = d.match(path, request.method);
  if (!found?.endpoint?.allowBatch || request.invalidJson) return true;
  const input: Record<string, unknown> = {
    ...found.captures,
    ...request.query,
    ...(request.form ?? {}),
    ...(request.json ?? {}),
  };
  return 'error' in validateArgs(found.endpoint.args, input, { request });
}

/** `_fields` in a sub-request's path narrows its answer, as over HTTP. */
function withFields(result: RestResult, request: RestRequest): RestResult {
  const fields = request.query._fields;
  if (fields === undefined || result.status >= 400) return result;
  return { ...result, body: applyFields(result.body, Array.isArray(fields) ? fields.map(String) : String(fields)) };
}
