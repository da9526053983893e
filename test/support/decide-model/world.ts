// The fake world of the decide/execute model test (operator/decide/decide.model.test.ts): a
// store of HeldJobs and their Jobs, a clock, wakes, scope places and check answers, and a small
// executor that carries out the actions of the real, pure decisions on it, as the reconciler
// does (operator/controller/reconciler.ts), with the same hand-backs (afterScope, afterCreate,
// afterCheck, ...). It decides nothing. Invariants are asserted as the world changes: a broken
// one throws ModelViolation, which fast-check shrinks to the shortest sequence of events.
import type { HeldJobObject, HeldJobStatus } from '../../../api/heldjob-schema.js';
import { epochOf } from '../../../api/time.js';
import { CheckVerdict } from '../../../api/check-verdict.js';
import { assertNever, isTerminal, Phase } from '../../../api/vocabulary.js';
import type { Action, CheckRun, CreateOutcome, JobRead } from '../../../operator/decide/actions.js';
import { afterCancelRead, decideGone } from '../../../operator/decide/finished.js';
import {
  afterCreate,
  afterDryRun,
  afterJobRead,
  afterScope,
  afterSupersedeRead,
  isLaunchConfirmed,
} from '../../../operator/decide/launch.js';
import { JobOutcome, type DecideConfig, type Observed, type ObservedJob } from '../../../operator/decide/observed.js';
import { afterCheck } from '../../../operator/decide/record-check.js';
import { viewOf } from '../../../operator/decide/view.js';
import { MODEL_PROFILES, MODEL_TRIGGERS, type Answer, type ModelEvent, type WaitSpec, waitForOf } from './events.js';

/** The decision under test: the real decide(), or a wrapper that seeds a defect into it. */
export type DecideFn = (o: Observed, now: number) => readonly Action[];

export class ModelViolation extends Error {
  override name = 'ModelViolation';
}

/** A crash of the operator in the middle of a pass (the crash event): the pass stops there. */
class Crash extends Error {}

/** Passes one settle may take before the world is said not to come to rest (a livelock). */
const MAX_PASSES_PER_SETTLE = 400;
/** How long a check that times out takes (WAITGATE_WAIT_CHECK_TIMEOUT_MS). */
export const CHECK_TIMEOUT_MS = 10_000;

interface WorldJob {
  readonly name: string;
  outcome: JobOutcome;
  fenced: boolean;
  deleting: boolean;
}

interface AnswerRecord {
  readonly profile: string;
  readonly verdict: CheckVerdict;
  readonly at: number;
  /** A crash came before its record was written: the operator never learnt it, and may ask again. */
  lost?: boolean;
}

/** What the world knows of one hold, beside its HeldJob object. */
interface Hold {
  readonly uid: string;
  readonly name: string;
  object: HeldJobObject | undefined;
  job: WorldJob | undefined;
  lastJob: WorldJob | undefined;
  /** Jobs ever created for it (at most one). */
  creations: number;
  createdAt: number | undefined;
  answers: AnswerRecord[];
  /** Check answers lost to a crash before their record was written (each may be asked again). */
  lostAnswers: number;
  answerUnwritten: boolean;
  cancelledAt: number | undefined;
  terminalAt: number | undefined;
  terminalPhase: Phase | undefined;
  /** The latest instant the hold's own clocks may have been restarted from (creation, an edit). */
  lastEditAt: number;
}

export interface ModelSettings {
  readonly config: DecideConfig;
  /** Scope places per scope key (the holds share one repository). */
  readonly scopeCap: number;
  readonly start: number;
}

export interface ModelStats {
  passes: number;
  launches: number;
  checks: number;
  crashes: number;
  terminal: Record<string, number>;
}

const NAMESPACE = 'team-a';

export class World {
  now: number;
  readonly holds: Hold[] = [];
  private readonly wakes = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly places = new Set<string>();
  private valkeyUp = true;
  private valkeyEverLost = false;
  private createFault: 'lost' | '503' | undefined;
  private crashAfter: number | undefined;
  private answerIndex = 0;
  /** The drain: a healthy world, where every check gets a slot. */
  private draining = false;
  readonly stats: ModelStats = { passes: 0, launches: 0, checks: 0, crashes: 0, terminal: {} };

