// The four games' entry forms, one module each, all with the same shape (like domain/src/games/):
//   id, name, players {min, max}, goal, options [{key, label, kind, default, choices?, help}],
//   needsColours(options), progress(game, effective) → {step, done},
//   form({game, effective, initial?}) → {element, events(): [{type, data}]},
//   correctable: event types whose correction reuses the form with `initial` set.
import mintCondition from './mint-condition.js';
import mindUp from './mind-up.js';
import mintJulep from './mint-julep.js';
import vintage from './vintage.js';

export const GAMES = [mintCondition, mindUp, mintJulep, vintage];

/** @param {string} id */
export function gameById(id) {
  return GAMES.find((g) => g.id === id);
}

/** A JSON pointer token (RFC 6901): `~` → `~0`, `/` → `~1`. @param {string | number} s */
export function esc(s) {
  return String(s).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** "12 30, 47" → [12, 30, 47] (what a thumb types). @param {string} text */
export function numbers(text) {
  return text.split(/[\s,;]+/).filter(Boolean).map(Number);
}
