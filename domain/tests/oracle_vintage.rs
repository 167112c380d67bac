//! Vintage against an independent reading of its rules (the published rules; `docs/vintage.md` has our reading).
//!
//! A seeded simulation of the table plays random legal games turn by turn (showcases, steals,
//! digs, the deck, the discard pile and its one reshuffle with 5–6 players), over every player
//! count and house-rule option, and sends each event through `Game::check_append` as the server
//! does: every one must be accepted, and the finished game's totals and winners must equal
//! those of the scorer below, written from the spec alone (it reads the events, not the engine).
//! Then one illegal event per check the spec lists, each refused where it is sent.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game, GameState, LogEvent, NewEvent, Rejection, Status};

mod support;
use support::Dice;

/// Random legal games played; each is a few dozen events.
const GAMES: u64 = 300;

const NAMES: [&str; 6] = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
const COLOURS: [&str; 6] = ["red", "blue", "green", "yellow", "purple", "black"];

/// Card attributes: few values, so that prizes are contested and often tied.
const TYPES: [&str; 4] = ["lamp", "radio", "chair", "vase"];
const HUES: [&str; 3] = ["blue", "red", "green"];
const PERIODS: [&str; 3] = ["50s", "60s", "70s"];
const MATERIALS: [&str; 2] = ["wood", "glass"];

// ---------------------------------------------------------------------------------------------
// The independent scorer: options and game events in, totals and winners out.

#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    /// Seat order.
    totals: Vec<(String, i64)>,
    prize_points: Vec<i64>,
    /// Seat order.
    winners: Vec<String>,
    /// More than one player on the highest total.
    tie_for_first: bool,
    /// Situations met on the way, for the coverage count.
    notes: Vec<String>,
}

/// docs/vintage.md: "Attributes are compared ignoring case and surrounding spaces (`"Blue"`
/// matches a prize for `"blue"`)" — the spec says only "free text", so the docs' reading.
fn norm(text: &str) -> String {
    text.trim().to_lowercase()
}

/// A card as the events describe it: its text attributes (normalised) and its value.
struct Known {
    text: BTreeMap<String, String>,
    value: i64,
}

/// The id of a card reference, learning its attributes from a description or the deck.
fn learn(raw: &Value, known: &mut BTreeMap<String, Known>, deck: &Map<String, Value>) -> String {
    let describe = |object: &Map<String, Value>| Known {
        text: object
            .iter()
            .filter(|(k, _)| *k != "id" && *k != "value")
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), norm(s))))
            .collect(),
        value: object["value"].as_i64().expect("a value"),
    };
    let id = match raw {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_owned(),
        Value::Object(o) => match &o["id"] {
            Value::String(s) => s.trim().to_owned(),
            other => other.to_string(),
        },
        other => panic!("not a card: {other}"),
    };
    if !known.contains_key(&id) {
        let card = match raw {
            Value::Object(o) => describe(o),
            _ => describe(deck[&id].as_object().expect("a deck card")),
        };
        known.insert(id.clone(), card);
    }
    id
}

/// Scores a game from its options and events (`game_started` excluded), by the spec:
/// "Only collections count … Sum the values of your collection. For each prize: the player with
/// the most collected cards matching it takes its points … Highest total wins".
fn oracle(options: &Value, names: &[&str], events: &[(String, Value)]) -> Outcome {
    let empty = Map::new();
    let deck = options
        .get("deck")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut known = BTreeMap::new();
    let mut collections: Vec<Vec<String>> = vec![Vec::new(); names.len()];
    let seat = |name: &str| names.iter().position(|n| *n == name).expect("a player");
    for (kind, data) in events {
        match kind.as_str() {
            "showcases_dealt" => {
                for list in data["showcases"].as_object().unwrap().values() {
                    for card in list.as_array().unwrap() {
                        learn(card, &mut known, deck);
                    }
                }
            }
            "turn_taken" => {
                for card in data["drawn"].as_array().unwrap() {
                    learn(card, &mut known, deck);
                }
                // Step 1, Bank: the card moves from the showcase into the collection.
                let banked = learn(&data["banked"], &mut known, deck);
                collections[seat(data["player"].as_str().unwrap())].push(banked);
            }
            "final_banked" => {
                for (name, list) in data["banked"].as_object().unwrap() {
                    for card in list.as_array().unwrap() {
                        let id = learn(card, &mut known, deck);
                        collections[seat(name)].push(id);
                    }
                }
            }
            "collections_recorded" => {
                for (name, list) in data["collections"].as_object().unwrap() {
                    collections[seat(name)] = list
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|card| learn(card, &mut known, deck))
                        .collect();
                }
            }
            other => panic!("not a Vintage event: {other}"),
        }
    }
    let values: Vec<i64> = collections
        .iter()
        .map(|ids| ids.iter().map(|id| known[id].value).sum())
        .collect();
    let mut prize_points = vec![0i64; names.len()];
    let mut notes = Vec::new();
    // [H] default "nobody"; "all": each tied player scores it; "split": divided, remainder lost.
    let prize_tie = options
        .get("prize_tie")
        .and_then(Value::as_str)
        .unwrap_or("nobody");
    for prize in options["prizes"].as_array().unwrap() {
        let attribute = prize["attribute"].as_str().unwrap().trim();
        let wanted = norm(prize["value"].as_str().unwrap());
        let points = prize["points"].as_i64().unwrap();
        let counts: Vec<usize> = collections
            .iter()
            .map(|ids| {
                ids.iter()
                    .filter(|id| known[*id].text.get(attribute) == Some(&wanted))
                    .count()
            })
            .collect();
        let most = *counts.iter().max().unwrap();
        // docs/vintage.md: "Nobody scores a prize that no collection matches, whatever
        // prize_tie says." (The spec's "the most collected cards matching it" needs one.)
        if most == 0 {
            notes.push("a prize nobody matches".to_owned());
            continue;
        }
        let holders: Vec<usize> = (0..names.len()).filter(|&p| counts[p] == most).collect();
        if holders.len() > 1 {
            notes.push(format!("a prize tied under {prize_tie}"));
        }
        let each = match (holders.len(), prize_tie) {
            (1, _) | (_, "all") => points,
            (k, "split") => points / k as i64,
            _ => 0,
        };
        for p in holders {
            prize_points[p] += each;
        }
    }
    let totals: Vec<i64> = (0..names.len())
        .map(|p| values[p] + prize_points[p])
        .collect();
    let top = *totals.iter().max().unwrap();
    let tied: Vec<usize> = (0..names.len()).filter(|&p| totals[p] == top).collect();
    // docs/vintage.md: winner_tie "most_prize_points": the one with more prize points wins;
    // still tied, shared. Default "shared" (spec: "ties are shared [H]").
    let winner_tie = options
        .get("winner_tie")
        .and_then(Value::as_str)
        .unwrap_or("shared");
    if tied.len() > 1 {
        notes.push(format!("a tie for first under {winner_tie}"));
    }
    let winners: Vec<usize> = if tied.len() > 1 && winner_tie == "most_prize_points" {
        let best = tied.iter().map(|&p| prize_points[p]).max().unwrap();
        if tied.iter().filter(|&&p| prize_points[p] == best).count() == 1 {
            notes.push("a tie for first broken by prize points".to_owned());
        }
        tied.iter()
            .copied()
            .filter(|&p| prize_points[p] == best)
            .collect()
    } else {
        tied.clone()
    };
    Outcome {
        totals: names
            .iter()
            .zip(&totals)
            .map(|(n, t)| ((*n).to_owned(), *t))
            .collect(),
        prize_points,
        winners: winners.iter().map(|&p| names[p].to_owned()).collect(),
        tie_for_first: tied.len() > 1,
        notes,
    }
}

