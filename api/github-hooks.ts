// The GitHub webhooks whose failed deliveries the operator asks for again (WAITGATE_GITHUB_REDELIVER_HOOKS).

/** A hook to watch: a repository's (`owner/repo:id`) or an organisation's (`org:id`). */
export type HookRef =
  | { readonly kind: 'repo'; readonly owner: string; readonly repo: string; readonly hookId: number }
  | { readonly kind: 'org'; readonly org: string; readonly hookId: number };

export function hookName(h: HookRef): string {
  return h.kind === 'repo' ? `${h.owner}/${h.repo}:${h.hookId}` : `${h.org}:${h.hookId}`;
}

/** Parses WAITGATE_GITHUB_REDELIVER_HOOKS: `owner/repo:123,acme:456`, comma separated. */
export function parseHookRefs(text: string): { ok: true; hooks: HookRef[] } | { ok: false; problem: string } {
  const hooks: HookRef[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^([A-Za-z0-9_.-]+)(?:\/([A-Za-z0-9_.-]+))?:([1-9][0-9]{0,15})$/.exec(part);
    if (!m) return { ok: false, problem: `"${part}" is neither owner/repo:HOOK_ID nor org:HOOK_ID` };
    const [, owner, repo, id] = m as unknown as [string, string, string | undefined, string];
    hooks.push(repo ? { kind: 'repo', owner, repo, hookId: Number(id) } : { kind: 'org', org: owner, hookId: Number(id) });
  }
  return { ok: true, hooks };
}
