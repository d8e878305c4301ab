/**
 * What the fake Bot API was asked, and the faults a test asked it to answer with: every call
 * recorded (method, payload, time, outcome; the last 50,000), and `failNext` specs taken one call
 * at a time, by method and chat.
 */
import type { Clock } from '../clock.js';
import type { FaultSpec, RecordedCall } from './types.js';

const MAX_RECORDED_CALLS = 50_000;

type PendingFault = FaultSpec & { left: number };

export class CallLog {
  private readonly recorded: RecordedCall[] = [];
  private readonly faults: PendingFault[] = [];

  constructor(private readonly clock: Clock) {}

  record(method: string, payload: Record<string, unknown>, ok: boolean, errorCode?: number): void {
    const call: RecordedCall = { method, payload, at: this.clock.now(), ok };
    if (errorCode !== undefined) call.error_code = errorCode;
    this.recorded.push(call);
    if (this.recorded.length > MAX_RECORDED_CALLS) this.recorded.splice(0, this.recorded.length - MAX_RECORDED_CALLS);
  }

  calls(method?: string): RecordedCall[] {
    const wanted = method?.toLowerCase();
    return this.recorded.filter((c) => wanted === undefined || c.method.toLowerCase() === wanted);
  }

  /** When each successful sendMessage (to `chatId`, or anywhere) was answered. */
  sendTimes(chatId?: number): number[] {
    return this.recorded
      .filter((c) => c.ok && c.method === 'sendMessage' && (chatId === undefined || Number(c.payload.chat_id) === chatId))
      .map((c) => c.at);
  }

  failNext(spec: FaultSpec): void {
    if (spec.count > 0) this.faults.push({ ...spec, left: spec.count });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** The fault this call meets, if any (a spec without a method never meets getUpdates). */
  takeFault(method: string, payload: Record<string, unknown>): PendingFault | undefined {
    const index = this.faults.findIndex((f) => {
      if (f.method !== undefined ? f.method.toLowerCase() !== method.toLowerCase() : method === 'getUpdates') return false;
      return f.chatId === undefined || Number(payload.chat_id) === f.chatId;
    });
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left <= 0) this.faults.splice(index, 1);
    return fault;
  }
}