// ---------------------------------------------------------------------------------------------
// The table: 63 cards, where each one is, and whose turn it is.

#[derive(Debug, Clone)]
struct Antique {
    id: String,
    /// Its number in the table's deck (1–63), used when the options carry a deck.
    number: u32,
    object: String,
    colour: String,
    period: String,
    value: u32,
    material: Option<String>,
}

/// What does not change during a game.
struct Table {
    names: Vec<&'static str>,
    cards: Vec<Antique>,
    /// Events name cards by their deck number.
    deck_mode: bool,
    /// A turn digs once in this many when it could also steal.
    dig_one_in: usize,
}

/// Where every card is. Cards are indices into `Table::cards`; piles' tops are their ends.
#[derive(Debug, Clone)]
struct State {
    showcases: Vec<Vec<usize>>,
    collections: Vec<Vec<usize>>,
    deck: Vec<usize>,
    pile: Vec<usize>,
    reshuffled: bool,
    turns: Vec<usize>,
    played: usize,
    described: Vec<bool>,
    over: bool,
    /// The last turn's seat and the card it stole, if it stole.
    last: Option<(usize, Option<usize>)>,
}

#[derive(Debug, Clone)]
struct Turn {
    seat: usize,
    banked: usize,
    steal: Option<(usize, usize)>,
    dig: Option<usize>,
    drawn: Vec<usize>,
    kept: Option<usize>,
}

impl Table {
    fn new(dice: &mut Dice, players: usize, deck_mode: bool) -> Table {
        let top_value = *dice.pick(&[1, 3, 5]);
        let labels = dice.shuffled(&(1..=99).collect::<Vec<u32>>());
        let cards = (0..63)
            .map(|k| {
                let number = k as u32 + 1;
                Antique {
                    id: if deck_mode {
                        number.to_string()
                    } else {
                        format!("c{}", labels[k])
                    },
                    number,
                    object: (*dice.pick(&TYPES)).into(),
                    colour: (*dice.pick(&HUES)).into(),
                    period: (*dice.pick(&PERIODS)).into(),
                    value: dice.range(0, top_value) as u32,
                    // A deck card records only type, colour, period and value.
                    material: (!deck_mode && dice.one_in(3))
                        .then(|| (*dice.pick(&MATERIALS)).into()),
                }
            })
            .collect();
        Table {
            names: NAMES[..players].to_vec(),
            cards,
            deck_mode,
            dig_one_in: *dice.pick(&[1, 2, 4, 8]),
        }
    }

    fn deck_option(&self) -> Value {
        let deck: Map<String, Value> = self
            .cards
            .iter()
            .map(|c| {
                (
                    c.number.to_string(),
                    json!({"type": c.object, "colour": c.colour, "period": c.period, "value": c.value}),
                )
            })
            .collect();
        Value::Object(deck)
    }

    /// Text as a table might write it: now and then another case or stray spaces.
    fn scribble(text: &str, dice: &mut Dice) -> String {
        match dice.below(12) {
            0 => text.to_uppercase(),
            1 => format!(" {text} "),
            2 => {
                let mut chars = text.chars();
                chars.next().map_or(String::new(), |f| {
                    f.to_uppercase().collect::<String>() + chars.as_str()
                })
            }
            _ => text.to_owned(),
        }
    }

    fn describe(&self, c: usize, dice: &mut Dice) -> Value {
        let card = &self.cards[c];
        let mut value = json!({
            "id": card.id,
            "type": Self::scribble(&card.object, dice),
            "colour": Self::scribble(&card.colour, dice),
            "period": Self::scribble(&card.period, dice),
            "value": card.value,
        });
        if let Some(material) = &card.material {
            value["material"] = json!(Self::scribble(material, dice));
        }
        value
    }

    /// A card already described: its id (or deck number), now and then its description again
    /// ("later events may name it by id": may, not must).
    fn refer(&self, c: usize, dice: &mut Dice) -> Value {
        let card = &self.cards[c];
        if !self.deck_mode && dice.one_in(10) {
            return self.describe(c, dice);
        }
        if self.deck_mode {
            if dice.one_in(2) {
                json!(card.number)
            } else {
                json!(card.number.to_string())
            }
        } else {
            json!(card.id)
        }
    }

    /// A card where the contract lists cards: described the first time, then mostly by id.
    fn name(&self, c: usize, described: &[bool], dice: &mut Dice) -> Value {
        if self.deck_mode || (described[c] && !dice.one_in(6)) {
            self.refer(c, dice)
        } else {
            self.describe(c, dice)
        }
    }
}

impl State {
    /// Setup: "deal face up: 1 card to seat 1, 2 to seat 2, 3 to every other seat. Rest face
    /// down = the deck".
    fn deal(table: &Table, dice: &mut Dice) -> State {
        let n = table.names.len();
        let mut deck = dice.shuffled(&(0..63).collect::<Vec<usize>>());
        let showcases = (0..n)
            .map(|seat| {
                (0..(seat + 1).min(3))
                    .map(|_| deck.pop().unwrap())
                    .collect()
            })
            .collect();
        State {
            showcases,
            collections: vec![Vec::new(); n],
            deck,
            pile: Vec::new(),
            reshuffled: false,
            turns: vec![0; n],
            played: 0,
            described: vec![false; 63],
            over: false,
            last: None,
        }
    }

    fn deal_json(&self, table: &Table, dice: &mut Dice) -> Value {
        let showcases: Map<String, Value> = table
            .names
            .iter()
            .zip(&self.showcases)
            .map(|(name, cards)| {
                let cards: Vec<Value> = cards
                    .iter()
                    .map(|&c| table.name(c, &self.described, dice))
                    .collect();
                ((*name).to_owned(), json!(cards))
            })
            .collect();
        json!({"showcases": showcases})
    }

    /// The next legal turn, chosen at random, and the table after it.
    fn play(&self, table: &Table, dice: &mut Dice) -> (Turn, State) {
        let n = table.names.len();
        let mut s = self.clone();
        let seat = s.played % n;
        // 1. Bank (compulsory): one card of one's own showcase.
        let at = dice.below(s.showcases[seat].len());
        let banked = s.showcases[seat].remove(at);
        s.collections[seat].push(banked);
        // 2. Take one: steal from a showcase of two or more, or dig (not seat 1's first turn).
        let victims: Vec<usize> = (0..n)
            .filter(|&v| v != seat && s.showcases[v].len() >= 2)
            .collect();
        let can_dig = s.played > 0 && !s.pile.is_empty();
        let (mut steal, mut dig) = (None, None);
        if can_dig && (victims.is_empty() || dice.one_in(table.dig_one_in)) {
            let card = s.pile.pop().unwrap();
            s.showcases[seat].push(card);
            dig = Some(card);
        } else {
            let from = *dice.pick(&victims);
            let at = dice.below(s.showcases[from].len());
            let card = s.showcases[from].remove(at);
            s.showcases[seat].push(card);
            steal = Some((from, card));
        }
        // 3. Draw two. With 5–6 players, the draw after the deck first runs low "takes what the
        // deck still holds, the discard pile is shuffled into a new deck, and the rest is drawn
        // from it (this happens once)".
        let mut drawn = Vec::new();
        if n >= 5 && !s.reshuffled && s.deck.len() < 2 {
            drawn.append(&mut s.deck);
            s.deck = dice.shuffled(&std::mem::take(&mut s.pile));
            s.reshuffled = true;
        }
        while drawn.len() < 2 {
            match s.deck.pop() {
                Some(card) => drawn.push(card),
                None => break,
            }
        }
        let kept = (!drawn.is_empty()).then(|| drawn[dice.below(drawn.len())]);
        for &card in &drawn {
            if Some(card) == kept {
                s.showcases[seat].push(card);
            } else {
                s.pile.push(card);
            }
        }
        s.turns[seat] += 1;
        s.played += 1;
        // End: 3–4 players after the turn that leaves fewer than 2 cards; 5–6 the same, once
        // the reshuffle is done (the reshuffle's own turn included: it comes "after that").
        s.over = s.deck.len() < 2 && (n <= 4 || s.reshuffled);
        s.last = Some((seat, steal.map(|(_, c)| c)));
        let turn = Turn {
            seat,
            banked,
            steal,
            dig,
            drawn,
            kept,
        };
        (turn, s)
    }

