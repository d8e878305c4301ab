/**
 * Messages of one area (budget), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 *
 * The key's token budget told before it bites: how the services share it, what a coverage under
 * 100 % means, drafts kept when a save is refused, the user's ranking of their services (/rank),
 * and when the first read of a saved filter is due.
 */
export const budgetEn = {
  cmd_rank: 'Which of your services the token budget favours',
  and_word: 'and',
  budget_rule:
    '🎟 Your key gets {tokens} token requests an hour, and a token serves one service for {ttl} min, so your services share its time: one service is read all the time; two get {two}; three get {three} of the time. The first in your order gets the most (/rank).',
  budget_now: '📡 Your services now, in the order the budget favours them:',
  cov_full: '{service}: read all the time',
  cov_part: '{service}: {share} of the time: read {on} min of each hour, with gaps of up to {gap} min without a read. An opportunity that comes and goes in a gap is missed; one that lasts is alerted up to {gap} min late',
  cov_none: '{service}: no token this hour: not read',
  first_read_now: 'Its first read is due within seconds; an alert comes as soon as an item matches your filter.',
  first_read_at: 'Its first read is due at {at} (in {wait}): your key’s token budget reads it {share} of the time. An alert comes at a read that finds an item matching your filter.',
  fb_saved_draft:
    '📝 Not written yet, but nothing is lost: your key has spent the token requests it can use now, so I kept this filter for {service} as a draft. I write it by myself at about {at} (in {wait}) and tell you when it is live. /filters shows it.',
  fb_saved_draft_later:
    '📝 Not written yet, but nothing is lost: the service’s budget is spent for now, so I kept this filter for {service} as a draft. I write it by myself as soon as the budget allows and tell you when it is live. /filters shows it.',
  draft_live: '✅ Your draft filter for {service} is written and live now. {first}',
  draft_dropped_auth:
    '⚠️ I could not write your draft filter for {service}: the service refused your key pair. Connect it again with /connect, then build the filter again with /filter.',
  draft_dropped_forbidden: '⛔ I could not write your draft filter for {service}: your key has no access to it, so the draft was deleted.',
  filters_draft: '📝 draft: waiting for the token budget; written at about {at} (in {wait})',
  filters_draft_later: '📝 draft: waiting for the token budget; written as soon as it allows',
  filters_draft_over: '📝 Draft, replaces the filter above when written: ',
  filter_draft_deleted: 'Draft for {service} deleted.',
  connect_reads: '📡 Your key reads these services, in the order its token budget favours them:',
  connect_reads_none: 'A token serves one service, so your access to each other service shows at its first read.',
  connect_same:
    '✅ Key <code>{key}</code> is already connected with this very secret, and the service accepts it: nothing to check again, nothing changed.',
  connect_wrong_known:
    '❌ The pair for <code>{key}</code> is wrong: that is not the secret your key is connected with, and the service accepted that one at {at}. A key has one secret at a time, so nothing was changed and your alerts go on. If the site gave you a new secret after that, the old one stops working: I will tell you, and then /connect with the new one.',
  rank_show: '🏁 <b>Your order for the token budget</b> (the first gets the most):\n{list}\n\nChange it with <code>/rank &lt;service&gt; [&lt;service&gt; …]</code> (those first, in that order), or <code>/rank reset</code> for the default (live first).',
  rank_none: 'You have no filters yet, so there is nothing to order. Build one with /filter.',
  rank_set: '✅ New order (the first gets the most):{list}',
  rank_reset: '✅ Back to the default order (live services first):{list}',
  rank_bad: '“{value}” is not one of the services. Use names like arbs_live or valuebets_prematch: <code>/rank arbs_live valuebets_prematch</code>.',
  rank_twice: '“{value}” is named twice. Name each service once, in the order you want.',
} satisfies Record<string, string>;

