import { describe, expect, it } from 'vitest';
import { settlesWithin } from '../../src/lib/settles-within.js';

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('settlesWithin', () => {
  it('says true for a promise that fulfils in time, without waiting out the bound', async () => {
    const started = performance.now();
    expect(await settlesWithin(after(10, 'x'), 5_000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('says false when the time runs out first, and ignores a late failure', async () => {
    const late = new Promise((_resolve, reject) => setTimeout(() => reject(new Error('late')), 80));
    expect(await settlesWithin(late, 20)).toBe(false);
    // The late rejection must not surface as unhandled.
    await after(100, undefined);
  });

  it('passes on a failure in time', async () => {
    await expect(settlesWithin(Promise.reject(new Error('refused')), 1_000)).rejects.toThrow('refused');
  });
});