    /// The event of `turn`, played from this state.
    fn turn_json(&self, table: &Table, turn: &Turn, dice: &mut Dice) -> Value {
        let mut drawn: Vec<Value> = turn
            .drawn
            .iter()
            .map(|&c| table.name(c, &self.described, dice))
            .collect();
        // The contract does not order `drawn`: now and then the other way round.
        if dice.one_in(4) {
            drawn.reverse();
        }
        json!({
            "player": table.names[turn.seat],
            "banked": table.refer(turn.banked, dice),
            "steal": turn.steal.map_or(Value::Null, |(from, c)| {
                json!({"from": table.names[from], "card": table.refer(c, dice)})
            }),
            "dig": turn.dig.map_or(Value::Null, |c| table.refer(c, dice)),
            "drawn": drawn,
            "kept": turn.kept.map_or(Value::Null, |c| table.refer(c, dice)),
        })
    }

    /// End: "everyone banks one more showcase card; the last player may not bank the card they
    /// stole on their final turn. Players who had one turn fewer … may bank one more card".
    fn final_bank(&self, table: &Table, dice: &mut Dice) -> (Vec<Vec<usize>>, State) {
        let most = *self.turns.iter().max().unwrap();
        let (last_seat, stolen) = self.last.unwrap();
        let mut s = self.clone();
        let mut banked = Vec::new();
        for seat in 0..table.names.len() {
            let mut choices = dice.shuffled(&self.showcases[seat]);
            if seat == last_seat {
                choices.retain(|c| Some(*c) != stolen);
            }
            let wanted = if self.turns[seat] + 1 == most && !dice.one_in(3) {
                2
            } else {
                1
            };
            choices.truncate(wanted);
            s.showcases[seat].retain(|c| !choices.contains(c));
            s.collections[seat].extend(&choices);
            banked.push(choices);
        }
        (banked, s)
    }

    fn per_player(&self, table: &Table, lists: &[Vec<usize>], dice: &mut Dice) -> Value {
        let map: Map<String, Value> = table
            .names
            .iter()
            .zip(lists)
            .map(|(name, cards)| {
                let cards: Vec<Value> = cards
                    .iter()
                    .map(|&c| table.name(c, &self.described, dice))
                    .collect();
                ((*name).to_owned(), json!(cards))
            })
            .collect();
        Value::Object(map)
    }

    fn learn(&mut self, cards: impl IntoIterator<Item = usize>) {
        for c in cards {
            self.described[c] = true;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sending events as the server does.

fn entries(names: &[&str]) -> Vec<PlayerEntry> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| PlayerEntry {
            name: (*name).into(),
            // Never fewer entries than names: a seventh player must reach the engine.
            color: COLOURS.get(i).map(|c| (*c).into()),
        })
        .collect()
}

fn started(names: &[&str], options: &Value) -> Vec<LogEvent> {
    let started = Game::Vintage
        .start(&entries(names), options)
        .unwrap_or_else(|e| panic!("options refused: {e:?}\n{options}"));
    vec![LogEvent::new(
        1,
        "game_started",
        json!({"players": started.players, "options": started.options}),
    )]
}

/// One event through `check_append`; kept in the log when accepted.
fn send(log: &mut Vec<LogEvent>, kind: &str, data: &Value) -> Result<Evaluation, Rejection> {
    let batch = [NewEvent {
        event_type: kind.into(),
        data: data.clone(),
    }];
    let evaluation = Game::Vintage.check_append(log, &batch)?;
    log.push(LogEvent::new(log.len() as u64 + 1, kind, data.clone()));
    Ok(evaluation)
}

/// Whether an event would be refused, leaving the log as it is.
fn refused(log: &[LogEvent], kind: &str, data: &Value) -> Option<Rejection> {
    let batch = [NewEvent {
        event_type: kind.into(),
        data: data.clone(),
    }];
    Game::Vintage.check_append(log, &batch).err()
}

fn random_prizes(dice: &mut Dice) -> Value {
    let count = *dice.pick(&[0, 1, 2, 3, 4, 6]);
    let prizes: Vec<Value> = (0..count)
        .map(|i| {
            let (attribute, value) = match dice.below(7) {
                0 | 1 => ("type", *dice.pick(&TYPES)),
                2 | 3 => ("colour", *dice.pick(&HUES)),
                4 | 5 => ("period", *dice.pick(&PERIODS)),
                _ => ("material", *dice.pick(&MATERIALS)),
            };
            json!({"id": format!("p{i}"), "name": format!("Most {value}"), "attribute": attribute,
                   "value": Table::scribble(value, dice), "points": dice.range(0, 6)})
        })
        .collect();
    json!(prizes)
}

fn random_options(dice: &mut Dice, table: &Table) -> Value {
    let mut options = json!({"prizes": random_prizes(dice)});
    // Absent now and then: the defaults are the oracle's to apply too.
    if !dice.one_in(5) {
        options["prize_tie"] = json!(*dice.pick(&["nobody", "all", "split"]));
    }
    if !dice.one_in(5) {
        options["winner_tie"] = json!(*dice.pick(&["shared", "most_prize_points"]));
    }
    if table.deck_mode {
        options["deck"] = table.deck_option();
    }
    options
}

/// What one random game found.
#[derive(Default)]
struct Report {
    events: usize,
    notes: Vec<String>,
    problems: Vec<String>,
}

fn minimal(options: &Value, events: &[(String, Value)]) -> String {
    let log: Vec<Value> = events
        .iter()
        .map(|(k, d)| json!({"type": k, "data": d}))
        .collect();
    format!("options {options}\nevents {}", json!(log))
}

/// Plays one random legal game to its end, turn by turn or recorded by its collections only.
fn random_game(seed: u64) -> Report {
    let mut dice = Dice(seed.wrapping_mul(0x1234_5678_9ABC_DEF1));
    let players = dice.range(3, 6);
    let deck_mode = dice.one_in(5);
    let table = Table::new(&mut dice, players, deck_mode);
    let options = random_options(&mut dice, &table);
    let names = &table.names;
    let mut log = started(names, &options);
    let mut events: Vec<(String, Value)> = Vec::new();
    let mut report = Report::default();
    let mut last = None;
    let mut state = State::deal(&table, &mut dice);
    let mut notes = vec![format!("{players} players")];
    if deck_mode {
        notes.push("cards named by deck number".to_owned());
    }
    let mut push = |log: &mut Vec<LogEvent>, kind: &str, data: Value, report: &mut Report| {
        events.push((kind.to_owned(), data.clone()));
        report.events += 1;
        match send(log, kind, &data) {
            Ok(evaluation) => {
                last = Some(evaluation);
                true
            }
            Err(rejection) => {
                report.problems.push(format!(
                    "seed {seed}: a legal {kind} was refused: {rejection}\n{}",
                    minimal(&options, &events)
                ));
                false
            }
        }
    };
    if dice.one_in(6) {
        // "Or, for a table that only records the end": the same game, only its collections.
        while !state.over {
            state = state.play(&table, &mut dice).1;
        }
        let (_, end) = state.final_bank(&table, &mut dice);
        notes.push("recorded by collections only".to_owned());
        let mut collections = end.collections.clone();
        // Any collections a table may record, some short or empty, not only whole games'.
        if dice.one_in(3) {
            for cards in &mut collections {
                cards.truncate(dice.range(0, cards.len()));
            }
            notes.push("collections cut short".to_owned());
        }
        let data = json!({"collections": state.per_player(&table, &collections, &mut dice)});
        if !push(&mut log, "collections_recorded", data, &mut report) {
            return report;
        }
    } else {
        let data = state.deal_json(&table, &mut dice);
        if !push(&mut log, "showcases_dealt", data, &mut report) {
            return report;
        }
        state.learn(state.showcases.concat());
        while !state.over {
            let (turn, mut next) = state.play(&table, &mut dice);
            if next.reshuffled && !state.reshuffled {
                notes.push("the discard pile reshuffled".to_owned());
                if next.over {
                    notes.push("the game ends on the reshuffle's turn".to_owned());
                }
            }
            if turn.drawn.len() < 2 {
                notes.push(format!("a draw of {} card(s)", turn.drawn.len()));
            }
            let data = state.turn_json(&table, &turn, &mut dice);
            if !push(&mut log, "turn_taken", data, &mut report) {
                return report;
            }
            next.described = state.described.clone();
            next.learn(turn.drawn.iter().copied());
            state = next;
        }
        let (banked, _) = state.final_bank(&table, &mut dice);
        if banked.iter().any(|b| b.len() == 2) {
            notes.push("a second final card banked".to_owned());
        }
        if banked.iter().any(Vec::is_empty) {
            notes.push("an empty final bank".to_owned());
        }
        if matches!(state.last, Some((_, Some(_)))) {
            notes.push("the last turn stole".to_owned());
        }
        let data = json!({"banked": state.per_player(&table, &banked, &mut dice)});
        if !push(&mut log, "final_banked", data, &mut report) {
            return report;
        }
    }
    let evaluation = last.expect("an evaluation");
    let expected = oracle(&options, names, &events);
    report.notes = notes;
    report.notes.extend(expected.notes.iter().cloned());
    let board = &evaluation.scoreboard;
    let got_totals: Vec<(String, i64)> = names
        .iter()
        .map(|n| {
            let p = board.players.iter().find(|p| p.name == *n).unwrap();
            (p.name.clone(), p.total)
        })
        .collect();
    let mut got_winners = board.winners.clone();
    got_winners.sort_by_key(|w| names.iter().position(|n| n == w));
    let mut problems = Vec::new();
    if evaluation.status != Status::Finished {
        problems.push("the game is not finished".to_owned());
    }
    if got_totals != expected.totals {
        problems.push(format!(
            "totals: engine {got_totals:?}, oracle {:?}",
            expected.totals
        ));
    }
    if got_winners != expected.winners {
        problems.push(format!(
            "winners: engine {got_winners:?}, oracle {:?}",
            expected.winners
        ));
    }
    let first: Vec<&str> = board
        .players
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| p.name.as_str())
        .collect();
    if first.len() != board.winners.len()
        || !board.winners.iter().all(|w| first.contains(&w.as_str()))
    {
        problems.push(format!(
            "rank 1 {first:?} is not the winners {:?}",
            board.winners
        ));
    }
    // Scoreboard: "How a tie for first place was settled, or None when there was no tie".
    if board.tiebreak.is_some() != expected.tie_for_first {
        problems.push(format!(
            "tiebreak: engine {:?}, oracle tie for first {}",
            board.tiebreak, expected.tie_for_first
        ));
    }
    if !problems.is_empty() {
        report.problems.push(format!(
            "seed {seed}: {}\n{}",
            problems.join("; "),
            minimal(&options, &events)
        ));
    }
    report
}

