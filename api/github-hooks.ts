// The GitHub webhooks whose failed deliveries the operator asks for again (WAITGATE_GITHUB_REDELIVER_HOOKS).
import { assertNever } from './vocabulary.js';

/**
 * A hook to watch: a repository's (`owner/repo:id`), an organisation's (`org:id`), or the
 * GitHub App's own webhook (`app`: an App has one, and reading it needs the App's credentials).
 */
export type HookRef =
  | { readonly kind: 'repo'; readonly owner: string; readonly repo: string; readonly hookId: number }
  | { readonly kind: 'org'; readonly org: string; readonly hookId: number }
  | { readonly kind: 'app' };

/** How the App's own webhook is written in the list. */
export const APP_HOOK = 'app';

export function hookName(h: HookRef): string {
  switch (h.kind) {
    case 'repo':
      return `${h.owner}/${h.repo}:${h.hookId}`;
    case 'org':
      return `${h.org}:${h.hookId}`;
    case 'app':
      return APP_HOOK;
    default:
      return assertNever(h);
  }
}

/** Parses WAITGATE_GITHUB_REDELIVER_HOOKS: `owner/repo:123,acme:456,app`, comma separated. */
export function parseHookRefs(text: string): { ok: true; hooks: HookRef[] } | { ok: false; problem: string } {
  const hooks: HookRef[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    if (part === APP_HOOK) {
      if (!hooks.some((h) => h.kind === 'app')) hooks.push({ kind: 'app' });
      continue;
    }
    const m = /^([A-Za-z0-9_.-]+)(?:\/([A-Za-z0-9_.-]+))?:([1-9][0-9]{0,15})$/.exec(part);
    if (!m) return { ok: false, problem: `"${part}" is neither owner/repo:HOOK_ID, org:HOOK_ID nor ${APP_HOOK}` };
    const [, owner, repo, id] = m as unknown as [string, string, string | undefined, string];
    hooks.push(repo ? { kind: 'repo', owner, repo, hookId: Number(id) } : { kind: 'org', org: owner, hookId: Number(id) });
  }
  return { ok: true, hooks };
}
