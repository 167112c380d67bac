//! What the events of a Mint Julep game established: each event is
//! parsed (`events.rs`), then checked against the game so far here.
//!
//! rules: the race is one race over the whole game. It starts once (all horses in one group)
//! and carries from round to round; it never resets. That is why a later bet pays a late
//! penalty, and why the placement scored is the one at game end.

use super::Options;
use super::events::{BetPlaced, CardPlayed, ROUNDS, RaceRecorded};
use super::horses::Horse;
use super::race::Race;
use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;
use crate::score::{said_commas, said_list, said_names};
use crate::setup::Players;

/// An active bet: who backs which horse since which round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bet {
    /// Seat index (0-based).
    pub player: usize,
    pub horse: Horse,
    /// rules: a bet remembers the round it was placed in (for the late penalty).
    pub round: u32,
    pub initiative: Option<char>,
}

/// How the race of the current round is being recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundRace {
    /// No card played and no finish recorded yet: bets may still be placed.
    NotStarted,
    /// Card by card (`card_played`).
    Cards,
    /// Only the finish (`race_recorded`).
    Finish,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Players,
    pub options: Options,
    pub race: Race,
    /// The round being played, 1 to 3 (3 once the game is finished).
    pub round: u32,
    pub finished: bool,
    /// Active bets, in the order placed; replaced bets are discarded.
    pub bets: Vec<Bet>,
    pub round_race: RoundRace,
    /// A race was recorded only by its finish: the groups are unknown from then on.
    pub finish_only: bool,
    /// Round 3's recorded finish ended the game; its `round_ended` may still come.
    pub(super) last_round_end_due: bool,
    /// The race order of this round when every bet's letter is recorded, and how far the
    /// race has got in it (index of the player who played last).
    turns: Option<Turns>,
    /// Who played this round's Mint Julep card, and on which horse.
    mint_julep_card: Option<(usize, Horse)>,
}

#[derive(Debug, Clone, PartialEq)]
struct Turns {
    /// (player, the bet that placed them) in race order.
    order: Vec<(usize, Horse, char)>,
    at: usize,
}

impl State {
    /// A game before its first event: round 1, nobody has bet.
    pub(super) fn new(players: Players, options: Options) -> State {
        State {
            players,
            options,
            race: Race::new(),
            round: 1,
            finished: false,
            bets: Vec::new(),
            round_race: RoundRace::NotStarted,
            finish_only: false,
            last_round_end_due: false,
            turns: None,
            mint_julep_card: None,
        }
    }

    /// rules: at most one active bet per player; with 2 players, up to two each.
    pub fn bets_per_player(&self) -> usize {
        if self.players.len() == 2 { 2 } else { 1 }
    }

    fn bets_of(&self, player: usize) -> impl Iterator<Item = &Bet> {
        self.bets.iter().filter(move |b| b.player == player)
    }

    fn name(&self, player: usize) -> &str {
        &self.players[player].name
    }
}

/// Every event names the round it belongs to; rounds are played in order.
fn check_round(state: &State, round: u32) -> Result<(), RuleError> {
    if round == state.round {
        return Ok(());
    }
    let rule = if round < state.round {
        crate::said!(
            "server.mint_julep.refusal.round_has_ended",
            round = round,
            current = state.round
        )
    } else {
        crate::said!(
            "server.mint_julep.refusal.round_not_yet",
            round = round,
            current = state.round
        )
    };
    Err(RuleError::said("/round", rule))
}

