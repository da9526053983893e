// Fleet-wide counting semaphores in Valkey, through the Lua scripts in lua/. Each semaphore is a
// sorted set: member = a holder's token, score = the instant (epoch ms) its place lapses. Every
// script that counts first sweeps the lapsed places, so a holder that dies frees its place by
// itself. Time comes from the server (TIME, inside each script), never from the caller, so
// operators whose clocks disagree still agree on every lease. One round trip per call.
//
// A place may also be taken within a fair share (acquireShare): beside the fleet's semaphore,
// each namespace has one of its own, and a set of the namespaces that asked lately divides the
// fleet's places among them.
//
// A pair of semaphores may have an epoch (openEpoch, acquireInEpoch): a key that vanishes with
// the rest of the data, so a caller can tell that the places it keeps alive may have been lost,
// and must take them again before it takes a new one.
import { randomBytes } from 'node:crypto';
import { luaScript as script } from './lua-script.js';
import type { ChainableCommander, Redis } from 'ioredis';

/** What the slot scripts return (for the acquire scripts: the first element of the reply). */
export const SlotResult = { Done: 1, NotHeld: 0, Full: 2, EpochChanged: 3 } as const;
export type SlotResult = (typeof SlotResult)[keyof typeof SlotResult];

export type AcquireResult = { readonly acquired: true } | { readonly acquired: false; readonly fullKey: string; readonly holders: number };
/** As AcquireResult, or refused because the epoch is not the one the caller registered in. */
export type EpochAcquireResult = AcquireResult | { readonly acquired: false; readonly epochChanged: true };

/** What holdSlot-4.lua answers of one holder: kept, taken back, or not taken (its holder ended). */
export const HoldCode = { TakenBack: 0, Kept: 1, Ended: 2 } as const;
export type HoldCode = (typeof HoldCode)[keyof typeof HoldCode];

/** How keeping one running holder's place went (holdMany). */
export interface HoldResult {
  readonly token: string;
  /** Whether it still held a live place in both keys; false: it had lost one, and took it back. */
  readonly kept: boolean;
  /** Its holder's end was recorded (releaseHeld with `ended`): nothing was taken or noted. */
  readonly ended: boolean;
  /** Live holders of each key after the call, its own place counted. */
  readonly holders: readonly [number, number];
}

/**
 * Where a place within a fair share is taken (acquireShare): the fleet's semaphore and its
 * size, one namespace's semaphore, and the set of active namespaces. On a Valkey cluster the
 * keys share a hash slot (ValkeyKeys' `{checks}`).
 */
export interface SharePlace {
  readonly fleetKey: string;
  readonly namespaceKey: string;
  readonly activeKey: string;
  /** Places in the fleet's semaphore. */
  readonly limit: number;
}

/** A place given back as another is taken (handOnShare): its token, and its namespace's semaphore. */
export interface SharedPlace {
  readonly namespaceKey: string;
  readonly token: string;
}

/** The epoch a pair of semaphores is in: its key, and the id the caller last registered its holders in. */
export interface Epoch {
  readonly key: string;
  readonly id: string;
}

/** Where running places are noted (one deployment's index) and ended holders marked (fleet-wide). */
export interface RunningBook {
  readonly index: string;
  readonly ended: string;
}

function isHoldCode(code: unknown): code is HoldCode {
  return code === HoldCode.TakenBack || code === HoldCode.Kept || code === HoldCode.Ended;
}

function checkBook(book: RunningBook): void {
  checkKeys([book.index, book.ended]);
  if (book.index === book.ended) throw new Error(`Slots: the index and the ended set must differ, got ${book.index} for both`);
}

