/**
 * Messages of one area (filter-input), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const filterInputEn = {
  filter_oneline_kept:
    'Changed: {options}. The rest is kept from your filter; <code>/filter {service} reset …</code> starts from scratch, and <code>option=any</code> puts one option back to its default.',
  filter_oneline_reset: 'Started from scratch (reset): every option you did not name is back to its default.',
  filter_oneline_same:
    'No option named: your filter is written again as it was. Name the options to change (like <code>/filter {service} min_profit=1</code>), or start from scratch with <code>/filter {service} reset</code>.',
  range_reversed_kept:
    'The range is reversed: {min} is above {max}, and {option}={value} is kept from your filter. Give {option} too (or {option}=any), or start with <code>/filter {service} reset …</code>.',
  ms_no_match_guess: 'Nothing matches “{query}”. Did you mean {list}? Tap it below, or type another name.',
  book_unknown_guess: 'I know no bookmaker “{value}”. Did you mean {list}? /books lists them with their ids.',
  book_amount_too_large: '{option}: “{value}” is too large (at most {max}). Nothing was changed.',
  book_amount_cents: '{option}: “{value}” goes beyond the cent; send at most two decimals, like 2.50. Nothing was changed.',
  book_max_under_step:
    'With max {max} and step {step}, {name} could never take a stake: every stake is a multiple of the step. Lower the step too (like <code>step={max}</code>) or raise max. Nothing was changed.',
  book_max_under_user_step:
    'With max {max} and your rounding step {step} (/settings), {name} could never take a stake: every stake is a multiple of the step. Give it a step of its own (like <code>step={max}</code>) or raise max. Nothing was changed.',
  hedge_book_confirm_new:
    'Nothing was recorded. Send the line again with the bookmaker’s name as listed; or, if “{value}” is a bookmaker of its own, send the same line again to record it under that name.',
} satisfies Record<string, string>;

export const filterInputRu: Record<keyof typeof filterInputEn, string> = {
  filter_oneline_kept:
    'Изменено: {options}. Остальное осталось от вашего фильтра; <code>/filter {service} reset …</code> начинает с нуля, а <code>параметр=any</code> возвращает один параметр к значению по умолчанию.',
  filter_oneline_reset: 'Начато с нуля (reset): всё, что вы не указали, — по умолчанию.',
  filter_oneline_same:
    'Параметры не указаны: ваш фильтр записан заново как был. Укажите, что изменить (например, <code>/filter {service} min_profit=1</code>), или начните с нуля: <code>/filter {service} reset</code>.',
  range_reversed_kept:
    'Диапазон перевёрнут: {min} больше {max}, а {option}={value} осталось от вашего фильтра. Укажите и {option} (или {option}=any) либо начните с <code>/filter {service} reset …</code>.',
  ms_no_match_guess: 'Ничего не найдено по «{query}». Может быть, {list}? Нажмите ниже или наберите другое название.',
  book_unknown_guess: 'Не знаю букмекера «{value}». Может быть, {list}? /books покажет их с id.',
  book_amount_too_large: '{option}: «{value}» — слишком много (не больше {max}). Ничего не изменено.',
  book_amount_cents: '{option}: «{value}» — точнее копейки; не больше двух знаков после точки, например 2.50. Ничего не изменено.',
  book_max_under_step:
    'При max {max} и шаге {step} у {name} ставка невозможна: каждая ставка кратна шагу. Уменьшите и шаг (например, <code>step={max}</code>) или увеличьте max. Ничего не изменено.',
  book_max_under_user_step:
    'При max {max} и вашем шаге округления {step} (/settings) у {name} ставка невозможна: каждая ставка кратна шагу. Задайте ему свой шаг (например, <code>step={max}</code>) или увеличьте max. Ничего не изменено.',
  hedge_book_confirm_new:
    'Ничего не записано. Пришлите строку ещё раз с названием букмекера, как в списке; или, если «{value}» — отдельный букмекер, пришлите ту же строку ещё раз, чтобы записать его под этим названием.',
};
