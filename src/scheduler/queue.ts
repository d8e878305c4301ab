/**
 * The due-time queue of subscriptions: the scheduler's port for "what is due next", and its
 * in-process implementation, one binary min-heap for every user, so the scheduler runs one loop
 * and no timer per user. Entries are plain ids with a due time; what an id means lives with the
 * scheduler, which keeps the queue small enough to move into Redis later: a sorted set by due
 * time gives exactly this interface (push: ZADD, remove: ZREM, peek: ZRANGE 0 0, pop: ZPOPMIN,
 * dueAt / has: ZSCORE, size: ZCARD).
 *
 * How the loop uses it (scheduler.ts): it schedules with `push` (and moves a subscription by
 * pushing it again), looks at the head with `peek` to know how long to sleep, takes the head
 * with `pop` once it is due and a read slot is free, and drops a subscription with `remove`;
 * `dueAt` tells the token turns who is backing off.
 */

/** The queue as the scheduler sees it. Ids are unique: pushing an id again moves it. */
export interface ScheduleQueue {
  /** Inserts `id` due at `dueAt` (ms), or moves it there when it is already queued. */
  push(id: string, dueAt: number): void;
  /** Removes `id`; false when it was not queued. */
  remove(id: string): boolean;
  /** The earliest entry without removing it. Equal due times come out in the order they were pushed. */
  peek(): { id: string; dueAt: number } | undefined;
  /** Removes and returns the earliest entry. */
  pop(): { id: string; dueAt: number } | undefined;
  /** When `id` is due, or undefined when it is not queued. */
  dueAt(id: string): number | undefined;
  has(id: string): boolean;
  readonly size: number;
}

interface Node {
  id: string;
  dueAt: number;
  /** Push order: breaks ties so that subscriptions due together are served first come, first served. */
  seq: number;
}

/** An indexed binary heap: push, pop, move and remove in O(log n). */
export class HeapScheduleQueue implements ScheduleQueue {
  private readonly heap: Node[] = [];
  private readonly index = new Map<string, number>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  dueAt(id: string): number | undefined {
    const at = this.index.get(id);
    return at === undefined ? undefined : this.heap[at]!.dueAt;
  }

  push(id: string, dueAt: number): void {
    if (!Number.isFinite(dueAt)) throw new RangeError(`due time of ${id} is not a finite number`);
    const at = this.index.get(id);
    const node: Node = { id, dueAt, seq: this.seq++ };
    if (at === undefined) {
      this.heap.push(node);
      this.index.set(id, this.heap.length - 1);
      this.up(this.heap.length - 1);
      return;
    }
    this.heap[at] = node;
    this.fix(at);
  }

  remove(id: string): boolean {
    const at = this.index.get(id);
    if (at === undefined) return false;
    this.index.delete(id);
    const last = this.heap.pop()!;
    if (at < this.heap.length) {
      this.heap[at] = last;
      this.index.set(last.id, at);
      this.fix(at);
    }
    return true;
  }

  peek(): { id: string; dueAt: number } | undefined {
    const top = this.heap[0];
    return top && { id: top.id, dueAt: top.dueAt };
  }

  pop(): { id: string; dueAt: number } | undefined {
    const top = this.heap[0];
    if (!top) return undefined;
    this.remove(top.id);
    return { id: top.id, dueAt: top.dueAt };
  }

  private less(a: Node, b: Node): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
  }

  private fix(at: number): void {
    if (at > 0 && this.less(this.heap[at]!, this.heap[(at - 1) >> 1]!)) this.up(at);
    else this.down(at);
  }

  private up(at: number): void {
    const node = this.heap[at]!;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = this.heap[parentAt]!;
      if (!this.less(node, parent)) break;
      this.heap[at] = parent;
      this.index.set(parent.id, at);
      at = parentAt;
    }
    this.heap[at] = node;
    this.index.set(node.id, at);
  }

  private down(at: number): void {
    const node = this.heap[at]!;
    const n = this.heap.length;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.less(this.heap[right]!, this.heap[left]!) ? right : left;
      const next = this.heap[child]!;
      if (!this.less(next, node)) break;
      this.heap[at] = next;
      this.index.set(next.id, at);
      at = child;
    }
    this.heap[at] = node;
    this.index.set(node.id, at);
  }
}
