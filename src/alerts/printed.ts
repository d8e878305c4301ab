/**
 * Numbers as an alert prints them. Dots for decimals in both languages: odds are written that way
 * on every bookmaker's site, and percentages next to them read the same. `printedOdds` is the
 * other half of the alerts' rule: the maths run on the odds as printed, so every number can be
 * checked with a calculator against the message.
 */

/** Odds: two decimals, a third only when it carries information (2.10, 1.875). */
export function fmtOdds(odds: number): string {
  if (!Number.isFinite(odds)) return '—';
  const s = odds.toFixed(3);
  return s.endsWith('0') ? s.slice(0, -1) : s;
}

/** A signed percentage: "+2.35%", "−1.20%", "0.00%". */
export function fmtPct(pct: number): string {
  const r = Math.round(pct * 100) / 100;
  if (r === 0 || !Number.isFinite(r)) return '0.00%';
  return `${r > 0 ? '+' : '−'}${Math.abs(r).toFixed(2)}%`;
}

/** A fraction as an unsigned percentage: 0.0476 → "4.76%". */
export function fmtShare(fraction: number): string {
  return `${(Math.round(fraction * 10_000) / 100).toFixed(2)}%`;
}

/** Money: "49", "48.50", "+2.00", "−1.50"; `whole` drops ".00" for round amounts (stakes). */
export function fmtMoney(amount: number, opts: { signed?: boolean; whole?: boolean } = {}): string {
  const cents = Math.round(amount * 100);
  const abs = Math.abs(cents);
  const body = opts.whole && abs % 100 === 0 ? String(abs / 100) : (abs / 100).toFixed(2);
  if (cents < 0) return `−${body}`;
  return opts.signed && cents > 0 ? `+${body}` : body;
}

/** An amount with the user's currency after it ("100 EUR"), bare when none is set. */
export const withUnit = (amount: string, currency: string | null | undefined): string => (currency ? `${amount} ${currency}` : amount);

/** Odds as printed: the maths use exactly what the user sees (2.1234 is shown, and counted, as 2.123). */
export const printedOdds = (odds: number): number => Number(fmtOdds(odds));
