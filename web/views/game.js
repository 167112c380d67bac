// One game: the entry form for the next step, the scoreboard and the log; corrections,
// take-backs, abandon/resume, and the share link. Live updates feed the state; this view
// renders from it. What this phone records is never lost: the entry form is rebuilt only when
// nobody touched it (another phone's entry arriving meanwhile is shown next to it instead), a
// Record waits on the phone until the server confirms it (outbox.js), and a Record another phone
// beat shows both entries and lets the table choose.
import { appendEvents, createShare, linkBases, qrCodeUrl, ApiError, unreachable } from '../api.js';
import { gameById } from '../games/index.js';
import { inPlayersWords } from '../games/forms.js';
import { entryLines } from '../games/describe.js';
import { follow, reload } from '../live.js';
import * as outbox from '../outbox.js';
import { effectiveEvents, getState, subscribe, update } from '../state.js';
import { h, replace, showProblem, showNotice, clearErrors, newId, field, handOut, Incomplete, when } from '../ui.js';
import { joined, plural, spoken, t } from '../i18n.js';
import * as scoreboard from './scoreboard.js';
import * as log from './log.js';
import * as conflictView from './conflict.js';
import { gameRatings } from './ratings.js';

/** How often entries waiting on the phone are offered to the server again. */
const RESEND_MS = 5000;
/**
 * How long a Record waits for the server's answer before the table goes on with the next step
 * (the entry is safe on the phone; a dead spot may hold the answer much longer).
 */
const PATIENCE_MS = 2000;

/** The reason a correction made from the conflict screen carries. */
const twoPhones = () => t('pad.game.two_phones_reason');

/** A refusal in the page's own words (its labels for the options and fields the server names by key). @param {any} problem */
const inWords = (problem) => inPlayersWords(problem, gameById(getState().game?.game ?? ''));

/** The entries still to be sent (a taken-back one waits only to be checked). @param {import('../outbox.js').Entry[]} waiting */
const toSend = (waiting) => waiting.filter((e) => !e.takenBack);

/**
 * The entries the log does not hold yet: what comes before the next step. (An entry just sent
 * may still be listed for a moment after the live stream brought its events.)
 */
const unstored = () => {
  const { waiting, events } = getState();
  const stored = new Set(events.map((e) => e.id));
  return toSend(waiting).filter((w) => w.events.some((e) => !stored.has(e.id)));
};

/** @param {import('../outbox.js').Entry[]} waiting */
const waitingEvents = (waiting) => waiting.reduce((n, e) => n + e.events.length, 0);

/** "2 rounds waiting to be sent", "1 entry …": what is waiting, in the table's words. @param {import('../outbox.js').Entry[]} waiting */
function waitingCount(waiting) {
  // Entries kept before the page knew languages say it only in their English label.
  const rounds = waiting.every((e) => e.round ?? /^Round \d+ of \d+$/.test(e.label));
  const n = waiting.length;
  return rounds ? plural(n, 'pad.waiting.rounds_one', 'pad.waiting.rounds_other') : plural(n, 'pad.waiting.entries_one', 'pad.waiting.entries_other');
}