  constructor(
    private readonly settings: ModelSettings,
    private readonly decide: DecideFn,
    private readonly answers: readonly Answer[],
    specs: readonly WaitSpec[],
  ) {
    this.now = settings.start;
    specs.forEach((spec, i) => {
      const name = `web-${i + 1}-deploy`;
      const uid = `uid-${i + 1}`;
      this.holds.push({
        uid,
        name,
        object: {
          metadata: { name, namespace: NAMESPACE, uid, generation: 1, resourceVersion: '1', creationTimestamp: isoOf(this.now) },
          spec: specOf(i, waitForOf(spec, settings.start)),
        },
        job: undefined,
        lastJob: undefined,
        creations: 0,
        createdAt: undefined,
        answers: [],
        lostAnswers: 0,
        answerUnwritten: false,
        cancelledAt: undefined,
        terminalAt: undefined,
        terminalPhase: undefined,
        lastEditAt: this.now,
      });
      this.dirty.add(name);
    });
    this.settle();
  }

  /** Applies one event, then lets the operator come to rest. */
  apply(e: ModelEvent): void {
    switch (e.k) {
      case 'tick':
        this.advanceTo(this.now + e.ms);
        return;
      case 'toWake': {
        const next = this.nextWake();
        if (next !== undefined) this.advanceTo(Math.max(this.now, next));
        return;
      }
      case 'edit':
      case 'unreadable': {
        const h = this.holdAt(e.h);
        if (!h?.object || h.object.metadata.deletionTimestamp) return;
        const spec = e.k === 'edit' ? specOf(e.h, waitForOf(e.spec, this.settings.start)) : unreadableSpecOf(e.h);
        const generation = (h.object.metadata.generation ?? 1) + 1;
        h.object = { ...h.object, metadata: { ...h.object.metadata, generation }, spec };
        h.lastEditAt = this.now;
        this.touch(h);
        break;
      }
      case 'cancel': {
        const h = this.holdAt(e.h);
        if (!h?.object || h.object.metadata.deletionTimestamp) return;
        h.cancelledAt ??= this.now;
        if ((h.object.metadata.finalizers ?? []).length === 0) this.remove(h);
        else {
          h.object = { ...h.object, metadata: { ...h.object.metadata, deletionTimestamp: isoOf(this.now) } };
          this.touch(h);
        }
        break;
      }
      case 'crash':
        this.crashAfter = e.after;
        break;
      case 'restart':
        this.restart();
        break;
      case 'loseValkey':
        this.places.clear();
        this.valkeyEverLost = true;
        break;
      case 'valkey':
        this.valkeyUp = e.up;
        if (!e.up) this.valkeyEverLost = true;
        break;
      case 'jobEnds': {
        const h = this.holdAt(e.h);
        if (!h?.job || h.job.outcome !== JobOutcome.Active) return;
        h.job.outcome = e.ok ? JobOutcome.Succeeded : JobOutcome.Failed;
        this.dirty.add(h.name);
        break;
      }
      case 'jobDeleted': {
        const h = this.holdAt(e.h);
        if (!h?.job) return;
        this.deleteJob(h);
        break;
      }
      case 'createFault':
        this.createFault = e.fault;
        break;
      default:
        assertNever(e);
    }
    this.settle();
  }

  /**
   * The end of a run: a healthy world (Valkey up, no faults), every Job ends as it runs, and
   * time goes from wake to wake. Every hold must end, or be gone, within its budgets.
   */
  drain(): void {
    this.valkeyUp = true;
    this.createFault = undefined;
    this.crashAfter = undefined;
    this.draining = true;
    const drainStart = this.now;
    const { maxMs } = this.settings.config;
    for (let i = 0; i < 2_000; i++) {
      for (const h of this.holds) {
        if (h.job && h.job.outcome === JobOutcome.Active && !h.job.deleting) {
          h.job.outcome = JobOutcome.Succeeded;
          this.dirty.add(h.name);
        }
      }
      this.settle();
      const next = this.nextWake();
      const open = this.holds.filter((h) => h.object && !isTerminal(h.object.status?.phase));
      if (open.length === 0 && next === undefined) break;
      if (next === undefined) break;
      this.advanceTo(Math.max(this.now, next));
    }
    for (const h of this.holds) {
      if (h.object && !isTerminal(h.object.status?.phase)) {
        throw new ModelViolation(`${h.name} never ended: phase ${h.object.status?.phase ?? 'none'} at the end (${this.describe(h)})`);
      }
      if (h.job && h.job.outcome === JobOutcome.Active && (!h.object || h.job.deleting)) {
        throw new ModelViolation(`${h.name}: its Job ${h.job.name} still runs after the hold was cancelled or ended`);
      }
      if (h.object && h.terminalAt !== undefined) {
        const afterMs = viewAfterMs(h.object);
        const from = Math.max(drainStart, h.lastEditAt, afterMs ?? 0);
        // The maximum wait, plus a check timeout and the longest cadence step for the last look.
        const deadline = from + maxMs + 2 * 15 * 60_000 + CHECK_TIMEOUT_MS;
        if (h.terminalAt > deadline) {
          throw new ModelViolation(`${h.name} ended at ${isoOf(h.terminalAt)}, after its budget ran out at ${isoOf(deadline)}`);
        }
      }
    }
  }

