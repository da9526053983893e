// The container resources of a check Pod: the profile's, with the defaults filling every gap,
// so a check Pod is always bounded. A profile that sets only requests still gets the default
// limits; one that sets only a cpu limit still gets the default memory limit. Where a filled-in
// default would contradict a value the profile chose (a request above a limit), the default
// gives way: the limit rises to the profile's request, or the request falls to the profile's
// limit. Pure.

export const DEFAULT_CHECK_POD_RESOURCES = {
  requests: { cpu: '10m', memory: '16Mi' },
  limits: { cpu: '200m', memory: '64Mi' },
} as const;

type Quantities = Record<string, string>;

export function checkPodResources(profile: Record<string, unknown> | undefined): Record<string, unknown> {
  const own = profile ?? {};
  const ownRequests = quantities(own['requests']);
  const ownLimits = quantities(own['limits']);
  const requests: Quantities = { ...DEFAULT_CHECK_POD_RESOURCES.requests, ...ownRequests };
  const limits: Quantities = { ...DEFAULT_CHECK_POD_RESOURCES.limits, ...ownLimits };
  for (const name of Object.keys(requests)) {
    const req = requests[name];
    const lim = limits[name];
    if (req === undefined || lim === undefined) continue;
    const r = quantityValue(req);
    const l = quantityValue(lim);
    if (r === undefined || l === undefined || r <= l) continue;
    const requestIsOwn = Object.hasOwn(ownRequests, name);
    const limitIsOwn = Object.hasOwn(ownLimits, name);
    if (requestIsOwn && !limitIsOwn) limits[name] = req;
    else if (limitIsOwn && !requestIsOwn) requests[name] = lim;
    // Both the profile's own: left as written, for the apiserver to refuse in plain words.
  }
  return { ...own, requests, limits };
}

function quantities(v: unknown): Quantities {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const out: Quantities = {};
  for (const [k, q] of Object.entries(v)) {
    if (typeof q === 'string') out[k] = q;
    else if (typeof q === 'number') out[k] = String(q);
  }
  return out;
}

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes quantity as a number ("64Mi", "200m", "1.5", "1e3"); undefined when it is not one. */
export function quantityValue(q: string): number | undefined {
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2] !== undefined) return base * 10 ** Number(m[2]);
  return base * (SUFFIX[m[3] ?? ''] as number);
}
