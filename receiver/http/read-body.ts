import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;
/** A body past the limit is read and thrown away up to here, so the sender gets its 413. */
const DISCARD_UP_TO_BYTES = 16 * MAX_BODY_BYTES;

/**
 * The request body, or 'too-large' when it passes the limit. A too-large body is drained
 * (not kept) so the client can read the answer; one that goes on past 16 MiB is cut off.
 */
export function readBody(req: IncomingMessage, limit: number = MAX_BODY_BYTES): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (over) {
        chunks.length = 0;
        if (size > DISCARD_UP_TO_BYTES) {
          resolve('too-large');
          req.destroy();
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
