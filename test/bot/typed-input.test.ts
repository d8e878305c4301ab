/** Input as people type it: time zones by offset, city or country; quiet hours as "23-7"; amounts with spaces and thousands marks; refusals that show the right kind of example. */
import { describe, expect, it } from 'vitest';
import { parseAmount, parseQuietHours } from '../../src/bot/parse/values.js';
import { localClock, offsetWords, parseTimeZone } from '../../src/bot/parse/time-zone.js';
import { translator } from '../../src/locales/i18n.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

const zone = (text: string) => {
  const r = parseTimeZone(text);
  return r.ok ? r.value : `refused:${r.problem.key}`;
};
const amount = (text: string) => {
  const r = parseAmount(text, 1_000_000_000, '500');
  return r.ok ? r.value : `refused:${r.problem.key}`;
};

describe('time zones as people type them', () => {
  it.each([
    ['GMT+3', 'Etc/GMT-3'],
    ['UTC-5', 'Etc/GMT+5'],
    ['+3', 'Etc/GMT-3'],
    ['utc +03:00', 'Etc/GMT-3'],
    ['GMT−4', 'Etc/GMT+4'],
    ['UTC+5:30', 'Asia/Kolkata'],
    ['GMT', 'UTC'],
    ['utc+0', 'UTC'],
    ['berlin', 'Europe/Berlin'],
    ['Berlin', 'Europe/Berlin'],
    ['Москва', 'Europe/Moscow'],
    ['Moscow', 'Europe/Moscow'],
    ['мск', 'Europe/Moscow'],
    ['new york', 'America/New_York'],
    ['New-York', 'America/New_York'],
    ['нью-йорк', 'America/New_York'],
    ['Germany', 'Europe/Berlin'],
    ['Германия', 'Europe/Berlin'],
    ['Екатеринбург', 'Asia/Yekaterinburg'],
    ['europe/moscow', 'Europe/Moscow'],
    ['Asia/Tbilisi', 'Asia/Tbilisi'],
    ['utc', 'UTC'],
  ])('%s → %s', (typed, iana) => {
    expect(zone(typed)).toBe(iana);
  });

  it.each([
    ['GMT+15', 'refused:bad_tz_offset'],
    ['UTC-3:30', 'refused:bad_tz_offset'],
    ['+3:75', 'refused:bad_tz_offset'],
    ['Russia', 'refused:tz_many_zones'],
    ['США', 'refused:tz_many_zones'],
    ['Mars/Olympus', 'refused:bad_timezone'],
    ['constructor', 'refused:bad_timezone'],
    ['__proto__', 'refused:bad_timezone'],
  ])('%s is refused (%s)', (typed, answer) => {
    expect(zone(typed)).toBe(answer);
  });

  it('says the zone back in words: its offset now and the clock there', () => {
    const winter = Date.UTC(2026, 0, 3, 10, 0);
    const summer = Date.UTC(2026, 6, 3, 10, 0);
    expect(offsetWords('Europe/Berlin', winter)).toBe('UTC+1');
    expect(offsetWords('Europe/Berlin', summer)).toBe('UTC+2');
    expect(offsetWords('Etc/GMT-3', winter)).toBe('UTC+3');
    expect(offsetWords('UTC', winter)).toBe('UTC');
    expect(offsetWords('Asia/Kolkata', winter)).toBe('UTC+5:30');
    expect(localClock('Europe/Berlin', winter)).toBe('11:00');
    expect(localClock('Etc/GMT+5', winter)).toBe('05:00');
  });
});

describe('quiet hours as people type them', () => {
  it.each([
    ['23-7', { from: '23:00', to: '07:00' }],
    ['23:00–07:00', { from: '23:00', to: '07:00' }],
    ['23.30 - 7', { from: '23:30', to: '07:00' }],
    ['с 23 до 7', { from: '23:00', to: '07:00' }],
    ['from 22 to 6:30', { from: '22:00', to: '06:30' }],
  ])('%s', (typed, value) => {
    expect(parseQuietHours(typed)).toEqual({ ok: true, value });
  });

  it('refuses what is not two hours, with an example of two hours', () => {
    const r = parseQuietHours('24-7');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(translator('en')(r.problem.key, r.problem.vars)).toContain('like 23-7 or 23:00-07:00');
    expect(parseQuietHours('23-7-5').ok).toBe(false);
  });
});

describe('amounts as people type them', () => {
  it.each([
    ['1000', 1000],
    ['1 000 000', 1_000_000],
    ['1\u00a0000', 1000],
    ['1\u2009000\u2009000', 1_000_000],
    ['1\u202f000', 1000],
    ["1'000", 1000],
    ['1,000', 1000],
    ['1.000', 1000],
    ['1,000,000', 1_000_000],
    ['1.000.000', 1_000_000],
    ['1.000,50', 1000.5],
    ['1,000.50', 1000.5],
    ['1 000,50', 1000.5],
    ['2,5', 2.5],
    ['0.5', 0.5],
    ['0,500', 0.5],
    ['250.5', 250.5],
  ])('%s → %s', (typed, value) => {
    expect(amount(typed)).toBe(value);
  });

  it.each([
    ['1,00,000', 'refused:bad_amount'],
    ['1.000.5', 'refused:bad_amount'],
    ['1 00', 'refused:bad_amount'],
    ['1.', 'refused:bad_amount'],
    ['lots', 'refused:bad_amount'],
    ['1e6', 'refused:bad_amount'],
    ['1,000.000,5', 'refused:bad_amount'],
    ['-5', 'refused:must_be_positive'],
    ['0', 'refused:must_be_positive'],
    ['2 000 000 000', 'refused:value_too_high'],
  ])('%s is refused (%s)', (typed, answer) => {
    expect(amount(typed)).toBe(answer);
  });
});

