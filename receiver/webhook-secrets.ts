// Which repositories a webhook secret speaks for (#30, finding 3). GitHub's HMAC signs only the
// body, and GitLab's token and Azure's credentials are bearer secrets: none of them says which
// repository's hook sent a delivery, the payload does. A secret scoped to repository patterns
// (on.repositories' grammar, api/triggers/repositories.ts) is believed only for deliveries that
// name one of its repositories; an unscoped secret, the one of WAITGATE_<FORGE>_WEBHOOK_SECRET,
// speaks for every repository, and the receiver says so as it starts.
import { z } from 'zod';
import { parseRepositoryPattern, repositoryAllowed } from '../api/triggers/repositories.js';
import type { Forge } from '../api/vocabulary.js';

/**
 * The shortest webhook secret or token the receiver starts with. A secret is the whole of a
 * webhook's authentication and can be guessed offline from one signed delivery (GitHub's HMAC),
 * so it must carry real entropy: `openssl rand -hex 20` gives 40 characters.
 */
export const MIN_WEBHOOK_SECRET_LENGTH = 16;

/** One secret (or token) that may authenticate a forge's deliveries. */
export interface WebhookSecret {
  readonly secret: string;
  /** The repository patterns it speaks for; undefined: every repository (an unscoped secret). */
  readonly repositories?: readonly string[];
}

/** What the secrets that authenticated a delivery speak for. */
export type SecretScope = { readonly every: true } | { readonly every: false; readonly repositories: readonly string[] };

/**
 * The scope of the secrets that matched (several may: the same secret under two entries);
 * undefined when none did.
 */
export function scopeOf(matched: readonly WebhookSecret[]): SecretScope | undefined {
  if (matched.length === 0) return undefined;
  if (matched.some((m) => m.repositories === undefined)) return { every: true };
  return { every: false, repositories: [...new Set(matched.flatMap((m) => m.repositories ?? []))] };
}

/** Whether a delivery authenticated with `scope` may name `repository` of `forge`. */
export function scopeAllows(scope: SecretScope, forge: Forge, repository: string | undefined): boolean {
  if (scope.every) return true;
  return repository !== undefined && repositoryAllowed(scope.repositories, forge, repository);
}

/** What is said of a secret under the minimum length: by its place, never its value. */
export const SHORT_SECRET = `is shorter than ${MIN_WEBHOOK_SECRET_LENGTH} characters; use a random one (openssl rand -hex 20)`;

const longEnough = (s: string) => s.length >= MIN_WEBHOOK_SECRET_LENGTH;

/**
 * WAITGATE_<FORGE>_WEBHOOK_SCOPED_SECRETS: a JSON array of `{ "secret": "...", "repositories":
 * ["acme/*", "beta/web"] }`, each secret believed only for the repositories its patterns name.
 */
export const scopedSecretsSchema = z.array(
  z
    .object({
      secret: z.string().refine(longEnough, `a secret ${SHORT_SECRET}`),
      repositories: z
        .array(
          z.string().superRefine((p, ctx) => {
            const parsed = parseRepositoryPattern(p);
            if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `the pattern ${JSON.stringify(p)} ${parsed.problem}` });
          }),
        )
        .min(1, 'a scoped secret names at least one repository pattern (leave it out of this list to let it speak for every repository)'),
    })
    .strict(),
);
