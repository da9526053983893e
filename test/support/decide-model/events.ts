// What happens to the fake world of the decide/execute model test, and the fast-check
// arbitraries that make random sequences of it. The world is test/support/decide-model/world.ts.
import fc from 'fast-check';
import type { Profile } from '../../../api/profiles.js';
import type { ProfilesView, TriggersView } from '../../../operator/decide/observed.js';

/** One hold's conditions: an instant (minutes from the start; negative: already past) and profiles. */
export interface WaitSpec {
  readonly afterMin: number | undefined;
  readonly profiles: readonly string[];
}

/** A check's answer: its exit code, a timeout (could not tell), or no slot; and how long it took. */
export interface Answer {
  readonly code: 0 | 1 | 2 | 3 | 'timeout' | 'denied';
  readonly ms: number;
}

/** Holds are named by index (taken modulo how many there are). */
export type ModelEvent =
  /** Time goes on by `ms`; every wake on the way fires at its instant. */
  | { readonly k: 'tick'; readonly ms: number }
  /** Time goes straight to the next wake. */
  | { readonly k: 'toWake' }
  /** The spec's conditions edited (a new generation). */
  | { readonly k: 'edit'; readonly h: number; readonly spec: WaitSpec }
  /** The spec edited into one the operator's check refuses. */
  | { readonly k: 'unreadable'; readonly h: number }
  /** kubectl delete heldjob: a cancel. */
  | { readonly k: 'cancel'; readonly h: number }
  /** The operator dies after `after` more actions, mid-pass, and restarts from what is stored. */
  | { readonly k: 'crash'; readonly after: number }
  /** The operator restarts between passes: no wakes, no memory; every HeldJob listed again. */
  | { readonly k: 'restart' }
  /** Valkey loses its keys (the scope places). */
  | { readonly k: 'loseValkey' }
  /** Valkey goes away, or comes back. */
  | { readonly k: 'valkey'; readonly up: boolean }
  | { readonly k: 'jobEnds'; readonly h: number; readonly ok: boolean }
  /** Someone deletes the hold's Job. */
  | { readonly k: 'jobDeleted'; readonly h: number }
  /** The next Job create gets no answer though it landed ('lost'), or a 503 and nothing made. */
  | { readonly k: 'createFault'; readonly fault: 'lost' | '503' };

const PROFILE_NAMES = ['jira', 'ci'] as const;

export const MODEL_PROFILES: ProfilesView = {
  state: 'ok',
  profiles: new Map<string, Profile>(PROFILE_NAMES.map((name) => [name, { name, mode: 'exec', script: `${name}.sh` }])),
};

/** One trigger, `plain`, that says nothing about waits: every hold's conditions are its own. */
export const MODEL_TRIGGERS: TriggersView = { state: 'ok', waits: new Map([['plain', false]]), declared: new Map() };

/** The spec's waitFor: the instant first, then the profiles, as a HeldJob writes them. */
export function waitForOf(spec: WaitSpec, startMs: number): object[] {
  const after =
    spec.afterMin === undefined ? [] : [{ after: new Date(startMs + spec.afterMin * 60_000).toISOString().replace('.000Z', 'Z') }];
  return [...after, ...spec.profiles.map((profile) => ({ profile }))];
}

export const waitSpecArb: fc.Arbitrary<WaitSpec> = fc.record({
  afterMin: fc.option(fc.integer({ min: -30, max: 90 }), { nil: undefined }),
  profiles: fc.subarray([...PROFILE_NAMES]),
});

export const answerArb: fc.Arbitrary<Answer> = fc.record({
  code: fc.oneof(
    { arbitrary: fc.constant(0 as const), weight: 4 },
    { arbitrary: fc.constant(3 as const), weight: 4 },
    { arbitrary: fc.constant(1 as const), weight: 2 },
    { arbitrary: fc.constant('timeout' as const), weight: 1 },
    { arbitrary: fc.constant(2 as const), weight: 1 },
    { arbitrary: fc.constant('denied' as const), weight: 1 },
  ),
  ms: fc.integer({ min: 0, max: 3_000 }),
});

const hold = fc.nat({ max: 5 });

export const eventArb: fc.Arbitrary<ModelEvent> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 20 * 60_000 }) }), weight: 6 },
  { arbitrary: fc.constant({ k: 'toWake' as const }), weight: 6 },
  { arbitrary: fc.record({ k: fc.constant('edit' as const), h: hold, spec: waitSpecArb }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('unreadable' as const), h: hold }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('cancel' as const), h: hold }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('crash' as const), after: fc.nat({ max: 6 }) }), weight: 2 },
  { arbitrary: fc.constant({ k: 'restart' as const }), weight: 1 },
  { arbitrary: fc.constant({ k: 'loseValkey' as const }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('valkey' as const), up: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('jobEnds' as const), h: hold, ok: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('jobDeleted' as const), h: hold }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('createFault' as const), fault: fc.constantFrom('lost' as const, '503' as const) }), weight: 1 },
);

/** One run: the holds (their first specs), the check answers in the order asked, and the events. */
export interface Scenario {
  readonly specs: readonly WaitSpec[];
  readonly answers: readonly Answer[];
  readonly events: readonly ModelEvent[];
}

export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  specs: fc.array(waitSpecArb, { minLength: 1, maxLength: 3 }),
  answers: fc.array(answerArb, { minLength: 1, maxLength: 30 }),
  events: fc.array(eventArb, { maxLength: 40 }),
});
