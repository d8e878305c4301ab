/**
 * Messages of one area (numbers), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 *
 * Here: "✏️ Leg limited" answered with an amount no bookmaker took (over the bankroll, over any
 * stake, or one the other legs cannot cover within the bankroll), and why an arb's stakes add up to
 * less than the bankroll (the alerts' titles, through alerts/alert-texts.ts).
 */
export const numbersEn = {
  leg_limit_too_large: '“{value}” for leg {leg} ({book}) is larger than any stake (at most {max}). Send the amount {book} accepted, like <code>{leg} 150</code>.',
  leg_limit_over_bankroll: '“{value}” for leg {leg} ({book}) is more than your bankroll ({bankroll}): the stakes of an arb must fit in it. Send the amount {book} accepted, like <code>{leg} 150</code>, or raise the bankroll in /settings.',
  leg_limit_over_bankroll_lay: '“{value}” for leg {leg} ({book}) is a lay stake with a liability of {liability}, more than your bankroll ({bankroll}). Send the lay stake {book} matched, like <code>{leg} 50</code>, or raise the bankroll in /settings.',
  leg_limit_others_over: 'With leg {leg} ({book}) at {value}, the other legs need {need} more to cover it, and your bankroll ({bankroll}) leaves {left}. Send a smaller amount, or raise the bankroll in /settings.',
  stakes_why_max: '{book}’s max {max} limits the stakes',
  stakes_why_step: 'more on these steps would not guarantee more',
  stakes_why_fit: 'the next step would not fit in it',
} satisfies Record<string, string>;

export const numbersRu: Record<keyof typeof numbersEn, string> = {
  leg_limit_too_large: '«{value}» для исхода {leg} ({book}) больше любой ставки (не больше {max}). Пришлите сумму, которую принял {book}, например <code>{leg} 150</code>.',
  leg_limit_over_bankroll: '«{value}» для исхода {leg} ({book}) больше вашего банка ({bankroll}): ставки вилки должны в него уложиться. Пришлите сумму, которую принял {book}, например <code>{leg} 150</code>, или увеличьте банк в /settings.',
  leg_limit_over_bankroll_lay: '«{value}» для исхода {leg} ({book}) — ставка против с ответственностью {liability}, больше вашего банка ({bankroll}). Пришлите ставку против, которую принял {book}, например <code>{leg} 50</code>, или увеличьте банк в /settings.',
  leg_limit_others_over: 'При исходе {leg} ({book}) на {value} остальным исходам нужно ещё {need}, чтобы его перекрыть, а от банка ({bankroll}) остаётся {left}. Пришлите сумму меньше или увеличьте банк в /settings.',
  stakes_why_max: 'ставки ограничивает максимум {book}: {max}',
  stakes_why_step: 'ставки крупнее при этих шагах не дадут большей гарантированной прибыли',
  stakes_why_fit: 'следующий шаг не помещается в банк',
};
