// Every Valkey key waitgate uses, in one place (as BullMQ keeps its queue keys). Each key
// starts with the deployment's prefix (WAITGATE_VALKEY_PREFIX), so several fleets or tests
// can share one server. Nothing here is state a restart needs: all of it may be lost.
import { shortHash } from '../hash.js';

export class ValkeyKeys {
  constructor(readonly prefix: string) {}

  /**
   * The fleet-wide semaphore of running profile checks. Shares the `{checks}` hash tag with
   * the namespaces' semaphores and the active set, so one script takes a place in all of them.
   */
  checkSlots(): string {
    return `${this.prefix}:{checks}:slots`;
  }

  /**
   * The running profile checks of one namespace (a semaphore beside the fleet's): a namespace
   * takes no new place while it holds its fair share of the fleet's. Same `{checks}` hash tag.
   */
  checkSlotsOf(namespace: string): string {
    return `${this.prefix}:{checks}:ns:${shortHash(namespace)}`;
  }

  /**
   * The namespaces that asked for a check slot lately (a sorted set: a namespace's semaphore
   * key -> when its activity lapses), whose count divides the fleet's check slots into fair
   * shares. Same `{checks}` hash tag.
   */
  checkActive(): string {
    return `${this.prefix}:{checks}:active`;
  }

  /**
   * The two scope semaphores a launch takes together: every running Job, and the Jobs of
   * one scope key. Both share the `{scope}` hash tag so one script can take them on a cluster.
   */
  scopeSlots(scopeKey: string): [all: string, scope: string] {
    return [`${this.prefix}:{scope}:all`, `${this.prefix}:{scope}:key:${shortHash(scopeKey)}`];
  }

  /**
   * The epoch of the scope semaphores: a random id that vanishes with them when Valkey loses
   * its data, so an operator knows to register its running Jobs again before it launches one
   * more. Same `{scope}` hash tag as the semaphores, for the one script that reads all three.
   */
  scopeEpoch(): string {
    return `${this.prefix}:{scope}:epoch`;
  }

  /**
   * One operator deployment's index of the scope places its running Jobs hold (a hash: holder
   * -> scope key), so its leader can find the places of holds that are gone or ended and give
   * them back. Per deployment (its worker name and watched namespace): a leader reclaims only
   * what its own cache can vouch for. Same `{scope}` hash tag as the semaphores.
   */
  scopeRunning(worker: string, watchNamespace: string): string {
    return `${this.prefix}:{scope}:running:${shortHash(`${worker}\n${watchNamespace}`)}`;
  }

  /**
   * The scope holders whose end was recorded (a sorted set: holder -> when), fleet-wide: a
   * place given back at a hold's end is never taken back by a keeper that still read the hold
   * as running. Same `{scope}` hash tag as the semaphores.
   */
  scopeEnded(): string {
    return `${this.prefix}:{scope}:ended`;
  }

  /**
   * The leaders present on one deployment's index of running places (a semaphore of one place
   * per leader process): a leader that finds another there may share the index with another
   * deployment (the same worker name, watched namespace and prefix), and gives back only the
   * places its cache shows ended.
   */
  scopeRunningLeaders(worker: string, watchNamespace: string): string {
    return `${this.scopeRunning(worker, watchNamespace)}:leaders`;
  }

  /** Left when a hold finishes waiting: a second delivery for it is refused wait-superseded. */
  finishedMarker(trigger: string, target: string): string {
    return `${this.prefix}:finished:${shortHash(trigger)}:${shortHash(target)}`;
  }

  /** Drops an identical redelivery of one forge delivery. */
  deliveryDedup(forge: string, deliveryId: string): string {
    return `${this.prefix}:delivery:${forge}:${shortHash(deliveryId, 32)}`;
  }

  /** Drops a signed body seen before, whatever delivery id it comes under (a replay). */
  deliveryBodyDedup(forge: string, bodyHash: string): string {
    return `${this.prefix}:delivery-body:${forge}:${bodyHash.slice(0, 32)}`;
  }

  /**
   * The highest hold generation handed out for one trigger and target (a sorted set, raised
   * with ZADD GT): a floor under the one the live HeldJobs give, should the newest be deleted.
   */
  holdGeneration(trigger: string, target: string): string {
    return `${this.prefix}:hold-generation:${shortHash(trigger)}:${shortHash(target)}`;
  }

  /** Serialises deliveries of one trigger for one target. */
  holdLock(trigger: string, target: string): string {
    return `${this.prefix}:hold-lock:${shortHash(trigger)}:${shortHash(target)}`;
  }

  /**
   * The labels last seen on a pull request whose forge sends them all at every update (Azure
   * DevOps): a set of their hashes, never the labels themselves (#30, finding 4).
   */
  seenLabels(forge: string, target: string): string {
    return `${this.prefix}:seen-labels:${forge}:${shortHash(target)}`;
  }
}