  // --- the operator ---------------------------------------------------------------------

  private restart(): void {
    this.stats.crashes++;
    this.wakes.clear();
    this.crashAfter = undefined;
    for (const h of this.holds) {
      const last = h.answers[h.answers.length - 1];
      if (h.answerUnwritten && last) {
        h.lostAnswers++;
        last.lost = true;
      }
      h.answerUnwritten = false;
      // A restarted operator lists every HeldJob and every Job again.
      if (h.object) this.dirty.add(h.name);
    }
  }

  private settle(): void {
    for (let i = 0; ; i++) {
      if (i >= MAX_PASSES_PER_SETTLE) throw new ModelViolation(`the operator never came to rest at ${isoOf(this.now)}: a livelock`);
      const key = this.nextKey();
      if (key === undefined) return;
      this.stats.passes++;
      try {
        this.pass(key);
      } catch (err) {
        if (!(err instanceof Crash)) throw err;
        this.restart();
      }
      this.liftOrphanedFences();
      this.sweepPlaces();
      this.checkCaps();
    }
  }

  private nextKey(): string | undefined {
    const [first] = [...this.dirty].sort();
    if (first !== undefined) {
      this.dirty.delete(first);
      return first;
    }
    const due = [...this.wakes].filter(([, at]) => at <= this.now).sort((a, b) => a[1] - b[1])[0];
    if (!due) return undefined;
    this.wakes.delete(due[0]);
    return due[0];
  }

  private nextWake(): number | undefined {
    const ats = [...this.wakes.values()];
    return ats.length === 0 ? undefined : Math.min(...ats);
  }

  /** Goes forward to `to`, waking every hold at its instant on the way. */
  private advanceTo(to: number): void {
    for (;;) {
      const next = this.nextWake();
      if (next === undefined || next > to) break;
      this.now = Math.max(this.now, next);
      this.settle();
    }
    this.now = Math.max(this.now, to);
    this.settle();
  }

  private pass(key: string): void {
    const h = this.holds.find((x) => x.name === key);
    if (!h?.object) {
      this.wakes.delete(key);
      return;
    }
    const observed = this.observe(h, h.object);
    this.execute(h, observed, this.decide(observed, this.now));
  }

  private observe(h: Hold, heldJob: HeldJobObject): Observed {
    return {
      heldJob,
      view: viewOf(heldJob),
      job: observedJob(h.job),
      lastJob: observedJob(h.lastJob),
      config: this.settings.config,
      profiles: MODEL_PROFILES,
      triggers: MODEL_TRIGGERS,
    };
  }

  private execute(h: Hold, observed: Observed, actions: readonly Action[]): void {
    for (const action of actions) {
      if (this.crashAfter !== undefined) {
        if (this.crashAfter <= 0) {
          this.crashAfter = undefined;
          throw new Crash();
        }
        this.crashAfter--;
      }
      const step = this.perform(h, observed, action);
      if (step === 'stop') return;
      if (step !== 'next') return this.execute(h, { ...observed, heldJob: h.object ?? observed.heldJob }, step);
    }
  }

