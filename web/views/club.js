// Opening the club: create one (its token is shown once and kept in this browser), paste a
// token from another phone, or open a phone's link (#/join/<token>). Also where a phone is
// added (a token of its own, handed over as a link and QR code) and the token is forgotten.
import { createClub, createToken, linkBases, listGames, qrCodeUrl, useToken, ApiError } from '../api.js';
import { getState, update } from '../state.js';
import { h, field, handOut, replace, showProblem, clearErrors } from '../ui.js';

/** The link that opens the club on another phone with `token`. @param {string} token */
const joinPath = (token) => `/#/join/${encodeURIComponent(token)}`;

/** @param {HTMLElement} root */
export function mount(root) {
  const state = getState();
  const name = /** @type {HTMLInputElement} */ (h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'organization', placeholder: 'Friday games' }));
  const token = /** @type {HTMLInputElement} */ (h('input', { name: 'token', required: true, autocomplete: 'off', spellcheck: 'false' }));

  const createForm = h('form', { class: 'card', dataset: { pointer: '/name' } },
    h('h2', null, 'Start a club'),
    h('p', null, 'A club keeps your table’s games and players. Its key is kept in this browser.'),
    field('Club name', name),
    h('button', { type: 'submit', class: 'primary' }, 'Create the club'));
  createForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(createForm);
    try {
      const club = await createClub(name.value.trim());
      update({ token: club.token, clubName: club.name });
      useToken(club.token);
      const where = await linkBases();
      root.replaceChildren(h('section', { class: 'card' },
        h('h2', null, `${club.name} is ready`),
        h('p', null, 'This is the club’s key. Keep it somewhere safe: it is shown only once, and another phone opens the club with it.'),
        h('p', null, h('code', { class: 'token', id: 'club-token' }, club.token)),
        h('details', null, h('summary', null, 'Open the club on another phone with this key'),
          handOut(where, joinPath(club.token), { id: 'club-link', alt: 'QR code that opens the club', qr: qrCodeUrl }),
          h('p', { class: 'help' }, 'Better: give each phone its own key under Your club → Add a phone, so the log says who recorded what.')),
        h('a', { class: 'button primary', href: '#/new' }, 'Start a game')));
    } catch (err) {
      showProblem(createForm, err instanceof ApiError ? err.problem : { detail: String(err) });
    }
  });

  const pasteForm = h('form', { class: 'card', dataset: { pointer: '/token' } },
    h('h2', null, 'Open a club'),
    field('Club key (token)', token, 'Paste the key from the phone that created the club.'),
    h('button', { type: 'submit' }, 'Open'));
  pasteForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(pasteForm);
    const value = token.value.trim();
    useToken(value);
    try {
      await listGames({ limit: 1 });
      update({ token: value, clubName: null });
      window.location.hash = '#/';
    } catch (err) {
      useToken(getState().token);
      const problem = err instanceof ApiError ? err.problem : { detail: String(err) };
      showProblem(pasteForm, { ...problem, pointer: '/token', detail: err instanceof ApiError && err.status === 401 ? 'This key does not open any club.' : problem.detail });
    }
  });

  const current = state.token
    ? h('section', { class: 'card' },
      h('h2', null, state.clubName ? `Club: ${state.clubName}` : 'This browser has a club open'),
      h('button', { type: 'button', onclick: () => { update({ token: null, clubName: null }); window.location.hash = '#/club'; window.location.reload(); } }, 'Forget the club on this browser'))
    : null;

  // Element.append would print a null as "null": the helper skips it.
  replace(root, h('h1', null, 'Your club'), current, state.token ? addPhoneForm() : null, createForm, pasteForm);
  return () => {};
}

/** "Add a phone": a key of its own (scope write, named after its owner) as a link and QR code. */
function addPhoneForm() {
  const owner = /** @type {HTMLInputElement} */ (h('input', { name: 'owner', required: true, maxlength: 90, autocomplete: 'off', placeholder: 'Ann' }));
  const box = h('div', { class: 'share-box' });
  const form = h('form', { class: 'card', id: 'add-phone', dataset: { pointer: '/name' } },
    h('h2', null, 'Add a phone'),
    h('p', null, 'Each phone gets a key of its own: the log then says whose phone recorded each round. It can record games, not manage keys.'),
    field('Whose phone?', owner),
    h('button', { type: 'submit' }, 'Make its link'),
    box);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form);
    try {
      const [issued, where] = await Promise.all([createToken(`${owner.value.trim()}'s phone`, 'write'), linkBases()]);
      replace(box,
        h('p', null, `Open this on ${issued.name} (scan the code with its camera). It is shown only once.`),
        handOut(where, joinPath(issued.token), { id: 'phone-link', alt: `QR code that opens the club on ${issued.name}`, qr: qrCodeUrl }));
    } catch (err) {
      showProblem(form, err instanceof ApiError ? err.problem : { detail: String(err) });
    }
  });
  return form;
}

/**
 * `#/join/<token>`: a phone opens the club with the key in its link, keeps it, and drops it from
 * the address bar and history.
 * @param {HTMLElement} root @param {string} value
 */
export function mountJoin(root, value) {
  root.append(h('p', null, 'Opening the club…'));
  useToken(value);
  listGames({ limit: 1 }).then(() => {
    update({ token: value, clubName: null });
    window.history.replaceState(null, '', '#/');
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  }, (err) => {
    useToken(getState().token);
    replace(root, h('h1', null, 'This link does not open a club'),
      h('p', { class: 'field-error' }, err instanceof ApiError && err.status === 401
        ? 'Its key was revoked or cut short. Ask for a new link.'
        : err instanceof ApiError ? err.message : String(err)));
  });
  return () => {};
}
