// A bare HTTP/1.1 client over one TCP connection, for sending what fetch will not: repeated
// or oversized headers, lengths that lie, bodies that trickle or stop. Used by the fuzz run
// and by the receiver's hostile-input tests.
import { connect, type Socket } from 'node:net';

export interface RawRequest {
  /** The request line and headers, without the blank line that ends them. */
  readonly head: string;
  /** Sent at once after the head. */
  readonly body?: Buffer;
  /** Instead of `body`: `total` bytes sent `chunk` at a time, one chunk every `everyMs`. */
  readonly trickle?: { readonly total: number; readonly chunk: number; readonly everyMs: number };
  /** Give up waiting for an answer after this long. */
  readonly deadlineMs: number;
}

export interface RawAnswer {
  /** The status of the answer, or undefined when none came. */
  readonly status: number | undefined;
  readonly body: string;
  /** The receiver closed the connection (FIN or reset) before the deadline. */
  readonly closed: boolean;
  /** From the first byte sent to the answer's status line (or to the deadline). */
  readonly answeredInMs: number;
  /** Body bytes written before the answer came or the connection closed. */
  readonly sentBodyBytes: number;
}

/**
 * `POST path` with the given headers (a header given as a list is sent once per value), asking
 * the server to close once it has answered. A request whose body is shorter than its
 * content-length stalls: the server waits for the rest.
 */
export function head(path: string, headers: Record<string, string | readonly string[]>): string {
  const lines = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  for (const [name, v] of Object.entries(headers)) for (const one of typeof v === 'string' ? [v] : v) lines.push(`${name}: ${one}`);
  return lines.join('\r\n');
}

export function rawExchange(port: number, req: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect({ host: '127.0.0.1', port });
    let received = '';
    let status: number | undefined;
    let answeredAt: number | undefined;
    let sent = 0;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(deadline);
      clearInterval(timer);
      socket.destroy();
      resolve({
        status,
        body: received.split('\r\n\r\n').slice(1).join('\r\n\r\n'),
        closed,
        answeredInMs: (answeredAt ?? Date.now()) - started,
        sentBodyBytes: sent,
      });
    };
    const deadline = setTimeout(finish, req.deadlineMs);
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (status === undefined) {
        const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
        if (m) {
          status = Number(m[1]);
          answeredAt = Date.now();
          clearInterval(timer);
        }
      }
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      socket.write(`${req.head}\r\n\r\n`);
      if (req.body) {
        socket.write(req.body);
        sent += req.body.length;
      }
      const t = req.trickle;
      if (t) {
        const piece = Buffer.alloc(t.chunk, 'x');
        timer = setInterval(() => {
          if (status !== undefined || closed || sent >= t.total) return clearInterval(timer);
          const n = Math.min(t.chunk, t.total - sent);
          socket.write(n === t.chunk ? piece : piece.subarray(0, n));
          sent += n;
        }, t.everyMs);
      }
    });
  });
}