#[test]
fn random_legal_games_are_accepted_and_scored_as_the_spec_reads() {
    let (mut events, mut problems) = (0, Vec::new());
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    // To look further: ORACLE_GAMES=3000 ORACLE_SEED=1 cargo test --test oracle_vintage.
    let number = |key: &str| std::env::var(key).ok().and_then(|s| s.parse::<u64>().ok());
    let games = number("ORACLE_GAMES").unwrap_or(GAMES);
    let from = number("ORACLE_SEED").unwrap_or(0).wrapping_mul(1_000_003);
    for seed in from..from + games {
        let report = random_game(seed);
        events += report.events;
        problems.extend(report.problems);
        let mut notes = report.notes;
        notes.sort();
        notes.dedup();
        for note in notes {
            *seen.entry(note).or_default() += 1;
        }
    }
    eprintln!("{games} random Vintage games, {events} events checked; games with:");
    for (note, games) in &seen {
        eprintln!("  {games:4}  {note}");
    }
    for p in problems.iter().take(5) {
        eprintln!("{p}\n");
    }
    assert!(
        problems.is_empty(),
        "{} of {games} games disagree",
        problems.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Fixed games from the docs, through both scorers.

#[test]
fn the_docs_game_recorded_by_its_collections_scores_ann_8_bo_6_cy_12() {
    let options = json!({"prizes": [
        {"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4},
        {"id": "lamps", "name": "Most lamps", "attribute": "type", "value": "lamp", "points": 3},
        {"id": "sixties", "name": "Most 60s objects", "attribute": "period", "value": "60s", "points": 5},
    ]});
    let k = |id: &str, t: &str, c: &str, p: &str, v: u32| json!({"id": id, "type": t, "colour": c, "period": p, "value": v});
    let data = json!({"collections": {
        "Ann": [k("k1", "lamp", "blue", "60s", 3), k("k2", "radio", "blue", "50s", 4), k("k3", "lamp", "red", "60s", 1)],
        "Bo": [k("k4", "vase", "blue", "70s", 4), k("k5", "lamp", "blue", "50s", 0), k("k6", "chair", "green", "70s", 2)],
        "Cy": [k("k7", "lamp", "green", "60s", 1), k("k8", "lamp", "red", "60s", 5), k("k9", "phone", "red", "60s", 1)],
    }});
    let names = ["Ann", "Bo", "Cy"];
    let mut log = started(&names, &options);
    let evaluation = send(&mut log, "collections_recorded", &data).expect("accepted");
    let expected = oracle(&options, &names, &[("collections_recorded".into(), data)]);
    let want: Vec<(String, i64)> = vec![("Ann".into(), 8), ("Bo".into(), 6), ("Cy".into(), 12)];
    assert_eq!(expected.totals, want);
    let mut got: Vec<(String, i64)> = evaluation
        .scoreboard
        .players
        .iter()
        .map(|p| (p.name.clone(), p.total))
        .collect();
    got.sort_by_key(|(n, _)| names.iter().position(|m| m == n));
    assert_eq!(got, want);
    assert_eq!(evaluation.scoreboard.winners, vec!["Cy".to_owned()]);
}

// ---------------------------------------------------------------------------------------------
// Illegal events: each check the spec lists, refused at the event that breaks it.

/// A legal game in progress: the table, where the cards are, and the log sent so far.
struct Played {
    seed: u64,
    table: Table,
    state: State,
    log: Vec<LogEvent>,
    dice: Dice,
    /// The engine holding `log` replayed, so that setting a moment up stays linear; the
    /// events under test still go through `check_append`.
    engine: Option<GameState>,
}

impl Played {
    /// `players` at the table, dealt (no prizes: these tests are about legality).
    fn dealt(seed: u64, players: usize) -> Played {
        let mut dice = Dice(seed.wrapping_mul(0x9E37_79B9) ^ players as u64);
        let table = Table::new(&mut dice, players, false);
        let mut log = started(&table.names, &json!({"prizes": []}));
        let mut state = State::deal(&table, &mut dice);
        let data = state.deal_json(&table, &mut dice);
        send(&mut log, "showcases_dealt", &data).expect("a legal deal");
        state.learn(state.showcases.concat());
        let engine = Some(Game::Vintage.replay(log.clone()).expect("replays"));
        Played {
            seed,
            table,
            state,
            log,
            dice,
            engine,
        }
    }

    /// The next legal turn (not sent): the turn, its event, and the table after it.
    fn next(&mut self) -> (Turn, Value, State) {
        let (turn, mut after) = self.state.play(&self.table, &mut self.dice);
        let data = self.state.turn_json(&self.table, &turn, &mut self.dice);
        after.described = self.state.described.clone();
        after.learn(turn.drawn.iter().copied());
        (turn, data, after)
    }

    fn step(&mut self) {
        let (_, data, after) = self.next();
        let batch = [NewEvent {
            event_type: "turn_taken".into(),
            data: data.clone(),
        }];
        let engine = self.engine.as_mut().expect("an engine");
        if let Err(e) = engine.append(&batch) {
            panic!("seed {}: a legal turn was refused: {e}\n{data}", self.seed);
        }
        self.log = engine.log().expect("the log, held").to_vec();
        self.state = after;
    }

    fn id(&self, c: usize) -> Value {
        json!(self.table.cards[c].id)
    }

    fn name(&self, seat: usize) -> &'static str {
        self.table.names[seat]
    }

    /// The seat whose turn it is.
    fn seat(&self) -> usize {
        self.state.played % self.table.names.len()
    }

    /// A final bank every player may send now: one card each (not the last player's steal).
    fn final_bank(&mut self) -> (Vec<Vec<usize>>, Value) {
        let (banked, _) = self.state.final_bank(&self.table, &mut self.dice);
        let data = json!({"banked": self.state.per_player(&self.table, &banked, &mut self.dice)});
        (banked, data)
    }
}

/// Games (several player counts and seeds) at the first moment `wanted` holds, before a turn
/// or once the game is over: up to `count` of them.
fn situations(count: usize, wanted: impl Fn(&Played) -> bool) -> Vec<Played> {
    let mut found = Vec::new();
    for seed in 0..200 {
        for players in 3..=6 {
            let mut played = Played::dealt(seed, players);
            loop {
                if wanted(&played) {
                    found.push(played);
                    break;
                }
                if played.state.over {
                    break;
                }
                played.step();
            }
            if found.len() >= count {
                return found;
            }
        }
    }
    assert!(!found.is_empty(), "no game reached the situation");
    found
}

fn with(mut data: Value, field: &str, value: Value) -> Value {
    data[field] = value;
    data
}

#[track_caller]
fn assert_refused(played: &Played, kind: &str, data: &Value, rule: &str) {
    match refused(&played.log, kind, data) {
        Some(rejection) => assert_eq!(rejection.event_index, 0),
        None => panic!(
            "seed {} with {} players: {rule}, yet this {kind} was accepted: {data}",
            played.seed,
            played.table.names.len()
        ),
    }
}

#[track_caller]
fn assert_accepted(played: &Played, kind: &str, data: &Value) {
    if let Some(rejection) = refused(&played.log, kind, data) {
        panic!(
            "seed {}: the legal {kind} {data} was refused: {rejection}",
            played.seed
        );
    }
}

/// Mid-game moments with the next legal turn planned.
fn mid_game(count: usize, wanted: impl Fn(&Played) -> bool) -> Vec<(Played, Turn, Value)> {
    situations(count, |p| !p.state.over && p.state.played >= 1 && wanted(p))
        .into_iter()
        .map(|mut p| {
            let (turn, data, _) = p.next();
            assert_accepted(&p, "turn_taken", &data);
            (p, turn, data)
        })
        .collect()
}

#[test]
fn showcases_dealt_in_other_sizes_than_one_two_three_are_refused() {
    for players in 3..=6 {
        let mut dice = Dice(players as u64);
        let table = Table::new(&mut dice, players, false);
        let log = started(&table.names, &json!({"prizes": []}));
        let state = State::deal(&table, &mut dice);
        let played = Played {
            seed: 0,
            table,
            state,
            log,
            dice,
            engine: None,
        };
        let mut sizes = played.state.showcases.clone();
        // Seat 1 gets two cards and seat 2 one.
        let moved = sizes[1].pop().unwrap();
        sizes[0].push(moved);
        let mut dice = Dice(7);
        let data = json!({"showcases": played.state.per_player(&played.table, &sizes, &mut dice)});
        assert_refused(
            &played,
            "showcases_dealt",
            &data,
            "the sizes must match the seats",
        );
        // The last seat one card short.
        let mut short = played.state.showcases.clone();
        short[players - 1].pop();
        let data = json!({"showcases": played.state.per_player(&played.table, &short, &mut dice)});
        assert_refused(
            &played,
            "showcases_dealt",
            &data,
            "the sizes must match the seats",
        );
    }
}

#[test]
fn the_showcases_are_dealt_once_and_with_each_card_once() {
    for mut played in situations(4, |_| true) {
        let showcases = played.state.showcases.clone();
        let data = json!({"showcases": played.state.per_player(&played.table, &showcases, &mut played.dice)});
        assert_refused(&played, "showcases_dealt", &data, "the deal happens once");
    }
    let mut dice = Dice(3);
    let table = Table::new(&mut dice, 4, false);
    let log = started(&table.names, &json!({"prizes": []}));
    let state = State::deal(&table, &mut dice);
    let played = Played {
        seed: 3,
        table,
        state,
        log,
        dice,
        engine: None,
    };
    let mut twice = played.state.showcases.clone();
    twice[3][0] = twice[2][0];
    let data = json!({"showcases": played.state.per_player(&played.table, &twice, &mut Dice(1))});
    assert_refused(
        &played,
        "showcases_dealt",
        &data,
        "a card's id is unique in the game",
    );
}

#[test]
fn a_turn_before_the_deal_is_refused() {
    let mut played = Played::dealt(1, 3);
    let (_, data, _) = played.next();
    played.log.truncate(1);
    assert_refused(&played, "turn_taken", &data, "showcases are dealt first");
}

#[test]
fn a_turn_out_of_seat_order_is_refused() {
    for (mut played, _, _) in mid_game(12, |_| true) {
        // The turn the next-but-one player would take, legal but for the order.
        let real = played.state.clone();
        played.state.played += 1;
        let (_, data, _) = played.next();
        played.state = real;
        assert_refused(&played, "turn_taken", &data, "turns go in seat order");
        let stranger = with(data, "player", json!("Zed"));
        assert_refused(
            &played,
            "turn_taken",
            &stranger,
            "only seated players take turns",
        );
    }
}

#[test]
fn banking_a_card_that_is_not_in_ones_own_showcase_is_refused() {
    for (played, turn, data) in mid_game(12, |_| true) {
        let n = played.table.names.len();
        let other = (turn.seat + 1) % n;
        let elsewhere = played.state.showcases[other][0];
        let bad = with(data.clone(), "banked", played.id(elsewhere));
        assert_refused(&played, "turn_taken", &bad, "bank from your own showcase");
        if let Some(&collected) = played.state.collections[turn.seat].first() {
            let bad = with(data.clone(), "banked", played.id(collected));
            assert_refused(
                &played,
                "turn_taken",
                &bad,
                "a collected card is not in the showcase",
            );
        }
        if let Some(&top) = played.state.pile.last() {
            let bad = with(data.clone(), "banked", played.id(top));
            assert_refused(
                &played,
                "turn_taken",
                &bad,
                "a discarded card is not in the showcase",
            );
        }
    }
}

#[test]
fn banking_the_card_taken_or_kept_this_turn_is_refused() {
    // Step 1 banks before step 2 takes: the card taken is not in the showcase yet.
    for (played, turn, data) in mid_game(12, |_| true) {
        let taken = turn.steal.map(|(_, c)| c).or(turn.dig).unwrap();
        let bad = with(data.clone(), "banked", played.id(taken));
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "the bank comes before the take",
        );
        let kept = turn.kept.unwrap();
        let bad = with(data.clone(), "banked", played.id(kept));
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "the bank comes before the draw",
        );
    }
}

