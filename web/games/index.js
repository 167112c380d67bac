// The four games' entry forms, one module each, all with the same shape (like domain/src/games/):
//   id, name, players {min, max}, goal, options [{key, label, kind, default, choices?, help}],
//   needsColours(options), progress(game, effective, details) → {step, done},
//   form({game, effective, details, way, onWay, initial?}) → {element, events(): [{type, data}]},
//   correctable: event types whose correction reuses the form with `initial` set,
//   describe(game) → what the game page shows under its heading (Vintage's prizes) or null.
// `details` is the score's `details` (the table as the server worked it out: a Mind Up! turn's
// takes, the Mint Julep field, the Vintage showcases); `way` is how the table chose to record
// (end of round or turn by turn), `onWay` keeps a new choice. events() throws `Incomplete` for
// a form not filled in enough to send. What the forms share is in `forms.js`.
import mintCondition from './mint-condition.js';
import mindUp from './mind-up.js';
import mintJulep from './mint-julep.js';
import vintage from './vintage.js';

export const GAMES = [mintCondition, mindUp, mintJulep, vintage];

/** @param {string} id */
export function gameById(id) {
  return GAMES.find((g) => g.id === id);
}
