/**
 * The ledger's reports: /pnl [period] (the figures, then the chart as a photo), /export [period]
 * [parts|text] (the CSV as a document, in smaller files, or as messages) and /archive <period>
 * (settled positions moved out of the ledger into a gzip CSV the user gets). All three count
 * against the per-user `report` cap: each reads the whole book and makes a chart or a file.
 *
 * Telegram may refuse an upload (a Bot API server that takes no files, a file too large): the user
 * is then told exactly that — the chart was drawn but not accepted, the CSV is ready and here is how
 * to get it another way — never the generic "something went wrong", and the log says "refused", not
 * "update failed". A refused archive moves nothing. The CSV is made in slices and the chart is
 * drawn in a worker thread, so a 20,000-position ledger never holds the event loop for long.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Composer, InputFile } from 'grammy';
import { isRefusal, refusalReason, sendDocument, type SendOutcome } from '../actions/send-document.js';
import { formatDuration } from '../../alerts/time.js';
import { escapeHtml } from '../../lib/html.js';
import { createChartDrawer } from '../../ledger/chart-drawer.js';
import { exportedPositions, ledgerCsvSlices } from '../../ledger/csv.js';
import { DOCUMENT_MAX_BYTES, packParts, PART_BYTES, PARTS_MAX } from '../../ledger/csv-parts.js';
import { MANUAL_SERVICE } from '../../ledger/manual.js';
import { isSettled } from '../../ledger/model.js';
import { parsePeriod, periodRange, periodText, type Period } from '../../ledger/periods.js';
import { ledgerFigures } from '../../ledger/summary.js';
import { serviceLabel } from '../../locales/services.js';
import { isService } from '../../service/services.js';
import { CAP_RULES } from '../caps.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { periodWords, pnlText } from '../ui/ledger-text.js';
import { miniAppRow } from './mini-app.js';

const gzipAsync = promisify(gzip);

/** `/export … text`: at most this much CSV, in messages of at most TEXT_MESSAGE_CHARS. */
export const TEXT_MAX_BYTES = 32 * 1024;
const TEXT_MESSAGE_CHARS = 3_500;

type ExportMode = 'file' | 'parts' | 'text';

/** "30d parts" → the period and how to send; undefined when either word is not understood. */
export function parseExportArgs(raw: string): { period: Period; mode: ExportMode } | undefined {
  const words = raw.trim().toLowerCase().split(/\s+/).filter(Boolean);
  let mode: ExportMode = 'file';
  const last = words.at(-1);
  if (last === 'parts' || last === 'text') {
    mode = last;
    words.pop();
  }
  const period = parsePeriod(words.join(' '));
  return period ? { period, mode } : undefined;
}

/** An upload Telegram refused (an API error or no answer), as opposed to a fault of the bot's. */
/** The answer to a new position refused because the ledger is full (the bot's error boundary). */
export async function answerLedgerFull(ctx: BotContext, max: number): Promise<void> {
  ctx.log.info({ max }, 'a position was refused: the ledger is full');
  try {
    if (ctx.callbackQuery && !ctx.callbackAnswered) await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t('ledger_full', { max }));
  } catch (err) {
    ctx.log.warn({ err }, 'could not tell the user their ledger is full');
  }
}

/** Lines of the CSV in messages of at most TEXT_MESSAGE_CHARS. */
function textMessages(csv: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of csv.split(/(?<=\n)/)) {
    if (current.length + line.length > TEXT_MESSAGE_CHARS && current !== '') {
      out.push(current);
      current = '';
    }
    current += line;
  }
  if (current !== '') out.push(current);
  return out;
}