export const budgetRu: Record<keyof typeof budgetEn, string> = {
  cmd_rank: 'Какой из ваших сервисов получает больше токенов',
  and_word: 'и',
  budget_rule:
    '🎟 Ваш ключ получает {tokens} запросов токена в час, а токен служит одному сервису {ttl} мин, поэтому сервисы делят его время: один сервис читается всё время; два получают {two}; три — {three} времени. Больше всех получает первый в вашем порядке (/rank).',
  budget_now: '📡 Ваши сервисы сейчас, в порядке, в каком их предпочитает бюджет:',
  cov_full: '{service}: читается всё время',
  cov_part: '{service}: {share} времени: читается {on} мин в час, с перерывами до {gap} мин без чтения. Вариант, который появится и исчезнет в перерыве, будет пропущен; долгий придёт с опозданием до {gap} мин',
  cov_none: '{service}: в этот час без токена: не читается',
  first_read_now: 'Первое чтение — через несколько секунд; оповещение придёт, как только найдётся подходящий под фильтр вариант.',
  first_read_at: 'Первое чтение — в {at} (через {wait}): бюджет токенов вашего ключа читает этот сервис {share} времени. Оповещение придёт при чтении, которое найдёт подходящий под фильтр вариант.',
  fb_saved_draft:
    '📝 Пока не записан, но ничего не потеряно: ключ исчерпал доступные сейчас запросы токена, поэтому я сохранил этот фильтр «{service}» как черновик. Я запишу его сам примерно в {at} (через {wait}) и сообщу, когда он заработает. Он виден в /filters.',
  fb_saved_draft_later:
    '📝 Пока не записан, но ничего не потеряно: лимит сервиса сейчас исчерпан, поэтому я сохранил этот фильтр «{service}» как черновик. Я запишу его сам, как только лимит позволит, и сообщу, когда он заработает. Он виден в /filters.',
  draft_live: '✅ Ваш черновик фильтра «{service}» записан и работает. {first}',
  draft_dropped_auth:
    '⚠️ Не удалось записать черновик фильтра «{service}»: сервис отклонил вашу пару ключей. Подключите ключ заново командой /connect, затем соберите фильтр снова: /filter.',
  draft_dropped_forbidden: '⛔ Не удалось записать черновик фильтра «{service}»: у вашего ключа нет доступа к этому сервису, черновик удалён.',
  filters_draft: '📝 черновик: ждёт бюджета токенов; будет записан примерно в {at} (через {wait})',
  filters_draft_later: '📝 черновик: ждёт бюджета токенов; будет записан, как только бюджет позволит',
  filters_draft_over: '📝 Черновик, заменит фильтр выше, когда будет записан: ',
  filter_draft_deleted: 'Черновик «{service}» удалён.',
  connect_reads: '📡 Ваш ключ читает эти сервисы, в порядке, в каком их предпочитает бюджет токенов:',
  connect_reads_none: 'Токен служит одному сервису, поэтому доступ к каждому другому сервису проверится при его первом чтении.',
  connect_same:
    '✅ Ключ <code>{key}</code> уже подключён именно с этим секретом, и сервис его принимает: проверять заново нечего, ничего не изменено.',
  connect_wrong_known:
    '❌ Пара для <code>{key}</code> неверна: это не тот секрет, с которым подключён ваш ключ, а тот сервис принял в {at}. У ключа один секрет за раз, поэтому ничего не изменено, оповещения идут дальше. Если сайт выдал вам новый секрет позже, старый перестанет работать: я сообщу, и тогда отправьте /connect с новым.',
  rank_show: '🏁 <b>Ваш порядок для бюджета токенов</b> (первый получает больше всех):\n{list}\n\nИзмените его: <code>/rank &lt;сервис&gt; [&lt;сервис&gt; …]</code> (эти первыми, в этом порядке), или <code>/rank reset</code> — порядок по умолчанию (сначала live).',
  rank_none: 'У вас ещё нет фильтров, упорядочивать нечего. Соберите фильтр: /filter.',
  rank_set: '✅ Новый порядок (первый получает больше всех):{list}',
  rank_reset: '✅ Снова порядок по умолчанию (сначала live):{list}',
  rank_bad: '«{value}» — не сервис. Используйте имена вроде arbs_live или valuebets_prematch: <code>/rank arbs_live valuebets_prematch</code>.',
  rank_twice: '«{value}» названо дважды. Назовите каждый сервис один раз, в нужном порядке.',
};
