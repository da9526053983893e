// The checks waiting in one operator for a place its own checks hold, in the order they go:
// round-robin by group (a HeldJob's namespace), first come first within one. The next to go is
// the one waiting longest of the group served least recently, so one namespace's thousand
// queued holds do not all go before another's one. Pure: no clock, no I/O.

export class FairQueue {
  /** Group -> its waiting keys, each with when it came (an arrival number), first come first. */
  private readonly groups = new Map<string, Map<string, number>>();
  /** Key -> its group, for every waiting key. */
  private readonly groupOfKey = new Map<string, string>();
  /**
   * When each group was last served (a number from the same count as arrivals). Kept only while
   * the group waits or holds a place (keepServedOnly): one that does neither goes before those served.
   */
  private readonly lastServed = new Map<string, number>();
  private count = 0;

  constructor(private readonly groupOf: (key: string) => string) {}

  get size(): number {
    return this.groupOfKey.size;
  }

  has(key: string): boolean {
    return this.groupOfKey.has(key);
  }

  /** `key` waits, behind the others of its group; one already waiting keeps its place. */
  add(key: string): void {
    if (this.groupOfKey.has(key)) return;
    const group = this.groupOf(key);
    let keys = this.groups.get(group);
    if (keys === undefined) this.groups.set(group, (keys = new Map<string, number>()));
    keys.set(key, ++this.count);
    this.groupOfKey.set(key, group);
  }

  delete(key: string): boolean {
    const group = this.groupOfKey.get(key);
    if (group === undefined) return false;
    this.groupOfKey.delete(key);
    const keys = this.groups.get(group);
    keys?.delete(key);
    if (keys?.size === 0) this.groups.delete(group);
    return true;
  }

  /**
   * The key that goes next, left waiting: the first of the group served least recently; among
   * groups never served (or forgotten), the one whose first came first.
   */
  peek(): string | undefined {
    let best: { key: string; served: number; came: number } | undefined;
    for (const [group, keys] of this.groups) {
      const [key, came] = keys.entries().next().value as [string, number];
      const served = this.lastServed.get(group) ?? 0;
      if (best === undefined || served < best.served || (served === best.served && came < best.came)) best = { key, served, came };
    }
    return best?.key;
  }

  /** A key of `group` took a place: the group goes behind every other waiting. */
  served(group: string): void {
    this.lastServed.set(group, ++this.count);
  }

  /** When each group was served is forgotten, but for those that wait and those in `holding` (they hold a place). */
  keepServedOnly(holding: ReadonlySet<string>): void {
    for (const group of this.lastServed.keys()) if (!holding.has(group) && !this.groups.has(group)) this.lastServed.delete(group);
  }

  /** Groups anything is kept for: waiting, or served and not forgotten. */
  get groupsTracked(): number {
    return new Set([...this.groups.keys(), ...this.lastServed.keys()]).size;
  }

  /** The waiting keys, in no particular order. */
  keys(): IterableIterator<string> {
    return this.groupOfKey.keys();
  }
}
