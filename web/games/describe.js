// An entry as the entry forms show it, for the lists that show entries rather than edit them
// (two phones' entries side by side, what waits on this phone): card and horse names in the
// page's language, "Bo bets on Alaskan Justice", never the ids and data the API stores.
import { joined, num, plain, t } from '../i18n.js';
import { contents } from '../views/log.js';

/** A name from the catalogue under `pad.<prefix>` ("animal-kingdom" → "Animal Kingdom"); an unknown id as it is. @param {string} prefix @param {any} id */
function named(prefix, id) {
  const key = `pad.${prefix}.${String(id).replaceAll('-', '_')}`;
  return plain(key) === key ? String(id ?? '') : t(key);
}

/** @param {any} id */
export const cardName = (id) => named('mint_condition.card', id);
/** @param {any} id */
export const horseName = (id) => named('mint_julep.horse', id);
/** @param {any} period */
const periodName = (period) => named('vintage.period', period);

/** A Vintage card as its form describes it: "blue lamp, 60s". @param {any} card */
const vintageCard = (card) => (typeof card === 'object' && card
  ? t('pad.describe.vintage_card', { colour: card.colour ?? '', type: card.type ?? '', period: periodName(card.period) })
  : String(card));

/**
 * "Ann: Animal Kingdom ×3, Fine Wine ×1 (4 cards)", one line a player, cards in name order so
 * that two phones' entries read alike side by side.
 * @param {any} collections @param {(card: any) => string} name
 */
function collectionLines(collections, name) {
  return Object.entries(collections ?? {}).map(([player, cards]) => {
    const list = Array.isArray(cards) ? cards : [];
    const counts = new Map();
    for (const card of list) counts.set(name(card), (counts.get(name(card)) ?? 0) + 1);
    const shown = joined([...counts].sort(([a], [b]) => a.localeCompare(b)).map(([card, n]) => `${card} ×${num(n)}`));
    return t('pad.log.collection', { player, cards: shown || t('pad.log.nothing'), n: list.length });
  });
}

/** "Ann 12, Bo 3": a number per player. @param {Record<string, any>} byPlayer */
const perPlayer = (byPlayer) => joined(Object.entries(byPlayer ?? {}).map(([player, n]) => `${player} ${num(n ?? '–')}`));

/**
 * What one entry's event holds, a line each, in the table's words.
 * @param {{type: string, data: any}} e @returns {string[]}
 */
export function entryLines(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'round_collected':
      return collectionLines(d.collections, (card) => cardName(typeof card === 'string' ? card : card?.card));
    case 'collections_recorded':
      return collectionLines(d.collections, vintageCard);
    case 'bet_placed':
      return [d.replaces
        ? t('pad.describe.bet_instead', { player: d.player, horse: horseName(d.horse), old: horseName(d.replaces) })
        : t('pad.describe.bet', { player: d.player, horse: horseName(d.horse) })];
    case 'race_recorded':
      return [t('pad.describe.finish', { horses: joined((d.order ?? []).map(horseName)) })];
    case 'card_played':
      return [t('pad.describe.card_played', {
        player: d.player,
        moves: joined((d.moves ?? []).map((/** @type {any} */ m) => `${horseName(m.horse)} ${m.direction === 'back' ? '↓' : '↑'}`)) || '–',
      }), d.mint_julep ? t('pad.describe.mint_julep', { horse: horseName(d.mint_julep.horse) }) : ''].filter(Boolean);
    case 'round_ended':
      return [t('pad.describe.round_ended', { round: d.round })];
    case 'rows_recorded':
      return Object.entries(d.rows ?? {}).map(([player, rows]) =>
        `${player}: ${(/** @type {number[][]} */ (rows)).map((row) => row.map((n) => num(n)).join(' ')).join(' | ') || '–'}`);
    case 'cards_played':
    case 'last_cards_placed':
      return [perPlayer(d.cards)];
    default:
      return contents(d);
  }
}
