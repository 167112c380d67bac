// Opening the club: create one (its token is shown once and kept in this browser), paste a
// token from another phone, or open a phone's link (#/join/<token>). Also where a phone is
// added (a token of its own, handed over as a link and QR code), the token is forgotten, and
// the clubs this phone had open before are switched back to. A link to another club than the
// one open asks first: a link must never move a phone to another club unnoticed.
import { createClub, createToken, getClub, linkBases, qrCodeUrl, useToken, ApiError } from '../api.js';
import { earlierClubs, getState, switchClub, update } from '../state.js';
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
      switchClub({ token: club.token, name: club.name });
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
    try {
      const club = await getClub(value);
      switchClub({ token: value, name: club.name });
      showGames();
    } catch (err) {
      const problem = err instanceof ApiError ? err.problem : { detail: String(err) };
      showProblem(pasteForm, { ...problem, pointer: '/token', detail: err instanceof ApiError && err.status === 401 ? t('pad.club.bad_key') : problem.detail });
    }
  });

  const heading = h('h2', { id: 'current-club' }, state.clubName ? t('pad.club.current', { club: state.clubName }) : t('pad.club.current_unnamed'));
  const current = state.token
    ? h('section', { class: 'card' },
      heading,
      h('button', { type: 'button', onclick: () => { update({ token: null, clubName: null }); window.location.hash = '#/club'; window.location.reload(); } }, t('pad.club.forget')))
    : null;
  let open = true;
  if (state.token && !state.clubName) {
    // Opened with a key from a link or pasted before the page kept names: ask the club's.
    const asked = state.token;
    getClub().then((club) => {
      if (getState().token !== asked) return;
      update({ clubName: club.name });
      if (open) heading.textContent = t('pad.club.current', { club: club.name });
    }, () => {});
  }

  // Element.append would print a null as "null": the helper skips it.
  replace(root, h('h1', null, t('pad.club.title')), current, earlierList(), state.token ? addPhoneForm() : null, createForm, pasteForm);
  return () => { open = false; };
}

/** Shows the games of the club now open (also when the address already is `#/`). */
function showGames() {
  if (window.location.hash === '#/') window.dispatchEvent(new HashChangeEvent('hashchange'));
  else window.location.hash = '#/';
}

/**
 * "Earlier clubs on this phone": the clubs it had open before a switch, each with a button that
 * opens it again (the club open now takes its place in the list). Names only, never a key.
 */
function earlierList() {
  const earlier = earlierClubs();
  if (!earlier.length) return null;
  return h('section', { class: 'card', id: 'earlier-clubs' },
    h('h2', null, t('pad.club.earlier')),
    h('p', { class: 'help' }, t('pad.club.earlier_help')),
    h('ul', { class: 'earlier' }, earlier.map((club) => {
      const name = club.name ?? t('pad.club.earlier_unnamed');
      return h('li', null,
        h('span', { class: 'name' }, name),
        h('button', { type: 'button', 'aria-label': t('pad.club.switch_back_to', { club: name }), onclick: () => { switchClub(club); showGames(); } },
          t('pad.club.switch_back')));
    })));
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
 * the address bar and history. A phone that has another club's key open is asked first, naming
 * both clubs: *Stay* leaves everything as it was, *Switch* keeps the key open until now under
 * "Earlier clubs on this phone". The link's key is only used to ask its club's name until then.
 * @param {HTMLElement} root @param {string} value
 */
export function mountJoin(root, value) {
  let open = true;
  /** The games of the club open now, without the link in the address bar or the history. */
  const toGames = () => {
    if (!open) return;
    window.history.replaceState(null, '', '#/');
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  };
  const before = getState();
  root.append(h('p', null, t('pad.join.opening')));
  if (before.token === value) {
    // The key this phone already has: nothing to ask (after this view is mounted).
    queueMicrotask(toGames);
    return () => { open = false; };
  }
  const current = before.token;
  Promise.all([
    getClub(value),
    // The club open now, by name; unknown (offline, its key revoked) when this fails.
    current ? getClub(current).catch(() => null) : Promise.resolve(null),
  ]).then(([club, now]) => {
    if (!open) return;
    if (!current) {
      // Nothing to replace: the club opens at once.
      switchClub({ token: value, name: club.name });
      toGames();
      return;
    }
    const currentName = now?.name ?? before.clubName;
    const question = now && now.id === club.id
      ? t('pad.join.question_same', { club: club.name })
      : currentName
        ? t('pad.join.question', { current: currentName, club: club.name })
        : t('pad.join.question_unnamed', { club: club.name });
    replace(root, h('section', { class: 'card', id: 'join-question' },
      h('h1', null, t('pad.join.ask_title')),
      h('p', { class: 'question' }, question),
      h('p', { class: 'help' }, t('pad.join.ask_help')),
      h('div', { class: 'row join-actions' },
        h('button', { type: 'button', class: 'primary stay', onclick: toGames }, t('pad.join.stay')),
        h('button', { type: 'button', class: 'switch', onclick: () => {
          switchClub({ token: value, name: club.name }, currentName);
          toGames();
        } }, t('pad.join.switch')))));
    /** @type {HTMLElement | null} */ (root.querySelector('button.stay'))?.focus({ preventScroll: true });
  }, (err) => {
    if (!open) return;
    replace(root, h('h1', null, t('pad.join.failed')),
      h('p', { class: 'field-error' }, err instanceof ApiError && err.status === 401
        ? t('pad.join.revoked')
        : err instanceof ApiError ? err.message : String(err)));
  });
  return () => { open = false; };
}
