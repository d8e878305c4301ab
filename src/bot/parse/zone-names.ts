/**
 * Place names people type for a time zone, in English and Russian, mapped to an IANA zone. Kept
 * small and honest: a place is listed only when its one zone is certain; countries that span
 * several zones are listed apart, so the bot asks for a city instead of guessing. English city
 * names that are the last part of an IANA name ("berlin", "new york") need no entry here: the
 * parser finds those in the runtime's own zone list.
 */

/** [IANA zone, names…]; names are matched lower-case, with "ё" as "е" and "-"/"_" as spaces. */
export const ZONE_PLACES: readonly (readonly [string, ...string[]])[] = [
  ['Europe/Moscow', 'москва', 'мск', 'msk', 'moskva', 'saint petersburg', 'st petersburg', 'st. petersburg', 'petersburg', 'санкт петербург', 'петербург', 'спб', 'питер', 'kazan', 'казань', 'nizhny novgorod', 'нижний новгород', 'sochi', 'сочи', 'krasnodar', 'краснодар', 'rostov', 'ростов', 'ростов на дону'],
  ['Europe/Kaliningrad', 'калининград'],
  ['Europe/Samara', 'самара'],
  ['Europe/Volgograd', 'волгоград'],
  ['Asia/Yekaterinburg', 'ekaterinburg', 'екатеринбург', 'chelyabinsk', 'челябинск', 'perm', 'пермь', 'ufa', 'уфа', 'tyumen', 'тюмень'],
  ['Asia/Omsk', 'омск'],
  ['Asia/Novosibirsk', 'новосибирск'],
  ['Asia/Krasnoyarsk', 'красноярск'],
  ['Asia/Irkutsk', 'иркутск'],
  ['Asia/Yakutsk', 'якутск'],
  ['Asia/Vladivostok', 'владивосток'],
  ['Asia/Magadan', 'магадан'],
  ['Asia/Kamchatka', 'камчатка', 'petropavlovsk kamchatsky', 'петропавловск камчатский'],
  ['Europe/Kiev', 'kyiv', 'kiev', 'киев', 'київ', 'ukraine', 'украина'],
  ['Europe/Minsk', 'минск', 'belarus', 'беларусь', 'белоруссия'],
  ['Europe/Berlin', 'берлин', 'germany', 'германия', 'munich', 'мюнхен', 'hamburg', 'гамбург', 'frankfurt', 'франкфурт'],
  ['Europe/London', 'лондон', 'uk', 'united kingdom', 'britain', 'great britain', 'england', 'великобритания', 'англия', 'manchester', 'манчестер'],
  ['Europe/Paris', 'париж', 'france', 'франция'],
  ['Europe/Madrid', 'мадрид', 'spain', 'испания', 'barcelona', 'барселона'],
  ['Europe/Rome', 'рим', 'italy', 'италия', 'milan', 'милан'],
  ['Europe/Amsterdam', 'амстердам', 'netherlands', 'holland', 'нидерланды', 'голландия'],
  ['Europe/Brussels', 'брюссель', 'belgium', 'бельгия'],
  ['Europe/Vienna', 'вена', 'austria', 'австрия'],
  ['Europe/Zurich', 'цюрих', 'switzerland', 'швейцария', 'geneva', 'женева'],
  ['Europe/Warsaw', 'варшава', 'poland', 'польша'],
  ['Europe/Prague', 'прага', 'czechia', 'czech republic', 'чехия'],
  ['Europe/Budapest', 'будапешт', 'hungary', 'венгрия'],
  ['Europe/Bucharest', 'бухарест', 'romania', 'румыния'],
  ['Europe/Sofia', 'софия', 'bulgaria', 'болгария'],
  ['Europe/Athens', 'афины', 'greece', 'греция'],
  ['Europe/Istanbul', 'стамбул', 'turkey', 'türkiye', 'турция', 'ankara', 'анкара'],
  ['Europe/Helsinki', 'хельсинки', 'finland', 'финляндия'],
  ['Europe/Stockholm', 'стокгольм', 'sweden', 'швеция'],
  ['Europe/Oslo', 'осло', 'norway', 'норвегия'],
  ['Europe/Copenhagen', 'копенгаген', 'denmark', 'дания'],
  ['Europe/Dublin', 'дублин', 'ireland', 'ирландия'],
  ['Europe/Riga', 'рига', 'latvia', 'латвия'],
  ['Europe/Vilnius', 'вильнюс', 'lithuania', 'литва'],
  ['Europe/Tallinn', 'таллин', 'таллинн', 'estonia', 'эстония'],
  ['Europe/Chisinau', 'кишинев', 'moldova', 'молдова', 'молдавия'],
  ['Europe/Belgrade', 'белград', 'serbia', 'сербия'],
  ['Asia/Tbilisi', 'тбилиси', 'грузия'],
  ['Asia/Yerevan', 'ереван', 'armenia', 'армения'],
  ['Asia/Baku', 'баку', 'azerbaijan', 'азербайджан'],
  ['Asia/Almaty', 'алматы', 'алма ата', 'astana', 'астана'],
  ['Asia/Tashkent', 'ташкент', 'uzbekistan', 'узбекистан'],
  ['Asia/Bishkek', 'бишкек', 'kyrgyzstan', 'киргизия', 'кыргызстан'],
  ['Asia/Dushanbe', 'душанбе', 'tajikistan', 'таджикистан'],
  ['Asia/Ashgabat', 'ашхабад', 'turkmenistan', 'туркменистан'],
  ['Asia/Jerusalem', 'иерусалим', 'israel', 'израиль', 'tel aviv', 'тель авив'],
  ['Asia/Dubai', 'дубай', 'uae', 'united arab emirates', 'оаэ', 'эмираты'],
  ['Asia/Kolkata', 'india', 'индия', 'delhi', 'new delhi', 'дели', 'mumbai', 'мумбаи'],
  ['Asia/Shanghai', 'china', 'китай', 'beijing', 'пекин', 'шанхай'],
  ['Asia/Tokyo', 'токио', 'japan', 'япония'],
  ['Asia/Seoul', 'сеул', 'south korea', 'korea', 'корея', 'южная корея'],
  ['Asia/Bangkok', 'бангкок', 'thailand', 'таиланд', 'тайланд'],
  ['Asia/Singapore', 'сингапур'],
  ['Asia/Hong_Kong', 'гонконг'],
  ['America/New_York', 'нью йорк', 'nyc', 'washington', 'вашингтон', 'boston', 'бостон', 'miami', 'майами'],
  ['America/Chicago', 'чикаго'],
  ['America/Denver', 'денвер'],
  ['America/Los_Angeles', 'лос анджелес', 'san francisco', 'сан франциско'],
  ['America/Toronto', 'торонто'],
  ['America/Sao_Paulo', 'сан паулу', 'rio de janeiro', 'рио де жанейро'],
  ['America/Argentina/Buenos_Aires', 'буэнос айрес', 'argentina', 'аргентина'],
  ['America/Mexico_City', 'мехико'],
  ['Australia/Sydney', 'сидней'],
  ['Africa/Cairo', 'каир', 'egypt', 'египет'],
  ['Africa/Johannesburg', 'йоханнесбург', 'south africa', 'юар'],
  ['Africa/Lagos', 'лагос', 'nigeria', 'нигерия'],
  ['Africa/Nairobi', 'найроби', 'kenya', 'кения'],
];

