/**
 * Requests node's HTTP parser refuses before the app sees them (a request line or headers beyond its 16 KB limit,
 * a malformed request line) are answered with a JSON error like every other bad input, instead of node's bare
 * status line. The socket is closed after it: the parser's state is lost.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';

interface ParserError extends Error {
  code?: string;
}

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    // A reset or timed-out connection has no one left to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify(
      tooLarge
        ? { code: 'rest_request_too_large', message: 'The request line or headers are too large.', data: { status } }
        : { code: 'rest_bad_request', message: 'The request could not be read.', data: { status } },
    );
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