interface SlotCommands {
  acquireSlot1(key: string, token: string, limit: number, ttlMs: number, giveBack?: string): Promise<number[]>;
  acquireSlot2(key1: string, key2: string, token: string, limit1: number, limit2: number, ttlMs: number): Promise<number[]>;
  acquireShare(
    fleet: string,
    namespace: string,
    active: string,
    fromNamespace: string,
    token: string,
    limit: number,
    ttlMs: number,
    activeMs: number,
    giveBack?: string,
  ): Promise<number[]>;
  countSlots(key: string): Promise<number>;
  acquireSlot3(
    key1: string,
    key2: string,
    epochKey: string,
    token: string,
    limit1: number,
    limit2: number,
    ttlMs: number,
    epoch: string,
  ): Promise<number[]>;
  openEpoch(key: string, candidate: string): Promise<string>;
  releaseSlot2(key1: string, key2: string, token: string): Promise<number>;
  releaseHeld(key1: string, key2: string, index: string, ended: string, token: string, mark: '0' | '1', keepMs: number): Promise<number>;
}

interface SlotPipeline extends ChainableCommander {
  renewSlot(key: string, token: string, ttlMs: number): SlotPipeline;
  releaseSlot(key: string, token: string): SlotPipeline;
  holdSlot(key1: string, key2: string, index: string, ended: string, token: string, ttlMs: number, note: string): SlotPipeline;
}

function checkKeys(keys: readonly string[]): void {
  if (keys.length !== 1 && keys.length !== 2) {
    throw new Error(`Slots: a place is taken in 1 or 2 keys, got ${keys.length}`);
  }
  if (keys.some((k) => typeof k !== 'string' || k === '')) throw new Error('Slots: keys must be non-empty strings');
  if (keys.length === 2 && keys[0] === keys[1]) throw new Error(`Slots: the two keys must differ, got ${keys[0]} twice`);
}

function checkToken(token: string): void {
  if (typeof token !== 'string' || token === '') throw new Error('Slots: token must be a non-empty string');
}

function checkTtl(ttlMs: number, name = 'ttlMs'): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new Error(`Slots: ${name} must be an integer >= 1, got ${ttlMs}`);
  }
}

/** The fleet's and the namespace's semaphores differ, and the active set is neither. */
function checkPlace(place: SharePlace): void {
  checkKeys([place.fleetKey, place.namespaceKey]);
  checkKeys([place.activeKey]);
  if (place.activeKey === place.fleetKey || place.activeKey === place.namespaceKey)
    throw new Error(`Slots: the active set must differ from the semaphores, got ${place.activeKey}`);
  checkLimits([place.fleetKey], [place.limit]);
}

function checkLimits(keys: readonly string[], limits: readonly number[]): void {
  if (limits.length !== keys.length) {
    throw new Error(`Slots: one limit per key, got ${limits.length} limits for ${keys.length} keys`);
  }
  limits.forEach((limit, i) => {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new Error(`Slots: the limit of ${keys[i]} must be an integer >= 1, got ${limit}`);
    }
  });
}

/** An acquire script's reply, {1} or {2, i, n}, as an AcquireResult. */
function acquireResultOf(keys: readonly string[], reply: number[]): AcquireResult {
  const [code, index, holders] = reply;
  if (code === SlotResult.Done) return { acquired: true };
  const fullKey = index === undefined ? undefined : keys[index - 1];
  if (code !== SlotResult.Full || fullKey === undefined || holders === undefined) {
    throw new Error(`Slots: unexpected reply from the acquire script: ${JSON.stringify(reply)}`);
  }
  return { acquired: false, fullKey, holders };
}