/** @param {HTMLElement} root @param {string} id */
export function mount(root, id) {
  update({ game: null, score: null, events: [], way: null, waiting: [] });
  const header = h('header', { class: 'game-head' }, h('h1', null, t('pad.loading')));
  const waitingBox = h('section', { class: 'waiting-box', 'aria-label': t('pad.game.waiting_box'), 'aria-live': 'polite' });
  const entry = h('section', { class: 'entry-box', 'aria-label': t('pad.game.record') });
  const board = h('section', { class: 'board', 'aria-label': t('pad.game.scoreboard') });
  const logBox = h('section', { class: 'log-box', 'aria-label': t('pad.game.log') });
  const tools = h('section', { class: 'tools', 'aria-label': t('pad.game.tools') });
  // The favourite before the first round, the ratings' changes once finished (ratings.js).
  const ratingsBox = h('div', { class: 'ratings-box' });
  let ratingsShown = '';
  root.append(header, waitingBox, entry, board, ratingsBox, logBox, tools);

  /** The step the entry form was built for; rebuilt only when it changes. */
  let formKey = '';
  /** @type {{element: HTMLElement, events: () => any[]} | null} */
  let form = null;
  /** Set by this phone's Record: the next step's form comes to the top, its first field focused. */
  let recorded = false;
  /** @type {HTMLElement | null} */
  let formEl = null;
  let stepLabel = t('pad.game.record');
  /** Whether the step is a whole round (the waiting box counts rounds). */
  let stepRound = false;
  /** The server's version when the form was built, and with this phone's waiting entries counted in. */
  let seenVersion = 0;
  let builtAt = 0;
  /** Whether someone touched the form: then it is never rebuilt behind their back. */
  let touched = false;
  /** The ids of the events the form on screen sent: once the log holds them, the next step's form is built. */
  /** @type {string[]} */
  let submitted = [];
  /** Another phone's entry shown next to the form: `refused` once the server said 409 to ours. */
  /** @type {{refused: boolean} | null} */
  let formConflict = null;
  /** The ids of the events this phone sent, to tell them from other phones' in the log. */
  const mine = new Set();

  const readOnly = () => Boolean(getState().share);

  /** The events stored after `version` that other phones recorded. @param {number} version */
  const othersAfter = (version) => getState().events.filter((e) => e.seq > version && !mine.has(e.id));

  /** Sends events at once (corrections, take-backs); a refusal is shown next to the field its pointer names. */
  const send = async (/** @type {HTMLElement} */ where, /** @type {any[]} */ events, /** @type {() => void} */ done = () => {}) => {
    clearErrors(where);
    const state = getState();
    const withIds = events.map((e) => ({ id: newId(), ...e }));
    for (const e of withIds) mine.add(e.id);
    try {
      await appendEvents(id, state.game?.version ?? null, withIds);
      done();
      await reload(id);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        await reload(id);
        showProblem(where, { detail: t('pad.game.someone_first') });
      } else {
        showProblem(where, err instanceof ApiError ? inWords(err.problem) : { detail: String(err) });
      }
    }
  };

  /**
   * Offers the waiting entries to the server again; reads the game when some went through.
   * A read-only link sends nothing (its token may not record): `null`.
   * @returns {Promise<import('../outbox.js').Outcome | null>}
   */
  const resend = async () => {
    if (readOnly()) return null;
    const before = getState().waiting.length;
    let outcome = await outbox.send(id);
    // Refused for its place, with nothing from another phone after it (this phone's own entries,
    // stored by a try whose answer was lost): not two phones' entries — it goes after them.
    for (let again = 0; outcome.status === 'conflict' && again < 2; again += 1) {
      await reload(id).catch(() => {});
      const blocked = outcome.entry;
      if (othersAfter(blocked.baseVersion ?? 0).length > 0) break;
      await outbox.retry(blocked, getState().game?.version ?? 0);
      outcome = await outbox.send(id);
    }
    if (outcome.status !== 'unreachable' && getState().waiting.length < before) await reload(id).catch(() => {});
    return outcome;
  };

  /** What a form is built from: the game, the events that count (this phone's waiting ones too), and the server's view of the table. */
  const context = () => {
    const { game, events, score, way } = getState();
    let seq = game?.version ?? 0;
    const pending = unstored().flatMap((w) => w.events.map((e) => {
      seq += 1;
      return { ...e, seq, recorded_at: w.queuedAt, pending: true };
    }));
    return { game, effective: effectiveEvents([...events, ...pending]), details: score?.details ?? null, way, onWay: (/** @type {string} */ w) => update({ way: w }) };
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

  /** The form's events without complaining (a half-filled form has none yet). */
  const formEvents = () => {
    try { return form?.events() ?? null; } catch { return null; }
  };

  /** Forgets the form (sent, or the table kept the other phone's entry): the next step's is built. */
  const nextStep = () => {
    form = null;
    formEl = null;
    touched = false;
    formConflict = null;
    formKey = '';
    renderEntry();
  };

  /** Records the form: kept on the phone first, then sent with the entries waiting before it. */
  const record = async (/** @type {HTMLElement} */ where, /** @type {any[]} */ events) => {
    clearErrors(where);
    const withIds = events.map((e) => ({ id: newId(), ...e }));
    for (const e of withIds) mine.add(e.id);
    submitted = withIds.map((e) => e.id);
    // Kept with the club's key: it goes with it even if another club is opened meanwhile.
    const kept = await outbox.keep({ gameId: id, club: getState().token, baseVersion: builtAt, events: withIds, label: stepLabel, round: stepRound, queuedAt: new Date().toISOString() });
    const answer = resend();
    const outcome = await Promise.race([answer, new Promise((resolve) => { setTimeout(() => resolve('later'), PATIENCE_MS); })]);
    if (outcome === 'later') {
      // No answer yet (a dead spot): it waits on the phone, shown with its take-back in the
      // waiting box, which says what becomes of it.
      await outbox.publish(id);
      if (formEl === where) nextStep();
      return;
    }
    if (!outcome || typeof outcome === 'string') return;
    if (outcome.status === 'sent') {
      showNotice(null);
      await reload(id).catch(() => {});
      // The live stream may have brought the next step's form already (perhaps being filled in).
      if (formEl === where) nextStep();
      return;
    }
    if (outcome.entry.key !== kept.key || outcome.status === 'unreachable') {
      // Not sent yet: it waits on the phone (the waiting box says why), and the table goes on.
      if (formEl === where) nextStep();
      return;
    }
    // The table went on meanwhile: the waiting box shows what became of it.
    if (formEl !== where) return;
    // Refused or beaten by another phone: the form still holds it, the outbox need not.
    recorded = false;
    await outbox.forget(outcome.entry);
    if (outcome.status === 'conflict') {
      await reload(id).catch(() => {});
      formConflict = { refused: true };
      renderEntry(true);
    } else {
      showProblem(where, inWords(outcome.error?.problem ?? { detail: t('pad.problem.refused') }));
    }
  };

  /** Records this phone's data as a correction of the other phone's event `theirs`. */
  const correctTheirs = async (/** @type {any} */ theirs, /** @type {any} */ data, /** @type {HTMLElement} */ where) => {
    const correction = { id: newId(), type: 'correct', data: { seq: theirs.seq, data, reason: twoPhones() } };
    mine.add(correction.id);
    try {
      await appendEvents(id, getState().game?.version ?? null, [correction]);
      await reload(id).catch(() => {});
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) await reload(id).catch(() => {});
      showProblem(where, err instanceof ApiError ? inWords(err.problem) : { detail: String(err) });
      return false;
    }
  };

  /** The other phone's event this entry competes with: the same kind of event, for the same round if it says one. */
  const rival = (/** @type {any[]} */ theirs, /** @type {any[] | null} */ ours) => {
    const first = ours?.[0];
    if (!first) return theirs.find((e) => !['retract', 'correct', 'abandon'].includes(e.type)) ?? null;
    return theirs.find((e) => e.type === first.type && (first.data?.round === undefined || e.data?.round === first.data.round))
      ?? theirs.find((e) => e.type === first.type) ?? null;
  };

  /** The conflict screen for the form on screen. */
  const formConflictPanel = () => {
    const theirs = othersAfter(seenVersion);
    const ours = formEvents();
    const match = rival(theirs, ours);
    const panel = conflictView.render({
      theirs,
      mine: { label: stepLabel, events: ours },
      where: t('pad.conflict.kept_below'),
      refusedMine: Boolean(formConflict?.refused),
      onKeepTheirs: nextStep,
      onCorrect: match ? async () => {
        if (!formEl || !form) return;
        const events = eventsOf(formEl, form.events);
        const data = events?.find((e) => e.type === match.type)?.data;
        if (!data) { showProblem(panel, { detail: t('pad.conflict.nothing_to_put', { what: conflictView.kindName(match.type) }) }); return; }
        if (await correctTheirs(match, data, panel)) nextStep();
      } : null,
      onSendAgain: match ? null : () => {
        // Theirs was something else (a take-back, say): this entry still goes after it.
        builtAt = (getState().game?.version ?? 0) + waitingEvents(unstored());
        seenVersion = getState().game?.version ?? 0;
        formConflict = null;
        /** @type {HTMLFormElement | null} */ (formEl)?.requestSubmit();
      },
    });
    return panel;
  };

  const renderEntry = (/** @type {boolean} */ force = false) => {
    const { game, events, waiting } = getState();
    if (!game) return;
    for (const w of waiting) for (const e of w.events) mine.add(e.id);
    const rules = gameById(game.game);
    // Any new event (a turn, a correction, from any phone) may change what comes next.
    const key = `${game.status}:${events.length}:${unstored().length}:${readOnly()}`;
    if ((key === formKey || formKey === 'correcting') && !force) return;
    formKey = key;
    const sent = submitted.length > 0 && submitted.every((i) => events.some((e) => e.id === i));
    if (form && formEl && touched && !sent && !readOnly()) {
      // Someone is filling this form in: keep it, and show what other phones recorded meanwhile.
      if (!formConflict && othersAfter(seenVersion).length > 0) formConflict = { refused: false };
      if (formConflict) replace(entry, h('h2', null, stepLabel), formConflictPanel(), formEl);
      return;
    }
    const ctx = context();
    const progress = rules?.progress(game, ctx.effective, ctx.details);
    form = null;
    formEl = null;
    formConflict = null;
    if (readOnly() || !rules) { replace(entry); return; }
    if (game.status === 'abandoned') {
      replace(entry, h('p', { class: 'card' }, t('pad.game.abandoned_note')));
      return;
    }
    if (game.status === 'finished' || progress?.done) { replace(entry); return; }
    const built = rules.form(ctx);
    stepLabel = progress?.step ?? t('pad.game.record');
    stepRound = Boolean(progress?.round);
    seenVersion = game.version;
    builtAt = game.version + waitingEvents(unstored());
    touched = false;
    submitted = [];
    const recordButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary record' }, t('pad.game.record')));
    const el = h('form', { class: 'entry-form', id: 'entry' }, built.element, recordButton);
    /** Set from Record until the form is done with: a second tap queues nothing. */
    let recording = false;
    const touch = (/** @type {Event} */ e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      if (e.type !== 'click' || (target.closest('button') && target.closest('button')?.getAttribute('type') !== 'submit')) touched = true;
    };
    el.addEventListener('input', touch);
    el.addEventListener('change', touch);
    el.addEventListener('click', touch);
    el.addEventListener('submit', (e) => {
      e.preventDefault();
      if (recording) return;
      const events = eventsOf(el, built.events);
      if (!events) return;
      // Set before sending: the live stream may bring the new step before the answer does.
      recorded = true;
      recording = true;
      recordButton.disabled = true;
      recordButton.textContent = t('pad.waiting.sending');
      record(el, events).finally(() => {
        // Still on screen (refused, or two phones' entries): it can be recorded again.
        recording = false;
        recordButton.disabled = false;
        recordButton.textContent = t('pad.game.record');
      });
    });
    form = built;
    formEl = el;
    replace(entry, h('h2', null, stepLabel), el);
    if (recorded) {
      // This phone's Record: the next step's form comes to the top, its first field focused
      // (past the choice of ways: a way already chosen stays chosen).
      recorded = false;
      // What waits on the phone stays in sight, right above the next step's form.
      (unstored().length ? waitingBox : entry).scrollIntoView({ block: 'start' });
      const first = [...el.querySelectorAll('input, select, textarea, button')]
        .find((x) => !x.closest('fieldset.ways') && !x.closest('[hidden]'));
      /** @type {HTMLElement | undefined} */ (first)?.focus({ preventScroll: true });
    }
  };

  /** What the waiting box was last drawn from: drawn again only when it changes (a tap is never lost). */
  let waitingKey = '';
  /** The entries waiting on this phone, and the choice for one another phone beat. */
  const renderWaiting = () => {
    const { waiting, live, events } = getState();
    const key = JSON.stringify([waiting.map((w) => [w.key, w.baseVersion, Boolean(w.conflict), Boolean(w.refused), Boolean(w.takenBack)]), events.length, live, readOnly()]);
    if (key === waitingKey) return;
    waitingKey = key;
    if (!waiting.length || readOnly()) { replace(waitingBox); return; }
    const blocked = waiting.find((w) => w.conflict || w.refused);
    if (blocked?.conflict && othersAfter(blocked.baseVersion ?? 0).length === 0) {
      // Nothing from another phone after it: its own earlier entry was stored; resend rebases it.
      resend();
    }
    const sendable = toSend(waiting);
    const last = sendable.at(-1);
    const items = waiting.map((w) => h('li', { class: w.refused ? 'waiting-entry refused' : w.takenBack ? 'waiting-entry taken-back' : 'waiting-entry', dataset: { key: w.key } },
      h('strong', null, w.label), ' ',
      w.takenBack ? h('p', { class: 'help' }, t('pad.waiting.taken_back'))
        : h('ul', { class: 'contents' }, w.events.flatMap(entryLines).map((line) => h('li', null, line))),
      w === last && !w.refused && !w.conflict
        ? h('button', { type: 'button', class: 'small take-back', onclick: async () => {
          await outbox.takeBack(w, t('pad.waiting.taken_back_reason'));
          showNotice(t('pad.waiting.taken_back_notice', { step: w.label }));
          // Its step's form comes back (a next step's form, even half filled in, no longer fits).
          recorded = true;
          nextStep();
        } }, t('pad.waiting.take_back'))
        : null,
      w.refused ? [
        h('p', { class: 'field-error' }, spoken(inWords(w.refused).detail || w.refused.title || t('pad.problem.refused'))),
        h('button', { type: 'button', class: 'small drop-waiting', onclick: () => outbox.drop(w, getState().game?.version ?? 0).then(resend) }, t('pad.waiting.drop')),
      ] : null));
    let panel = null;
    if (blocked?.conflict) {
      const theirs = othersAfter(blocked.baseVersion ?? 0);
      const match = rival(theirs, blocked.events);
      const version = () => getState().game?.version ?? 0;
      panel = conflictView.render({
        theirs,
        mine: { label: blocked.label, events: blocked.events },
        where: t('pad.conflict.kept_on_phone'),
        refusedMine: true,
        onKeepTheirs: () => outbox.drop(blocked, version()).then(resend),
        onCorrect: match ? async () => {
          const data = blocked.events.find((e) => e.type === match.type)?.data;
          if (panel && await correctTheirs(match, data, panel)) await outbox.drop(blocked, version()).then(resend);
        } : null,
        onSendAgain: match ? null : () => outbox.retry(blocked, version()).then(resend),
      });
    }
    const sendingNow = live === 'live' && !blocked;
    replace(waitingBox, h('div', { class: 'waiting card', id: 'waiting' },
      h('p', { class: 'waiting-count' }, sendable.length ? waitingCount(sendable) : t('pad.waiting.checking')),
      h('p', { class: 'help' }, sendingNow ? t('pad.waiting.sending')
        : blocked ? (waiting.length > 1 ? t('pad.waiting.blocked_many') : t('pad.waiting.blocked_one'))
          : live === 'reconnecting' || live === 'offline' ? t('pad.game.unreachable_kept') : t('pad.waiting.kept')),
      h('ol', { class: 'waiting-list' }, items),
      panel));
  };

  const startCorrection = (/** @type {any} */ event) => {
    const { game } = getState();
    const rules = gameById(game.game);
    const ctx = context();
    const effective = ctx.effective;
    const current = effective.find((e) => e.seq === event.seq)?.data ?? event.data;
    // Optional: left empty, the log says "corrected on the pad" (no placeholder that looks filled in).
    const reason = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', maxlength: 200 }));
    const reasonField = field(t('pad.correction.reason'), reason);
    reasonField.dataset.pointer = '/events/0/data/reason';
    let correction;
    let body;
    if (rules?.correctable.includes(event.type)) {
      correction = rules.form({ ...ctx, initial: current });
      body = correction.element;
    } else {
      const text = /** @type {HTMLTextAreaElement} */ (h('textarea', { rows: 8, spellcheck: 'false' }, JSON.stringify(current, null, 2)));
      body = field(t('pad.correction.json'), text);
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
      h('h2', null, t('pad.correction.title', { seq: event.seq })), body, reasonField,
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('pad.correction.save')),
        h('button', { type: 'button', onclick: () => { formKey = ''; renderEntry(); } }, t('pad.correction.cancel'))));
    formEl.addEventListener('submit', (e) => {
      e.preventDefault();
      let data;
      try {
        data = correction.events()[0].data;
      } catch (err) {
        showProblem(formEl, err instanceof Incomplete ? err : { detail: t('pad.correction.bad_json', { error: String(err) }) });
        return;
      }
      nest();
      send(formEl, [{ type: 'correct', data: { seq: event.seq, data, reason: reason.value.trim() || t('pad.correction.default_reason') } }], () => { formKey = ''; });
    });
    // A correction under way is not rebuilt by live updates either (Cancel or Save ends it).
    formKey = 'correcting';
    form = null;
    touched = false;
    formConflict = null;
    replace(entry, formEl);
    formEl.scrollIntoView({ block: 'start' });
  };

  const render = () => {
    const { game, score, events, share, live } = getState();
    if (!game) return;
    const rules = gameById(game.game);
    replace(header,
      h('h1', null, rules?.name ?? game.game),
      h('p', { class: 'meta' }, h('span', { class: `status status-${game.status}`, dataset: { status: game.status } }, statusName(game.status)), ' · ',
        joined(game.players.map((/** @type {any} */ p) => p.name)),
        liveMark(live),
        share ? h('span', { class: 'readonly' }, ` · ${t('pad.game.read_only')}`) : null),
      rules?.describe(game) ?? null);
    renderEntry();
    replace(board, h('h2', null, t('pad.game.scoreboard')), scoreboard.render(score, rules));
    const ratingsFor = `${game.status}:${game.version === 1}`;
    if (ratingsFor !== ratingsShown) {
      ratingsShown = ratingsFor;
      gameRatings(game.id, game).then((shown) => { if (ratingsShown === ratingsFor) replace(ratingsBox, shown); });
    }
    replace(logBox, h('h2', null, t('pad.game.log')), log.render(events, {
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
    const hours = /** @type {HTMLSelectElement} */ (h('select', null, [[4, t('pad.share.hours_4')], [24, t('pad.share.day_1')], [168, t('pad.share.week_1')]].map(([v, l]) => h('option', { value: v, selected: v === 24 }, l))));
    const shareForm = h('form', { class: 'inline', id: 'share-form' }, field(t('pad.share.valid_for'), hours),
      h('button', { type: 'submit' }, t('pad.share.button')));
    shareForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearErrors(shareForm);
      try {
        const [share, where] = await Promise.all([createShare(id, Number(hours.value)), linkBases()]);
        const path = `/#/share/${encodeURIComponent(id)}/${encodeURIComponent(share.token)}`;
        replace(shareBox,
          h('p', null, t('pad.share.until', { when: when(share.expires_at) })),
          handOut(where, path, { id: 'share-link', alt: t('pad.share.qr'), qr: qrCodeUrl }));
      } catch (err) {
        const problem = err instanceof ApiError ? err.problem : { detail: String(err) };
        showProblem(shareForm, err instanceof ApiError && err.status === 404
          ? { detail: t('pad.share.unsupported') } : problem);
      }
    });
    const reason = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', placeholder: t('pad.abandon.placeholder'), maxlength: 200 }));
    const abandonForm = h('form', { class: 'inline', dataset: { pointer: '/events/0' } }, field(t('pad.abandon.reason'), reason),
      h('button', { type: 'submit', class: 'danger' }, t('pad.abandon.button')));
    abandonForm.addEventListener('submit', (e) => { e.preventDefault(); send(abandonForm, [{ type: 'abandon', data: { reason: reason.value.trim() || t('pad.abandon.default_reason') } }]); });
    replace(tools, h('h2', null, t('pad.share.title')), shareForm, shareBox,
      game.status === 'in_progress' ? [h('h2', null, t('pad.abandon.title')), abandonForm] : null);
  };

  const unsubscribe = subscribe((_state, changed) => {
    if (changed.has('waiting') || changed.has('live') || changed.has('events')) renderWaiting();
    if (changed.has('game') || changed.has('score') || changed.has('events') || changed.has('live') || changed.has('waiting')) render();
  });
  const showUnreachable = () => replace(header, h('h1', null, t('pad.game.cannot_reach')),
    h('p', { class: 'meta' }, t('pad.game.keeps_trying')));
  reload(id).catch((err) => {
    if (getState().game) return;
    if (unreachable(err)) showUnreachable();
    else replace(header, h('h1', null, t('pad.game.not_found')), h('p', { class: 'field-error' }, err instanceof ApiError ? err.message : String(err)));
  });
  outbox.waitingFor(id).then((waiting) => {
    if (getState().route.params.id === id) update({ waiting });
    if (waiting.length) resend();
  });
  const stop = follow(id, { onBack: () => { resend(); } });
  // Entries waiting on the phone are offered again every few seconds, and when the phone says it is back online.
  const timer = setInterval(() => {
    const { waiting } = getState();
    if (waiting.length && !waiting.some((w) => w.conflict || w.refused)) resend();
  }, RESEND_MS);
  const online = () => { resend(); };
  window.addEventListener('online', online);
  return () => { unsubscribe(); stop(); clearInterval(timer); window.removeEventListener('online', online); };
}

/** The page's honest word on its link to the server. @param {string} live */
function liveMark(live) {
  switch (live) {
    case 'live': return h('span', { class: 'live-dot live-state', title: t('pad.live.live') }, ` ● ${t('pad.live.live')}`);
    case 'reconnecting': return h('span', { class: 'live-state reconnecting' }, ` · ${t('pad.live.reconnecting')}`);
    case 'offline': return h('span', { class: 'live-state offline' }, ` · ${t('pad.live.offline')}`);
    default: return null;
  }
}

/** A game's status in the page's words. @param {string} status */
export function statusName(status) {
  switch (status) {
    case 'in_progress': return t('pad.status.in_progress');
    case 'finished': return t('pad.status.finished');
    case 'abandoned': return t('pad.status.abandoned');
    default: return status.replace('_', ' ');
  }
}
