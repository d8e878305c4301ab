/**
 * The outbox's per-chat bookkeeping without the loop: chat states and supergroup moves
 * (src/outbox/chats.ts), 429 pauses (pauses.ts) and a newer edit folding into a queued one (jobs.ts).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { chatReadyAt, ChatStates, spend, type ChatState } from '../../src/outbox/chats.js';
import { coalesceEdit, newEditJob, newReplyJob, newSendJob, type Job } from '../../src/outbox/jobs.js';
import { bucketRate, LAST_TOKEN_GUARD_MS } from '../../src/outbox/chat-bucket.js';
import { rateWindow, SendTimes } from '../../src/outbox/pacing.js';
import { Pauses } from '../../src/outbox/pauses.js';
import { PRIORITY } from '../../src/outbox/priority.js';

const TUNING = { chatBucket: bucketRate(1, 3), groupWindow: rateWindow(20, 60_000) };

/** `n` counted calls to `chat`, one a second from 0, each answered at once (as the outbox counts them). */
function sentEverySecond(chat: ChatState, n: number): void {
  const global = new SendTimes(25);
  for (let i = 0; i < n; i++) spend(chat, global, i * 1000)(true, i * 1000);
}

describe('ChatStates', () => {
  it('follows a chain of supergroup moves and refuses a move that goes nowhere', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    expect(chats.migrate(-1, -2)).toBe(true);
    expect(chats.migrate(-2, -3)).toBe(true);
    expect(chats.target(-1)).toBe(-3);
    expect(chats.target(-2)).toBe(-3);
    expect(chats.target(5)).toBe(5);
    expect(chats.migrate(-4, -4)).toBe(false);
    // -2 itself moved on: nothing may move into it.
    expect(chats.migrate(-5, -2)).toBe(false);
    expect(chats.target(-5)).toBe(-5);
  });

  it('forgets a chat idle for a minute, but not one with work, a pause or held alerts, and looks only every ten seconds', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    const idle = chats.state(1);
    idle.bucket.record();
    idle.bucket.arrived(0);
    chats.state(2).queue.push(newSendJob(0, 0, 2, ['x'], { kind: 'info', buttons: undefined, digestLine: 'x', lang: 'en', resolve: () => {} }));
    chats.state(3).pausedUntil = 120_000;
    chats.state(4).held = { until: 120_000, count: 1, lines: [], lang: 'en', infos: [] };
    expect(chats.prune(30_000)).toBe(true);
    expect(chats.size).toBe(4);
    expect(chats.prune(35_000)).toBe(false);
    expect(chats.prune(60_001)).toBe(true);
    expect([1, 2, 3, 4].map((id) => chats.get(id) !== undefined)).toEqual([false, true, true, true]);
  });

  it('counts held alerts in the depth but not among the jobs a drain waits for', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    const chat = chats.state(1);
    chats.enqueue(chat, newReplyJob(0, 1, true, () => {}));
    chat.held = { until: 1, count: 3, lines: [], lang: 'en', infos: [] };
    expect(chats.queued.has(chat)).toBe(true);
    expect(chats.depth()).toBe(4);
    expect(chats.activeJobs()).toBe(1);
  });

  it('keeps a group to its per-minute window too, and lets an uncounted call through the windows', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    const group = chats.state(-1);
    sentEverySecond(group, 20);
    const send: Job = newSendJob(0, 0, -1, ['x'], { kind: 'info', buttons: undefined, digestLine: 'x', lang: 'en', resolve: () => {} });
    expect(chatReadyAt(group, send, 20_000, TUNING)).toBe(60_000);
    expect(chatReadyAt(group, newReplyJob(1, -1, false, () => {}), 20_000, TUNING)).toBe(20_000);
    group.pausedUntil = 25_000;
    expect(chatReadyAt(group, newReplyJob(2, -1, false, () => {}), 20_000, TUNING)).toBe(25_000);
  });

  it('leaves the last sends of a group’s minute to new messages: an edit waits while a new alert may go', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    const group = chats.state(-2);
    // 18 sends in the minute, the last one 5 s ago: the bucket is full again.
    sentEverySecond(group, 18);
    const send: Job = newSendJob(0, 0, -2, ['x'], { kind: 'alert', buttons: undefined, digestLine: 'x', lang: 'en', resolve: () => {} });
    const edit: Job = newEditJob(1, -2, 10, 'moved', {}, () => {});
    expect(chatReadyAt(group, send, 22_000, TUNING)).toBe(22_000);
    // An edit needs three of the minute's sends left: it waits until the first of the 18 leaves the window.
    expect(chatReadyAt(group, edit, 22_000, TUNING)).toBe(60_000);
  });

  it('lets a new message or a reply spend the burst, but an edit or a gone mark only a full bucket', () => {
    const chats = new ChatStates(TUNING.chatBucket, 20);
    const chat = chats.state(1);
    const send: Job = newSendJob(0, 0, 1, ['x'], { kind: 'alert', buttons: undefined, digestLine: 'x', lang: 'en', resolve: () => {} });
    const reply: Job = newReplyJob(1, 1, true, () => {});
    const edit: Job = newEditJob(2, 1, 10, 'moved', {}, () => {});
    const gone: Job = newEditJob(3, 1, 11, 'gone', { gone: true }, () => {});
    // A full bucket: anything goes.
    for (const job of [send, reply, edit, gone]) expect(chatReadyAt(chat, job, 0, TUNING)).toBe(0);
    // One edit spent a token at 0: the next new message still goes at once, the next edit waits a second.
    chat.bucket.record();
    chat.bucket.arrived(0);
    expect(chatReadyAt(chat, send, 0, TUNING)).toBe(0);
    expect(chatReadyAt(chat, reply, 0, TUNING)).toBe(0);
    expect(chatReadyAt(chat, edit, 0, TUNING)).toBe(1000);
    expect(chatReadyAt(chat, gone, 0, TUNING)).toBe(1000);
    // One more: the last token is spent only a guard past the moment it is whole.
    chat.bucket.record();
    chat.bucket.arrived(0);
    expect(chat.bucket.tokens(0)).toBe(1);
    expect(chatReadyAt(chat, send, 0, TUNING)).toBe(LAST_TOKEN_GUARD_MS);
    // And the third: the bucket is empty, everything waits for a token (and the guard); an edit for all three.
    chat.bucket.record();
    chat.bucket.arrived(0);
    expect(chat.bucket.tokens(0)).toBe(0);
    expect(chatReadyAt(chat, send, 0, TUNING)).toBe(1000 + LAST_TOKEN_GUARD_MS);
    expect(chatReadyAt(chat, edit, 500, TUNING)).toBe(3000);
    // A call in flight counts as a token spent.
    chat.bucket.record();
    expect(chatReadyAt(chat, send, 1000, TUNING)).toBe(2000 + LAST_TOKEN_GUARD_MS);
    chat.bucket.cancelled();
    expect(chatReadyAt(chat, send, 1000, TUNING)).toBe(1000 + LAST_TOKEN_GUARD_MS);
  });
});

