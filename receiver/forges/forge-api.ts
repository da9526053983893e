// A GET against a forge's REST API with plain fetch, a timeout, and errors that say which call
// failed and how (never the body of an answer).

/** Reads JSON from `url`; throws on no answer or a non-2xx one. */
export async function getJson(what: string, url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`${what}: HTTP ${res.status}`);
  }
  return res.json();
}

/** A commit id as the HeldJob records it (spec.revision): 40 or 64 lowercase hex digits. */
export function commitIdOf(what: string, value: unknown): string {
  if (typeof value === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(value)) return value.toLowerCase();
  throw new Error(`${what}: the answer carries no commit id`);
}

/** The names of a list of labels (`[{ "name": ... }]`); throws when the answer is not one. */
export function namesOf(what: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw new Error(`${what}: the answer carries no labels`);
  return value.map((l: unknown) => {
    const name = (l as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') throw new Error(`${what}: a label without a name`);
    return name;
  });
}
