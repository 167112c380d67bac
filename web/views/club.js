// Opening the club: create one (its token is shown once and kept in this browser), paste a
// token from another phone, or open a phone's link (#/join/<token>). Also where a phone is
// added (a token of its own, handed over as a link and QR code) and the token is forgotten.
import { createClub, createToken, linkBases, listGames, qrCodeUrl, useToken, ApiError } from '../api.js';
import { getState, update } from '../state.js';
import { h, field, handOut, replace, showProblem, clearErrors } from '../ui.js';
import { plain, t } from '../i18n.js';

/** The link that opens the club on another phone with `token`. @param {string} token */
const joinPath = (token) => `/#/join/${encodeURIComponent(token)}`;

/** @param {HTMLElement} root */
export function mount(root) {
  const state = getState();
  const name = /** @type {HTMLInputElement} */ (h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'organization', placeholder: t('pad.club.name_placeholder') }));
  const token = /** @type {HTMLInputElement} */ (h('input', { name: 'token', required: true, autocomplete: 'off', spellcheck: 'false' }));

  const createForm = h('form', { class: 'card', dataset: { pointer: '/name' } },
    h('h2', null, t('pad.club.start')),
    h('p', null, t('pad.club.start_help')),
    field(t('pad.club.name'), name),
    h('button', { type: 'submit', class: 'primary' }, t('pad.club.create')));
  createForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(createForm);
    try {
      const club = await createClub(name.value.trim());
      update({ token: club.token, clubName: club.name });
      useToken(club.token);
      const where = await linkBases();
      root.replaceChildren(h('section', { class: 'card' },
        h('h2', null, t('pad.club.ready', { club: club.name })),
        h('p', null, t('pad.club.key_once')),
        h('p', null, h('code', { class: 'token', id: 'club-token' }, club.token)),
        h('details', null, h('summary', null, t('pad.club.open_elsewhere')),
          handOut(where, joinPath(club.token), { id: 'club-link', alt: t('pad.club.qr'), qr: qrCodeUrl }),
          h('p', { class: 'help' }, t('pad.club.better'))),
        h('a', { class: 'button primary', href: '#/new' }, t('pad.club.start_game'))));
    } catch (err) {
      showProblem(createForm, err instanceof ApiError ? err.problem : { detail: String(err) });
    }
  });

  const pasteForm = h('form', { class: 'card', dataset: { pointer: '/token' } },
    h('h2', null, t('pad.club.open')),
    field(t('pad.club.key'), token, t('pad.club.key_help')),
    h('button', { type: 'submit' }, t('pad.club.open_button')));
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
      showProblem(pasteForm, { ...problem, pointer: '/token', detail: err instanceof ApiError && err.status === 401 ? t('pad.club.bad_key') : problem.detail });
    }
  });

  const current = state.token
    ? h('section', { class: 'card' },
      h('h2', null, state.clubName ? t('pad.club.current', { club: state.clubName }) : t('pad.club.current_unnamed')),
      h('button', { type: 'button', onclick: () => { update({ token: null, clubName: null }); window.location.hash = '#/club'; window.location.reload(); } }, t('pad.club.forget')))
    : null;

  // Element.append would print a null as "null": the helper skips it.
  replace(root, h('h1', null, t('pad.club.title')), current, state.token ? addPhoneForm() : null, createForm, pasteForm);
  return () => {};
}

/** "Add a phone": a key of its own (scope write, named after its owner) as a link and QR code. */
function addPhoneForm() {
  const owner = /** @type {HTMLInputElement} */ (h('input', { name: 'owner', required: true, maxlength: 90, autocomplete: 'off', placeholder: t('pad.phone.owner_placeholder') }));
  const box = h('div', { class: 'share-box' });
  const form = h('form', { class: 'card', id: 'add-phone', dataset: { pointer: '/name' } },
    h('h2', null, t('pad.phone.add')),
    h('p', null, t('pad.phone.help')),
    field(t('pad.phone.owner'), owner),
    h('button', { type: 'submit' }, t('pad.phone.make_link')),
    box);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form);
    try {
      const [issued, where] = await Promise.all([createToken(plain('pad.phone.token_name', { owner: owner.value.trim() }), 'write'), linkBases()]);
      replace(box,
        h('p', null, t('pad.phone.open_on', { phone: issued.name })),
        handOut(where, joinPath(issued.token), { id: 'phone-link', alt: t('pad.phone.qr', { phone: issued.name }), qr: qrCodeUrl }));
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
  root.append(h('p', null, t('pad.join.opening')));
  useToken(value);
  listGames({ limit: 1 }).then(() => {
    update({ token: value, clubName: null });
    window.history.replaceState(null, '', '#/');
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  }, (err) => {
    useToken(getState().token);
    replace(root, h('h1', null, t('pad.join.failed')),
      h('p', { class: 'field-error' }, err instanceof ApiError && err.status === 401
        ? t('pad.join.revoked')
        : err instanceof ApiError ? err.message : String(err)));
  });
  return () => {};
}