export function ledgerReportsFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  // Charts are drawn in a worker thread, started at the first chart (ECharts and resvg: about 50 MB a bot nobody asks for a chart never loads).
  const charts = createChartDrawer();

  /** Takes one report from the user's cap; false (and says when the next is possible) when spent. */
  const allowed = async (ctx: BotContext): Promise<boolean> => {
    const waitMs = await rt.caps.take('report', ctx.from!.id);
    if (waitMs === 0) return true;
    const rule = CAP_RULES.report;
    await ctx.reply(ctx.t('ledger_report_capped', { n: rule.perUser, window: formatDuration(rule.windowMs, ctx.lang), wait: formatDuration(waitMs, ctx.lang) }));
    return false;
  };

  composer.command('pnl', async (ctx) => {
    const period = parsePeriod(ctx.match);
    if (!period) return void (await ctx.reply(ctx.t('pnl_usage')));
    if (!(await allowed(ctx))) return;
    const { from, to } = periodRange(period, rt.clock.now());
    const book = await rt.store.ledger.book(ctx.from!.id);
    const [s, days] = await ledgerFigures(book, from, to);
    if (s.totals.count === 0) return void (await ctx.reply(`${ctx.t('pnl_empty')}${s.open > 0 ? `\n/open: ${s.open}` : ''}`));
    const currency = book.settings.currency ?? book.positions.find((p) => p.currency)?.currency ?? '';
    const name = (svc: string) => (isService(svc) ? serviceLabel(svc, ctx.t) : svc === MANUAL_SERVICE ? ctx.t('ledger_manual_service') : svc);
    const app = miniAppRow(rt.config.MINI_APP_URL, ctx, 'ledger');
    await ctx.reply(pnlText(s, period, book.settings.devig, currency, ctx.t, name), app.length > 0 ? { reply_markup: { inline_keyboard: app } } : {});
    let png: Buffer;
    try {
      png = await charts.draw(days, { title: ctx.t('chart_title'), pnl: ctx.t('chart_pnl'), turnover: ctx.t('chart_turnover'), clv: ctx.t('chart_clv') }, currency);
    } catch (err) {
      ctx.log.warn({ err }, 'the P&L chart could not be drawn');
      return void (await ctx.reply(ctx.t('pnl_chart_failed')));
    }
    try {
      await ctx.replyWithPhoto(new InputFile(png, `pnl-${periodText(period)}.png`));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      ctx.log.warn({ err, bytes: png.length }, 'Telegram refused the P&L chart upload');
      await ctx.reply(ctx.t('pnl_chart_refused', { reason: refusalReason(err, ctx.t('upload_refused_unknown')) }));
    }
  });

  composer.command('export', async (ctx) => {
    const args = parseExportArgs(ctx.match);
    if (!args) return void (await ctx.reply(ctx.t('export_usage')));
    if (!(await allowed(ctx))) return;
    const { period, mode } = args;
    const { from, to } = periodRange(period, rt.clock.now());
    const book = await rt.store.ledger.book(ctx.from!.id);
    const positions = exportedPositions(book, from, to);
    if (positions.length === 0) return void (await ctx.reply(ctx.t('export_empty')));
    const slices = await ledgerCsvSlices(book, positions);
    const legs = positions.reduce((n, p) => n + p.legs.length, 0);
    const words = periodWords(period, ctx.t);
    const name = periodText(period);
    const bytes = slices.reduce((n, x) => n + x.length, 0);
    if (mode === 'text') {
      if (bytes > TEXT_MAX_BYTES) return void (await ctx.reply(ctx.t('export_too_long_text', { kb: Math.ceil(bytes / 1024), max: TEXT_MAX_BYTES / 1024, period: name })));
      const messages = textMessages(Buffer.concat(slices).toString('utf8'));
      for (const [i, chunk] of messages.entries()) {
        await ctx.reply(`${ctx.t('export_text_head', { period: words, i: i + 1, k: messages.length })}\n<pre>${escapeHtml(chunk)}</pre>`);
      }
      return;
    }
    if (mode === 'parts' || bytes > DOCUMENT_MAX_BYTES) {
      const parts = packParts(slices, PART_BYTES);
      if (parts.length > PARTS_MAX) return void (await ctx.reply(ctx.t('export_too_many_parts', { k: parts.length, max: PARTS_MAX })));
      for (const [i, part] of parts.entries()) {
        const sent = await sendFile(ctx, part, `ledger-${name}-part${i + 1}.csv`, ctx.t('export_part_caption', { period: words, i: i + 1, k: parts.length }));
        if (!sent.ok) return void (await ctx.reply(ctx.t('export_refused', { n: legs, reason: sent.reason, period: name })));
      }
      return;
    }
    const sent = await sendFile(ctx, Buffer.concat(slices, bytes), `ledger-${name}.csv`, ctx.t('export_caption', { period: words, n: legs }));
    if (!sent.ok) await ctx.reply(ctx.t('export_refused', { n: legs, reason: sent.reason, period: name }));
  });

  composer.command('archive', async (ctx) => {
    const period = ctx.match.trim() === '' ? undefined : parsePeriod(ctx.match);
    if (!period) return void (await ctx.reply(ctx.t('archive_usage')));
    if (!(await allowed(ctx))) return;
    const userId = ctx.from!.id;
    const { from, to } = periodRange(period, rt.clock.now());
    const book = await rt.store.ledger.book(userId);
    const settled = book.positions.filter((p) => isSettled(p) && p.settledAt !== null && p.settledAt >= from && p.settledAt < to);
    if (settled.length === 0) return void (await ctx.reply(ctx.t('archive_empty')));
    // Compressed on the thread pool: a 14 MB CSV of 20,000 positions becomes about 1 MB.
    const gz = await gzipAsync(Buffer.concat(await ledgerCsvSlices(book, settled)));
    const sent = await sendFile(ctx, gz, `ledger-archive-${periodText(period)}.csv.gz`, ctx.t('archive_caption', { n: settled.length, period: periodWords(period, ctx.t) }));
    // Moved out only once the user has the file: a refused upload loses nothing.
    if (!sent.ok) return void (await ctx.reply(ctx.t('archive_refused', { reason: sent.reason })));
    const removed = await rt.store.ledger.archive(userId, settled.map((p) => p.id));
    ctx.log.info({ removed, bytes: gz.length }, 'settled positions archived');
  });

  return composer;
}

/** Sends a document to this chat; a refusal by Telegram is a value (with its reason), any other fault is thrown. */
function sendFile(ctx: BotContext, bytes: Buffer, fileName: string, caption: string): Promise<SendOutcome> {
  return sendDocument(ctx.api, ctx.chat!.id, { bytes, fileName, caption }, ctx.log, ctx.t('upload_refused_unknown'));
}
