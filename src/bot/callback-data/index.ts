/**
 * The callback data of every button the bot sends, one codec per kind, each with one encoder and
 * one decoder that refuses anything but its exact forms (Telegram allows 64 bytes, and a client can
 * send any bytes it likes as a button's data):
 *
 *   registry.ts  every kind's prefix in one table, checked so that no two collide
 *   alert.ts     a: the buttons under an alert (all for the event, stakes, mute, snooze)
 *   filters.ts   f: /filters' pause, resume, edit and delete
 *   forget.ts    fg: /forget's confirmation
 *   flow.ts      cv: a guided flow's prompt (/filter's builder, /settings)
 *   mutes.ts     m: mute controls (the offer after "Mute event", /muted)
 *   ledger.ts    l: the ledger's legs, hedges, settling and /open's pages
 *   ledger-edit.ts le: the ledger's corrections (edit, delete, undo, reopen, /positions' pages)
 *   leg-limit.ts ll: the buttons under "✏️ Leg limited"'s question (a leg at its max, a staking mode)
 *
 * Data flows one way: alerts are formatted on the alerts side, which `bot/` imports and which
 * imports nothing from `bot/`. So the alert codec stays a pure module in `src/alerts/callbacks.ts`
 * (the formatter encodes, the bot decodes) and `alert.ts` re-exports it; the 64-byte limit both
 * sides check lives below them both, in `src/lib/callback-data.ts`.
 */
export * from './alert.js';
export * from './books.js';
export * from './filters.js';
export * from './flow.js';
export * from './forget.js';
export * from './leg-limit.js';
export * from './mutes.js';
export * from './ledger.js';
export * from './ledger-edit.js';
export * from './registry.js';