  private perform(h: Hold, observed: Observed, action: Action): 'next' | 'stop' | readonly Action[] {
    const view = observed.view;
    const current = h.object;
    switch (action.type) {
      case 'updateStatus': {
        if (!current) return 'stop';
        this.recordStatus(h, current, action.status);
        return 'next';
      }
      case 'setFinalizers': {
        if (!current) return 'stop';
        h.object = { ...current, metadata: { ...current.metadata, finalizers: [...action.finalizers] } };
        this.bump(h);
        if (h.object.metadata.deletionTimestamp && action.finalizers.length === 0) {
          this.remove(h);
          return 'stop';
        }
        return 'next';
      }
      case 'acquireScope': {
        if (!view.ok || !current) return 'stop';
        return afterScope(view, action.ready, action.job, this.acquire(action.scopeKey, h.uid), this.now);
      }
      case 'createJob': {
        if (!view.ok || !current) return 'stop';
        if (this.valkeyUp) this.places.add(placeOf(action.scopeKey, h.uid));
        const outcome = this.create(h);
        return afterCreate({ view, heldJob: current }, current.status ?? {}, action.ready, outcome, this.now);
      }
      case 'dryRunJob':
        if (!view.ok || !current) return 'stop';
        return afterDryRun({ view, heldJob: current }, action.then, { kind: 'valid' }, this.now);
      case 'readJob':
        return current ? afterJobRead({ ...observed, heldJob: current }, this.read(h), this.now) : 'stop';
      case 'readJobToCancel':
        return current ? afterCancelRead({ ...observed, heldJob: current }, this.read(h), this.now) : 'stop';
      case 'readJobToSupersede':
        return current ? afterSupersedeRead({ ...observed, heldJob: current }, this.read(h), action.by, this.now) : 'stop';
      case 'recordLater':
        this.dirty.add(h.name);
        return 'stop';
      case 'unfenceJob':
        if (h.job?.name === action.jobName) {
          h.job.fenced = false;
          this.settleJobDeletion(h);
        }
        return 'next';
      case 'releaseScope':
        if (this.valkeyUp) this.places.delete(placeOf(action.scopeKey, h.uid));
        return 'next';
      case 'deleteJob':
        if (h.job?.name === action.jobName) this.deleteJob(h);
        return 'next';
      case 'deleteHeldJob':
        if (h.object) this.remove(h);
        return 'stop';
      case 'wakeAt':
        this.wakes.set(h.name, action.at);
        return 'next';
      case 'event':
      case 'leaveMarker':
      case 'observeAfterLateness':
      case 'report':
        return 'next';
      case 'runCheck': {
        if (!view.ok || !current) return 'stop';
        const run = this.runCheck(h, action.profile.name);
        return afterCheck(view, current, this.settings.config, run, this.now, 0.5, action.basis);
      }
      default:
        return assertNever(action);
    }
  }

  // --- the world's parts ----------------------------------------------------------------

  private acquire(scopeKey: string, uid: string): 'acquired' | 'full' | 'unavailable' {
    if (!this.valkeyUp) return 'unavailable';
    const place = placeOf(scopeKey, uid);
    if (this.places.has(place)) return 'acquired';
    const taken = [...this.places].filter((p) => p.startsWith(`${scopeKey}\u0000`)).length;
    if (taken >= this.settings.scopeCap) return 'full';
    this.places.add(place);
    return 'acquired';
  }

  private create(h: Hold): CreateOutcome {
    const fault = this.createFault;
    this.createFault = undefined;
    if (fault === '503') return { kind: 'createFailed', code: 503, message: 'the apiserver is busy' };
    if (h.job) return { kind: 'existed' };
    this.assertMayLaunch(h);
    h.creations++;
    h.createdAt = this.now;
    this.stats.launches++;
    h.job = { name: viewOf(h.object as HeldJobObject).jobName, outcome: JobOutcome.Active, fenced: true, deleting: false };
    this.dirty.add(h.name);
    if (fault === 'lost') return { kind: 'createFailed', code: undefined, message: 'the answer was lost' };
    return { kind: 'created' };
  }

  private read(h: Hold): JobRead {
    return h.job ? { kind: 'present' } : { kind: 'gone' };
  }

  private runCheck(h: Hold, profile: string): CheckRun {
    const answer = this.nextAnswer();
    if (answer.code === 'denied') return { kind: 'denied' };
    if (!this.valkeyUp) return { kind: 'unavailable' };
    this.now += answer.code === 'timeout' ? CHECK_TIMEOUT_MS : answer.ms;
    const verdict = verdictOf(answer.code);
    h.answers.push({ profile, verdict, at: this.now });
    h.answerUnwritten = true;
    this.stats.checks++;
    this.assertCheckBudgets(h);
    return {
      kind: 'answered',
      result: {
        profile,
        verdict,
        exitCode: answer.code === 'timeout' ? undefined : answer.code,
        ...(answer.code === 'timeout' ? { detail: 'timed out' } : {}),
      },
    };
  }

  /** The next answer in the cycle; in the drain, the next that is not a denial (else "not yet"). */
  private nextAnswer(): Answer {
    for (let i = 0; i < this.answers.length; i++) {
      const answer = this.answers[this.answerIndex++ % this.answers.length] ?? { code: 3, ms: 0 };
      if (!this.draining || answer.code !== 'denied') return answer;
    }
    return { code: 3, ms: 0 };
  }

