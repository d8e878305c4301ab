/**
 * Messages of one area (alert-fresh: how fresh an alert's legs are and how alerts sound), in both
 * languages: en.ts and ru.ts spread them in, so that work on separate areas does not edit the same
 * lines of the two big catalogs. Same rules as en.ts.
 */
export const alertFreshEn = {
  set_loud: '🔔 Loud from',
  set_loud_rise: '▲ Loud again after a rise of',
  set_stale: '⚠️ Stale legs',
  loud_every: 'every alert',
  loud_points: '+{points} points',
  stale_desc: 'live over {live}, prematch over {prematch}; a live alert with every leg stale: {mode}',
  stale_mode_quiet: 'comes silently',
  stale_mode_drop: 'is not sent',
  stale_mode_show: 'comes as any other',
  ask_loud:
    'From which profit should a new alert buzz? Send a percentage like 3 (every service) or <code>arbs_live 2.5</code> (one service); the rest come without a sound. Or pick one:',
  ask_loud_rise:
    'An alert already sent buzzes again (a short reply to it) when its profit rises by this many points, or crosses your loud threshold. Send a number like 1 or <code>arbs_live 2</code>, or pick one:',
  ask_stale:
    'A leg whose odds are older than your limit is marked ⚠️. Send the limit for live legs like 90 (seconds) or 2m, or <code>prematch 10m</code>; or pick what a live alert with every leg stale does:',
  loud_bad:
    '“{value}” is not a loud threshold. Send a profit % from 0 to {max}, like <code>/settings loud 3</code> or <code>/settings loud arbs_live 2.5</code>, or <code>/settings loud off</code> to let every alert buzz. Nothing was changed.',
  loud_rise_bad:
    '“{value}” is not a rise. Send the points of profit an alert must gain to buzz again, more than 0 and at most {max}, like <code>/settings loud_rise 1</code> or <code>/settings loud_rise arbs_live 2</code>. Nothing was changed.',
  stale_bad:
    '“{value}” is not a stale-leg setting. Send <code>/settings stale quiet</code>, <code>drop</code> or <code>show</code> (what a live alert with every leg stale does), or a limit like <code>/settings stale 90</code> (seconds, live) or <code>/settings stale prematch 10m</code>, from 1 s to 24 h. Nothing was changed.',
} satisfies Record<string, string>;

export const alertFreshRu: Record<keyof typeof alertFreshEn, string> = {
  set_loud: '🔔 Со звуком от',
  set_loud_rise: '▲ Снова со звуком при росте на',
  set_stale: '⚠️ Устаревшие исходы',
  loud_every: 'все сигналы',
  loud_points: '+{points} п.',
  stale_desc: 'лайв старше {live}, прематч старше {prematch}; лайв-сигнал, где устарели все исходы: {mode}',
  stale_mode_quiet: 'приходит без звука',
  stale_mode_drop: 'не отправляется',
  stale_mode_show: 'приходит как обычно',
  ask_loud:
    'С какой прибыли новый сигнал приходит со звуком? Отправьте процент, например 3 (все сервисы) или <code>arbs_live 2.5</code> (один сервис); остальные придут без звука. Или выберите:',
  ask_loud_rise:
    'Уже отправленный сигнал снова звучит (коротким ответом на него), когда его прибыль вырастает на столько пунктов или переходит ваш порог звука. Отправьте число, например 1 или <code>arbs_live 2</code>, или выберите:',
  ask_stale:
    'Исход, чей коэффициент старше вашего предела, помечается ⚠️. Отправьте предел для лайва, например 90 (секунд) или 2m, или <code>prematch 10m</code>; или выберите, что делать с лайв-сигналом, где устарели все исходы:',
  loud_bad:
    '«{value}» — не порог звука. Отправьте процент прибыли от 0 до {max}, например <code>/settings loud 3</code> или <code>/settings loud arbs_live 2.5</code>, или <code>/settings loud off</code>, чтобы звучали все сигналы. Ничего не изменено.',
  loud_rise_bad:
    '«{value}» — не рост. Отправьте, на сколько пунктов должна вырасти прибыль сигнала, чтобы он прозвучал снова: больше 0 и не больше {max}, например <code>/settings loud_rise 1</code> или <code>/settings loud_rise arbs_live 2</code>. Ничего не изменено.',
  stale_bad:
    '«{value}» — не настройка устаревших исходов. Отправьте <code>/settings stale quiet</code>, <code>drop</code> или <code>show</code> (что делать с лайв-сигналом, где устарели все исходы) или предел, например <code>/settings stale 90</code> (секунды, лайв) или <code>/settings stale prematch 10m</code>, от 1 с до 24 ч. Ничего не изменено.',
};
