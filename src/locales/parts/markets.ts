/**
 * Messages of one area (market groups and per-sport minimums in filters), in both languages: en.ts
 * and ru.ts spread them in. Same rules as en.ts.
 */
export const marketsEn = {
  markets_mixed:
    'markets={value}: either leave groups out (<code>markets=-odd_even,-corners</code>) or keep only some (<code>markets=main,totals</code>), not both in one list. Nothing was changed.',
  unknown_market_group: 'No market group “{value}”. The groups: {list}. Nothing was changed.',
  markets_all_off: 'markets={value} would leave out every market, so no alert could come. Keep at least one group. Nothing was changed.',
  mg_main: 'main lines',
  mg_handicaps: 'handicaps',
  mg_totals: 'totals',
  mg_team_totals: 'team totals',
  mg_odd_even: 'odd/even',
  mg_other_markets: 'other markets',
  mg_periods: 'halves, sets, periods',
  mg_corners: 'corners',
  mg_cards: 'cards',
  filter_markets_off: 'Markets left out: {list}',
  filter_min_by_sport: 'Least profit by sport: {list}',
  status_left_out: '{n} items left out by your market filter this hour',
  fb_markets: '🎯 <b>Markets.</b> Tap the groups to keep, then “Done”. No selection = every market.',
  all_markets: 'All markets',
  btn_markets: '🎯 Markets',
};

export const marketsRu: Record<keyof typeof marketsEn, string> = {
  markets_mixed:
    'markets={value}: либо исключите группы (<code>markets=-odd_even,-corners</code>), либо оставьте только нужные (<code>markets=main,totals</code>), но не то и другое в одном списке. Ничего не изменено.',
  unknown_market_group: 'Нет группы рынков «{value}». Группы: {list}. Ничего не изменено.',
  markets_all_off: 'markets={value} исключит все рынки, и ни одно оповещение не придёт. Оставьте хотя бы одну группу. Ничего не изменено.',
  mg_main: 'основные исходы',
  mg_handicaps: 'форы',
  mg_totals: 'тоталы',
  mg_team_totals: 'индивидуальные тоталы',
  mg_odd_even: 'чёт/нечёт',
  mg_other_markets: 'другие рынки',
  mg_periods: 'таймы, сеты, периоды',
  mg_corners: 'угловые',
  mg_cards: 'карточки',
  filter_markets_off: 'Исключены рынки: {list}',
  filter_min_by_sport: 'Мин. прибыль по видам спорта: {list}',
  status_left_out: '{n} вилок за этот час отсеяно фильтром рынков',
  fb_markets: '🎯 <b>Рынки.</b> Отметьте группы, которые оставить, затем «Готово». Ничего не отмечено = все рынки.',
  all_markets: 'Все рынки',
  btn_markets: '🎯 Рынки',
};
