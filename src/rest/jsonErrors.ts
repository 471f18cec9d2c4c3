/**
 * Why a JSON body could not be parsed, in PHP's terms (json_last_error), which WordPress reports in the data of
 * `rest_invalid_json`: a string running into a control character or the end of the body (3), anything else
 * (4, a syntax error). The first problem from the left decides, in V8 as in PHP.
 */
const SYNTAX = { json_error_code: 4, json_error_message: 'Syntax error' };
const CONTROL_CHARACTER = { json_error_code: 3, json_error_message: 'Control character error, possibly incorrectly encoded' };

export function jsonErrorOf(raw: Uint8Array | undefined): { json_error_code: number; json_error_message: string } {
  if (!raw) return SYNTAX;
  try {
    JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (error) {
    if (/Unterminated string|Bad control character/i.test((error as Error).message)) return CONTROL_CHARACTER;
  }
  return SYNTAX;
}
