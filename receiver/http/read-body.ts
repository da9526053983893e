import type { IncomingMessage } from 'node:http';

/**
 * The request body; 'too-large' the moment it passes `limit` (reading stops there, the
 * caller answers 413 and closes); 'aborted' when the sender went away or timed out first.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: Buffer | 'too-large' | 'aborted') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        done('too-large');
        return;
      }
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