  private deleteJob(h: Hold): void {
    if (!h.job) return;
    h.job.deleting = true;
    this.settleJobDeletion(h);
    this.dirty.add(h.name);
  }

  /** A Job being deleted goes once its fence is off. */
  private settleJobDeletion(h: Hold): void {
    if (h.job?.deleting && !h.job.fenced) {
      h.lastJob = { ...h.job };
      h.job = undefined;
      if (h.object) this.dirty.add(h.name);
    }
  }

  /** The HeldJob leaves the store: the operator's informer sees it go (decideGone); the garbage collector takes its Job. */
  private remove(h: Hold): void {
    const lastSeen = h.object;
    if (!lastSeen) return;
    h.object = undefined;
    this.wakes.delete(h.name);
    this.dirty.delete(h.name);
    h.answerUnwritten = false;
    const observed = this.observe(h, lastSeen);
    const actions = decideGone(observed);
    for (const a of actions) {
      if (a.type === 'releaseScope' && this.valkeyUp) this.places.delete(placeOf(a.scopeKey, h.uid));
      if (a.type === 'deleteJob' && h.job?.name === a.jobName) h.job.deleting = true;
      if (a.type === 'unfenceJob' && h.job?.name === a.jobName) h.job.fenced = false;
    }
    if (h.job) h.job.deleting = true;
    this.settleJobDeletion(h);
  }

  /**
   * The leader's scope sweep (operator/controller/scope-renewal.ts): the places of running Jobs
   * kept, and those of holds ended or gone given back (a release made while Valkey was away).
   */
  private sweepPlaces(): void {
    if (!this.valkeyUp) return;
    for (const h of this.holds) {
      const status = h.object?.status;
      const scopeKey = h.object ? viewOf(h.object).scopeKey : undefined;
      if (!h.object || isTerminal(status?.phase)) {
        for (const p of [...this.places]) if (p.endsWith(`\u0000${h.uid}`)) this.places.delete(p);
      } else if (status?.phase === Phase.Running && scopeKey !== undefined && isLaunchConfirmed(status)) {
        this.places.add(placeOf(scopeKey, h.uid));
      }
    }
  }

  /** The operator lifts the fence of a Job being deleted whose HeldJob is gone (liftOrphanedFence). */
  private liftOrphanedFences(): void {
    for (const h of this.holds) {
      if (!h.object && h.job?.deleting && h.job.fenced) {
        h.job.fenced = false;
        this.settleJobDeletion(h);
      }
    }
  }

  private touch(h: Hold): void {
    this.bump(h);
    this.dirty.add(h.name);
  }

  private bump(h: Hold): void {
    if (!h.object) return;
    const rv = String(Number(h.object.metadata.resourceVersion ?? '0') + 1);
    h.object = { ...h.object, metadata: { ...h.object.metadata, resourceVersion: rv } };
    this.dirty.add(h.name);
  }

  private holdAt(i: number): Hold | undefined {
    return this.holds[i % this.holds.length];
  }

  // --- the invariants -------------------------------------------------------------------

  private recordStatus(h: Hold, current: HeldJobObject, status: HeldJobStatus): void {
    const before = current.status?.phase;
    if (isTerminal(before) && (status.phase !== before || status.reason !== current.status?.reason)) {
      throw new ModelViolation(
        `${h.name} left its terminal state: ${before}/${current.status?.reason ?? ''} became ${status.phase ?? 'none'}/${status.reason ?? ''}`,
      );
    }
    if (!isTerminal(before) && isTerminal(status.phase)) {
      h.terminalAt = this.now;
      h.terminalPhase = status.phase;
      const key = `${status.phase}${status.reason ? `/${status.reason}` : ''}`;
      this.stats.terminal[key] = (this.stats.terminal[key] ?? 0) + 1;
      if (status.phase === Phase.Refused && h.creations > 0) {
        throw new ModelViolation(`${h.name} was refused (${status.reason ?? ''}) after its Job was created`);
      }
      if (status.phase === Phase.Succeeded && h.creations === 0) throw new ModelViolation(`${h.name} succeeded with no Job`);
    }
    h.object = { ...current, status };
    h.answerUnwritten = false;
    this.bump(h);
  }

