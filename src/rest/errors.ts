/**
 * Errors in WordPress's REST shape: `{code, message, data}`, the HTTP status being `data.status`.
 * Anything thrown that is not a RestError is answered as a 500 by the app (and logged), never leaked.
 */
export interface RestErrorData {
  status: number;
  [key: string]: unknown;
}

export class RestError extends Error {
  override readonly name = 'RestError';
  readonly additionalErrors: { code: string; message: string; data: unknown }[] = [];

  constructor(
    readonly code: string,
    message: string,
    readonly data: RestErrorData,
  ) {
    // A RestError is an answer, not a fault: its stack is never shown or logged, and capturing one was a
    // large part of answering (permission rules build refusals that the Allow header then throws away).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }

  get status(): number {
    return this.data.status;
  }

  /** Adds a further code, serialised as WordPress's `additional_errors`. */
  also(code: string, message: string, data: unknown): this {
    this.additionalErrors.push({ code, message, data });
    return this;
  }

  toJSON(): Record<string, unknown> {
    const body: Record<string, unknown> = { code: this.code, message: this.message, data: this.data };
    if (this.additionalErrors.length > 0) body.additional_errors = this.additionalErrors;
    return body;
  }
}

export const restError = (
  code: string,
  message: string,
  status: number,
  extra: Record<string, unknown> = {},
): RestError => new RestError(code, message, { status, ...extra });

/** 401 for anonymous callers, 403 for signed-in ones, as rest_authorization_required_code() decides. */
export const authorizationStatus = (userId: number | null): 401 | 403 => (userId === null ? 401 : 403);
