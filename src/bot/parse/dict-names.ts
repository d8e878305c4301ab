/**
 * Sports and bookmakers named as people type them ("football", "bet365", "Футбол"), matched
 * against the dictionaries' names: case, spaces and punctuation do not count. A near miss is not
 * taken for the name (a wrong sport would silently filter the wrong thing): it is offered as
 * "did you mean".
 */

/** Lower case, "ё" as "е", letters and digits only ("Bet 365" → "bet365"). */
export function nameKey(text: string): string {
  return text.toLowerCase().replace(/ё/g, 'е').replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Edit distance, stopping early past `max` (names are short; this runs on a few hundred at most). */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

export type NameMatch = { ok: true; id: number } | { ok: false; suggestions: string[] };

/**
 * The id whose name (in any of `dicts`, id string → name) is `typed`, else up to three near
 * names: a small edit away, or starting with what was typed.
 */
export function matchName(typed: string, dicts: readonly Readonly<Record<string, string>>[]): NameMatch {
  const key = nameKey(typed);
  const scored: { name: string; score: number }[] = [];
  const maxEdits = Math.max(1, Math.floor(key.length / 4));
  for (const dict of dicts) {
    for (const [id, name] of Object.entries(dict)) {
      const nk = nameKey(name);
      if (key !== '' && nk === key && Number.isSafeInteger(Number(id))) return { ok: true, id: Number(id) };
      if (key.length < 2 || nk === '') continue;
      const d = distance(key, nk, maxEdits);
      if (d <= maxEdits) scored.push({ name, score: d });
      else if (nk.startsWith(key) || (key.length >= 4 && nk.includes(key))) scored.push({ name, score: maxEdits + 1 });
    }
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  const suggestions = [...new Set(scored.map((s) => s.name))].slice(0, 3);
  return { ok: false, suggestions };
}
