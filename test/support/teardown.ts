/**
 * One teardown for tests that start things (an outbox, a Bot API stand-in, a destination watch, a
 * bot harness): `const stopAfter = stopAfterEach()` at a file's top registers one `afterEach` that
 * stops or closes everything handed to `stopAfter` during the test, the last started first (an
 * outbox stops before the server it sends to closes), and forgets it. One failing stop does not
 * keep the others running: each is tried, then the first failure is thrown.
 */
import { afterEach } from 'vitest';

/** Something a test started: stopped with `stop()` where it has one, else closed. */
export type Stoppable = { stop(): unknown } | { close(): unknown };

export function stopAfterEach(): <T extends Stoppable>(thing: T) => T {
  let started: Stoppable[] = [];
  afterEach(async () => {
    const now = started.reverse();
    started = [];
    const failures: unknown[] = [];
    for (const thing of now) {
      try {
        await ('stop' in thing ? thing.stop() : thing.close());
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  });
  return (thing) => {
    started.push(thing);
    return thing;
  };
}