#[test]
fn a_turn_must_take_exactly_one_card_by_steal_or_dig() {
    for (played, turn, data) in mid_game(12, |p| !p.state.pile.is_empty()) {
        let top = played.id(*played.state.pile.last().unwrap());
        let both = if turn.steal.is_some() {
            with(data.clone(), "dig", top)
        } else {
            let n = played.table.names.len();
            let Some(from) =
                (0..n).find(|&v| v != turn.seat && played.state.showcases[v].len() >= 2)
            else {
                continue;
            };
            let card = played.id(played.state.showcases[from][0]);
            with(
                data.clone(),
                "steal",
                json!({"from": played.name(from), "card": card}),
            )
        };
        assert_refused(&played, "turn_taken", &both, "exactly one of steal / dig");
        let neither = with(with(data.clone(), "dig", Value::Null), "steal", Value::Null);
        assert_refused(
            &played,
            "turn_taken",
            &neither,
            "exactly one of steal / dig",
        );
    }
}

#[test]
fn stealing_from_a_showcase_holding_exactly_one_card_is_refused() {
    let lonely = |p: &Played| {
        let seat = p.seat();
        (0..p.table.names.len()).any(|v| v != seat && p.state.showcases[v].len() == 1)
    };
    let cases = mid_game(10, lonely);
    assert!(cases.len() >= 5, "too few one-card showcases met");
    for (played, turn, data) in cases {
        let n = played.table.names.len();
        let victim = (0..n)
            .find(|&v| v != turn.seat && played.state.showcases[v].len() == 1)
            .unwrap();
        let card = played.id(played.state.showcases[victim][0]);
        let bad = with(
            with(data, "dig", Value::Null),
            "steal",
            json!({"from": played.name(victim), "card": card}),
        );
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "a one-card showcase cannot be stolen from",
        );
    }
}

