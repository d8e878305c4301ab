/** Digest folding (src/outbox/digest.ts) without the loop: when a burst folds, where the digest stands, what it lists. */
import { describe, expect, it } from 'vitest';
import { addToDigest, foldBurst, listMessage, openDigest, writeDigest, type DigestRules } from '../../src/outbox/digest.js';
import { newEditJob, newSendJob, type Job, type SendJob } from '../../src/outbox/jobs.js';
import { insertByPriority, PRIORITY } from '../../src/outbox/priority.js';

const RULES: DigestRules = { threshold: 3, behindMs: 30_000, maxLines: 2 };

let seq = 0;
function alert(line: string, queuedAt = 0, resolved: (number | undefined)[] = []): SendJob {
  return newSendJob(seq++, queuedAt, 7, [`<b>${line}</b>\nmore`], {
    kind: 'alert',
    buttons: undefined,
    digestLine: line,
    lang: 'en',
    resolve: (id) => resolved.push(id),
  });
}
function digestMaker(made: SendJob[]) {
  return (lang: 'en' | 'ru') => {
    const job = newSendJob(seq++, 0, 7, [], { kind: 'digest', buttons: undefined, digestLine: '', lang, resolve: () => {} });
    made.push(job);
    return job;
  };
}

describe('foldBurst', () => {
  it('gives a digest of late alerts their rank, so a fresh alert queued after it still goes first', () => {
    const late = (line: string): SendJob =>
      newSendJob(seq++, 0, 7, [line], { kind: 'alert', buttons: undefined, digestLine: line, lang: 'en', resolve: () => {}, late: true });
    const gone = newEditJob(seq++, 7, 1, 'gone', { gone: true }, () => {});
    const chat = { queue: [late('a'), late('b'), late('c'), late('d'), late('e'), gone] as Job[] };
    const made: SendJob[] = [];
    expect(foldBurst(chat, 0, RULES, digestMaker(made))).toBe(4);
    expect(made[0]?.priority).toBe(PRIORITY.late);
    const fresh = alert('fresh');
    insertByPriority(chat.queue, fresh);
    expect(chat.queue.map((j) => (j.type === 'send' ? (j.kind === 'digest' ? 'digest' : j.digestLine) : 'gone'))).toEqual(['fresh', 'a', 'digest', 'gone']);
  });

  it('leaves a queue at the threshold alone while its first alert is fresh', () => {
    const chat = { queue: [alert('a'), alert('b'), alert('c')] as Job[] };
    const made: SendJob[] = [];
    expect(foldBurst(chat, 1000, RULES, digestMaker(made))).toBe(0);
    expect(chat.queue).toHaveLength(3);
    expect(made).toHaveLength(0);
  });

  it('folds everything behind the first alert once the queue is over the threshold, the digest standing where the second stood', () => {
    const resolved: (number | undefined)[] = [];
    const edit = newEditJob(seq++, 7, 1, 'moved', {}, () => {});
    const first = alert('a', 0, resolved);
    const chat = { queue: [first, alert('b', 0, resolved), edit, alert('c', 0, resolved), alert('d', 0, resolved)] as Job[] };
    const made: SendJob[] = [];
    expect(foldBurst(chat, 1000, RULES, digestMaker(made))).toBe(3);
    expect(made).toHaveLength(1);
    expect(chat.queue).toEqual([first, made[0], edit]);
    // Only the first two lines are kept; the count says how many joined.
    expect(made[0]!.folded).toEqual({ lines: ['b', 'c'], count: 3, asks: [] });
    // A folded alert's promise settles at once, with no message id.
    expect(resolved).toEqual([undefined, undefined, undefined]);
  });

  it('folds even two alerts once the first has waited behindMs', () => {
    const chat = { queue: [alert('a', 0), alert('b', 0)] as Job[] };
    const made: SendJob[] = [];
    expect(foldBurst(chat, 29_999, RULES, digestMaker(made))).toBe(0);
    expect(foldBurst(chat, 30_000, RULES, digestMaker(made))).toBe(1);
    expect(made[0]!.folded?.lines).toEqual(['b']);
  });

  it('adds to a digest still waiting instead of opening a second one, and never folds an alert already in flight', () => {
    const made: SendJob[] = [];
    const open = digestMaker(made)('en');
    open.folded = { lines: ['x'], count: 1, asks: [] };
    const flying = alert('a');
    flying.inFlight = true;
    const chat = { queue: [flying, open, alert('b'), alert('c'), alert('d'), alert('e')] as Job[] };
    expect(foldBurst(chat, 0, RULES, digestMaker(made))).toBe(3);
    expect(made).toHaveLength(1);
    expect(chat.queue.map((j) => (j.type === 'send' ? j.digestLine || 'digest' : j.type))).toEqual(['a', 'digest', 'b']);
    expect(open.folded).toEqual({ lines: ['x', 'c'], count: 4, asks: [] });
  });
});

describe('openDigest, addToDigest and writeDigest', () => {
  it('finds only a digest not yet being sent', () => {
    const digest = digestMaker([])('en');
    digest.folded = { lines: [], count: 0, asks: [] };
    expect(openDigest({ queue: [alert('a'), digest] })).toBe(digest);
    digest.inFlight = true;
    expect(openDigest({ queue: [alert('a'), digest] })).toBeUndefined();
  });

  it('writes the digest as it goes out: header, the kept lines, "and N more"; later alerts cannot join', () => {
    const digest = digestMaker([])('ru');
    for (const line of ['one', 'two', 'three', 'four']) addToDigest(digest, line, 2);
    writeDigest(digest, 2);
    expect(digest.parts).toEqual(['<b>+4 ещё:</b>\none\ntwo\n… и ещё 2']);
    expect(digest.folded).toBeUndefined();
    expect(openDigest({ queue: [digest] })).toBeUndefined();
  });

  it('leaves an ordinary message as it is', () => {
    const job = alert('a');
    writeDigest(job, 2);
    expect(job.parts).toEqual(['<b>a</b>\nmore']);
  });

  it('lists at most maxLines however many lines it is given', () => {
    expect(listMessage('H', ['1', '2', '3'], 5, 'en', 2)).toBe('H\n1\n2\n… and 3 more');
    expect(listMessage('H', ['1'], 1, 'en', 2)).toBe('H\n1');
  });
});
