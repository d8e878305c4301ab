/**
 * A child process for test/crash-log.test.ts: a real grammY HttpError from a refused socket (its
 * inner error carries the Bot API URL with the token) escapes as an unhandled rejection or an
 * uncaught exception, with the crash log installed or not (argv: `rejection|exception`, `on|off`).
 */
import { Api } from 'grammy';
import { installCrashLog } from '../../src/crash-log.js';
import { knownSecrets } from '../../src/log-redaction.js';
import { createLogger } from '../../src/logger.js';

const [how = 'rejection', installed = 'on'] = process.argv.slice(2);
const token = process.env.CRASH_TOKEN ?? '';
knownSecrets.pin(token);
if (installed === 'on') installCrashLog(createLogger('info', undefined, { format: 'json' }));
const call = new Api(token, { apiRoot: 'http://127.0.0.1:9' }).getMe();
if (how === 'rejection') {
  void call.then(() => undefined);
} else {
  call.catch((err: unknown) => {
    setTimeout(() => {
      throw err;
    }, 0);
  });
}
