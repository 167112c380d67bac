// Entry point: reads the hash route, keeps the token in use, and mounts one view at a time.
// Routes: #/ games (#/?game=…&status=…&player=…) · #/new · #/game/<id> · #/share/<id>/<token> · #/join/<token> · #/player/<id> · #/leaderboard(?game=…&sort=…) · #/ratings(?game=…) · #/club
import { useToken } from './api.js';
import { LANGUAGES, chosenLanguage, lang, useLanguage } from './i18n.js';
import { sendAll } from './outbox.js';
import { getState, subscribe, update } from './state.js';
import { h, replace, showNotice } from './ui.js';
import * as club from './views/club.js';
import * as newGame from './views/new-game.js';
import * as game from './views/game.js';
import * as history from './views/history.js';
import * as ratings from './views/ratings.js';

const view = /** @type {HTMLElement} */ (document.getElementById('view'));

/** @type {(() => void) | null} */
let unmount = null;

function parseRoute() {
  // A list's filters follow a `?` (#/?game=vintage, #/leaderboard?sort=wins): see history.js.
  const path = window.location.hash.replace(/^#\/?/, '').split('?')[0];
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [name = 'home', a, b] = parts;
  switch (name) {
    case 'game': return { name: 'game', params: { id: a } };
    case 'share': return { name: 'share', params: { id: a, token: b } };
    case 'join': return { name: 'join', params: { token: a } };
    case 'player': return { name: 'player', params: { id: a } };
    case 'new': case 'leaderboard': case 'ratings': case 'club': return { name, params: {} };
    default: return { name: 'home', params: {} };
  }
}

function mount() {
  const route = parseRoute();
  if (route.name === 'share') {
    // A share link: read-only, one game, its token kept only for this tab.
    update({ route, share: { gameId: route.params.id, token: route.params.token } });
  } else {
    update({ route, share: null });
  }
  const state = getState();
  useToken(state.share ? state.share.token : state.token);
  document.body.classList.toggle('shared', Boolean(state.share));
  unmount?.();
  unmount = null;
  showNotice(null);
  replace(view);
  const needsClub = !state.share && !state.token;
  if (route.name === 'join') unmount = club.mountJoin(view, route.params.token ?? '');
  else if (needsClub || route.name === 'club') unmount = club.mount(view);
  else if (route.name === 'new') unmount = newGame.mount(view);
  else if (route.name === 'game' || route.name === 'share') unmount = game.mount(view, route.params.id);
  else if (route.name === 'player') unmount = history.mountPlayer(view, route.params.id);
  else if (route.name === 'leaderboard') unmount = history.mountLeaderboard(view);
  else if (route.name === 'ratings') unmount = ratings.mountRatings(view);
  else unmount = history.mountGames(view);
  view.focus({ preventScroll: true });
}

subscribe((state, changed) => {
  if (changed.has('token') && !state.share) {
    useToken(state.token);
  }
});

// A number field that already holds a value (a prize's 4 points, a card's value 0) is selected
// when it gets the focus: typing replaces it instead of appending to it ("3" giving "43").
document.addEventListener('focusin', (e) => {
  const el = e.target;
  if (el instanceof HTMLInputElement && (el.type === 'number' || el.inputMode === 'numeric') && el.value !== '') el.select();
});

// The page's words come first: every view is drawn in the language chosen.
await useLanguage(chosenLanguage());

// The switch in the header: each language named in itself; the choice is kept on this phone
// and the open view is drawn again in it (what waits on the phone stays in the outbox).
const switcher = /** @type {HTMLSelectElement | null} */ (document.getElementById('language'));
if (switcher) {
  switcher.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) =>
    h('option', { value: code, lang: code, selected: code === lang() }, name)));
  switcher.addEventListener('change', async () => {
    await useLanguage(switcher.value, { remember: true });
    mount();
  });
}

window.addEventListener('hashchange', mount);
mount();

// "Games" tapped on the games list itself changes no address: the list is read again anyway.
document.querySelector('header.top')?.addEventListener('click', (e) => {
  const link = /** @type {HTMLElement} */ (e.target).closest('a[href="#/"]');
  if (link && ['', '#', '#/'].includes(window.location.hash)) mount();
});

// What the table recorded while the server was away is sent when it answers again, whichever
// game is open (the open game's view also sends its own at once).
const RESEND_ALL_MS = 10000;
const resendAll = () => { if (!getState().share && getState().token) sendAll().catch(() => {}); };
resendAll();
setInterval(resendAll, RESEND_ALL_MS);
window.addEventListener('online', resendAll);

// The page stays available without the server where the browser allows a service worker (a
// secure context: https, or this computer's own address); the entries wait on the phone anyway.
if ('serviceWorker' in navigator && window.isSecureContext) {
  navigator.serviceWorker.register('/sw.js').catch(() => {});
}