/// rules: before the first race move of round 1 every player has a bet. With 2 players one
/// is enough: the second bet is allowed, not required ("each player *can* have two").
fn check_compulsory_bets(state: &State, before: Message) -> Result<(), RuleError> {
    if state.round != 1 {
        return Ok(());
    }
    let missing: Vec<Message> = (0..state.players.len())
        .filter(|&p| state.bets_of(p).next().is_none())
        .map(|p| crate::said!("server.mint_julep.refusal.has_no_bet", name = state.name(p)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(RuleError::said(
        "",
        crate::said!(
            "server.mint_julep.refusal.round_1_every_player_must",
            before = before,
            missing = said_list(missing)
        ),
    ))
}

pub(super) fn place_bet(state: &mut State, bet: BetPlaced) -> Result<(), RuleError> {
    check_round(state, bet.round)?;
    let name = state.name(bet.player).to_owned();
    if state.round_race != RoundRace::NotStarted {
        // rules: each round is draft → bet → race.
        return Err(RuleError::said(
            "",
            crate::said!(
                "server.mint_julep.refusal.cannot_bet_now_bets_round",
                name = name,
                round = &state.round
            ),
        ));
    }
    let replaced = if state.options.replaces_only_between_two_bets {
        replaced_bet_as_read_before(state, &bet, &name)?
    } else {
        replaced_bet(state, &bet, &name)?
    };
    if let Some(index) = replaced {
        // rules: the new bet replaces (discards) the old one.
        state.bets.remove(index);
    }
    state.bets.push(Bet {
        player: bet.player,
        horse: bet.horse,
        round: bet.round,
        initiative: bet.initiative,
    });
    Ok(())
}

/// The index of the active bet a new bet replaces, or `None` when it is added.
///
/// rules: "`replaces`, when present, must name one of the player's active bets, and that bet is
/// replaced … in any game, whatever the number of the player's active bets". Without it, a
/// round-1 bet is the player's compulsory one (or, with 2 players, their second); a 3–4-player
/// bet in round 2 or 3 replaces the player's one active bet; a 2-player bet is added while the
/// player holds fewer than two, and is refused once they hold two. Nothing limits how many new
/// bets a player places in a round.
fn replaced_bet(state: &State, bet: &BetPlaced, name: &str) -> Result<Option<usize>, RuleError> {
    let mine = active_bets(state, bet.player);
    if let Some(horse) = bet.replaces {
        // Two bets on one horse (2 players) differ only by their penalty: the earlier goes.
        return match mine.iter().find(|(_, b)| b.horse == horse) {
            Some((index, _)) => Ok(Some(*index)),
            None => Err(no_bet_to_replace(name, horse, &mine)),
        };
    }
    let per_player = state.bets_per_player();
    if mine.len() < per_player {
        return Ok(None);
    }
    if bet.round == 1 {
        return Err(RuleError::said(
            "/player",
            crate::said!(
                "server.mint_julep.refusal.already_placed_round_1_bet",
                name = name,
                bets = bets_held(per_player)
            ),
        ));
    }
    if per_player == 1 {
        return Ok(mine.first().map(|(index, _)| *index));
    }
    Err(replaces_required(name, &mine))
}

/// How games stored before schema version [`super::NAMED_REPLACEMENT_SINCE`] read `replaces`:
/// only with 2 players holding two bets; everywhere else it was left aside (a 2-player bet
/// naming the player's one bet was added as the second, a 3–4-player bet replaced the active
/// one whatever it named, a round-1 bet never replaced).
fn replaced_bet_as_read_before(
    state: &State,
    bet: &BetPlaced,
    name: &str,
) -> Result<Option<usize>, RuleError> {
    let mine = active_bets(state, bet.player);
    let per_player = state.bets_per_player();
    if bet.round == 1 {
        if mine.len() >= per_player {
            return Err(RuleError::said(
                "/player",
                crate::said!(
                    "server.mint_julep.refusal.already_placed_round_1_new",
                    name = name,
                    bets = bets_held(per_player)
                ),
            ));
        }
        return Ok(None);
    }
    if mine.len() < per_player {
        return Ok(None);
    }
    if per_player == 1 {
        return Ok(mine.first().map(|(index, _)| *index));
    }
    let Some(horse) = bet.replaces else {
        return Err(replaces_required(name, &mine));
    };
    match mine.iter().find(|(_, b)| b.horse == horse) {
        Some((index, _)) => Ok(Some(*index)),
        None => Err(no_bet_to_replace(name, horse, &mine)),
    }
}

/// A player's active bets with their places in `state.bets`, oldest first.
fn active_bets(state: &State, player: usize) -> Vec<(usize, &Bet)> {
    state
        .bets
        .iter()
        .enumerate()
        .filter(|(_, b)| b.player == player)
        .collect()
}

fn bets_held(per_player: usize) -> Message {
    if per_player == 2 {
        crate::said!("server.mint_julep.refusal.two_bets_held")
    } else {
        crate::said!("server.mint_julep.refusal.one_bet_held")
    }
}

fn replaces_required(name: &str, mine: &[(usize, &Bet)]) -> RuleError {
    let horses: Vec<&str> = mine.iter().map(|(_, b)| b.horse.name()).collect();
    RuleError::said(
        "/replaces",
        crate::said!(
            "server.mint_julep.refusal.2_players_holds_two_bets",
            name = name,
            horses = said_names(&horses)
        ),
    )
}

fn no_bet_to_replace(name: &str, horse: Horse, mine: &[(usize, &Bet)]) -> RuleError {
    let horses: Vec<&str> = mine.iter().map(|(_, b)| b.horse.name()).collect();
    let held = if horses.is_empty() {
        crate::said!("server.mint_julep.refusal.no_active_bet_yet", name = name)
    } else {
        crate::said!(
            "server.mint_julep.refusal.active_bets",
            name = name,
            horses = said_names(&horses)
        )
    };
    RuleError::said(
        "/replaces",
        crate::said!(
            "server.mint_julep.refusal.has_no_active_bet_replace",
            name = name,
            horse = horse.name(),
            held = held
        ),
    )
}

pub(super) fn play_card(state: &mut State, card: CardPlayed) -> Result<(), RuleError> {
    check_round(state, card.round)?;
    if state.round_race == RoundRace::Finish || state.finish_only {
        return Err(RuleError::said(
            "",
            crate::said!("server.mint_julep.refusal.earlier_race_recorded_gave_only"),
        ));
    }
    check_compulsory_bets(
        state,
        crate::said!("server.mint_julep.refusal.before_the_race"),
    )?;
    let turns = check_turn(state, card.player)?;
    if let (Some(_), Some((player, horse))) = (card.mint_julep, state.mint_julep_card) {
        // rules: one Mint Julep card in the deck, shuffled back only at the round's end.
        return Err(RuleError::said(
            "/mint_julep",
            crate::said!(
                "server.mint_julep.refusal.already_played_mint_julep_card",
                name = state.name(player),
                round = &state.round,
                horse = horse.name()
            ),
        ));
    }

    let mut race = state.race.clone();
    if let Some(horse) = card.mint_julep {
        race.flip(horse).map_err(|e| {
            RuleError::said(
                "/mint_julep/horse",
                crate::said!(
                    "server.mint_julep.refusal.mint_julep",
                    horse = horse.name(),
                    rule = e.rule()
                ),
            )
        })?;
    }
    race.play_moves(&card.moves).map_err(|(i, e)| {
        RuleError::said(
            pointer(["moves".to_owned(), i.to_string()]),
            crate::said!(
                "server.mint_julep.refusal.move",
                number = i + 1,
                what = card.moves[i].describe(),
                rule = e.rule()
            ),
        )
    })?;
    state.race = race;
    state.round_race = RoundRace::Cards;
    state.turns = turns;
    if let Some(horse) = card.mint_julep {
        state.mint_julep_card = Some((card.player, horse));
    }
    Ok(())
}

/// rules: race order — backers of the leading horse first, then the next horse's, several
/// backers of one horse by initiative letter, A first. Enforced only when every active bet's
/// letter is recorded. A player's turn is one run of cards: once a later player has played,
/// an earlier player's turn is over for the round. Returns the order with this card taken.
fn check_turn(state: &State, player: usize) -> Result<Option<Turns>, RuleError> {
    let turns = match (&state.turns, state.round_race) {
        (Some(turns), RoundRace::Cards) => turns.clone(),
        (None, RoundRace::Cards) => return Ok(None),
        _ => match race_order(state) {
            Some(order) => Turns { order, at: 0 },
            None => return Ok(None),
        },
    };
    if !turns.order.iter().any(|(p, _, _)| *p == player) {
        return Ok(Some(turns));
    }
    // A player with two bets (2 players) has a place for each: the next one from here.
    let next = turns
        .order
        .iter()
        .enumerate()
        .skip(turns.at)
        .find(|(_, (p, _, _))| *p == player)
        .map(|(position, _)| position);
    let Some(position) = next else {
        let order = turns.order.iter().map(|(p, horse, letter)| {
            crate::said!(
                "server.mint_julep.refusal.turn_in_order",
                name = state.name(*p),
                horse = horse.name(),
                letter = *letter
            )
        });
        return Err(RuleError::said(
            "/player",
            crate::said!(
                "server.mint_julep.refusal.turn_round_race_over_race",
                name = state.name(player),
                round = &state.round,
                join = said_commas(order),
                played = state.name(turns.order[turns.at].0)
            ),
        ));
    };
    Ok(Some(Turns {
        at: position,
        ..turns
    }))
}

/// The race order at the start of this round's race, or `None` when a letter is missing or
/// two backers of one horse recorded the same letter (their order is then unknown).
fn race_order(state: &State) -> Option<Vec<(usize, Horse, char)>> {
    if state.bets.is_empty() || state.bets.iter().any(|b| b.initiative.is_none()) {
        return None;
    }
    let mut order: Vec<(usize, Horse, char)> = Vec::new();
    for horse in state.race.placement() {
        let mut backers: Vec<(usize, char)> = state
            .bets
            .iter()
            .filter(|b| b.horse == horse)
            .filter_map(|b| b.initiative.map(|l| (b.player, l)))
            .collect();
        backers.sort_by_key(|(_, letter)| *letter);
        if backers.windows(2).any(|pair| pair[0].1 == pair[1].1) {
            return None;
        }
        for (player, letter) in backers {
            order.push((player, horse, letter));
        }
    }
    Some(order)
}

pub(super) fn record_race(state: &mut State, race: RaceRecorded) -> Result<(), RuleError> {
    check_round(state, race.round)?;
    match state.round_race {
        RoundRace::Finish => {
            return Err(RuleError::said(
                "/round",
                crate::said!(
                    "server.mint_julep.refusal.round_race_already_recorded_correct",
                    round = &state.round
                ),
            ));
        }
        RoundRace::Cards => {
            return Err(RuleError::said(
                "/round",
                crate::said!(
                    "server.mint_julep.refusal.round_race_being_recorded_card",
                    round = &state.round
                ),
            ));
        }
        RoundRace::NotStarted => {}
    }
    check_compulsory_bets(
        state,
        crate::said!("server.mint_julep.refusal.before_the_race"),
    )?;
    state.race.set_finish(&race.order);
    state.round_race = RoundRace::Finish;
    state.finish_only = true;
    // The last round's finish is the game's final placement: nothing is left to record, so
    // it ends the game (a round_ended after it is not needed). Earlier rounds still end with
    // round_ended, after which bets for the next round may be placed.
    if race.round == ROUNDS && state.options.last_race_ends_game {
        close_round(state);
        state.last_round_end_due = true;
    }
    Ok(())
}

pub(super) fn end_round(state: &mut State, round: u32) -> Result<(), RuleError> {
    check_round(state, round)?;
    if state.last_round_end_due {
        // Round 3, already closed by its recorded finish: nothing left to do.
        state.last_round_end_due = false;
        return Ok(());
    }
    check_compulsory_bets(
        state,
        crate::said!("server.mint_julep.refusal.before_round_1_ends"),
    )?;
    close_round(state);
    Ok(())
}

fn close_round(state: &mut State) {
    // rules: the race carries into the next round as it stands: the horses start round 2 (and
    // 3) where round 1 (2) left them, not back at the start.
    if state.round == ROUNDS {
        state.finished = true;
    } else {
        state.round += 1;
    }
    state.round_race = RoundRace::NotStarted;
    state.turns = None;
    // rules: the Mint Julep card is shuffled back into the deck at the end of the round.
    state.mint_julep_card = None;
}
