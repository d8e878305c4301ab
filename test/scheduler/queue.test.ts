import { describe, expect, it } from 'vitest';
import { HeapScheduleQueue } from '../../src/scheduler/queue.js';

/** A tiny deterministic PRNG so the randomized check is repeatable. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('HeapScheduleQueue', () => {
  it('pops in due-time order, equal times first come first served', () => {
    const q = new HeapScheduleQueue();
    q.push('c', 30);
    q.push('a', 10);
    q.push('b1', 20);
    q.push('b2', 20);
    q.push('b3', 20);
    expect(q.size).toBe(5);
    expect(q.peek()).toEqual({ id: 'a', dueAt: 10 });
    const order: string[] = [];
    for (let e = q.pop(); e; e = q.pop()) order.push(e.id);
    expect(order).toEqual(['a', 'b1', 'b2', 'b3', 'c']);
    expect(q.size).toBe(0);
    expect(q.pop()).toBeUndefined();
  });

  it('moves an id that is pushed again and removes by id', () => {
    const q = new HeapScheduleQueue();
    q.push('x', 100);
    q.push('y', 50);
    q.push('x', 10);
    expect(q.size).toBe(2);
    expect(q.dueAt('x')).toBe(10);
    expect(q.pop()?.id).toBe('x');
    expect(q.remove('y')).toBe(true);
    expect(q.remove('y')).toBe(false);
    expect(q.has('y')).toBe(false);
    expect(q.size).toBe(0);
  });

  it('rejects a due time that is not a finite number', () => {
    const q = new HeapScheduleQueue();
    expect(() => q.push('x', Number.NaN)).toThrow(RangeError);
    expect(() => q.push('x', Infinity)).toThrow(RangeError);
  });

  it('agrees with a sorted reference under thousands of random pushes, moves and removals', () => {
    const random = prng(7);
    const q = new HeapScheduleQueue();
    const ref = new Map<string, number>();
    for (let i = 0; i < 8_000; i++) {
      const op = random();
      const id = `s${Math.floor(random() * 500)}`;
      if (op < 0.5) {
        const due = Math.floor(random() * 1_000);
        q.push(id, due);
        ref.set(id, due);
      } else if (op < 0.7) {
        expect(q.remove(id)).toBe(ref.delete(id));
      } else {
        const top = q.pop();
        if (ref.size === 0) {
          expect(top).toBeUndefined();
          continue;
        }
        const min = Math.min(...ref.values());
        expect(top?.dueAt).toBe(min);
        expect(ref.get(top!.id)).toBe(min);
        ref.delete(top!.id);
      }
      expect(q.size).toBe(ref.size);
    }
    const drained: number[] = [];
    for (let e = q.pop(); e; e = q.pop()) drained.push(e.dueAt);
    expect(drained).toEqual([...ref.values()].sort((a, b) => a - b));
  });
});
