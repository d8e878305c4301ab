/**
 * The Redis store's pending user changes (see `redis-users.ts`): per user, the confirmed state
 * (what Redis held when this process last heard) and the local changes not yet acknowledged, kept
 * as the calls that made them; and the write a round sends for them — a compare-and-set of the
 * record when its profile changed, a write of the touched status fields otherwise, or a delete.
 */
import type { ChainableCommander } from 'ioredis';
import { SERVICES, type Service } from '../service/services.js';
import { encodeProfile, recordOf, statusField, type Profile, type Statuses } from './redis-codec.js';
import { DELETE_USER, runScript, WRITE_STATUS, WRITE_USER, type RedisKeys } from './redis-layout.js';
import type { ServiceStatus, UserRecord } from './schema.js';
import type { Mutation, UserInit } from './user-records.js';

/** A local change, kept as the call that made it so it can be applied again to a newer record. */
export type Op =
  | { kind: 'update'; mutate: Mutation; init: UserInit | undefined; attempts: number }
  | { kind: 'status'; service: Service; change: Partial<ServiceStatus>; attempts: number };

/** One user as this process knows it: the confirmed state from Redis and the pending changes. */
export interface Slot {
  /** Redis's `v` of the profile (0: absent). */
  version: number;
  profile: Profile | undefined;
  recText: string | undefined;
  statuses: Statuses;
  /** Local changes not yet acknowledged, in order. */
  ops: Op[];
  /** A local delete not yet acknowledged (ops after it apply to no user). */
  deleting: boolean;
}

/** What one round sends for one user. */
export type Write =
  | { kind: 'user'; ops: Op[]; target: UserRecord; recText: string; touched: Service[] }
  | { kind: 'status'; ops: Op[]; target: UserRecord; touched: Service[] }
  | { kind: 'delete' };

const sameStatus = (a: ServiceStatus | undefined, b: ServiceStatus | undefined): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

export const emptySlot = (): Slot => ({ version: 0, profile: undefined, recText: undefined, statuses: {}, ops: [], deleting: false });

/**
 * The write for a slot's pending changes, applied (`apply`, which throws for a change that no
 * longer applies: it is dropped from the slot and reported to `drop`) to its confirmed state; none
 * when nothing is left to write (then the slot's ops are emptied). `dropped`: some change was.
 */
export function planWrite(slot: Slot, apply: (rec: UserRecord | undefined, op: Op) => UserRecord, drop: (op: Op, err: unknown) => void): { write?: Write; dropped: boolean } {
  if (slot.deleting) return { write: { kind: 'delete' }, dropped: false };
  const base = recordOf(slot);
  let target = base;
  let profileTouched = false;
  const touched = new Set<Service>();
  const ops: Op[] = [];
  for (const op of slot.ops) {
    try {
      const before = target;
      target = apply(target, op);
      if (op.kind === 'status') touched.add(op.service);
      else {
        profileTouched = true;
        for (const service of SERVICES) if (!sameStatus(before?.status[service], target.status[service])) touched.add(service);
      }
      ops.push(op);
    } catch (err) {
      drop(op, err);
    }
  }
  const dropped = ops.length < slot.ops.length;
  slot.ops = ops;
  if (!target || ops.length === 0) return { dropped };
  const recText = encodeProfile(target);
  if (profileTouched && (base === undefined || recText !== slot.recText)) return { write: { kind: 'user', ops, target, recText, touched: [...touched] }, dropped };
  if (touched.size > 0) return { write: { kind: 'status', ops, target, touched: [...touched] }, dropped };
  // Nothing changed what Redis holds (a mutation that changed nothing).
  slot.ops = [];
  return { dropped };
}

/** Queues the script call of `write` for user `id`, whose confirmed version is `version`. */
export function queueWrite(pipeline: ChainableCommander, keys: RedisKeys, id: number, write: Write, version: number): void {
  const userKeys = [keys.user(id), keys.users, keys.accessKeys];
  if (write.kind === 'delete') {
    runScript(pipeline, DELETE_USER, userKeys, [id]);
    return;
  }
  const statusArgs = write.touched.flatMap((s) => [statusField(s), write.target.status[s] ? JSON.stringify(write.target.status[s]) : '']);
  if (write.kind === 'user') runScript(pipeline, WRITE_USER, userKeys, [version, id, write.recText, write.target.key?.accessKey ?? '', ...statusArgs]);
  else runScript(pipeline, WRITE_STATUS, [keys.user(id)], statusArgs);
}