#[test]
fn stealing_from_ones_own_showcase_or_a_card_not_in_the_named_showcase_is_refused() {
    for (played, turn, data) in mid_game(12, |_| true) {
        let n = played.table.names.len();
        let own = &played.state.showcases[turn.seat];
        // Another card than the one banked, still in the player's showcase.
        if let Some(&card) = own.iter().find(|&&c| c != turn.banked) {
            let bad = with(
                with(data.clone(), "dig", Value::Null),
                "steal",
                json!({"from": played.name(turn.seat), "card": played.id(card)}),
            );
            assert_refused(
                &played,
                "turn_taken",
                &bad,
                "steal from another player's showcase",
            );
        }
        let Some(from) = (0..n).find(|&v| v != turn.seat && played.state.showcases[v].len() >= 2)
        else {
            continue;
        };
        let holder = (0..n).find(|&v| v != turn.seat && v != from).unwrap();
        let card = played.id(played.state.showcases[holder][0]);
        let bad = with(
            with(data.clone(), "dig", Value::Null),
            "steal",
            json!({"from": played.name(from), "card": card}),
        );
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "the card must be in the named showcase",
        );
        // A card the victim banked: in their collection, face down, not in their showcase.
        if let Some(&banked) = played.state.collections[from].first() {
            let bad = with(
                with(data.clone(), "dig", Value::Null),
                "steal",
                json!({"from": played.name(from), "card": played.id(banked)}),
            );
            assert_refused(&played, "turn_taken", &bad, "steal from the showcase");
        }
        let card = played.id(played.state.showcases[from][0]);
        let bad = with(
            with(data.clone(), "dig", Value::Null),
            "steal",
            json!({"from": "Zed", "card": card}),
        );
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "steal from another player's showcase",
        );
    }
}

#[test]
fn seat_one_may_not_dig_on_the_first_turn() {
    for players in 3..=6 {
        let mut played = Played::dealt(players as u64, players);
        let (_, data, _) = played.next();
        let card = played.id(played.state.showcases[2][0]);
        let bad = with(with(data, "steal", Value::Null), "dig", card);
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "seat 1 may not dig on the first turn",
        );
    }
}

#[test]
fn digging_anything_but_the_top_of_the_discard_pile_is_refused() {
    for (played, turn, data) in mid_game(12, |p| p.state.pile.len() >= 2) {
        let pile = &played.state.pile;
        let below = played.id(pile[pile.len() - 2]);
        let bad = with(with(data.clone(), "steal", Value::Null), "dig", below);
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "dig the top card of the discard pile",
        );
        let neighbour = (turn.seat + 1) % played.table.names.len();
        let in_showcase = played.id(played.state.showcases[neighbour][0]);
        let bad = with(with(data, "steal", Value::Null), "dig", in_showcase);
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "dig the top card of the discard pile",
        );
    }
}

#[test]
fn a_turn_draws_two_cards_while_the_deck_holds_two() {
    for (played, turn, data) in mid_game(12, |p| p.state.deck.len() >= 3) {
        let one = with(
            with(data.clone(), "drawn", json!([data["drawn"][0].clone()])),
            "kept",
            data["drawn"][0]
                .get("id")
                .cloned()
                .unwrap_or(data["drawn"][0].clone()),
        );
        assert_refused(&played, "turn_taken", &one, "draw two from the deck");
        let mut three = data.clone();
        let extra = played.state.deck[played.state.deck.len() - 3];
        three["drawn"]
            .as_array_mut()
            .unwrap()
            .push(played.table.describe(extra, &mut Dice(1)));
        assert_refused(&played, "turn_taken", &three, "draw two from the deck");
        let card = played.table.describe(turn.drawn[0], &mut Dice(1));
        let twice = with(
            with(data.clone(), "drawn", json!([card.clone(), card])),
            "kept",
            played.id(turn.drawn[0]),
        );
        assert_refused(
            &played,
            "turn_taken",
            &twice,
            "two cards, not one card twice",
        );
    }
}

#[test]
fn the_kept_card_must_be_one_of_the_two_drawn() {
    for (played, turn, data) in mid_game(12, |_| true) {
        let bad = with(data.clone(), "kept", played.id(turn.banked));
        assert_refused(&played, "turn_taken", &bad, "keep one of the two drawn");
        if turn.drawn.len() == 2 {
            let none = with(data.clone(), "kept", Value::Null);
            assert_refused(&played, "turn_taken", &none, "keep one in your showcase");
        }
    }
}

