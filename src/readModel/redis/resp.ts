/**
 * Commands encoded by this process instead of by ioredis, for the few places that send hundreds of thousands of
 * arguments (a rebuild's bulk writes): ioredis builds a command argument by argument (a string header and a copy
 * per argument, then a copy of the whole), which cost more client CPU than Redis spent executing them. Here each
 * command's arguments are written straight into its own growing buffer as they come; ioredis still sends the
 * commands (one pipeline) and parses the replies.
 *
 * Also the MessagePack encoding of the stored index entries (C:m), which the Lua scripts read with cmsgpack.
 */
import { Command } from 'ioredis';
import type { Redis } from 'ioredis';

/** Bytes, or a string sent as UTF-8. */
export type Piece = Buffer | string;

const CR_LF = 0x0d0a;

/** Decimal digits of a non-negative integer. */
const digitCount = (n: number): number =>
  n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : n < 100_000 ? 5 : n < 1_000_000 ? 6 : String(n).length;

const pieceLength = (piece: Piece): number => (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length);

/** A command whose bytes are already encoded: ioredis writes them as they are and resolves with the reply. */
class EncodedCommand extends Command {
  constructor(
    commandName: string,
    private readonly encoded: Buffer,
  ) {
    super(commandName, []);
  }

  override toWritable(): Buffer {
    return this.encoded;
  }
}

/**
 * Buffers of answered commands kept for the next ones. A rebuild encodes several MB per chunk of documents; fresh
 * buffers of that size live outside V8's heap, and their growth starts full collections of the whole heap.
 * Buffers under `minimum` bytes come from Node's shared slabs and are not kept.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    private readonly minimum = 4096,
    private readonly kept = 256,
  ) {}

  /** A buffer of at least `size` bytes: the smallest kept one that fits, or a new one. */
  take(size: number): Buffer {
    if (size >= this.minimum) {
      let best = -1;
      for (let i = 0; i < this.free.length; i++) {
        const length = this.free[i]!.length;
        if (length >= size && (best < 0 || length < this.free[best]!.length)) best = i;
      }
      if (best >= 0) {
        const buffer = this.free[best]!;
        this.free[best] = this.free[this.free.length - 1]!;
        this.free.pop();
        return buffer;
      }
    }
    return Buffer.allocUnsafe(size);
  }

  /** Takes back a buffer nothing reads any more (its command was answered). */
  give(buffer: Buffer): void {
    if (buffer.length >= this.minimum && this.free.length < this.kept) this.free.push(buffer);
  }
}

/** Room kept in front of a command for its `*<count>\r\n`, written once the count is known. */
const HEAD_ROOM = 16;

/** One command (a name, a key, then arguments appended one by one), encoded in RESP as it grows. */
export class CommandWriter {
  private buf: Buffer;
  private at = HEAD_ROOM;
  private count = 2;
  /** Where the key's bulk string starts (after the name's). */
  private readonly keyAt: number;

  constructor(
    readonly name: string,
    key: Piece | readonly Piece[],
    capacity = 256,
    private readonly pool?: BufferPool,
  ) {
    this.buf = this.allocate(
      Math.max(capacity, 64 + name.length + (Array.isArray(key) ? 0 : pieceLength(key as Piece))),
    );
    this.header(name.length);
    this.at += this.buf.write(name, this.at, 'latin1');
    this.crlf();
    this.keyAt = this.at;
    if (typeof key === 'string' || Buffer.isBuffer(key)) this.piece(key);
    else this.pieces(key as readonly Piece[]);
    this.count = 2;
  }

  private allocate(size: number): Buffer {
    return this.pool === undefined ? Buffer.allocUnsafe(size) : this.pool.take(size);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = this.allocate(Math.max(this.buf.length * 2, this.at + n + 256));
    this.buf.copy(grown, 0, 0, this.at);
    this.pool?.give(this.buf);
    this.buf = grown;
  }

  /** Gives the buffer back to the pool: the command was answered, and the writer is not used again. */
  release(): void {
    this.pool?.give(this.buf);
  }