describe('in the bot', () => {
  let h!: Harness;
  withConnectedHarness((harness) => (h = harness), { prematchFilter: false });
  const last = () => h.last(ALICE.id).text;

  it('/settings tz berlin: stored as Europe/Berlin and said back with the offset and the clock', async () => {
    await h.say(ALICE, '/settings tz berlin');
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Europe/Berlin');
    expect(last()).toContain('Time zone: Europe/Berlin (UTC+1), your time now is 11:00.');
    await h.say(ALICE, '/settings tz GMT+3');
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Etc/GMT-3');
    expect(last()).toContain('(UTC+3), your time now is 13:00');
  });

  it('#18 GMT+3 is said back as typed, with its offset, never as Etc/GMT-3 (in the answer, the list and the menu)', async () => {
    await h.say(ALICE, '/settings tz GMT+3');
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Etc/GMT-3');
    expect(last()).toContain('Time zone: GMT+3 (UTC+3), your time now is 13:00.');
    expect(last()).toContain('🕒 Time zone: GMT+3 (UTC+3)\n');
    await h.say(ALICE, '/settings tz utc-5');
    expect(last()).toContain('Time zone: GMT-5 (UTC-5), your time now is 05:00.');
    await h.say(ALICE, '/settings');
    expect(last()).toContain('🕒 Time zone: GMT-5 (UTC-5)');
    expect(h.sent(ALICE.id).map((m) => m.text).join('\n')).not.toContain('Etc/');
  });

  it('#19 an error quotes what was typed: words, long numbers, and a long text cut but recognisable; a secret-shaped word never', async () => {
    await h.say(ALICE, '/settings quiet from eleven to seven');
    expect(last()).toContain('“from eleven to seven” is not a time range');
    await h.say(ALICE, '/settings bankroll 99999999999999');
    expect(last()).toContain('99999999999999 is too high; it must be 1000000000 or less.');
    await h.say(ALICE, '/settings quiet from eleven at night until seven in the morning please');
    expect(last()).toContain('“from eleven at night until seven in the…” is not a time range');
    // Typed as the answer to the menu's question, the same.
    await h.say(ALICE, '/settings');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), 'Bankroll'));
    await h.say(ALICE, 'about a thousand euros');
    expect(last()).toContain('“about a thousand euros” is not an amount');
    await h.say(ALICE, 'my key Zx9-looks-like-a-secret-42 oops');
    expect(last()).toContain('“my key … oops” is not an amount');
    await h.say(ALICE, 'x'.repeat(300));
    expect(last()).toContain(`“${'x'.repeat(39)}…” is too long (at most 200 characters here)`);
    expect(h.store.getUser(ALICE.id)?.quietHours ?? null).toBeNull();
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(100);
  });

  it('#12 /status inside quiet hours says they are on and until when alerts are held', async () => {
    await h.say(ALICE, '/status');
    expect(last()).not.toContain('Quiet hours are on');
    // The clock reads 10:00 UTC.
    await h.say(ALICE, '/settings quiet 9-11');
    await h.say(ALICE, '/status');
    expect(last()).toMatch(/Quiet hours are on \(09:00–11:00\): alerts are held until \w{3} \d+ \w{3} 11:00, then come in one summary/);
    await h.clock.advance(60 * 60_000);
    await h.say(ALICE, '/status');
    expect(last()).not.toContain('Quiet hours are on');
  });

  it('/settings bankroll with spaces and thousands marks; a refusal shows a bankroll, not a decimal', async () => {
    await h.say(ALICE, '/settings bankroll 1 000 000');
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(1_000_000);
    await h.say(ALICE, '/settings bankroll 1,000');
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(1000);
    await h.say(ALICE, '/settings bankroll a lot');
    expect(last()).toContain('“a lot” is not an amount. Send digits, like 500');
    expect(last()).not.toContain('1.5');
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(1000);
  });

  it('/settings quiet 23-7 and the menu’s time zone question take the same forms (in Russian too)', async () => {
    await h.say(ALICE, '/settings quiet 23-7');
    expect(h.store.getUser(ALICE.id)?.quietHours).toEqual({ from: '23:00', to: '07:00' });
    await h.say(ALICE, '/settings lang ru');
    await h.say(ALICE, '/settings');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), 'Часовой пояс'));
    await h.say(ALICE, 'Россия');
    expect(last()).toContain('несколько часовых поясов');
    await h.say(ALICE, 'Москва');
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Europe/Moscow');
    expect(h.sent(ALICE.id).map((m) => m.text).join('\n')).toContain('Часовой пояс: Europe/Moscow (UTC+3), у вас сейчас 13:00.');
  });
});
