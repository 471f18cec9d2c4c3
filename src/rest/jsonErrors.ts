/**
 * Why a JSON body could not be parsed, in PHP's terms (json_last_error), which WordPress reports in the data of
 * `rest_invalid_json`: arrays and objects nested deeper than json_decode's depth (1), a string running into a
 * control character or the end of the body (3), bytes that are not UTF-8, anywhere (5), anything else (4, a syntax
 * error). The first problem from the left decides, in V8 as in PHP.
 */
import { isUtf8 } from 'node:buffer';
import { MAX_JSON_CONTAINER_DEPTH } from './jsonBody';

const DEPTH = { json_error_code: 1, json_error_message: 'Maximum stack depth exceeded' };

const SYNTAX = { json_error_code: 4, json_error_message: 'Syntax error' };
const CONTROL_CHARACTER = {
  json_error_code: 3,
  json_error_message: 'Control character error, possibly incorrectly encoded',
};

const MALFORMED_UTF8 = {
  json_error_code: 5,
  json_error_message: 'Malformed UTF-8 characters, possibly incorrectly encoded',
};

export function jsonErrorOf(raw: Uint8Array | undefined): { json_error_code: number; json_error_message: string } {
  if (!raw) return SYNTAX;
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (isUtf8(bytes)) return syntaxErrorOf(bytes.toString('utf8'));
  // The text before the first malformed byte decides whether a syntax problem comes first: it does unless the
  // parser only ran out of text there.
  const prefix = bytes.subarray(0, firstMalformedByte(bytes)).toString('utf8');
  if (tooDeepFirst(prefix)) return DEPTH;
  const failure = parseFailure(prefix);
  if (failure === null || /end of JSON input/i.test(failure)) return MALFORMED_UTF8;
  const position = /at position (\d+)/.exec(failure);
  if (position && Number(position[1]) >= prefix.length) return MALFORMED_UTF8;
  return syntaxErrorOf(prefix);
}

function syntaxErrorOf(text: string): { json_error_code: number; json_error_message: string } {
  if (tooDeepFirst(text)) return DEPTH;
  const failure = parseFailure(text);
  return failure !== null && /Unterminated string|Bad control character/i.test(failure) ? CONTROL_CHARACTER : SYNTAX;
}

function parseFailure(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The offset of the first byte that does not begin a valid UTF-8 sequence there. */
function firstMalformedByte(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    // isUtf8 on the one sequence also rules out overlong forms, surrogates and truncation.
    if (length === 0 || !isUtf8(bytes.subarray(i, i + length)) || i + length > bytes.length) return i;
    i += length;
  }
  return i;
}

/** Too deep, and the text before the bracket that goes too deep has no problem of its own. */
function tooDeepFirst(text: string): boolean {
  const at = tooDeepAt(text);
  return at !== -1 && /end of JSON input/i.test(parseFailure(text.slice(0, at)) ?? '');
}

/** The offset of the first `[` or `{` (outside strings) nested deeper than json_decode reads, or -1. */
function tooDeepAt(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_CONTAINER_DEPTH) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}