  private crlf(): void {
    this.buf.writeUInt16BE(CR_LF, this.at);
    this.at += 2;
  }

  private decimal(n: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) {
      this.buf[this.at + i] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    }
    this.at += width;
  }

  /** `$<length>\r\n`, with room for the argument and its `\r\n` after it. */
  private header(length: number): void {
    const width = digitCount(length);
    this.room(width + length + 5);
    this.buf[this.at++] = 0x24;
    this.decimal(length, width);
    this.crlf();
  }

  private write(piece: Piece): void {
    if (typeof piece === 'string') this.at += this.buf.write(piece, this.at, 'utf8');
    else this.at += piece.copy(this.buf, this.at);
  }

  /** Appends one argument. */
  piece(piece: Piece): this {
    this.header(pieceLength(piece));
    this.write(piece);
    this.crlf();
    this.count++;
    return this;
  }

  /** Appends one argument made of several pieces. */
  pieces(pieces: readonly Piece[]): this {
    let length = 0;
    for (const piece of pieces) length += pieceLength(piece);
    this.header(length);
    for (const piece of pieces) this.write(piece);
    this.crlf();
    this.count++;
    return this;
  }

  /** Appends a non-negative integer argument, in decimal. */
  integer(n: number): this {
    const width = digitCount(n);
    this.header(width);
    this.decimal(n, width);
    this.crlf();
    this.count++;
    return this;
  }

  /** Appends `pieces` then the integer `n` in decimal, as one argument. */
  piecesThen(pieces: readonly Piece[], n: number): this {
    const width = digitCount(n);
    let length = width;
    for (const piece of pieces) length += pieceLength(piece);
    this.header(length);
    for (const piece of pieces) this.write(piece);
    this.decimal(n, width);
    this.crlf();
    this.count++;
    return this;
  }

  /** Arguments after the key. */
  get size(): number {
    return this.count - 2;
  }

  /** The key and the arguments, as the RESP bulk strings they are in the command. */
  keyAndArguments(): Buffer {
    return this.buf.subarray(this.keyAt, this.at);
  }

  /** The encoded command. */
  bytes(): Buffer {
    const head = `*${this.count}\r\n`;
    const start = HEAD_ROOM - head.length;
    this.buf.write(head, start, 'latin1');
    return this.buf.subarray(start, this.at);
  }
}

/**
 * Commands gathered by a caller-chosen id (a key's Buffer, when the caller builds each key once, or a string), each
 * appended to as the documents of a batch are visited, then sent as one pipeline, in the order first named.
 */
export class CommandBatch {
  private readonly writers = new Map<unknown, CommandWriter>();

  /** With a pool, the commands' buffers come from it and go back to it once Redis has answered them all. */
  constructor(private readonly pool?: BufferPool) {}

  command(id: unknown, name: string, key: Piece | readonly Piece[], capacity?: number): CommandWriter {
    let writer = this.writers.get(id);
    if (writer === undefined) this.writers.set(id, (writer = new CommandWriter(name, key, capacity, this.pool)));
    return writer;
  }

  /**
   * Sends every command with arguments; resolves once Redis answered all, rejects with the first error. With
   * `singles`, the SADDs of a single member go as one call of that script instead (lua/addOne.lua), each pair of
   * arguments copied as it was encoded: a rebuild makes a few such sets per document (the posting sets of its own
   * words), and a command each cost this process more than Redis spent on them.
   */
  async send(redis: Redis, singles?: { sha: string; source: string }): Promise<void> {
    const commands: EncodedCommand[] = [];
    const pairs: Buffer[] = [];
    const writers = [...this.writers.values()];
    try {
      await this.sendWritten(redis, writers, commands, pairs, singles);
    } finally {
      // Answered (or failed) and no longer read: a reply means Redis has read the whole command.
      for (const writer of writers) writer.release();
    }
  }

