// The score pad's service worker: keeps the page itself (its HTML, scripts, stylesheet and icon)
// available when the server cannot be reached, so a phone at the table can still open it. It
// never touches the API: scores are never cached here, and what the table records waits on the
// phone in IndexedDB (outbox.js), which works without this worker too — browsers only run a
// service worker in a secure context (https, or the computer's own 127.0.0.1/localhost).
//
// Network first, the copy only as a fallback: with a server up, the page is always the server's
// (the assets are revalidated with their ETag), so an upgrade is never hidden behind the copy.

/** The page's files: every one the server compiles in (a test keeps this list complete). */
const SHELL = [
  '/',
  '/pad/style.css',
  '/pad/app.js',
  '/pad/api.js',
  '/pad/state.js',
  '/pad/ui.js',
  '/pad/i18n.js',
  '/pad/live.js',
  '/pad/outbox.js',
  '/pad/charts.js',
  '/pad/views/club.js',
  '/pad/views/new-game.js',
  '/pad/views/game.js',
  '/pad/views/conflict.js',
  '/pad/views/scoreboard.js',
  '/pad/views/log.js',
  '/pad/views/history.js',
  '/pad/views/ratings.js',
  '/pad/games/index.js',
  '/pad/games/forms.js',
  '/pad/games/describe.js',
  '/pad/games/mint-condition.js',
  '/pad/games/mind-up.js',
  '/pad/games/mint-julep.js',
  '/pad/games/vintage.js',
  '/pad/icon.svg',
  '/pad/manifest.webmanifest',
  '/pad/i18n/en.json',
  '/pad/i18n/fr.json',
  '/pad/i18n/fa.json',
];
const CACHE = 'tabletally-pad';
/** A dead spot often swallows requests rather than refusing them: use the copy after this long. */
const NETWORK_MS = 4000;

/** The worker's global scope (the page's type-check knows only windows). */
const worker = /** @type {any} */ (self);

worker.addEventListener('install', (/** @type {any} */ event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (/** @type {any} */ event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('fetch', (/** @type {any} */ event) => {
  const request = /** @type {Request} */ (event.request);
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== worker.location.origin || !SHELL.includes(url.pathname)) return;
  event.respondWith(networkElseCopy(request, url.pathname));
});

/** @param {Request} request @param {string} path @returns {Promise<Response>} */
async function networkElseCopy(request, path) {
  const cache = await caches.open(CACHE);
  const network = fetch(request).then(async (response) => {
    if (response.ok) await cache.put(path, response.clone());
    return response;
  });
  const slow = new Promise((resolve) => { setTimeout(resolve, NETWORK_MS); });
  try {
    const first = await Promise.race([network, slow]);
    if (first) return /** @type {Response} */ (first);
    const copy = await cache.match(path);
    return copy ?? await network;
  } catch (err) {
    const copy = await cache.match(path);
    if (copy) return copy;
    throw err;
  }
}
