/** `npm run playground`: the whole bot offline, chatting in this terminal. */
import { startPlayground } from './playground.js';

const playground = await startPlayground({
  input: process.stdin,
  output: process.stdout,
  ansi: process.stdout.isTTY === true,
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
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
process.stdin.once('end', stop);
