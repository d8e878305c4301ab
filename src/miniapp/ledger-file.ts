/**
 * The Mini App's CSV: the same file as /export (settled positions by settlement time, open ones by
 * when placed, one row per leg), narrowed by the screen's service, sport and bookmaker, and under the
 * chat's per-user cap on ledger reports (/pnl, /export, /archive), so the app is no way around it.
 * Downloaded where the page can save a file (a browser, Telegram Desktop), or sent to the user's chat
 * with the bot (phones' webviews drop a download). Made a few ms of work at a time and written as
 * made: a 20,000-position export never holds the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportedPositions, ledgerCsvChunks, ledgerCsvSlices } from '../ledger/csv.js';
import { DOCUMENT_MAX_BYTES, packParts, PART_BYTES, PARTS_MAX } from '../ledger/csv-parts.js';
import type { translator } from '../locales/i18n.js';
import { formatDuration } from '../alerts/time.js';
import type { Store } from '../store/port.js';
import type { SendOutcome } from '../bot/actions/send-document.js';
import type { CsvSent, Lang, LedgerQuery } from './contract.js';
import { ApiFailure } from './api-http.js';
import { keptBy, queryRange } from './ledger-answer.js';

export interface LedgerFileOptions {
  store: Store;
  /** The chat's report cap: 0 when one is taken, else the ms until the next is possible. */
  takeReport(userId: number): Promise<number>;
  /** How many reports the cap allows and in what window (for the refusal's words). */
  reportRule: { perUser: number; windowMs: number };
  /** A document to the user's private chat with the bot; Telegram's refusal as a value with its words. */
  sendDocument(userId: number, bytes: Buffer, fileName: string, caption: string): Promise<SendOutcome>;
}

type T = ReturnType<typeof translator>;

function periodOf(q: LedgerQuery, t: T): string {
  if (!q.from && !q.to) return t('pnl_period_all');
  return `${q.from ?? '…'} – ${q.to ?? t('miniapp_csv_today')}`;
}

function fileName(q: LedgerQuery): string {
  return `ledger-${q.from ?? 'start'}-${q.to ?? 'today'}.csv`;
}

/** Resolves when `res` takes more (or is gone), leaving no listener behind: a long file waits often. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

export function createLedgerFile(opts: LedgerFileOptions) {
  const capped = async (userId: number, t: T, lang: Lang): Promise<void> => {
    const waitMs = await opts.takeReport(userId);
    if (waitMs === 0) return;
    const { perUser, windowMs } = opts.reportRule;
    throw new ApiFailure('too_many', t('ledger_report_capped', { n: perUser, window: formatDuration(windowMs, lang), wait: formatDuration(waitMs, lang) }));
  };
  const positions = async (userId: number, q: LedgerQuery, now: number, t: T) => {
    const book = await opts.store.ledger.book(userId);
    const { from, to } = queryRange(q, now);
    const rows = exportedPositions(book, from, to, keptBy(q));
    if (rows.length === 0) throw new ApiFailure('not_found', t('export_empty'));
    return { book, rows };
  };

  return {
    /** GET /ledger.csv: the file, written piece by piece as it is made (a slow reader is waited for). */
    async download(res: ServerResponse, userId: number, q: LedgerQuery, now: number, t: T, lang: Lang): Promise<void> {
      await capped(userId, t, lang);
      const { book, rows } = await positions(userId, q, now, t);
      res.writeHead(200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${fileName(q)}"`,
        'cache-control': 'no-store',
      });
      for await (const piece of ledgerCsvChunks(book, rows)) {
        if (res.destroyed) return;
        if (!res.write(piece)) await drained(res);
      }
      res.end();
    },

    /** POST /ledger.csv/send: the file (in parts past Telegram's size) to the user's chat with the bot. */
    async send(req: IncomingMessage, userId: number, q: LedgerQuery, now: number, t: T, lang: Lang): Promise<CsvSent> {
      req.resume();
      await capped(userId, t, lang);
      const { book, rows } = await positions(userId, q, now, t);
      const slices = await ledgerCsvSlices(book, rows);
      const bytes = slices.reduce((n, x) => n + x.length, 0);
      const legs = rows.reduce((n, p) => n + p.legs.length, 0);
      const period = periodOf(q, t);
      const files = bytes > DOCUMENT_MAX_BYTES ? packParts(slices, PART_BYTES) : [Buffer.concat(slices, bytes)];
      if (files.length > PARTS_MAX) throw new ApiFailure('conflict', t('miniapp_csv_too_big', { k: files.length, max: PARTS_MAX }));
      for (const [i, file] of files.entries()) {
        const caption = files.length === 1 ? t('export_caption', { period, n: legs }) : t('export_part_caption', { period, i: i + 1, k: files.length });
        const name = files.length === 1 ? fileName(q) : fileName(q).replace(/\.csv$/, `-part${i + 1}.csv`);
        const sent = await opts.sendDocument(userId, file, name, caption);
        if (!sent.ok) throw new ApiFailure('conflict', t('miniapp_csv_refused', { reason: sent.reason }));
      }
      return { files: files.length, legs };
    },
  };
}