/** The replies of a pipeline, or the first error in it. */
async function replies(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = await pipeline.exec();
  if (!results) throw new Error('Slots: pipeline was discarded');
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

export class Slots {
  private readonly redis: Redis & SlotCommands;

  constructor(redis: Redis) {
    redis.defineCommand('acquireSlot1', { numberOfKeys: 1, lua: script('acquireSlot-1.lua') });
    redis.defineCommand('acquireSlot2', { numberOfKeys: 2, lua: script('acquireSlot-2.lua') });
    redis.defineCommand('acquireShare', { numberOfKeys: 4, lua: script('acquireShare-4.lua') });
    redis.defineCommand('renewSlot', { numberOfKeys: 1, lua: script('renewSlot-1.lua') });
    redis.defineCommand('releaseSlot', { numberOfKeys: 1, lua: script('releaseSlot-1.lua') });
    redis.defineCommand('releaseSlot2', { numberOfKeys: 2, lua: script('releaseSlot-2.lua') });
    redis.defineCommand('countSlots', { numberOfKeys: 1, lua: script('countSlots-1.lua') });
    redis.defineCommand('acquireSlot3', { numberOfKeys: 3, lua: script('acquireSlot-3.lua') });
    redis.defineCommand('openEpoch', { numberOfKeys: 1, lua: script('openEpoch-1.lua') });
    redis.defineCommand('holdSlot', { numberOfKeys: 4, lua: script('holdSlot-4.lua') });
    redis.defineCommand('releaseHeld', { numberOfKeys: 4, lua: script('releaseHeld-4.lua') });
    this.redis = redis as Redis & SlotCommands;
  }

  /**
   * One place in every key (1 or 2 keys), for `token`, atomically: in both or in neither;
   * limits[i] is the size of keys[i]. A token already holding its place in every key is renewed
   * and counts as acquired (idempotent: a restarted holder that reuses its token gets its place
   * back). When refused, nothing the token held before the call changes; `fullKey` is the first
   * full key. With 2 keys on a Valkey cluster, the keys must share a hash slot ({hash tag}).
   * The place is held for `ttlMs` from the server's now.
   */
  async acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<AcquireResult> {
    checkKeys(keys);
    checkLimits(keys, limits);
    checkToken(token);
    checkTtl(ttlMs);
    const [k1, k2] = keys as [string, string | undefined];
    const [l1, l2] = limits as [number, number | undefined];
    const reply =
      k2 === undefined || l2 === undefined
        ? await this.redis.acquireSlot1(k1, token, l1, ttlMs)
        : await this.redis.acquireSlot2(k1, k2, token, l1, l2, ttlMs);
    return acquireResultOf(keys, reply);
  }

  /**
   * The epoch open on `key`: the one there, or a new one begun now when there is none (first
   * use, or the data was lost). A caller registers its holders in the epoch this returns (renews
   * or re-takes their places) before it asks acquireInEpoch for a new one.
   */
  async openEpoch(key: string): Promise<string> {
    checkKeys([key]);
    return this.redis.openEpoch(key, randomBytes(12).toString('hex'));
  }

  /**
   * As `acquire` with two keys, but only while `epoch.key` still holds `epoch.id`: otherwise
   * refused with `epochChanged` and nothing changed. On a Valkey cluster all three keys must share
   * a hash slot.
   */
  async acquireInEpoch(
    keys: readonly string[],
    limits: readonly number[],
    token: string,
    ttlMs: number,
    epoch: Epoch,
  ): Promise<EpochAcquireResult> {
    checkKeys(keys);
    if (keys.length !== 2) throw new Error(`Slots: a place in an epoch is taken in 2 keys, got ${keys.length}`);
    checkKeys([epoch.key]);
    if (keys.includes(epoch.key)) throw new Error(`Slots: the epoch key must differ from the semaphores, got ${epoch.key}`);
    checkLimits(keys, limits);
    checkToken(token);
    checkTtl(ttlMs);
    const [k1, k2] = keys as [string, string];
    const [l1, l2] = limits as [number, number];
    const reply = await this.redis.acquireSlot3(k1, k2, epoch.key, token, l1, l2, ttlMs, epoch.id);
    if (reply[0] === SlotResult.EpochChanged) return { acquired: false, epochChanged: true };
    return acquireResultOf(keys, reply);
  }

  /** Extends the lease in every key, only where `token` still holds a live place; true when it held all. */
  async renew(keys: readonly string[], token: string, ttlMs: number): Promise<boolean> {
    return (await this.renewMany([{ keys, token }], ttlMs)).length === 0;
  }

  /** Gives the place back in every key (no-op where it holds none). */
  async release(keys: readonly string[], token: string): Promise<void> {
    checkKeys(keys);
    checkToken(token);
    // One script for two keys: a pipeline of two costs the client more than the server's work.
    if (keys.length === 2) {
      await this.redis.releaseSlot2(keys[0] as string, keys[1] as string, token);
      return;
    }
    const pipeline = this.redis.pipeline() as SlotPipeline;
    for (const key of keys) pipeline.releaseSlot(key, token);
    await replies(pipeline);
  }

  /**
   * Gives `from`'s place in `key` back and takes one for `to`, in one script: a place freed goes
   * straight to the holder it is handed to, with no moment in which another could take it. As
   * `acquire` for `to` (renewed when it held one already; refused when `key` is full even
   * without `from`'s place, which is given back all the same).
   */
  async handOn(key: string, from: string, to: string, limit: number, ttlMs: number): Promise<AcquireResult> {
    checkKeys([key]);
    checkLimits([key], [limit]);
    checkToken(from);
    checkToken(to);
    checkTtl(ttlMs);
    return acquireResultOf([key], await this.redis.acquireSlot1(key, to, limit, ttlMs, from));
  }

  /**
   * One place for `token` in the fleet's semaphore and in its namespace's, both or neither,
   * within the namespace's fair share: ceil(limit / active namespaces). Asking makes the
   * namespace active for `activeMs` from the server's now (never shortened), refused or not. A
   * namespace alone has every place; one holding its share or more keeps what it holds, and is
   * refused a new place with `fullKey` its own semaphore. A token already holding its place in
   * both is renewed and counts as acquired. The place is held for `ttlMs` from the server's now.
   */
  async acquireShare(place: SharePlace, token: string, ttlMs: number, activeMs: number): Promise<AcquireResult> {
    checkPlace(place);
    checkToken(token);
    checkTtl(ttlMs);
    checkTtl(activeMs, 'activeMs');
    const { fleetKey, namespaceKey, activeKey, limit } = place;
    const reply = await this.redis.acquireShare(fleetKey, namespaceKey, activeKey, namespaceKey, token, limit, ttlMs, activeMs);
    return acquireResultOf([fleetKey, namespaceKey], reply);
  }

  /**
   * Gives `from`'s place back (in the fleet's semaphore and in its namespace's) and takes one
   * for `to` as acquireShare does, in one script: a place freed goes straight to the holder it
   * is handed to, with no moment in which another could take it. `from` may be of another
   * namespace. Refused (the fleet full even without `from`'s place, or `to`'s namespace at its
   * share), `from`'s place is given back all the same.
   */
  async handOnShare(from: SharedPlace, place: SharePlace, to: string, ttlMs: number, activeMs: number): Promise<AcquireResult> {
    checkPlace(place);
    checkKeys([from.namespaceKey]);
    if (from.namespaceKey === place.fleetKey || from.namespaceKey === place.activeKey)
      throw new Error(`Slots: the giver's namespace semaphore must differ from the fleet's and the active set, got ${from.namespaceKey}`);
    checkToken(from.token);
    checkToken(to);
    checkTtl(ttlMs);
    checkTtl(activeMs, 'activeMs');
    const { fleetKey, namespaceKey, activeKey, limit } = place;
    const reply = await this.redis.acquireShare(
      fleetKey,
      namespaceKey,
      activeKey,
      from.namespaceKey,
      to,
      limit,
      ttlMs,
      activeMs,
      from.token,
    );
    return acquireResultOf([fleetKey, namespaceKey], reply);
  }

  /** Live holders of one key. */
  async holders(key: string): Promise<number> {
    checkKeys([key]);
    return this.redis.countSlots(key);
  }

  /**
   * Many renewals in one pipeline (for renewing thousands of running Jobs' leases every few
   * seconds), each as `renew` does it. Returns the tokens that had lost their place in at least
   * one of their keys, each once, in the order given. Everything is checked before anything is sent.
   */
  async renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]> {
    checkTtl(ttlMs);
    for (const { keys, token } of entries) {
      checkKeys(keys);
      checkToken(token);
    }
    if (entries.length === 0) return [];
    const pipeline = this.redis.pipeline() as SlotPipeline;
    const owners: string[] = [];
    for (const { keys, token } of entries) {
      for (const key of keys) {
        pipeline.renewSlot(key, token, ttlMs);
        owners.push(token);
      }
    }
    const results = await replies(pipeline);
    const lost = new Set<string>();
    results.forEach((r, i) => {
      if (r !== SlotResult.Done) lost.add(owners[i] as string);
    });
    return [...lost];
  }

  /**
   * Keeps the places of running holders, each in its two keys, whatever the limits: a place that
   * lapsed or was lost is taken back (`kept: false`), even past a limit, since its holder runs
   * regardless; the keys then count what runs and refuse new holders until back under their
   * limits. Each is noted in `book.index` (token -> its `note`), so the places can be found again
   * and reclaimed when their holder is gone. A holder `book.ended` has marked ended (releaseHeld)
   * is not taken back (`ended: true`). One pipeline; everything is checked before anything is sent.
   */
  async holdMany(
    entries: readonly { keys: readonly string[]; token: string; note: string }[],
    book: RunningBook,
    ttlMs: number,
  ): Promise<HoldResult[]> {
    checkTtl(ttlMs);
    checkBook(book);
    for (const { keys, token } of entries) {
      checkKeys(keys);
      if (keys.length !== 2) throw new Error(`Slots: a running place is held in 2 keys, got ${keys.length}`);
      if (keys.includes(book.index) || keys.includes(book.ended))
        throw new Error(`Slots: the index and the ended set must differ from the semaphores, got ${book.index}, ${book.ended}`);
      checkToken(token);
    }
    if (entries.length === 0) return [];
    const pipeline = this.redis.pipeline() as SlotPipeline;
    for (const { keys, token, note } of entries) {
      pipeline.holdSlot(keys[0] as string, keys[1] as string, book.index, book.ended, token, ttlMs, note);
    }
    const results = await replies(pipeline);
    return results.map((r, i) => {
      const [code, n1, n2] = r as number[];
      if (n1 === undefined || n2 === undefined || !isHoldCode(code))
        throw new Error(`Slots: unexpected reply from the hold script: ${JSON.stringify(r)}`);
      const token = (entries[i] as { token: string }).token;
      return { token, kept: code !== HoldCode.TakenBack, ended: code === HoldCode.Ended, holders: [n1, n2] };
    });
  }

  /**
   * Gives a held place back in both keys and takes it off `book.index` (no-op where it holds
   * none). `ended`: its holder is over for good (its hold ended or went), so it is marked ended
   * in `book.ended` for `ended.keepMs`, and no holdMany takes its place back in that time.
   */
  async releaseHeld(keys: readonly string[], book: RunningBook, token: string, ended?: { readonly keepMs: number }): Promise<void> {
    checkKeys(keys);
    if (keys.length !== 2) throw new Error(`Slots: a running place is held in 2 keys, got ${keys.length}`);
    checkBook(book);
    checkToken(token);
    if (ended) checkTtl(ended.keepMs);
    await this.redis.releaseHeld(
      keys[0] as string,
      keys[1] as string,
      book.index,
      book.ended,
      token,
      ended ? '1' : '0',
      ended?.keepMs ?? 1,
    );
  }

  /** The places noted in `index` by holdMany and not released since: token -> note. */
  async heldIn(index: string): Promise<Map<string, string>> {
    checkKeys([index]);
    return new Map(Object.entries(await this.redis.hgetall(index)));
  }
}