#[test]
fn drawing_a_card_that_is_already_on_the_table_is_refused() {
    // Before the reshuffle a draw comes from the face-down deck: never a card seen already.
    for (played, turn, data) in mid_game(12, |p| !p.state.reshuffled && p.state.deck.len() >= 2) {
        let n = played.table.names.len();
        let seen = [
            played.state.showcases[(turn.seat + 1) % n].first(),
            played.state.pile.first(),
            played.state.collections.iter().flatten().next(),
        ];
        for card in seen.into_iter().flatten() {
            let mut bad = data.clone();
            bad["drawn"][1] = played.id(*card);
            if data["kept"] == data["drawn"][1]
                || data["drawn"][1]
                    .get("id")
                    .is_some_and(|id| *id == data["kept"])
            {
                bad["kept"] = bad["drawn"][0]
                    .get("id")
                    .cloned()
                    .unwrap_or(bad["drawn"][0].clone());
            }
            assert_refused(&played, "turn_taken", &bad, "draw from the deck");
        }
    }
}

#[test]
fn after_the_reshuffle_a_draw_comes_from_the_reshuffled_pile_only() {
    let cases = mid_game(8, |p| p.state.reshuffled && p.state.deck.len() >= 2);
    assert!(cases.len() >= 4);
    for (played, turn, data) in cases {
        let n = played.table.names.len();
        let fresh = json!({"id": "new-card", "type": "lamp", "colour": "blue", "period": "60s", "value": 1});
        let others = [
            Some(fresh),
            played.state.pile.last().map(|&c| played.id(c)),
            played
                .state
                .collections
                .iter()
                .flatten()
                .next()
                .map(|&c| played.id(c)),
            played.state.showcases[(turn.seat + 1) % n]
                .first()
                .map(|&c| played.id(c)),
        ];
        for card in others.into_iter().flatten() {
            let mut bad = data.clone();
            let keep = if data["kept"] == data["drawn"][0] {
                0
            } else {
                1
            };
            bad["drawn"][1 - keep] = card;
            assert_refused(
                &played,
                "turn_taken",
                &bad,
                "cards drawn after the reshuffle come from the reshuffled pile",
            );
        }
        // The reshuffled pile is the deck now, face down: no longer dug.
        let hidden = played.id(played.state.deck[0]);
        let bad = with(with(data.clone(), "steal", Value::Null), "dig", hidden);
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "dig the top card of the discard pile",
        );
    }
}

#[test]
fn the_reshuffle_draw_takes_the_decks_last_card_first() {
    // 5 players: the deck holds 1 card when it first runs low; the next draw must take it.
    let cases = mid_game(6, |p| {
        p.table.names.len() == 5 && !p.state.reshuffled && p.state.deck.len() == 1
    });
    assert!(!cases.is_empty());
    for (played, turn, data) in cases {
        let last_card = played.state.deck[0];
        assert!(turn.drawn.contains(&last_card));
        // Two cards of the pile instead (when there are two to dig out of it).
        let mut pile = played.state.pile.clone();
        if let Some(dug) = turn.dig {
            pile.retain(|c| *c != dug);
        }
        if pile.len() < 2 {
            continue;
        }
        let bad = with(
            with(
                data.clone(),
                "drawn",
                json!([played.id(pile[0]), played.id(pile[1])]),
            ),
            "kept",
            played.id(pile[0]),
        );
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "the next draw takes what the deck still holds",
        );
        // Two new cards: the deck held one; a second would be a 64th card.
        let fresh = json!({"id": "new-card", "type": "lamp", "colour": "blue", "period": "60s", "value": 1});
        let bad = with(
            with(
                data,
                "drawn",
                json!([played.table.describe(last_card, &mut Dice(4)), fresh]),
            ),
            "kept",
            played.id(last_card),
        );
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "the rest is drawn from the reshuffled pile",
        );
    }
}

#[test]
fn no_turn_is_taken_once_the_game_has_ended() {
    for mut played in situations(12, |p| p.state.over) {
        let real = played.state.clone();
        // A would-be next turn; the deck no longer has two cards, so draw what it holds.
        played.state.over = false;
        let (_, data, _) = played.next();
        played.state = real;
        assert_refused(
            &played,
            "turn_taken",
            &data,
            "the game ends after that turn",
        );
    }
}

#[test]
fn final_banked_before_the_end_of_the_game_is_refused() {
    for (mut played, _, _) in mid_game(12, |_| true) {
        let (_, data) = played.final_bank();
        assert_refused(
            &played,
            "final_banked",
            &data,
            "final_banked comes after the last turn",
        );
    }
}

/// Games just ended, with a legal final bank planned.
fn ended(count: usize, wanted: impl Fn(&Played) -> bool) -> Vec<(Played, Vec<Vec<usize>>)> {
    situations(count, |p| p.state.over && wanted(p))
        .into_iter()
        .map(|mut p| {
            let (banked, data) = p.final_bank();
            assert_accepted(&p, "final_banked", &data);
            (p, banked)
        })
        .collect()
}

fn bank_json(played: &Played, banked: &[Vec<usize>]) -> Value {
    let map: Map<String, Value> = played
        .table
        .names
        .iter()
        .zip(banked)
        .map(|(n, cards)| {
            (
                (*n).to_owned(),
                json!(cards.iter().map(|&c| played.id(c)).collect::<Vec<_>>()),
            )
        })
        .collect();
    json!({"banked": map})
}

#[test]
fn every_player_banks_a_final_card_from_their_own_showcase() {
    for (played, banked) in ended(16, |_| true) {
        let n = played.table.names.len();
        for seat in 0..n {
            let mut none = banked.clone();
            none[seat].clear();
            assert_refused(
                &played,
                "final_banked",
                &bank_json(&played, &none),
                "one card per player (none only if the showcase is empty)",
            );
            let mut other = banked.clone();
            let neighbour = (seat + 1) % n;
            let card = *played.state.showcases[neighbour]
                .iter()
                .find(|c| !banked[neighbour].contains(c))
                .unwrap_or(&played.state.showcases[neighbour][0]);
            other[seat] = vec![card];
            assert_refused(
                &played,
                "final_banked",
                &bank_json(&played, &other),
                "from the player's own showcase",
            );
        }
        let mut missing = bank_json(&played, &banked);
        missing["banked"]
            .as_object_mut()
            .unwrap()
            .remove(played.table.names[0]);
        assert_refused(&played, "final_banked", &missing, "every player appears");
    }
}

#[test]
fn only_a_player_who_had_one_turn_fewer_may_bank_a_second_final_card() {
    let mut checked = (0, 0);
    for (played, banked) in ended(24, |_| true) {
        let most = *played.state.turns.iter().max().unwrap();
        let (last_seat, stolen) = played.state.last.unwrap();
        for seat in 0..played.table.names.len() {
            let mut spare: Vec<usize> = played.state.showcases[seat]
                .iter()
                .copied()
                .filter(|c| !banked[seat].contains(c))
                .filter(|c| seat != last_seat || Some(*c) != stolen)
                .collect();
            let mut more = banked.clone();
            let fewer = played.state.turns[seat] + 1 == most;
            let allowed = if fewer { 2 } else { 1 };
            while more[seat].len() <= allowed {
                let Some(card) = spare.pop() else { break };
                more[seat].push(card);
            }
            if fewer && banked[seat].len() == 1 {
                let mut same = banked.clone();
                same[seat].push(banked[seat][0]);
                assert_refused(
                    &played,
                    "final_banked",
                    &bank_json(&played, &same),
                    "two cards, not one card twice",
                );
            }
            if more[seat].len() > allowed {
                assert_refused(
                    &played,
                    "final_banked",
                    &bank_json(&played, &more),
                    "one card, or two after one turn fewer",
                );
                if fewer {
                    checked.1 += 1
                } else {
                    checked.0 += 1
                }
            }
        }
    }
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");
}

