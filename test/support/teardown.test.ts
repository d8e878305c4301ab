import { describe, expect, it } from 'vitest';
import { stopAfterEach } from './teardown.js';

const stopAfter = stopAfterEach();
const order: string[] = [];

describe('stopAfterEach (tests run in order: the second reads what the first left)', () => {
  it('takes what a test started', () => {
    stopAfter({ close: async () => void order.push('server closed') });
    stopAfter({ stop: () => void order.push('outbox stopped'), close: () => void order.push('never: stop wins') });
    expect(order).toEqual([]);
  });

  it('stopped it after that test, the last started first, each once', () => {
    expect(order).toEqual(['outbox stopped', 'server closed']);
  });

  it('forgot it: nothing is stopped twice', () => {
    expect(order).toEqual(['outbox stopped', 'server closed']);
  });
});
