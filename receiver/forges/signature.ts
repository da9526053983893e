// Webhook authentication, checked on the raw bytes before anything is parsed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** GitHub: X-Hub-Signature-256 is `sha256=` and the hex HMAC-SHA256 of the body. */
export function verifyGithubSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** GitLab: X-Gitlab-Token carries the shared token itself; compared in constant time. */
export function verifyGitlabToken(token: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(header).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
