// Webhook authentication. The header checks run before a byte of the body is read; the HMAC
// is computed on the raw bytes before anything is parsed. Each forge may have several
// secrets at once (a rotation), any one of which may sign.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** X-Hub-Signature-256, exactly: `sha256=` and 64 lowercase hex digits, nothing before or after. */
const GITHUB_SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/**
 * The digest a GitHub signature header carries, or undefined unless the header was sent once
 * and is exactly `sha256=` plus 64 lowercase hex digits. `values` holds every copy of the
 * header the request carried (IncomingMessage.headersDistinct).
 */
export function githubSignatureDigest(values: readonly string[] | undefined): Buffer | undefined {
  if (!values || values.length !== 1) return undefined;
  const m = GITHUB_SIGNATURE.exec(values[0] ?? '');
  return m ? Buffer.from(m[1] as string, 'hex') : undefined;
}

/** GitHub: the body's HMAC-SHA256 under any of `secrets` equals the digest the header carries. */
export function verifyGithubSignature(
  secrets: string | readonly string[],
  body: Buffer,
  header: string | readonly string[] | undefined,
): boolean {
  const given = githubSignatureDigest(typeof header === 'string' ? [header] : header);
  return given !== undefined && githubDigestMatches(typeof secrets === 'string' ? [secrets] : secrets, body, given);
}

/** Whether `digest` is the body's HMAC-SHA256 under any of `secrets`. */
export function githubDigestMatches(secrets: readonly string[], body: Buffer, digest: Buffer): boolean {
  let ok = false;
  // Every secret is tried, so the time taken does not say which one matched.
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    ok = (digest.length === expected.length && timingSafeEqual(digest, expected)) || ok;
  }
  return ok;
}

/**
 * GitLab: X-Gitlab-Token carries the shared token itself, sent once; compared with each of
 * `tokens` in constant time.
 */
export function verifyGitlabToken(tokens: string | readonly string[], header: string | readonly string[] | undefined): boolean {
  const values = typeof header === 'string' ? [header] : header;
  if (!values || values.length !== 1) return false;
  return secretMatches(typeof tokens === 'string' ? [tokens] : tokens, values[0] ?? '');
}

/**
 * Whether `given` equals any of `secrets`, in constant time: both sides are hashed, so the
 * comparison takes the same time whatever the lengths, and every secret is tried.
 */
function secretMatches(secrets: readonly string[], given: string): boolean {
  const a = createHash('sha256').update(given).digest();
  let ok = false;
  for (const secret of secrets) {
    ok = timingSafeEqual(a, createHash('sha256').update(secret).digest()) || ok;
  }
  return ok;
}

/** The header an Azure DevOps service hook may carry the shared secret in (its "HTTP headers" setting). */
export const AZURE_SECRET_HEADER = 'x-waitgate-token';

/**
 * Azure DevOps: a service hook authenticates with basic credentials (any user name, the secret
 * as the password; Authorization sent once) or the shared secret in X-Waitgate-Token (sent
 * once). Either one that carries a secret is enough; each is compared in constant time.
 */
export function verifyAzureCredentials(
  secrets: readonly string[],
  headers: Readonly<Record<string, readonly string[] | undefined>>,
): boolean {
  if (secrets.length === 0) return false;
  let ok = false;
  const auth = headers['authorization'];
  if (auth?.length === 1) {
    const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(auth[0] ?? '');
    const decoded = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : undefined;
    const colon = decoded?.indexOf(':') ?? -1;
    if (decoded !== undefined && colon >= 0) ok = secretMatches(secrets, decoded.slice(colon + 1)) || ok;
  }
  const token = headers[AZURE_SECRET_HEADER];
  if (token?.length === 1) ok = secretMatches(secrets, token[0] ?? '') || ok;
  return ok;
}