/** Countries that span several zones: the bot names some of their cities instead of guessing. */
export const MANY_ZONE_PLACES: readonly (readonly [cities: string, ...names: string[]])[] = [
  ['Moscow, Yekaterinburg, Novosibirsk, Vladivostok', 'russia', 'россия', 'рф'],
  ['New York, Chicago, Denver, Los Angeles', 'usa', 'us', 'united states', 'america', 'сша', 'америка'],
  ['Toronto, Winnipeg, Edmonton, Vancouver', 'canada', 'канада'],
  ['Sao Paulo, Manaus', 'brazil', 'бразилия'],
  ['Sydney, Brisbane, Adelaide, Perth', 'australia', 'австралия'],
  ['Almaty, Aqtobe', 'kazakhstan', 'казахстан'],
  ['Mexico City, Tijuana, Cancun', 'mexico', 'мексика'],
  ['Jakarta, Makassar, Jayapura', 'indonesia', 'индонезия'],
];

/**
 * Offsets of half and quarter hours have no Etc/GMT zone: each maps to a zone that keeps that
 * offset all year (no summer time), so the zone confirmed back is still right in July.
 */
export const ODD_OFFSETS: ReadonlyMap<number, string> = new Map([
  [210, 'Asia/Tehran'],
  [270, 'Asia/Kabul'],
  [330, 'Asia/Kolkata'],
  [345, 'Asia/Kathmandu'],
  [390, 'Asia/Yangon'],
  [570, 'Australia/Darwin'],
]);
