/** `npm run playground`: the whole bot offline, chatting in this terminal. */
import { rmSync } from 'node:fs';
import { startPlayground, type Playground } from './playground.js';

// The handlers come first: Ctrl-C or SIGTERM while the playground starts still stops it cleanly
// (without a listener the signal would end the process at once, leaving the temporary folder).
const running: { playground?: Playground } = {};
let stopRequested = false;
let stopping = false;
const stop = () => {
  stopRequested = true;
  const playground = running.playground;
  if (stopping || !playground) return;
  stopping = true;
  if (process.stdout.writable) console.log('\nStopping…');
  playground.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// Output into a pipe closed first (`npm run playground | tee`, Ctrl-C ends both): nothing can be
// shown any more, so stop cleanly instead of dying on the write error with the folders left behind.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  stop();
});

const playground = await startPlayground({
  input: process.stdin,
  output: process.stdout,
  ansi: process.stdout.isTTY === true,
});
running.playground = playground;
const { dataDir, mediaDir } = playground;
// stop() removes the temporary folders (one holds an encryption key, the other the ledger's charts
// and CSVs); this catches an exit that skips it.
process.once('exit', () => {
  for (const dir of [dataDir, mediaDir]) rmSync(dir, { recursive: true, force: true });
});
process.stdin.once('end', stop);
if (stopRequested) stop();