describe('Pauses', () => {
  it('pauses one chat for its own 429, and every chat when a second chat is told to wait meanwhile', () => {
    const pauses = new Pauses(silentLogger);
    const a = { id: 1, pausedUntil: 0 };
    const b = { id: 2, pausedUntil: 0 };
    expect(pauses.rateLimited(a, 5000, 1000)).toBe(6000);
    expect(a.pausedUntil).toBe(6000);
    expect(pauses.globalUntil).toBe(0);
    pauses.rateLimited(a, 1000, 2000);
    expect(a.pausedUntil).toBe(6000);
    expect(pauses.globalUntil).toBe(0);
    pauses.rateLimited(b, 2000, 2500);
    expect(pauses.globalUntil).toBe(4500);
  });

  it('forgets a 429 whose pause is over: a later one to another chat is that chat\'s alone', () => {
    const pauses = new Pauses(silentLogger);
    pauses.rateLimited({ id: 1, pausedUntil: 0 }, 1000, 0);
    pauses.forgetPast(1000);
    pauses.rateLimited({ id: 2, pausedUntil: 0 }, 1000, 1000);
    expect(pauses.globalUntil).toBe(0);
  });
});

describe('coalesceEdit', () => {
  it('puts a newer edit into the queued one, and a gone mark moves it to the gone marks\' place', () => {
    const move = newEditJob(0, 1, 10, 'old', {}, () => {});
    const gone = newEditJob(1, 1, 11, 'gone', { gone: true }, () => {});
    const queue: Job[] = [gone, move];
    expect(coalesceEdit(queue, 10, 'newer', { buttons: [[{ text: 'b', callbackData: 'x' }]] })).toBe(move);
    expect(move.text).toBe('newer');
    expect(move.buttons).toEqual([[{ text: 'b', callbackData: 'x' }]]);
    expect(queue).toEqual([gone, move]);
    coalesceEdit(queue, 10, 'gone too', { gone: true });
    expect(move.priority).toBe(PRIORITY.gone);
    // Among gone marks it keeps its arrival order.
    expect(queue).toEqual([move, gone]);
  });

  it('leaves an edit already in flight alone: the newer one is queued on its own', () => {
    const move = newEditJob(0, 1, 10, 'old', {}, () => {});
    move.inFlight = true;
    expect(coalesceEdit([move], 10, 'newer', {})).toBeUndefined();
    expect(move.text).toBe('old');
  });
});
