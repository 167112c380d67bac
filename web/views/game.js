// One game: the entry form for the next step, the scoreboard and the log; corrections,
// take-backs, abandon/resume, and the share link. Live updates feed the state; this view
// renders from it (the entry form only when the step changes, so typing is never lost).
import { appendEvents, createShare, linkBases, qrCodeUrl, ApiError } from '../api.js';
import { gameById } from '../games/index.js';
import { inPlayersWords } from '../games/forms.js';
import { follow, reload } from '../live.js';
import { effectiveEvents, getState, subscribe, update } from '../state.js';
import { h, replace, showProblem, clearErrors, newId, field, handOut, Incomplete } from '../ui.js';
import * as scoreboard from './scoreboard.js';
import * as log from './log.js';

/** @param {HTMLElement} root @param {string} id */
export function mount(root, id) {
  update({ game: null, score: null, events: [], way: null });
  const header = h('header', { class: 'game-head' }, h('h1', null, 'Loading…'));
  const entry = h('section', { class: 'entry-box', 'aria-label': 'Record' });
  const board = h('section', { class: 'board', 'aria-label': 'Scoreboard' });
  const logBox = h('section', { class: 'log-box', 'aria-label': 'Log' });
  const tools = h('section', { class: 'tools', 'aria-label': 'Game tools' });
  root.append(header, entry, board, logBox, tools);

  /** The step the entry form was built for; rebuilt only when it changes. */
  let formKey = '';
  /** @type {{element: HTMLElement, events: () => any[]} | null} */
  let form = null;
  /** Set by this phone's Record: the next step's form comes to the top, its first field focused. */
  let recorded = false;

  const readOnly = () => Boolean(getState().share);

  /** Sends events; a refusal is shown next to the field its pointer names. */
  const send = async (/** @type {HTMLElement} */ where, /** @type {any[]} */ events, /** @type {() => void} */ done = () => {}) => {
    clearErrors(where);
    const state = getState();
    const withIds = events.map((e) => ({ id: newId(), ...e }));
    try {
      await appendEvents(id, state.game?.version ?? null, withIds);
      done();
      await reload(id);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        await reload(id);
        showProblem(where, { detail: 'Someone else recorded something first; the page now shows it. Check and send again.' });
      } else {
        showProblem(where, err instanceof ApiError ? inPlayersWords(err.problem, gameById(getState().game?.game ?? '')) : { detail: String(err) });
      }
    }
  };

  /** What a form is built from: the game, the events that count, and the server's view of the table. */
  const context = () => {
    const { game, events, score, way } = getState();
    return { game, effective: effectiveEvents(events), details: score?.details ?? null, way, onWay: (/** @type {string} */ w) => update({ way: w }) };
  };

  /** A form's events, or the reason it cannot be sent yet (shown like a refusal). */
  const eventsOf = (/** @type {HTMLElement} */ where, /** @type {() => any[]} */ events) => {
    try {
      return events();
    } catch (err) {
      showProblem(where, err instanceof Incomplete ? err : { detail: String(err) });
      return null;
    }
  };

  const renderEntry = () => {
    const { game, events } = getState();
    if (!game) return;
    const rules = gameById(game.game);
    const ctx = context();
    const progress = rules?.progress(game, ctx.effective, ctx.details);
    // Any new event (a turn, a correction, from any phone) may change what comes next.
    const key = `${game.status}:${events.length}:${readOnly()}`;
    if (key === formKey) return;
    formKey = key;
    if (readOnly() || !rules) { replace(entry); return; }
    if (game.status === 'abandoned') {
      replace(entry, h('p', { class: 'card' }, 'This game was abandoned. Take back the “abandon” in the log to resume it.'));
      return;
    }
    if (game.status === 'finished' || progress?.done) { replace(entry); return; }
    form = rules.form(ctx);
    const formEl = h('form', { class: 'entry-form', id: 'entry' }, form.element,
      h('button', { type: 'submit', class: 'primary' }, 'Record'));
    formEl.addEventListener('submit', (e) => {
      e.preventDefault();
      const events = form ? eventsOf(formEl, form.events) : null;
      if (!events) return;
      // Set before sending: the live stream may bring the new step before the answer does.
      recorded = true;
      send(formEl, events).finally(() => { recorded = false; });
    });
    replace(entry, h('h2', null, progress?.step ?? 'Record'), formEl);
    if (recorded) {
      recorded = false;
      entry.scrollIntoView({ block: 'start' });
      // Its first field, past the choice of ways (a way already chosen stays chosen).
      const first = [...formEl.querySelectorAll('input, select, textarea, button')]
        .find((el) => !el.closest('fieldset.ways') && !el.closest('[hidden]'));
      /** @type {HTMLElement | undefined} */ (first)?.focus({ preventScroll: true });
    }
  };

  const startCorrection = (/** @type {any} */ event) => {
    const { game } = getState();
    const rules = gameById(game.game);
    const ctx = context();
    const effective = ctx.effective;
    const current = effective.find((e) => e.seq === event.seq)?.data ?? event.data;
    // Optional: left empty, the log says "corrected on the pad" (no placeholder that looks filled in).
    const reason = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', maxlength: 200 }));
    const reasonField = field('Reason (optional)', reason);
    reasonField.dataset.pointer = '/events/0/data/reason';
    let correction;
    let body;
    if (rules?.correctable.includes(event.type)) {
      correction = rules.form({ ...ctx, initial: current });
      body = correction.element;
    } else {
      const text = /** @type {HTMLTextAreaElement} */ (h('textarea', { rows: 8, spellcheck: 'false' }, JSON.stringify(current, null, 2)));
      body = field('The event’s data (JSON)', text);
      correction = { events: () => [{ type: event.type, data: JSON.parse(text.value) }] };
    }
    // The form's pointers name its own event's data; a correction nests it one level down.
    const nest = () => {
      for (const el of body.querySelectorAll('[data-pointer]')) {
        const p = /** @type {HTMLElement} */ (el);
        p.dataset.pointer = (p.dataset.pointer ?? '').replace(/\/events\/0\/data(?!\/data)/g, '/events/0/data/data');
      }
    };
    nest();
    const formEl = h('form', { class: 'entry-form correction', id: 'correction' },
      h('h2', null, `Correct #${event.seq}`), body, reasonField,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Save the correction'),
        h('button', { type: 'button', onclick: () => { formKey = ''; renderEntry(); } }, 'Cancel')));
    formEl.addEventListener('submit', (e) => {
      e.preventDefault();
      let data;
      try {
        data = correction.events()[0].data;
      } catch (err) {
        showProblem(formEl, err instanceof Incomplete ? err : { detail: `Not valid JSON: ${err}` });
        return;
      }
      nest();
      send(formEl, [{ type: 'correct', data: { seq: event.seq, data, reason: reason.value.trim() || 'corrected on the pad' } }], () => { formKey = ''; });
    });
    formKey = 'correcting';
    replace(entry, formEl);
    formEl.scrollIntoView({ block: 'start' });
  };

  const render = () => {
    const { game, score, events, share, live } = getState();
    if (!game) return;
    const rules = gameById(game.game);
    replace(header,
      h('h1', null, rules?.name ?? game.game),
      h('p', { class: 'meta' }, h('span', { class: `status status-${game.status}` }, game.status.replace('_', ' ')), ' · ',
        game.players.map((/** @type {any} */ p) => p.name).join(', '),
        live === 'live' ? h('span', { class: 'live-dot', title: 'live' }, ' ● live') : null,
        share ? h('span', { class: 'readonly' }, ' · read-only link') : null),
      rules?.describe(game) ?? null);
    renderEntry();
    replace(board, h('h2', null, 'Scoreboard'), scoreboard.render(score));
    replace(logBox, h('h2', null, 'Log'), log.render(events, {
      readOnly: readOnly(),
      canCorrect: (e) => !['retract', 'correct', 'abandon', 'game_started'].includes(e.type),
      onCorrect: startCorrection,
      onRetract: (e, reason) => {
        const li = logBox.querySelector(`[data-seq="${e.seq}"]`) ?? logBox;
        send(/** @type {HTMLElement} */ (li), [{ type: 'retract', data: { seq: e.seq, reason } }]);
      },
    }));
    renderTools();
  };

  let toolsKey = '';
  const renderTools = () => {
    const { game } = getState();
    const key = `${game?.status}:${readOnly()}`;
    if (key === toolsKey) return;
    toolsKey = key;
    if (readOnly() || !game) { replace(tools); return; }
    const shareBox = h('div', { class: 'share-box' });
    const hours = /** @type {HTMLSelectElement} */ (h('select', null, [[4, '4 hours'], [24, '1 day'], [168, '1 week']].map(([v, l]) => h('option', { value: v, selected: v === 24 }, l))));
    const shareForm = h('form', { class: 'inline', id: 'share-form' }, field('Link valid for', hours),
      h('button', { type: 'submit' }, 'Share a read-only link'));
    shareForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearErrors(shareForm);
      try {
        const [share, where] = await Promise.all([createShare(id, Number(hours.value)), linkBases()]);
        const path = `/#/share/${encodeURIComponent(id)}/${encodeURIComponent(share.token)}`;
        replace(shareBox,
          h('p', null, 'Anyone with this link can follow the game (read-only) until ', new Date(share.expires_at).toLocaleString(), '.'),
          handOut(where, path, { id: 'share-link', alt: 'QR code of the share link', qr: qrCodeUrl }));
      } catch (err) {
        const problem = err instanceof ApiError ? err.problem : { detail: String(err) };
        showProblem(shareForm, err instanceof ApiError && err.status === 404
          ? { detail: 'This server cannot make share links yet.' } : problem);
      }
    });
    const reason = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', placeholder: 'we ran out of time', maxlength: 200 }));
    const abandonForm = h('form', { class: 'inline', dataset: { pointer: '/events/0' } }, field('Reason', reason),
      h('button', { type: 'submit', class: 'danger' }, 'Abandon the game'));
    abandonForm.addEventListener('submit', (e) => { e.preventDefault(); send(abandonForm, [{ type: 'abandon', data: { reason: reason.value.trim() || 'abandoned' } }]); });
    replace(tools, h('h2', null, 'Share'), shareForm, shareBox,
      game.status === 'in_progress' ? [h('h2', null, 'Stop'), abandonForm] : null);
  };

  const unsubscribe = subscribe((_state, changed) => {
    if (changed.has('game') || changed.has('score') || changed.has('events') || changed.has('live')) render();
  });
  reload(id).catch((err) => {
    replace(header, h('h1', null, 'Game not found'), h('p', { class: 'field-error' }, err instanceof ApiError ? err.message : String(err)));
  });
  const stop = follow(id);
  return () => { unsubscribe(); stop(); };
}
