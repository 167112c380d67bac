// Starting a game: which game, who plays (picked from the club's players or typed), and the
// options as toggles and fields with the rules' defaults, each house-rule point in one line.
import { createGame, listPlayers, ApiError } from '../api.js';
import { GAMES, gameById } from '../games/index.js';
import { inPlayersWords } from '../games/forms.js';
import { h, field, uid, showProblem, clearErrors, newId, numberInput, numberOf, Incomplete } from '../ui.js';
import { num, t } from '../i18n.js';

/** @param {HTMLElement} root */
export function mount(root) {
  let alive = true;
  const datalistId = uid('players');
  const datalist = h('datalist', { id: datalistId });
  listPlayers().then((page) => {
    if (!alive) return;
    datalist.replaceChildren(...page.players.map((/** @type {any} */ p) => h('option', { value: p.name })));
  }).catch(() => {});

  const gameSelect = /** @type {HTMLSelectElement} */ (h('select', { name: 'game', dataset: { pointer: '/game' } },
    GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const goal = h('p', { class: 'help' });
  const playersList = h('ol', { class: 'players', dataset: { pointer: '/players' } });
  const optionsBox = h('div', { class: 'options', dataset: { pointer: '/options' } });
  /** @type {{key: string, read: () => any}[]} */
  let optionReaders = [];

  const addPlayer = (value = '') => {
    const index = playersList.children.length;
    const input = /** @type {HTMLInputElement} */ (h('input', { name: 'player', list: datalistId, value, autocomplete: 'off', autocapitalize: 'words', maxlength: 60 }));
    const colour = /** @type {HTMLSelectElement} */ (h('select', { name: 'colour', class: 'colour' }));
    // Enter ("Go" on a phone's keyboard) moves on to the next player, never starts the game.
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const names = [...playersList.querySelectorAll('input[name="player"]')];
      const next = names[names.indexOf(input) + 1] ?? form.querySelector('button.add-player');
      /** @type {HTMLElement | null} */ (next)?.focus();
    });
    const remove = h('button', { type: 'button', class: 'small', 'aria-label': t('pad.new.remove_player'), onclick: () => { item.remove(); renumber(); } }, '✕');
    const item = h('li', { class: 'player-row', dataset: { pointer: `/players/${index}` } },
      field(t('pad.new.player', { n: index + 1 }), input), field(t('pad.new.colour'), colour), remove);
    playersList.append(item);
    renderColours();
    return input;
  };
  const renumber = () => {
    [...playersList.children].forEach((li, i) => {
      /** @type {HTMLElement} */ (li).dataset.pointer = `/players/${i}`;
      const label = li.querySelector('label');
      if (label) label.textContent = t('pad.new.player', { n: i + 1 });
    });
  };

  const selected = () => gameById(gameSelect.value) ?? GAMES[0];
  const currentOptions = () => Object.fromEntries(optionReaders.map((o) => [o.key, o.read()]));

  const renderColours = () => {
    const game = selected();
    const show = Boolean(game.needsColours(currentOptions()));
    [...playersList.querySelectorAll('select.colour')].forEach((sel, i) => {
      const s = /** @type {HTMLSelectElement} */ (sel);
      if (s.options.length === 0) s.append(...(game.colours ?? []).map(([c, name]) => h('option', { value: c }, name)));
      if (!s.dataset.touched) s.selectedIndex = i % Math.max(1, s.options.length);
      s.addEventListener('change', () => { s.dataset.touched = '1'; }, { once: true });
      /** @type {HTMLElement} */ (s.closest('.field')).hidden = !show;
    });
  };

  const renderGame = () => {
    const game = selected();
    goal.textContent = `${game.goal} ${t('pad.new.players_count', { min: game.players.min, max: game.players.max })}`;
    optionReaders = [];
    optionsBox.replaceChildren(...game.options.map((/** @type {any} */ o) => {
      let control;
      let read;
      if (o.kind === 'toggle') {
        control = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', role: 'switch', checked: o.default, onchange: renderColours }));
        read = () => /** @type {HTMLInputElement} */ (control).checked;
        const id = uid('o');
        control.id = id;
        const wrap = h('div', { class: 'field toggle', dataset: { pointer: `/options/${o.key}` } },
          control, h('label', { for: id }, o.label), h('small', { class: 'help' }, o.help));
        optionReaders.push({ key: o.key, read });
        return wrap;
      }
      if (o.kind === 'choice') {
        control = h('select', null, o.choices.map((/** @type {[string, string]} */ [v, label]) => h('option', { value: v, selected: v === o.default }, label)));
        read = () => /** @type {HTMLSelectElement} */ (control).value;
      } else if (o.kind === 'number') {
        const input = numberInput({ min: o.min, max: o.max, value: num(o.default) });
        control = input;
        read = () => numberOf(input);
      } else {
        const editor = o.editor();
        control = editor.element;
        read = editor.read;
      }
      optionReaders.push({ key: o.key, read });
      const wrap = field(o.label, control, o.help);
      wrap.dataset.pointer = `/options/${o.key}`;
      return wrap;
    }));
    while (playersList.children.length < game.players.min) addPlayer();
    renderColours();
  };
  gameSelect.addEventListener('change', renderGame);

  const form = h('form', { class: 'new-game' },
    h('h1', null, t('pad.new.title')),
    field(t('pad.new.game'), gameSelect), goal,
    h('fieldset', null, h('legend', null, t('pad.new.players')), datalist, playersList,
      h('button', { type: 'button', class: 'add-player', onclick: () => addPlayer().focus() }, t('pad.new.add_player'))),
    h('fieldset', null, h('legend', null, t('pad.new.options')), optionsBox),
    h('button', { type: 'submit', class: 'primary' }, t('pad.new.start')));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form);
    const game = selected();
    try {
      // An option the page itself refuses (a prize no card could match) is shown at its field.
      const options = currentOptions();
      const colours = game.needsColours(options);
      const players = [...playersList.children].map((li) => {
        const name = /** @type {HTMLInputElement} */ (li.querySelector('input')).value.trim();
        const colour = /** @type {HTMLSelectElement} */ (li.querySelector('select')).value;
        return colours ? { name, color: colour } : { name };
      });
      const created = await createGame({ id: newId(), game: game.id, players, options });
      window.location.hash = `#/game/${created.id}`;
    } catch (err) {
      showProblem(form, err instanceof ApiError ? inPlayersWords(err.problem, game) : err instanceof Incomplete ? err : { detail: String(err) });
    }
  });

  root.append(form);
  renderGame();
  return () => { alive = false; };
}
