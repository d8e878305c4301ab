/**
 * Schema migrations of `db.json`: a list of steps, each taking the file's data from version N to
 * N + 1. Version 0 is the prototype's file, which had no `version` field. Every step checks its
 * input with its own zod schema, so a file that is not what the step expects fails loudly (and is
 * then moved aside by the store) instead of being half-converted. The result of the last step is
 * checked against `databaseSchema` by the store.
 */
import { z } from 'zod';
import { SCHEMA_VERSION } from './schema.js';

/** One step from `from` to `from + 1`. */
export interface Migration {
  from: number;
  /** What changed, for the start-up log. */
  describe: string;
  up(data: unknown): Record<string, unknown>;
}

/** Thrown when a file cannot be migrated: not an object, a bad `version`, or a step refused it. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * The v0 file (before versioning): users kept in an array, the settings under older names, the
 * access key and the encrypted secret flat on the user (`accessKey`, `encryptedSecret`), quiet
 * hours as one "HH:MM-HH:MM" string, and the alert state under `alertState`. Fields it does not
 * rename pass through for the v1 schema to check.
 */
const v0UserSchema = z.looseObject({
  id: z.number().int(),
  chatId: z.number().int(),
  language: z.string().optional(),
  timezone: z.string().optional(),
  roundTo: z.number().optional(),
  quietHours: z.string().nullable().optional(),
  accessKey: z.string().nullable().optional(),
  encryptedSecret: z.string().nullable().optional(),
  connectedAt: z.number().optional(),
  createdAt: z.number(),
});

const v0Schema = z.looseObject({
  users: z.array(v0UserSchema).default([]),
  alertState: z.record(z.string(), z.unknown()).default({}),
});

const QUIET_RANGE = /^\s*(\d{2}:\d{2})\s*-\s*(\d{2}:\d{2})\s*$/;

function migrateV0User(user: z.infer<typeof v0UserSchema>): Record<string, unknown> {
  const {
    language,
    timezone,
    roundTo,
    quietHours,
    accessKey,
    encryptedSecret,
    connectedAt,
    ...rest
  } = user;
  const out: Record<string, unknown> = { ...rest };
  // The prototype accepted Telegram language codes like "ru-RU"; v1 keeps only the language.
  if (language !== undefined) out.lang = language.slice(0, 2).toLowerCase() === 'ru' ? 'ru' : 'en';
  if (timezone !== undefined) out.timeZone = timezone;
  if (roundTo !== undefined) out.roundingStep = roundTo;
  if (quietHours !== undefined && quietHours !== null) {
    const m = QUIET_RANGE.exec(quietHours);
    // An unreadable range only ever meant "no quiet hours" to the prototype, which ignored it.
    out.quietHours = m ? { from: m[1], to: m[2] } : null;
  }
  out.key =
    typeof accessKey === 'string' && typeof encryptedSecret === 'string'
      ? { accessKey, secretEnc: encryptedSecret, connectedAt: connectedAt ?? user.createdAt }
      : null;
  return out;
}

/** Every step, in order; `MIGRATIONS[n].from === n`. */
export const MIGRATIONS: readonly Migration[] = [
  {
    from: 0,
    describe: 'users array → record by id; language/timezone/roundTo/quietHours renamed; key pair nested; alertState → alerts',
    up(data) {
      const parsed = v0Schema.safeParse(data);
      if (!parsed.success) throw new MigrationError(`the v0 file does not match its shape (${describeIssues(parsed.error)})`);
      const { users: list, alertState, ...rest } = parsed.data;
      const users: Record<string, unknown> = {};
      for (const user of list) {
        const id = String(user.id);
        if (id in users) throw new MigrationError(`the v0 file lists user ${id} twice`);
        users[id] = migrateV0User(user);
      }
      return { ...rest, version: 1, users, alerts: alertState };
    },
  },
];

/** The file's schema version: its `version`, or 0 when there is none. */
export function detectVersion(raw: unknown): number {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new MigrationError('the file does not hold a JSON object');
  }
  if (!('version' in raw)) return 0;
  const { version } = raw as { version: unknown };
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    throw new MigrationError('"version" is not a whole number');
  }
  return version;
}

/** What `migrate` did. */
export interface MigrationResult {
  data: unknown;
  /** The version the file had. */
  from: number;
  /** The steps applied, in order (empty when the file was current). */
  applied: readonly Migration[];
}

/**
 * Runs the steps from the file's version up to `target`. A file newer than `target` is the
 * caller's problem (the store refuses to open it), so it is returned unchanged with `from > target`.
 */
export function migrate(
  raw: unknown,
  target: number = SCHEMA_VERSION,
  steps: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  const from = detectVersion(raw);
  const applied: Migration[] = [];
  let data: unknown = raw;
  for (let v = from; v < target; v++) {
    const step = steps.find((s) => s.from === v);
    if (!step) throw new MigrationError(`no migration from version ${v}`);
    data = step.up(data);
    applied.push(step);
  }
  return { data, from, applied };
}

/** Paths and messages of zod issues; zod's messages name types, never the values themselves. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const shown = error.issues
    .slice(0, max)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}