  /** At the create: the first Job, not cancelled, its instant reached, every profile's go in this round. */
  private assertMayLaunch(h: Hold): void {
    const object = h.object as HeldJobObject;
    if (h.creations > 0) throw new ModelViolation(`${h.name}: a second Job created at ${isoOf(this.now)}`);
    if (h.cancelledAt !== undefined) throw new ModelViolation(`${h.name}: Job created after its cancel at ${isoOf(h.cancelledAt)}`);
    const view = viewOf(object);
    if (!view.ok) throw new ModelViolation(`${h.name}: Job created from a spec that does not read (${view.problem})`);
    if (view.afterMs !== undefined && this.now < view.afterMs) {
      throw new ModelViolation(`${h.name}: launched at ${isoOf(this.now)}, before its after instant ${isoOf(view.afterMs)}`);
    }
    // A round: every profile answers go after the last answer that was not go (answers the
    // operator never learnt, lost to a crash, left out).
    const known = h.answers.filter((a) => !a.lost);
    const lastNo = Math.max(-1, ...known.map((a, i) => (a.verdict === CheckVerdict.Go ? -1 : i)));
    for (const p of view.profiles) {
      if (!known.some((a, i) => i > lastNo && a.profile === p && a.verdict === CheckVerdict.Go)) {
        throw new ModelViolation(`${h.name}: launched at ${isoOf(this.now)} before profile "${p}" said go in this round`);
      }
    }
  }

  private assertCheckBudgets(h: Hold): void {
    const { maxChecks, maxFaults } = this.settings.config;
    if (h.answers.length > maxChecks + h.lostAnswers) {
      throw new ModelViolation(
        `${h.name}: ${h.answers.length} checks run, over the budget of ${maxChecks} (${h.lostAnswers} lost to crashes)`,
      );
    }
    if (h.terminalAt !== undefined) throw new ModelViolation(`${h.name}: a check ran after the hold ended`);
    const profile = h.answers[h.answers.length - 1]?.profile;
    let inARow = 0;
    for (const a of h.answers.filter((x) => x.profile === profile && !x.lost)) {
      inARow = a.verdict === CheckVerdict.CouldNotTell ? inARow + 1 : 0;
    }
    if (inARow > maxFaults) {
      throw new ModelViolation(`${h.name}: profile "${profile}" could not tell ${inARow} times in a row, over the budget of ${maxFaults}`);
    }
  }

  /** Scope places: never more running Jobs in the scope than its cap, while Valkey has kept its keys. */
  private checkCaps(): void {
    if (this.valkeyEverLost) return;
    const running = this.holds.filter((h) => h.job && h.job.outcome === JobOutcome.Active && !h.job.deleting);
    if (running.length > this.settings.scopeCap) {
      throw new ModelViolation(`${running.length} Jobs run at once in a scope capped at ${this.settings.scopeCap}`);
    }
  }

  private describe(h: Hold): string {
    const s = h.object?.status ?? {};
    return `checks ${s.checks ?? 0}, wake ${this.wakes.has(h.name) ? isoOf(this.wakes.get(h.name) as number) : 'none'}, job ${h.job ? h.job.outcome : 'none'}`;
  }
}

function observedJob(job: WorldJob | undefined): ObservedJob | undefined {
  return job ? { name: job.name, outcome: job.outcome, ...(job.fenced ? { fenced: true } : {}) } : undefined;
}

function verdictOf(code: Exclude<Answer['code'], 'denied'>): CheckVerdict {
  switch (code) {
    case 0:
      return CheckVerdict.Go;
    case 2:
      return CheckVerdict.Never;
    case 3:
      return CheckVerdict.NotYet;
    case 1:
    case 'timeout':
      return CheckVerdict.CouldNotTell;
    default:
      return assertNever(code);
  }
}

const placeOf = (scopeKey: string, uid: string): string => `${scopeKey}\u0000${uid}`;
const isoOf = (ms: number): string => new Date(ms).toISOString();

const JOB_TEMPLATE = { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } };

function specOf(i: number, waitFor: readonly object[]): Record<string, unknown> {
  return { target: `acme/web#${i + 1}`, trigger: 'plain', ...(waitFor.length > 0 ? { waitFor } : {}), job: JOB_TEMPLATE };
}

/** An edit the operator's own check refuses (a misspelt key; the CRD keeps unknown fields). */
function unreadableSpecOf(i: number): Record<string, unknown> {
  return { target: `acme/web#${i + 1}`, trigger: 'plain', waitFor: [{ profle: 'jira' }], job: JOB_TEMPLATE };
}

function viewAfterMs(object: HeldJobObject): number | undefined {
  const view = viewOf(object);
  return view.ok ? view.afterMs : epochOf(object.status?.releaseAt);
}
