// The receiver's connection cap, kept so that connections that have not finished their
// request head cannot starve those that have. A head costs a sender nothing to leave
// unfinished (no signature is needed to open a connection and stall), so a cap that simply
// refused newcomers would let a few hundred stalled connections turn every real delivery away
// for as long as the header timeout. Instead, a connection over the cap makes room by closing
// the oldest connection still waiting for its head (a fresh one, or a kept-alive one between
// requests): a forge sends its head at once, so it is past that point long before it is the
// oldest. When every connection is past its head (bodies being read, deliveries in hand),
// nothing is closed and the newcomer's request is answered 503 at admission.

/** What is needed of a connection: closing it. */
export interface Closable {
  destroy(): void;
}

export class ConnectionSlots<C extends Closable> {
  private readonly open = new Set<C>();
  /** Connections waiting for a request head, oldest first (a Set keeps insertion order). */
  private readonly awaitingHead = new Set<C>();

  constructor(private readonly max: number) {}

  /** Connections open now. */
  get size(): number {
    return this.open.size;
  }

  /**
   * A connection was accepted. Over the cap, the oldest other connection still waiting for
   * its head is closed and returned; undefined when there was room or none to close.
   */
  opened(c: C): C | undefined {
    this.open.add(c);
    this.awaitingHead.add(c);
    if (this.open.size <= this.max) return undefined;
    for (const oldest of this.awaitingHead) {
      if (oldest === c) continue;
      this.closed(oldest);
      oldest.destroy();
      return oldest;
    }
    return undefined;
  }

  /** A request head arrived on `c`: it is no longer one to close for room. */
  headReceived(c: C): void {
    this.awaitingHead.delete(c);
  }

  /** `c` answered and is kept alive: it waits for its next head, as the newest. */
  idle(c: C): void {
    if (!this.open.has(c)) return;
    this.awaitingHead.delete(c);
    this.awaitingHead.add(c);
  }

  closed(c: C): void {
    this.open.delete(c);
    this.awaitingHead.delete(c);
  }
}
