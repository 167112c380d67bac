// Opening the club: create one (its token is shown once and kept in this browser) or paste a
// token from another phone. Also where the token is forgotten.
import { createClub, listGames, useToken, ApiError } from '../api.js';
import { getState, update } from '../state.js';
import { h, field, showProblem, clearErrors } from '../ui.js';

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
      root.replaceChildren(h('section', { class: 'card' },
        h('h2', null, `${club.name} is ready`),
        h('p', null, 'This is the club’s key. Keep it somewhere safe: it is shown only once, and another phone opens the club with it.'),
        h('p', null, h('code', { class: 'token', id: 'club-token' }, club.token)),
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

  root.append(h('h1', null, 'Your club'), current, createForm, pasteForm);
  return () => {};
}