  private async sendWritten(
    redis: Redis,
    writers: readonly CommandWriter[],
    commands: EncodedCommand[],
    pairs: Buffer[],
    singles?: { sha: string; source: string },
  ): Promise<void> {
    for (const writer of writers) {
      if (writer.size === 0) continue;
      if (singles !== undefined && writer.size === 1 && writer.name === 'SADD') {
        pairs.push(writer.keyAndArguments());
        continue;
      }
      commands.push(new EncodedCommand(writer.name, writer.bytes()));
    }
    this.writers.clear();
    if (singles !== undefined && pairs.length > 0)
      commands.push(new EncodedCommand('evalsha', scriptCall('EVALSHA', singles.sha, pairs)));
    if (commands.length === 0) return;
    // Each command written to the socket as it is, corked so they leave in one write: an ioredis pipeline would first
    // copy them all into one buffer (as many bytes again as the rebuild sends, and garbage for the collector).
    const socket = (redis as unknown as { stream?: { cork?(): void; uncork?(): void } }).stream;
    socket?.cork?.();
    const replies = commands.map((command) =>
      (redis.sendCommand(command) as Promise<unknown>).then(
        (): Error | null => null,
        (error: Error) => error,
      ),
    );
    socket?.uncork?.();
    const errors = await Promise.all(replies);
    for (let i = 0; i < errors.length; i++) {
      const error = errors[i];
      if (!error) continue;
      // The script was flushed from Redis's cache (a restart, SCRIPT FLUSH): once more with its source.
      if (i === errors.length - 1 && pairs.length > 0 && error.message.startsWith('NOSCRIPT')) {
        await redis.sendCommand(new EncodedCommand('eval', scriptCall('EVAL', singles!.source, pairs)));
        continue;
      }
      throw error;
    }
  }
}

/** `<verb> <script> 0` followed by the already encoded (key, member) pairs. */
function scriptCall(verb: 'EVALSHA' | 'EVAL', script: string, pairs: readonly Buffer[]): Buffer {
  let bulk = '';
  for (const part of [verb, script, '0']) bulk += `$${Buffer.byteLength(part)}\r\n${part}\r\n`;
  return Buffer.concat([Buffer.from(`*${3 + 2 * pairs.length}\r\n${bulk}`), ...pairs]);
}

/**
 * MessagePack of a map from short string keys to arrays of byte strings, as Redis's cmsgpack packs such a Lua table
 * (fixstr / str8 / str16 / str32, fixarray / array16 / array32; an empty table is an empty array). cmsgpack.unpack
 * reads it back to the same table whatever the order of the keys.
 */
export function packEntry(fields: readonly [string, readonly Buffer[]][]): Buffer {
  let total = 1;
  for (const [key, values] of fields) {
    total += strHeader(key.length) + key.length + arrayHeader(values.length);
    for (const v of values) total += strHeader(v.length) + v.length;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  out[at++] = 0x80 | fields.length;
  const str = (length: number) => {
    if (length < 32) out[at++] = 0xa0 | length;
    else if (length <= 0xff) {
      out[at++] = 0xd9;
      out[at++] = length;
    } else if (length <= 0xffff) {
      out[at++] = 0xda;
      at = out.writeUInt16BE(length, at);
    } else {
      out[at++] = 0xdb;
      at = out.writeUInt32BE(length, at);
    }
  };
  for (const [key, values] of fields) {
    str(key.length);
    at += out.write(key, at, 'latin1');
    if (values.length <= 15) out[at++] = 0x90 | values.length;
    else if (values.length <= 0xffff) {
      out[at++] = 0xdc;
      at = out.writeUInt16BE(values.length, at);
    } else {
      out[at++] = 0xdd;
      at = out.writeUInt32BE(values.length, at);
    }
    for (const v of values) {
      str(v.length);
      at += v.copy(out, at);
    }
  }
  return out;
}

const strHeader = (length: number) => (length < 32 ? 1 : length <= 0xff ? 2 : length <= 0xffff ? 3 : 5);
const arrayHeader = (length: number) => (length <= 15 ? 1 : length <= 0xffff ? 3 : 5);