#[test]
fn the_last_player_may_not_bank_the_card_they_stole_on_the_final_turn() {
    let cases = ended(12, |p| matches!(p.state.last, Some((_, Some(_)))));
    assert!(cases.len() >= 6);
    for (played, banked) in cases {
        let (seat, stolen) = played.state.last.unwrap();
        let mut bad = banked.clone();
        bad[seat] = vec![stolen.unwrap()];
        assert_refused(
            &played,
            "final_banked",
            &bank_json(&played, &bad),
            "the last player may not bank the card they stole",
        );
    }
}

#[test]
fn nothing_follows_the_final_bank() {
    for (mut played, banked) in ended(6, |_| true) {
        let data = bank_json(&played, &banked);
        send(&mut played.log, "final_banked", &data).expect("legal");
        assert_refused(&played, "final_banked", &data, "final_banked ends the game");
    }
}

fn collections_json(played: &Played, lists: &[Vec<usize>]) -> Value {
    let mut dice = Dice(5);
    let described = vec![false; 63];
    let map: Map<String, Value> = played
        .table
        .names
        .iter()
        .zip(lists)
        .map(|(n, cards)| {
            let cards: Vec<Value> = cards
                .iter()
                .map(|&c| played.table.name(c, &described, &mut dice))
                .collect();
            ((*n).to_owned(), json!(cards))
        })
        .collect();
    json!({"collections": map})
}

#[test]
fn collections_recorded_is_refused_after_a_deal_or_with_a_card_twice_or_a_player_missing() {
    for (played, banked) in ended(8, |_| true) {
        let collections: Vec<Vec<usize>> = played
            .state
            .collections
            .iter()
            .zip(&banked)
            .map(|(c, b)| c.iter().chain(b).copied().collect())
            .collect();
        let data = collections_json(&played, &collections);
        // Recorded turn by turn already: the end-only form is for a table that records only it.
        assert_refused(
            &played,
            "collections_recorded",
            &data,
            "collections_recorded is the whole record",
        );
        let alone = played_alone(&played);
        assert_accepted(&alone, "collections_recorded", &data);
        let mut twice = collections.clone();
        let card = twice[0][0];
        twice[1].push(card);
        assert_refused(
            &alone,
            "collections_recorded",
            &collections_json(&played, &twice),
            "a card id is unique in the game",
        );
        let mut missing = data.clone();
        missing["collections"]
            .as_object_mut()
            .unwrap()
            .remove(played.table.names[1]);
        assert_refused(
            &alone,
            "collections_recorded",
            &missing,
            "every player once",
        );
        let mut stranger = data.clone();
        let ann = stranger["collections"][played.table.names[0]].take();
        stranger["collections"]
            .as_object_mut()
            .unwrap()
            .remove(played.table.names[0]);
        stranger["collections"]["Zed"] = ann;
        assert_refused(
            &alone,
            "collections_recorded",
            &stranger,
            "every player once",
        );
    }
}

/// The same table with only `game_started` in its log.
fn played_alone(played: &Played) -> Played {
    Played {
        seed: played.seed,
        table: Table {
            names: played.table.names.clone(),
            cards: played.table.cards.clone(),
            deck_mode: false,
            dig_one_in: 1,
        },
        state: played.state.clone(),
        log: played.log[..1].to_vec(),
        dice: Dice(0),
        engine: None,
    }
}

#[test]
fn more_than_63_cards_in_the_collections_are_refused() {
    let names = ["Ann", "Bo", "Cy"];
    let log = started(&names, &json!({"prizes": []}));
    let card = |k: usize| json!({"id": format!("x{k}"), "type": "lamp", "colour": "red", "period": "50s", "value": 1});
    let lists: Vec<Vec<Value>> = (0..3)
        .map(|p| (0..22).map(|i| card(p * 22 + i)).collect())
        .collect();
    let data = json!({"collections": {"Ann": lists[0], "Bo": lists[1], "Cy": lists[2]}});
    let played = Played {
        seed: 0,
        table: Table::new(&mut Dice(0), 3, false),
        state: State::deal(&Table::new(&mut Dice(0), 3, false), &mut Dice(0)),
        log,
        dice: Dice(0),
        engine: None,
    };
    assert_refused(
        &played,
        "collections_recorded",
        &data,
        "63 cards in all (66 given)",
    );
}

#[test]
fn a_card_described_again_otherwise_or_never_described_or_with_a_bad_value_is_refused() {
    for (played, turn, data) in mid_game(8, |p| !p.state.reshuffled && p.state.deck.len() >= 2) {
        // The banked card described again with another value.
        let mut again = played.table.describe(turn.banked, &mut Dice(9));
        again["value"] = json!(played.table.cards[turn.banked].value + 1);
        assert_refused(
            &played,
            "turn_taken",
            &with(data.clone(), "banked", again),
            "an id names one card",
        );
        let mut again = played.table.describe(turn.banked, &mut Dice(9));
        again["colour"] = json!("mauve");
        assert_refused(
            &played,
            "turn_taken",
            &with(data.clone(), "banked", again),
            "an id names one card",
        );
        // A drawn card named by an id nobody described.
        let new_at = if data["kept"]
            == data["drawn"][0]
                .get("id")
                .cloned()
                .unwrap_or(data["drawn"][0].clone())
        {
            1
        } else {
            0
        };
        let mut bad = data.clone();
        bad["drawn"][new_at] = json!("never-described");
        assert_refused(
            &played,
            "turn_taken",
            &bad,
            "a card is described before it is named by id",
        );
        for value in [json!(-1), json!(1.5), json!("3"), Value::Null] {
            let mut bad = data.clone();
            let mut card = played.table.describe(turn.drawn[0], &mut Dice(2));
            card["value"] = value;
            let at = data["drawn"]
                .as_array()
                .unwrap()
                .iter()
                .position(|d| d["id"] == card["id"])
                .unwrap();
            bad["drawn"][at] = card;
            assert_refused(&played, "turn_taken", &bad, "value is an integer ≥ 0");
        }
    }
}

#[test]
fn a_game_needs_three_to_six_players_and_at_most_17_known_prizes() {
    let none = json!({"prizes": []});
    for players in [2, 7] {
        let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(
            Game::Vintage.start(&entries(&refs), &none).is_err(),
            "{players} players"
        );
    }
    let names = ["Ann", "Bo", "Cy"];
    let prize = |i: usize| json!({"id": format!("p{i}"), "name": "Most blue", "attribute": "colour", "value": "blue", "points": 1});
    let seventeen: Vec<Value> = (0..17).map(prize).collect();
    assert!(
        Game::Vintage
            .start(&entries(&names), &json!({"prizes": seventeen}))
            .is_ok()
    );
    let eighteen: Vec<Value> = (0..18).map(prize).collect();
    // "63 antique cards and 17 prize cards".
    assert!(
        Game::Vintage
            .start(&entries(&names), &json!({"prizes": eighteen}))
            .is_err()
    );
    for (option, value) in [("prize_tie", "most"), ("winner_tie", "nobody")] {
        let mut options = none.clone();
        options[option] = json!(value);
        assert!(
            Game::Vintage.start(&entries(&names), &options).is_err(),
            "{option}"
        );
    }
}
