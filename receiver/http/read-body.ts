import type { IncomingMessage } from 'node:http';

export type BodyReading = Buffer | 'too-large' | 'busy' | 'aborted';

/**
 * The request body. 'too-large' the moment it passes `limit`; 'busy' the moment `take`
 * refuses a chunk (the in-flight cap); in both cases reading stops there and the caller
 * answers and closes. 'aborted' when the sender went away or timed out first.
 */
export function readBody(req: IncomingMessage, limit: number, take: (bytes: number) => boolean = () => true): Promise<BodyReading> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: BodyReading) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (typeof v === 'string' && v !== 'aborted') req.pause();
      chunks.length = 0;
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done('too-large');
      if (!take(chunk.length)) return done('busy');
      chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks));
    const onClose = () => done(req.complete ? Buffer.concat(chunks) : 'aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    // A timed-out or reset request also emits 'error'; 'close' follows and answers.
    req.on('error', () => undefined);
  });
}
