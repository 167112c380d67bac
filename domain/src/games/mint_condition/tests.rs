//! Given / when / then tests of Mint Condition: given a game and its rounds, when a round is
//! collected, then this score or this rule error. Every expected number is worked out by hand
//! from `shared/rules/mint-condition.md`; the comment beside it shows the arithmetic.

use serde_json::{Value, json};

use super::{MintCondition, State};
use crate::error::RuleError;
use crate::games::Game;
use crate::insights::{names, summed};
use crate::log::{LogEvent, start};
use crate::ruleset::Ruleset;
use crate::score::{Line, PlayerScore, RoundScore, Scoreboard};
use crate::setup::PlayerEntry;
use crate::untranslated::{FRENCH, PERSIAN};

// ---------------------------------------------------------------------------------------------
// Helpers: given a game, when a round is collected, then look at the scoreboard.
// ---------------------------------------------------------------------------------------------

fn seated(names: &[&str]) -> Vec<PlayerEntry> {
    names
        .iter()
        .map(|name| PlayerEntry {
            name: (*name).into(),
            color: None,
        })
        .collect()
}

fn coloured(players: &[(&str, &str)]) -> Vec<PlayerEntry> {
    players
        .iter()
        .map(|(name, color)| PlayerEntry {
            name: (*name).into(),
            color: Some((*color).into()),
        })
        .collect()
}

/// Given a new game: the setup is checked and stored exactly as `game_started` stores it.
fn new_game(players: &[PlayerEntry], options: Value) -> State {
    let setup = start::<MintCondition>(players, &options).expect("a valid setup");
    let options = serde_json::from_value(setup.options).expect("stored options read back");
    MintCondition::new_game(setup.players.into(), options)
}

/// Options with `strict_counts` off, so a test holds only the cards it is about.
fn loose(options: Value) -> Value {
    let mut options = options;
    options["strict_counts"] = json!(false);
    options
}

/// When round `round` is collected.
fn collect(state: &mut State, round: u32, collections: Value) -> Result<(), RuleError> {
    MintCondition::apply(
        state,
        "round_collected",
        &json!({"round": round, "collections": collections}),
    )
}

/// Given a game whose rounds 1, 2, … are these collections (each must be accepted).
fn given_rounds(players: &[PlayerEntry], options: Value, rounds: &[Value]) -> State {
    let mut state = new_game(players, options);
    for (i, collections) in rounds.iter().enumerate() {
        collect(&mut state, i as u32 + 1, collections.clone())
            .unwrap_or_else(|e| panic!("round {} is refused: {e}", i + 1));
    }
    state
}

/// The scoreboard of a two-player game (Ann, Bo) of one round with strict_counts off.
fn one_round(options: Value, collections: Value) -> Scoreboard {
    let state = given_rounds(&seated(&["Ann", "Bo"]), loose(options), &[collections]);
    MintCondition::score(&state)
}

/// Ann's round 1 when she collects `cards` and Bo a single Be Careful!, so Ann's Be Careful!
/// line is always 5 ("none, while others hold some").
fn ann_round_one(options: Value, cards: Value) -> RoundScore {
    let board = one_round(options, json!({"Ann": cards, "Bo": ["be-careful"]}));
    player(&board, "Ann").rounds[0].clone()
}

fn player<'a>(board: &'a Scoreboard, name: &str) -> &'a PlayerScore {
    board
        .players
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} is not on the scoreboard"))
}

fn line<'a>(round: &'a RoundScore, label: &str) -> &'a Line {
    round
        .breakdown
        .iter()
        .find(|l| l.label == label)
        .unwrap_or_else(|| panic!("no line {label:?} in {:#?}", round.breakdown))
}

fn round_of<'a>(board: &'a Scoreboard, name: &str, round: u32) -> &'a RoundScore {
    &player(board, name).rounds[round as usize - 1]
}

/// `n` copies of a card id.
fn cards(n: usize, id: &str) -> Vec<Value> {
    vec![json!(id); n]
}

/// Concatenates groups of cards into one collection.
fn hand(groups: &[Vec<Value>]) -> Value {
    Value::Array(groups.concat())
}

fn error(result: Result<(), RuleError>) -> RuleError {
    result.expect_err("the round should be refused")
}

// ---------------------------------------------------------------------------------------------
// Card rules
// ---------------------------------------------------------------------------------------------

#[test]
fn animal_kingdom_deals_6_per_complete_set_of_3() {
    // (n, damage): 6 * (n / 3)
    for (n, expected) in [(2, 0), (3, 6), (5, 6), (6, 12)] {
        // Arrange / Act
        let round = ann_round_one(json!({}), hand(&[cards(n, "animal-kingdom")]));
        // Assert
        let l = line(&round, &format!("Animal Kingdom ×{n}"));
        assert_eq!(l.points, expected, "{n} Animal Kingdom");
    }
    let round = ann_round_one(json!({}), hand(&[cards(5, "animal-kingdom")]));
    assert_eq!(
        line(&round, "Animal Kingdom ×5").detail,
        "1 complete set(s) of 3 × 6"
    );
    // 5 (no Be Careful!) + 6
    assert_eq!(round.points, 11);
}

#[test]
fn autographed_deals_5_per_complete_pair() {
    // (n, damage): 5 * (n / 2)
    for (n, expected) in [(1, 0), (2, 5), (3, 5), (4, 10)] {
        let round = ann_round_one(json!({}), hand(&[cards(n, "autographed")]));
        assert_eq!(
            line(&round, &format!("Autographed ×{n}")).points,
            expected,
            "{n}"
        );
    }
}

#[test]
fn fine_wine_deals_2_each() {
    // Arrange / Act
    let round = ann_round_one(json!({}), hand(&[cards(3, "fine-wine")]));
    // Assert: 2 * 3
    let l = line(&round, "Fine Wine ×3");
    assert_eq!(l.points, 6);
    assert_eq!(l.detail, "3 × 2");
}

#[test]
fn heavy_rotation_follows_a_cycle_of_4() {
    // rulebook: n mod 4 = 1 → 1, 2 → 3, 3 → 5, 0 → 0.
    let cycle = [(1, 1), (2, 3), (3, 5), (4, 0), (5, 1), (6, 3), (8, 0)];
    for (n, expected) in cycle {
        let round = ann_round_one(json!({}), hand(&[cards(n, "heavy-rotation")]));
        let l = line(&round, &format!("Heavy Rotation ×{n}"));
        assert_eq!(l.points, expected, "{n} Heavy Rotation");
    }
    let round = ann_round_one(json!({}), hand(&[cards(5, "heavy-rotation")]));
    assert_eq!(
        line(&round, "Heavy Rotation ×5").detail,
        "5 in a cycle of 4 (1 into the cycle) → 1"
    );
}

#[test]
fn legacy_edition_deals_4_each() {
    let round = ann_round_one(json!({}), hand(&[cards(3, "legacy-edition")]));
    // 4 * 3
    assert_eq!(line(&round, "Legacy Edition ×3").points, 12);
}

#[test]
fn lost_pieces_deals_3_per_copy_still_in_the_collection() {
    let round = ann_round_one(json!({}), hand(&[cards(2, "lost-pieces")]));
    // 3 * 2
    let l = line(&round, "Lost Pieces ×2");
    assert_eq!(l.points, 6);
    assert_eq!(l.detail, "2 × 3 still in the collection");
}

#[test]
fn one_or_two_memories_deal_7_and_three_deal_nothing() {
    for (n, expected) in [(1, 7), (2, 7), (3, 0)] {
        let round = ann_round_one(json!({}), hand(&[cards(n, "memories")]));
        assert_eq!(
            line(&round, &format!("Memories ×{n}")).points,
            expected,
            "{n}"
        );
    }
}

#[test]
fn no_memories_deal_no_damage_and_need_no_line() {
    // Arrange / Act
    let round = ann_round_one(json!({}), json!(["fine-wine"]));
    // Assert: 5 (no Be Careful!) + 2 (Fine Wine); nothing for Memories
    assert!(
        round
            .breakdown
            .iter()
            .all(|l| !l.label.to_string().starts_with("Memories"))
    );
    assert_eq!(round.points, 7);
}

#[test]
fn four_or_more_memories_are_free_by_default() {
    for n in [4, 5, 6, 7] {
        let round = ann_round_one(json!({}), hand(&[cards(n, "memories")]));
        let l = line(&round, &format!("Memories ×{n}"));
        assert_eq!(l.points, 0, "{n} Memories");
        assert!(
            l.detail.to_string().contains("memories_over_three: free"),
            "{}",
            l.detail
        );
    }
}

#[test]
fn four_or_more_memories_deal_7_unless_a_multiple_of_3_with_that_house_rule() {
    let options = json!({"memories_over_three": "multiples_of_three"});
    // 4, 5, 7 are not multiples of 3 → 7; 6 is → 0
    for (n, expected) in [(4, 7), (5, 7), (6, 0), (7, 7)] {
        let round = ann_round_one(options.clone(), hand(&[cards(n, "memories")]));
        let l = line(&round, &format!("Memories ×{n}"));
        assert_eq!(l.points, expected, "{n} Memories");
        assert!(
            l.detail
                .to_string()
                .contains("memories_over_three: multiples_of_three"),
            "{}",
            l.detail
        );
    }
    // The printed rule for 1–3 is untouched by the house rule.
    let round = ann_round_one(options, hand(&[cards(3, "memories")]));
    assert_eq!(line(&round, "Memories ×3").points, 0);
}

#[test]
fn the_first_snack_fingers_is_free_then_3_each() {
    // 3 * max(n - 1, 0)
    for (n, expected) in [(1, 0), (2, 3), (3, 6)] {
        let round = ann_round_one(json!({}), hand(&[cards(n, "snack-fingers")]));
        assert_eq!(
            line(&round, &format!("Snack Fingers ×{n}")).points,
            expected,
            "{n}"
        );
    }
}

#[test]
fn a_sleeve_me_up_alone_deals_no_damage() {
    let round = ann_round_one(json!({}), json!(["sleeve-me-up"]));
    let l = line(&round, "Sleeve Me Up! ×1");
    assert_eq!(l.points, 0);
    assert_eq!(
        l.detail,
        "no damage itself; protects up to 1 card(s) each: nothing"
    );
    // 5 (no Be Careful!) + 0
    assert_eq!(round.points, 5);
}

// ---------------------------------------------------------------------------------------------
// Sleeve Me Up!
// ---------------------------------------------------------------------------------------------

#[test]
fn a_protected_card_deals_no_damage() {
    // Arrange / Act
    let round = ann_round_one(
        json!({}),
        json!(["sleeve-me-up", {"card": "legacy-edition", "protected": true}, "legacy-edition"]),
    );
    // Assert: one Legacy Edition counts, 4 * 1; the protected one is explained
    let l = line(&round, "Legacy Edition ×1");
    assert_eq!(l.points, 4);
    assert_eq!(l.detail, "1 × 4 (1 more protected by Sleeve Me Up!)");
    assert_eq!(
        line(&round, "Sleeve Me Up! ×1").detail,
        "no damage itself; protects up to 1 card(s) each: Legacy Edition"
    );
    // 5 (no Be Careful!) + 4 + 0
    assert_eq!(round.points, 9);
}

#[test]
fn a_protected_card_does_not_count_toward_its_sets() {
    // Arrange / Act
    let round = ann_round_one(
        json!({}),
        json!(["animal-kingdom", "animal-kingdom",
               {"card": "animal-kingdom", "protected": true}, "sleeve-me-up"]),
    );
    // Assert: 2 unprotected → 6 * (2 / 3) = 0, not a set of 3
    assert_eq!(line(&round, "Animal Kingdom ×2").points, 0);
    assert_eq!(round.points, 5);
}

/// Ann's only Be Careful! is protected, Bo holds two and Cy none; Ann's Fine Wine shows that
/// the rest of her round is scored as usual.
fn only_be_careful_protected(options: Value) -> Scoreboard {
    let state = given_rounds(
        &seated(&["Ann", "Bo", "Cy"]),
        loose(options),
        &[json!({
            "Ann": ["sleeve-me-up", {"card": "be-careful", "protected": true}, "fine-wine"],
            "Bo": ["be-careful", "be-careful"],
            "Cy": ["legacy-edition"],
        })],
    );
    MintCondition::score(&state)
}

#[test]
fn a_protected_be_careful_still_counts_toward_the_majority_by_default() {
    // Arrange / Act
    let board = only_be_careful_protected(json!({}));
    // Assert: counts Ann 1, Bo 2, Cy 0 → Ann fewer than the most → 3, Bo 0, Cy none → 5
    let ann = round_of(&board, "Ann", 1);
    let be_careful = line(ann, "Be Careful! ×1");
    assert_eq!(be_careful.points, 3);
    assert_eq!(
        be_careful.detail,
        "1, fewer than the most (2) → 3 (1 of them protected by Sleeve Me Up!, still counted: \
         house rule protected_be_careful: counts)"
    );
    // Ann 3 + 0 (Sleeve Me Up!) + 2 (Fine Wine) = 5; Bo 0; Cy 5 + 4 (Legacy Edition) = 9
    assert_eq!(ann.points, 5);
    assert_eq!(player(&board, "Bo").total, 0);
    assert_eq!(player(&board, "Cy").total, 9);
}

#[test]
fn with_protected_be_careful_ignored_a_protected_one_is_left_out_of_the_majority() {
    // Arrange / Act
    let board = only_be_careful_protected(json!({"protected_be_careful": "ignored"}));
    // Assert: counts Ann 0, Bo 2, Cy 0 → Ann none → 5, Bo 0, Cy 5
    let ann = round_of(&board, "Ann", 1);
    let be_careful = line(ann, "Be Careful! ×0");
    assert_eq!(be_careful.points, 5);
    assert_eq!(
        be_careful.detail,
        "none, while others hold some → 5 (1 more protected by Sleeve Me Up!, not counted: \
         house rule protected_be_careful: ignored)"
    );
    // Ann 5 + 0 + 2 = 7; Bo 0; Cy 5 + 4 = 9
    assert_eq!(ann.points, 7);
    assert_eq!(player(&board, "Bo").total, 0);
    assert_eq!(player(&board, "Cy").total, 9);
}

#[test]
fn a_protected_be_careful_can_tie_for_the_most() {
    // Arrange: Ann holds 3 Be Careful!, one of them protected; Bo holds 3
    let rounds = json!({
        "Ann": ["be-careful", "be-careful", {"card": "be-careful", "protected": true},
                "sleeve-me-up"],
        "Bo": ["be-careful", "be-careful", "be-careful"],
    });
    // Act
    let counts = one_round(json!({}), rounds.clone());
    let ignored = one_round(json!({"protected_be_careful": "ignored"}), rounds);
    // Assert: by default 3 and 3, tied for the most → 0 each
    assert_eq!(
        line(round_of(&counts, "Ann", 1), "Be Careful! ×3").points,
        0
    );
    assert_eq!(line(round_of(&counts, "Bo", 1), "Be Careful! ×3").points, 0);
    // ignored: Ann counts 2 < 3 → 3; Bo 3, the most → 0
    let ann = line(round_of(&ignored, "Ann", 1), "Be Careful! ×2");
    assert_eq!(ann.points, 3);
    assert_eq!(
        ann.detail,
        "2, fewer than the most (3) → 3 (1 more protected by Sleeve Me Up!, not counted: \
         house rule protected_be_careful: ignored)"
    );
    assert_eq!(
        line(round_of(&ignored, "Bo", 1), "Be Careful! ×3").points,
        0
    );
}

#[test]
fn when_the_only_be_careful_is_protected_ignored_means_nobody_holds_one() {
    // Arrange: Ann's one Be Careful! is protected, Bo holds none
    let rounds = json!({
        "Ann": ["sleeve-me-up", {"card": "be-careful", "protected": true}],
        "Bo": ["fine-wine"],
    });
    // Act
    let counts = one_round(json!({}), rounds.clone());
    let ignored = one_round(json!({"protected_be_careful": "ignored"}), rounds);
    // Assert: by default Ann 1, the most → 0; Bo none → 5, + 2 (Fine Wine) = 7
    assert_eq!(player(&counts, "Ann").total, 0);
    assert_eq!(player(&counts, "Bo").total, 7);
    assert_eq!(counts.winners, ["Ann"]);
    // ignored: nobody holds one that counts → 5 each (be_careful_when_none: five); Bo 5 + 2 = 7
    let bo = line(round_of(&ignored, "Bo", 1), "Be Careful! ×0");
    assert_eq!(
        bo.detail,
        "nobody holds Be Careful! (house rule be_careful_when_none: five) → 5"
    );
    assert_eq!(player(&ignored, "Ann").total, 5);
    assert_eq!(player(&ignored, "Bo").total, 7);
    assert_eq!(ignored.winners, ["Ann"]);
}

#[test]
fn the_tiebreak_counts_a_protected_be_careful_whatever_protected_be_careful_says() {
    // Arrange: Ann holds 2 Be Careful!, one of them protected; Bo holds 1. By default Ann's 2
    // are the most (0) and Bo takes 3, so Ann's Heavy Rotation ×2 (3) ties them on 3. With
    // "ignored" both count 1, tied for the most (0 each), so they tie on 0 without it.
    let counts = one_round(
        json!({}),
        json!({
            "Ann": ["sleeve-me-up", {"card": "be-careful", "protected": true}, "be-careful",
                    "heavy-rotation", "heavy-rotation"],
            "Bo": ["be-careful"],
        }),
    );
    let ignored = one_round(
        json!({"protected_be_careful": "ignored"}),
        json!({
            "Ann": ["sleeve-me-up", {"card": "be-careful", "protected": true}, "be-careful"],
            "Bo": ["be-careful"],
        }),
    );
    // Assert: either way the tie-break counts both of Ann's against Bo's 1 → Ann wins
    for (board, damage) in [(&counts, 3), (&ignored, 0)] {
        assert_eq!(player(board, "Ann").total, damage);
        assert_eq!(player(board, "Bo").total, damage);
        assert_eq!(board.winners, ["Ann"]);
        assert_eq!(
            board.tiebreak.as_ref().expect("a tie-break").detail,
            format!(
                "Ann and Bo tied on {damage} damage; Be Careful! cards: Ann 2, Bo 1 → Ann wins"
            )
        );
    }
}

#[test]
fn a_protected_card_still_shows_its_lucky_symbol() {
    // Arrange
    let players = coloured(&[("Ann", "red"), ("Bo", "blue")]);
    let options = loose(json!({"lucky": true}));
    // Act
    let state = given_rounds(
        &players,
        options,
        &[json!({
            "Ann": ["sleeve-me-up", {"card": "legacy-edition", "protected": true, "symbol": "red"},
                    "fine-wine", "be-careful"],
            "Bo": ["be-careful"],
        })],
    );
    let board = MintCondition::score(&state);
    // Assert: Ann 0 (Be Careful! tied) + 0 (protected) + 2 (Fine Wine) = 2, Lucky −1 → 1
    let ann = player(&board, "Ann");
    assert_eq!(ann.rounds[0].points, 2);
    assert_eq!(ann.adjustments[0].points, -1);
    assert_eq!(ann.total, 1);
}

#[test]
fn more_protected_cards_than_the_sleeves_allow_are_refused() {
    // Arrange
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    // Act
    let err = error(collect(
        &mut state,
        1,
        json!({
            "Ann": ["sleeve-me-up", {"card": "legacy-edition", "protected": true},
                    {"card": "fine-wine", "protected": true}],
            "Bo": ["be-careful"],
        }),
    ));
    // Assert: 1 sleeve × 1 = 1 protected card allowed; the second is card 2
    assert_eq!(err.pointer, "/collections/Ann/2/protected");
    assert_eq!(
        err.rule,
        "Ann has 1 Sleeve Me Up! card(s), which protect at most 1 card(s) (1 each), \
         but more cards are marked protected"
    );
    assert!(
        state.rounds.is_empty(),
        "a refused round leaves the game as it was"
    );
}

#[test]
fn a_protected_card_without_any_sleeve_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": ["be-careful"], "Bo": [{"card": "fine-wine", "protected": true}]}),
    ));
    assert_eq!(err.pointer, "/collections/Bo/0/protected");
    assert_eq!(
        err.rule,
        "Bo has 0 Sleeve Me Up! card(s), which protect at most 0 card(s) (1 each), \
         but more cards are marked protected"
    );
}

#[test]
fn a_lone_sleeve_cannot_protect_itself() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [{"card": "sleeve-me-up", "protected": true}], "Bo": ["be-careful"]}),
    ));
    // "protect up to `sleeve_protects` other cards"
    assert_eq!(err.pointer, "/collections/Ann/0/protected");
    assert_eq!(
        err.rule,
        "Ann's only Sleeve Me Up! cannot protect itself: a Sleeve Me Up! protects other cards"
    );
    assert!(state.rounds.is_empty());
}

#[test]
fn two_sleeves_may_protect_each_other() {
    // Arrange / Act: each Sleeve protects the other (1 each), the Legacy Edition is not protected
    let round = ann_round_one(
        json!({}),
        json!([{"card": "sleeve-me-up", "protected": true},
               {"card": "sleeve-me-up", "protected": true}, "legacy-edition"]),
    );
    // Assert: 5 (no Be Careful!) + Legacy Edition 4; the Sleeves deal nothing
    assert_eq!(line(&round, "Legacy Edition ×1").points, 4);
    assert_eq!(round.points, 9);
}

#[test]
fn with_sleeve_protects_2_one_sleeve_protects_two_cards() {
    // Arrange / Act
    let round = ann_round_one(
        json!({"sleeve_protects": 2}),
        json!(["sleeve-me-up", {"card": "legacy-edition", "protected": true},
               {"card": "fine-wine", "protected": true}]),
    );
    // Assert: both protected → 0 each; 5 (no Be Careful!) + 0 + 0
    assert_eq!(line(&round, "Legacy Edition ×0").points, 0);
    assert_eq!(line(&round, "Fine Wine ×0").points, 0);
    assert_eq!(
        line(&round, "Sleeve Me Up! ×1").detail,
        "no damage itself; protects up to 2 card(s) each: Legacy Edition and Fine Wine"
    );
    assert_eq!(round.points, 5);
}

// ---------------------------------------------------------------------------------------------
// Smoking Kills
// ---------------------------------------------------------------------------------------------

#[test]
fn smoking_kills_without_expert_cards_or_its_house_rule_is_refused_naming_both() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": ["be-careful", "smoking-kills"], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/1");
    assert_eq!(
        err.rule,
        "Smoking Kills is an expert card; switch on expert_cards and set option smoking_kills \
         to {\"holder\": H, \"others\": O} (damage per copy to its holder and to every other \
         player) to play with it"
    );
}

#[test]
fn smoking_kills_with_its_house_rule_but_without_expert_cards_is_refused_naming_expert_cards() {
    let mut state = new_game(
        &seated(&["Ann", "Bo"]),
        loose(json!({"smoking_kills": {"holder": 4, "others": 2}})),
    );
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": ["smoking-kills"], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/0");
    assert_eq!(
        err.rule,
        "Smoking Kills is an expert card; switch on expert_cards to play with it"
    );
}

#[test]
fn smoking_kills_without_its_house_rule_is_refused_saying_how_to_enable_it() {
    // Arrange: expert cards on, smoking_kills left at its default null
    let mut state = new_game(
        &seated(&["Ann", "Bo"]),
        loose(json!({"expert_cards": true})),
    );
    // Act
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [], "Bo": [{"card": "smoking-kills"}]}),
    ));
    // Assert
    assert_eq!(err.pointer, "/collections/Bo/0/card");
    assert_eq!(
        err.rule,
        "Smoking Kills has no published rule; set option smoking_kills to \
         {\"holder\": H, \"others\": O} (damage per copy to its holder and to every other player) \
         to score it"
    );
}

#[test]
fn smoking_kills_hurts_its_holder_and_every_other_player_per_copy() {
    // Arrange
    let options = loose(json!({
        "expert_cards": true,
        "smoking_kills": {"holder": 4, "others": 2},
        "be_careful_when_none": "zero",
    }));
    // Act
    let state = given_rounds(
        &seated(&["Ann", "Bo", "Cy"]),
        options,
        &[json!({
            "Ann": ["smoking-kills", "smoking-kills"],
            "Bo": ["smoking-kills"],
            "Cy": [],
        })],
    );
    let board = MintCondition::score(&state);
    // Assert
    let ann = round_of(&board, "Ann", 1);
    assert_eq!(line(ann, "Smoking Kills ×2").points, 8); // 2 × 4 as holder
    assert_eq!(line(ann, "Smoking Kills held by Bo ×1").points, 2); // 1 × 2 from Bo
    assert_eq!(ann.points, 10); // 0 (Be Careful! none: zero) + 8 + 2
    let bo = round_of(&board, "Bo", 1);
    assert_eq!(bo.points, 8); // 1 × 4 + 2 × 2 from Ann
    let cy = round_of(&board, "Cy", 1);
    assert_eq!(cy.points, 6); // 2 × 2 from Ann + 1 × 2 from Bo
    // Scored with Be Careful!, before the individual cards.
    let labels: Vec<String> = ann.breakdown.iter().map(|l| l.label.to_string()).collect();
    assert_eq!(
        labels,
        [
            "Be Careful! ×0",
            "Smoking Kills ×2",
            "Smoking Kills held by Bo ×1"
        ]
    );
    assert_eq!(
        line(ann, "Smoking Kills ×2").detail,
        "2 × 4 (house rule smoking_kills, holder)"
    );
}

// ---------------------------------------------------------------------------------------------
// Be Careful!
// ---------------------------------------------------------------------------------------------

#[test]
fn be_careful_3_3_1_0_deals_0_0_3_5() {
    // Arrange: worked example 3, four players collecting 8 cards each
    let players = seated(&["Ann", "Bo", "Cy", "Di"]);
    let round = json!({
        "Ann": hand(&[cards(3, "be-careful"), cards(3, "memories"), cards(2, "heavy-rotation")]),
        "Bo": hand(&[cards(3, "be-careful"), cards(3, "animal-kingdom"), cards(2, "autographed")]),
        "Cy": hand(&[cards(1, "be-careful"), cards(2, "fine-wine"), cards(2, "legacy-edition"),
                     cards(3, "lost-pieces")]),
        "Di": hand(&[cards(2, "snack-fingers"), cards(2, "sleeve-me-up"),
                     cards(4, "heavy-rotation")]),
    });
    // Act
    let board = MintCondition::score(&given_rounds(&players, json!({}), &[round]));
    // Assert
    let ann = line(round_of(&board, "Ann", 1), "Be Careful! ×3");
    assert_eq!(
        (ann.points, ann.detail.to_string().as_str()),
        (0, "3, tied for the most → 0")
    );
    assert_eq!(line(round_of(&board, "Bo", 1), "Be Careful! ×3").points, 0);
    let cy = line(round_of(&board, "Cy", 1), "Be Careful! ×1");
    assert_eq!(
        (cy.points, cy.detail.to_string().as_str()),
        (3, "1, fewer than the most (3) → 3")
    );
    let di = line(round_of(&board, "Di", 1), "Be Careful! ×0");
    assert_eq!(
        (di.points, di.detail.to_string().as_str()),
        (5, "none, while others hold some → 5")
    );
    // Whole rounds: Ann 0 + Memories×3 0 + Heavy Rotation×2 3 = 3;
    // Bo 0 + 6 + 5 = 11; Cy 3 + 4 + 8 + 9 = 24; Di 5 + 3 + 0 + 0 = 8
    let totals: Vec<(&str, i64)> = board
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total))
        .collect();
    assert_eq!(totals, [("Ann", 3), ("Di", 8), ("Bo", 11), ("Cy", 24)]);
    assert_eq!(board.winners, ["Ann"]);
}

#[test]
fn be_careful_when_everyone_is_tied_deals_no_damage() {
    // Arrange / Act: counts 2, 2, 2, 2
    let two = json!(["be-careful", "be-careful"]);
    let state = given_rounds(
        &seated(&["Ann", "Bo", "Cy", "Di"]),
        loose(json!({})),
        &[json!({"Ann": two, "Bo": two, "Cy": two, "Di": two})],
    );
    let board = MintCondition::score(&state);
    // Assert
    for p in &board.players {
        assert_eq!(p.rounds[0].breakdown[0].points, 0, "{}", p.name);
        assert_eq!(p.total, 0, "{}", p.name);
    }
}

#[test]
fn the_single_most_be_careful_deals_no_damage() {
    let board = one_round(
        json!({}),
        json!({"Ann": ["be-careful", "be-careful"], "Bo": ["be-careful"]}),
    );
    let ann = line(round_of(&board, "Ann", 1), "Be Careful! ×2");
    assert_eq!(
        (ann.points, ann.detail.to_string().as_str()),
        (0, "2, the most → 0")
    );
    assert_eq!(line(round_of(&board, "Bo", 1), "Be Careful! ×1").points, 3);
}

#[test]
fn when_nobody_holds_be_careful_everyone_takes_5_by_default() {
    // Arrange / Act
    let board = one_round(json!({}), json!({"Ann": ["fine-wine"], "Bo": []}));
    // Assert
    let ann = round_of(&board, "Ann", 1);
    let l = line(ann, "Be Careful! ×0");
    assert_eq!(l.points, 5);
    assert_eq!(
        l.detail,
        "nobody holds Be Careful! (house rule be_careful_when_none: five) → 5"
    );
    assert_eq!(ann.points, 7); // 5 + 2 (Fine Wine)
    assert_eq!(round_of(&board, "Bo", 1).points, 5);
}

#[test]
fn when_nobody_holds_be_careful_the_zero_house_rule_deals_nothing() {
    let board = one_round(
        json!({"be_careful_when_none": "zero"}),
        json!({"Ann": ["fine-wine"], "Bo": []}),
    );
    let l = line(round_of(&board, "Ann", 1), "Be Careful! ×0");
    assert_eq!(l.points, 0);
    assert_eq!(
        l.detail,
        "nobody holds Be Careful! (house rule be_careful_when_none: zero) → 0"
    );
    assert_eq!(player(&board, "Ann").total, 2); // 0 + 2 (Fine Wine)
    assert_eq!(player(&board, "Bo").total, 0);
}

// ---------------------------------------------------------------------------------------------
// The rules' worked examples 1 and 2 (example 3 is the Be Careful! test above)
// ---------------------------------------------------------------------------------------------

#[test]
fn worked_example_1_deals_17_individual_damage() {
    // Arrange: three players collect 9 cards each
    let players = seated(&["Ann", "Bo", "Cy"]);
    let round = json!({
        "Ann": hand(&[cards(4, "animal-kingdom"), cards(3, "autographed"), cards(1, "fine-wine"),
                      cards(1, "legacy-edition")]),
        "Bo": hand(&[cards(2, "be-careful"), cards(3, "heavy-rotation"), cards(3, "memories"),
                     cards(1, "lost-pieces")]),
        "Cy": hand(&[cards(1, "be-careful"), cards(2, "snack-fingers"), cards(1, "sleeve-me-up"),
                     cards(1, "legacy-edition"), cards(2, "fine-wine"), cards(2, "autographed")]),
    });
    // Act
    let board = MintCondition::score(&given_rounds(&players, json!({}), &[round]));
    // Assert
    let ann = round_of(&board, "Ann", 1);
    assert_eq!(line(ann, "Animal Kingdom ×4").points, 6); // 1 set
    assert_eq!(line(ann, "Autographed ×3").points, 5); // 1 pair
    assert_eq!(line(ann, "Fine Wine ×1").points, 2);
    assert_eq!(line(ann, "Legacy Edition ×1").points, 4);
    assert_eq!(line(ann, "Be Careful! ×0").points, 5); // none while others hold some
    assert_eq!(ann.points, 22); // 5 + 6 + 5 + 2 + 4 = 5 + 17
    assert_eq!(round_of(&board, "Bo", 1).points, 8); // 0 + 5 + 0 + 3
    assert_eq!(round_of(&board, "Cy", 1).points, 19); // 3 + 3 + 0 + 4 + 4 + 5
}

#[test]
fn worked_example_2_deals_14_individual_damage() {
    let players = seated(&["Ann", "Bo", "Cy"]);
    let round = json!({
        "Ann": hand(&[cards(6, "heavy-rotation"), cards(2, "legacy-edition"),
                      cards(1, "lost-pieces")]),
        "Bo": hand(&[cards(2, "be-careful"), cards(3, "animal-kingdom"), cards(2, "autographed"),
                     cards(2, "fine-wine")]),
        "Cy": hand(&[cards(1, "be-careful"), cards(2, "memories"), cards(3, "snack-fingers"),
                     cards(2, "sleeve-me-up"), cards(1, "fine-wine")]),
    });
    let board = MintCondition::score(&given_rounds(&players, json!({}), &[round]));
    let ann = round_of(&board, "Ann", 1);
    assert_eq!(line(ann, "Heavy Rotation ×6").points, 3); // 6 mod 4 = 2 → 3
    assert_eq!(line(ann, "Legacy Edition ×2").points, 8); // 2 × 4
    assert_eq!(line(ann, "Lost Pieces ×1").points, 3); // 1 × 3
    assert_eq!(ann.points, 19); // 5 (no Be Careful!) + 14
    assert_eq!(round_of(&board, "Bo", 1).points, 15); // 0 + 6 + 5 + 4
    assert_eq!(round_of(&board, "Cy", 1).points, 18); // 3 + 7 + 6 + 0 + 2
    assert_eq!(board.winners, ["Bo"]);
}

#[test]
fn a_game_total_is_the_sum_of_its_three_rounds() {
    // Arrange: two players, 7 cards each, three rounds
    let rounds = [
        json!({
            "Ann": hand(&[cards(2, "be-careful"), cards(2, "fine-wine"), cards(1, "legacy-edition"),
                          cards(1, "memories"), cards(1, "snack-fingers")]),
            "Bo": hand(&[cards(1, "be-careful"), cards(3, "animal-kingdom"),
                         cards(2, "heavy-rotation"), cards(1, "autographed")]),
        }),
        json!({
            "Ann": hand(&[cards(1, "heavy-rotation"), cards(2, "autographed"), cards(3, "memories"),
                          cards(1, "sleeve-me-up")]),
            "Bo": hand(&[cards(1, "be-careful"), cards(1, "fine-wine"), cards(2, "legacy-edition"),
                         cards(1, "lost-pieces"), cards(2, "snack-fingers")]),
        }),
        json!({
            "Ann": hand(&[cards(1, "be-careful"), cards(3, "animal-kingdom"), cards(1, "fine-wine"),
                          cards(1, "legacy-edition"), cards(1, "lost-pieces")]),
            "Bo": hand(&[cards(2, "be-careful"), cards(2, "memories"), cards(3, "heavy-rotation")]),
        }),
    ];
    // Act
    let state = given_rounds(&seated(&["Ann", "Bo"]), json!({}), &rounds);
    let board = MintCondition::score(&state);
    // Assert
    assert!(MintCondition::is_finished(&state));
    let points = |name| -> Vec<i64> {
        player(&board, name)
            .rounds
            .iter()
            .map(|r| r.points)
            .collect()
    };
    // Ann: r1 0 + 4 + 4 + 7 + 0 = 15; r2 5 + 1 + 5 + 0 + 0 = 11; r3 3 + 6 + 2 + 4 + 3 = 18
    assert_eq!(points("Ann"), [15, 11, 18]);
    // Bo: r1 3 + 6 + 3 + 0 = 12; r2 0 + 2 + 8 + 3 + 3 = 16; r3 0 + 7 + 5 = 12
    assert_eq!(points("Bo"), [12, 16, 12]);
    assert_eq!(player(&board, "Ann").total, 44); // 15 + 11 + 18
    assert_eq!(player(&board, "Bo").total, 40); // 12 + 16 + 12
    assert!(board.lower_wins);
    assert_eq!(board.winners, ["Bo"]);
    assert_eq!(board.tiebreak, None);
}

// ---------------------------------------------------------------------------------------------
// Lucky
// ---------------------------------------------------------------------------------------------

#[test]
fn lucky_deducts_1_per_card_of_your_colour_or_rainbow_over_the_whole_game() {
    // Arrange
    let players = coloured(&[("Ann", "red"), ("Bo", "blue")]);
    let rounds = [
        json!({
            "Ann": [{"card": "legacy-edition", "symbol": "red"},
                    {"card": "fine-wine", "symbol": "rainbow"},
                    {"card": "legacy-edition", "symbol": "blue"},
                    "legacy-edition"],
            "Bo": [{"card": "fine-wine", "symbol": "blue"}],
        }),
        json!({
            "Ann": [{"card": "fine-wine", "symbol": "red"}],
            "Bo": [{"card": "fine-wine", "symbol": "red"}],
        }),
    ];
    // Act
    let state = given_rounds(&players, loose(json!({"lucky": true})), &rounds);
    let board = MintCondition::score(&state);
    // Assert
    let ann = player(&board, "Ann");
    // r1: 5 (nobody holds Be Careful!) + 12 (Legacy Edition ×3) + 2 = 19; r2: 5 + 2 = 7
    assert_eq!(ann.rounds[0].points, 19);
    assert_eq!(ann.rounds[1].points, 7);
    // red, rainbow (r1) and red (r2); the blue and the symbol-less card deduct nothing
    assert_eq!(ann.adjustments[0].label, "Lucky");
    assert_eq!(ann.adjustments[0].points, -3);
    assert_eq!(
        ann.adjustments[0].detail,
        "3 card(s) showing red or rainbow → −3"
    );
    assert_eq!(ann.total, 23); // 19 + 7 − 3
    let bo = player(&board, "Bo");
    assert_eq!(bo.adjustments[0].points, -1); // one blue; Ann's red is not his
    assert_eq!(bo.total, 13); // (5 + 2) + (5 + 2) − 1
}

#[test]
fn a_card_recorded_without_a_symbol_deducts_nothing() {
    let board = MintCondition::score(&given_rounds(
        &coloured(&[("Ann", "red"), ("Bo", "blue")]),
        loose(json!({"lucky": true})),
        &[json!({"Ann": ["fine-wine", {"card": "fine-wine"}], "Bo": []})],
    ));
    let ann = player(&board, "Ann");
    assert_eq!(ann.adjustments[0].points, 0);
    assert_eq!(ann.total, 9); // 5 (nobody holds Be Careful!) + 2 × 2
}

#[test]
fn a_symbol_counts_whatever_its_letter_case_and_a_colour_nobody_plays_counts_for_nobody() {
    let board = MintCondition::score(&given_rounds(
        &coloured(&[("Ann", "Red"), ("Bo", "blue")]),
        loose(json!({"lucky": true})),
        &[json!({
            "Ann": [{"card": "fine-wine", "symbol": " RED "}, {"card": "fine-wine", "symbol": "green"}],
            "Bo": [{"card": "fine-wine", "symbol": "Rainbow"}, {"card": "fine-wine", "symbol": "red"}],
        })],
    ));
    // Ann: 5 (nobody holds Be Careful!) + 2 × 2 = 9, less her red card; the green is no one's.
    assert_eq!(player(&board, "Ann").adjustments[0].points, -1);
    assert_eq!(player(&board, "Ann").total, 8);
    // Bo: 9, less the rainbow; Ann's red is not his.
    assert_eq!(player(&board, "Bo").adjustments[0].points, -1);
    assert_eq!(player(&board, "Bo").total, 8);
}

#[test]
fn lucky_cannot_take_a_total_below_0() {
    // Arrange: Ann takes 2 damage but holds 3 lucky cards
    let board = MintCondition::score(&given_rounds(
        &coloured(&[("Ann", "red"), ("Bo", "blue")]),
        loose(json!({"lucky": true, "be_careful_when_none": "zero"})),
        &[json!({
            "Ann": [{"card": "fine-wine", "symbol": "red"},
                    {"card": "snack-fingers", "symbol": "red"},
                    {"card": "sleeve-me-up", "symbol": "rainbow"}],
            "Bo": ["legacy-edition"],
        })],
    ));
    // Assert: 0 + 2 (Fine Wine) + 0 (first Snack Fingers) + 0 = 2; −3 capped at −2 → 0
    let ann = player(&board, "Ann");
    assert_eq!(ann.adjustments[0].points, -2);
    assert_eq!(
        ann.adjustments[0].detail,
        "3 card(s) showing red or rainbow → −3, capped at −2: a total cannot drop below 0"
    );
    assert_eq!(ann.total, 0);
    assert_eq!(board.winners, ["Ann"]);
}

#[test]
fn lucky_without_a_colour_for_every_player_is_refused_at_setup() {
    // Arrange
    let players = vec![
        PlayerEntry {
            name: "Ann".into(),
            color: Some("red".into()),
        },
        PlayerEntry {
            name: "Bo".into(),
            color: None,
        },
    ];
    // Act
    let err = start::<MintCondition>(&players, &json!({"lucky": true})).unwrap_err();
    // Assert
    assert_eq!(err.pointer, "/players/1/color");
    assert_eq!(
        err.rule,
        "with the Lucky variant every player needs a colour; Bo has none"
    );
}

// ---------------------------------------------------------------------------------------------
// Heavily Used
// ---------------------------------------------------------------------------------------------

#[test]
fn with_heavily_used_the_highest_total_wins() {
    let board = one_round(
        json!({"heavily_used": true}),
        json!({"Ann": ["legacy-edition"], "Bo": ["fine-wine"]}),
    );
    assert!(!board.lower_wins);
    assert_eq!(player(&board, "Ann").total, 9); // 5 (nobody holds Be Careful!) + 4
    assert_eq!(player(&board, "Bo").total, 7); // 5 + 2
    assert_eq!(board.winners, ["Ann"]);
    assert_eq!(player(&board, "Bo").rank, 2);
}

#[test]
fn with_heavily_used_a_tie_goes_to_the_fewest_be_careful() {
    // Arrange: Ann 0 (most Be Careful!) + 4 = 4; Bo 3 + 1 (Heavy Rotation ×1) = 4
    let collections = json!({
        "Ann": ["be-careful", "be-careful", "legacy-edition"],
        "Bo": ["be-careful", "heavy-rotation"],
    });
    // Act
    let heavily_used = one_round(json!({"heavily_used": true}), collections.clone());
    let standard = one_round(json!({}), collections);
    // Assert: the same tie goes to Bo (1 card) with Heavily Used, to Ann (2 cards) without
    assert_eq!(player(&heavily_used, "Ann").total, 4);
    assert_eq!(player(&heavily_used, "Bo").total, 4);
    assert_eq!(heavily_used.winners, ["Bo"]);
    let tiebreak = heavily_used.tiebreak.expect("a tie for first is explained");
    assert_eq!(
        tiebreak.rule,
        "fewest Be Careful! cards over the whole game"
    );
    assert_eq!(
        tiebreak.detail,
        "Bo and Ann tied on 4 damage; Be Careful! cards: Bo 1, Ann 2 → Bo wins"
    );
    assert_eq!(standard.winners, ["Ann"]);
}

#[test]
fn with_heavily_used_and_lucky_the_deduction_still_applies() {
    // Arrange: Ann 5 + 4 = 9 with 2 lucky cards → 7; Bo 5 + 4 = 9 with none → 9
    let board = MintCondition::score(&given_rounds(
        &coloured(&[("Ann", "red"), ("Bo", "blue")]),
        loose(json!({"lucky": true, "heavily_used": true})),
        &[json!({
            "Ann": [{"card": "fine-wine", "symbol": "red"}, {"card": "fine-wine", "symbol": "rainbow"}],
            "Bo": ["legacy-edition"],
        })],
    ));
    // Assert: the deduction now hurts Ann
    assert_eq!(player(&board, "Ann").total, 7); // 9 − 2
    assert_eq!(player(&board, "Bo").total, 9);
    assert_eq!(board.winners, ["Bo"]);
}

// ---------------------------------------------------------------------------------------------
// Tie-breaks and ranks
// ---------------------------------------------------------------------------------------------

/// Round 1: Ann 3 Be Careful! (0), Bo 1 (3). Round 2: Ann 1 (3), Bo 2 (0). Both total 3;
/// Be Careful! over the game Ann 4, Bo 3; in the last round Ann 1, Bo 2.
fn tied_on_3(options: Value) -> Scoreboard {
    let state = given_rounds(
        &seated(&["Ann", "Bo"]),
        loose(options),
        &[
            json!({"Ann": ["be-careful", "be-careful", "be-careful"], "Bo": ["be-careful"]}),
            json!({"Ann": ["be-careful"], "Bo": ["be-careful", "be-careful"]}),
        ],
    );
    MintCondition::score(&state)
}

#[test]
fn a_tie_goes_to_the_most_be_careful_over_the_whole_game() {
    // Act
    let board = tied_on_3(json!({}));
    // Assert
    assert_eq!(player(&board, "Ann").total, 3); // 0 + 3
    assert_eq!(player(&board, "Bo").total, 3); // 3 + 0
    assert_eq!(board.winners, ["Ann"]);
    assert_eq!(
        (player(&board, "Ann").rank, player(&board, "Bo").rank),
        (1, 2)
    );
    let tiebreak = board.tiebreak.expect("a tie for first is explained");
    assert_eq!(tiebreak.rule, "most Be Careful! cards over the whole game");
    assert_eq!(
        tiebreak.detail,
        "Ann and Bo tied on 3 damage; Be Careful! cards: Ann 4, Bo 3 → Ann wins"
    );
}

#[test]
fn with_tiebreak_scope_last_round_only_the_last_rounds_be_careful_count() {
    let board = tied_on_3(json!({"tiebreak_scope": "last_round"}));
    assert_eq!(board.winners, ["Bo"]);
    let tiebreak = board.tiebreak.expect("a tie for first is explained");
    assert_eq!(tiebreak.rule, "most Be Careful! cards in the last round");
    assert_eq!(
        tiebreak.detail,
        "Bo and Ann tied on 3 damage; Be Careful! cards: Bo 2, Ann 1 → Bo wins"
    );
}

#[test]
fn a_tie_still_tied_after_the_tiebreak_is_a_shared_win() {
    // Arrange / Act: both 0 (tied for most Be Careful!) + 2 (Fine Wine) = 2, one card each
    let board = one_round(
        json!({}),
        json!({"Ann": ["be-careful", "fine-wine"], "Bo": ["be-careful", "fine-wine"]}),
    );
    // Assert
    assert_eq!(board.winners, ["Ann", "Bo"]);
    assert_eq!(
        (player(&board, "Ann").rank, player(&board, "Bo").rank),
        (1, 1)
    );
    let tiebreak = board.tiebreak.expect("a tie for first is explained");
    assert_eq!(
        tiebreak.detail,
        "Ann and Bo tied on 2 damage; Be Careful! cards: Ann 1, Bo 1 → still tied: Ann and Bo share the win"
    );
}

#[test]
fn players_tied_for_first_share_rank_1_and_the_next_rank_is_3() {
    // Arrange / Act: nobody holds Be Careful! (zero): Ann 4, Bo 2, Cy 2
    let state = given_rounds(
        &seated(&["Ann", "Bo", "Cy"]),
        loose(json!({"be_careful_when_none": "zero"})),
        &[json!({"Ann": ["legacy-edition"], "Bo": ["fine-wine"], "Cy": ["fine-wine"]})],
    );
    let board = MintCondition::score(&state);
    // Assert
    let ranks: Vec<(&str, i64, u32)> = board
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total, p.rank))
        .collect();
    assert_eq!(ranks, [("Bo", 2, 1), ("Cy", 2, 1), ("Ann", 4, 3)]);
    assert_eq!(board.winners, ["Bo", "Cy"]);
}

#[test]
fn without_a_tie_for_first_there_is_no_tiebreak() {
    let board = one_round(
        json!({}),
        json!({"Ann": ["be-careful"], "Bo": ["fine-wine"]}),
    );
    // Ann 0; Bo 5 + 2 = 7
    assert_eq!(board.winners, ["Ann"]);
    assert_eq!(board.tiebreak, None);
}

// ---------------------------------------------------------------------------------------------
// Setup: players and options
// ---------------------------------------------------------------------------------------------

#[test]
fn two_to_five_players_may_play() {
    for names in [&["Ann", "Bo"][..], &["Ann", "Bo", "Cy", "Di", "Ed"][..]] {
        assert!(
            start::<MintCondition>(&seated(names), &json!({})).is_ok(),
            "{names:?}"
        );
    }
}

#[test]
fn one_player_or_six_are_refused() {
    let err = start::<MintCondition>(&seated(&["Ann"]), &json!({})).unwrap_err();
    assert_eq!(err.pointer, "/players");
    assert_eq!(
        err.rule,
        "Mint Condition is played by 2 to 5 players, not 1"
    );
    let six = seated(&["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]);
    let err = start::<MintCondition>(&six, &json!({})).unwrap_err();
    assert_eq!(err.pointer, "/players");
    assert_eq!(
        err.rule,
        "Mint Condition is played by 2 to 5 players, not 6"
    );
}

#[test]
fn a_new_game_stores_every_option_with_the_defaults_of_the_rules() {
    let setup = start::<MintCondition>(&seated(&["Ann", "Bo"]), &json!({})).unwrap();
    assert_eq!(
        setup.options,
        json!({"lucky": false, "heavily_used": false, "expert_cards": false,
               "strict_counts": true, "be_careful_when_none": "five",
               "memories_over_three": "free", "sleeve_protects": 1,
               "smoking_kills": null, "tiebreak_scope": "game",
               "protected_be_careful": "counts"})
    );
}

#[test]
fn an_unknown_option_is_refused_naming_the_known_ones() {
    let err = start::<MintCondition>(&seated(&["Ann", "Bo"]), &json!({"lucy": true})).unwrap_err();
    assert_eq!(err.pointer, "/options/lucy");
    assert_eq!(
        err.rule,
        "unknown option \"lucy\"; this game's options are: be_careful_when_none, expert_cards, \
         heavily_used, lucky, memories_over_three, protected_be_careful, sleeve_protects, \
         smoking_kills, strict_counts, tiebreak_scope"
    );
}

#[test]
fn an_option_of_the_wrong_type_is_refused_at_that_option() {
    let players = seated(&["Ann", "Bo"]);
    let cases = [
        (
            json!({"sleeve_protects": "two"}),
            "/options/sleeve_protects",
            "option \"sleeve_protects\" must be a whole number, 0 or more; got the text \"two\"",
        ),
        (
            json!({"tiebreak_scope": "first_round"}),
            "/options/tiebreak_scope",
            "option \"tiebreak_scope\" must be one of \"game\" or \"last_round\"; got \"first_round\"",
        ),
        (
            json!({"smoking_kills": {"holder": 2}}),
            "/options/smoking_kills",
            "option \"smoking_kills\" needs \"others\"",
        ),
        (
            json!({"protected_be_careful": "half"}),
            "/options/protected_be_careful",
            "option \"protected_be_careful\" must be one of \"counts\" or \"ignored\"; got \"half\"",
        ),
        (
            json!({"lucky": "yes"}),
            "/options/lucky",
            "option \"lucky\" must be true or false; got the text \"yes\"",
        ),
    ];
    for (options, pointer, rule) in cases {
        let err = start::<MintCondition>(&players, &options).unwrap_err();
        assert_eq!((err.pointer.as_str(), err.rule.as_str()), (pointer, rule));
    }
}

#[test]
fn house_rule_points_are_listed_with_whether_they_are_the_default() {
    // Arrange / Act
    let defaults = one_round(json!({"strict_counts": true}), json!({"Ann": [], "Bo": []}));
    let changed = one_round(
        json!({"memories_over_three": "multiples_of_three"}),
        json!({"Ann": [], "Bo": []}),
    );
    // Assert
    let listed = |board: &Scoreboard| -> Vec<(String, Value, bool)> {
        board
            .house_rules
            .iter()
            .map(|h| (h.option.clone(), h.value.clone(), h.default))
            .collect()
    };
    // `one_round` switches strict_counts off, so it is listed as a change too.
    assert_eq!(
        listed(&changed),
        [
            ("be_careful_when_none".into(), json!("five"), true),
            (
                "memories_over_three".into(),
                json!("multiples_of_three"),
                false
            ),
            ("sleeve_protects".into(), json!(1), true),
            ("protected_be_careful".into(), json!("counts"), true),
            ("smoking_kills".into(), Value::Null, true),
            ("tiebreak_scope".into(), json!("game"), true),
            ("strict_counts".into(), json!(false), false),
        ]
    );
    assert_eq!(defaults.house_rules.len(), 7);
    let strict = MintCondition::score(&new_game(&seated(&["Ann", "Bo"]), json!({})));
    assert_eq!(
        strict
            .house_rules
            .iter()
            .map(|h| h.option.as_str())
            .collect::<Vec<_>>(),
        [
            "be_careful_when_none",
            "memories_over_three",
            "sleeve_protects",
            "protected_be_careful",
            "smoking_kills",
            "tiebreak_scope"
        ]
    );
    assert!(strict.house_rules.iter().all(|h| h.default));
}

// ---------------------------------------------------------------------------------------------
// round_collected validation
// ---------------------------------------------------------------------------------------------

#[test]
fn rounds_are_recorded_in_order() {
    // Arrange
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    // Act
    let err = error(collect(&mut state, 2, json!({"Ann": [], "Bo": []})));
    // Assert
    assert_eq!(err.pointer, "/round");
    assert_eq!(
        err.rule,
        "round 1 comes next; rounds are recorded in order, got round 2"
    );
}

#[test]
fn a_round_outside_1_to_3_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(&mut state, 4, json!({"Ann": [], "Bo": []})));
    assert_eq!(err.pointer, "/round");
    assert_eq!(err.rule, "Mint Condition has rounds 1 to 3, not 4");
    let err = error(MintCondition::apply(
        &mut state,
        "round_collected",
        &json!({"round": "1", "collections": {"Ann": [], "Bo": []}}),
    ));
    assert_eq!(err.pointer, "/round");
    assert_eq!(err.rule, "round must be a whole number from 1 to 3");
}

#[test]
fn each_player_count_collects_its_own_number_of_cards() {
    // [D] 2 → 7, 3 → 9, 4 → 8, 5 → 6
    let names = ["Ann", "Bo", "Cy", "Di", "Ed"];
    for (count, size) in [(2, 7), (3, 9), (4, 8), (5, 6)] {
        let mut state = new_game(&seated(&names[..count]), json!({}));
        // One kind per player, so no kind passes its box limit (5 × 6 Heavy Rotation would).
        let kinds = [
            "heavy-rotation",
            "be-careful",
            "animal-kingdom",
            "memories",
            "autographed",
        ];
        let collections: serde_json::Map<String, Value> = names[..count]
            .iter()
            .zip(kinds)
            .map(|(name, kind)| ((*name).to_owned(), hand(&[cards(size, kind)])))
            .collect();
        let result = collect(&mut state, 1, Value::Object(collections));
        assert_eq!(result, Ok(()), "{count} players collect {size}");
    }
}

#[test]
fn a_collection_of_the_wrong_size_is_refused() {
    // Arrange
    let mut state = new_game(&seated(&["Ann", "Bo"]), json!({}));
    // Act: Bo has 7 cards, Ann 6
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": hand(&[cards(6, "heavy-rotation")]), "Bo": hand(&[cards(7, "memories")])}),
    ));
    // Assert
    assert_eq!(err.pointer, "/collections/Ann");
    assert_eq!(
        err.rule,
        "Ann collected 6 cards, but with 2 players everyone collects 7 per round \
         (switch off strict_counts to allow other sizes)"
    );
}

#[test]
fn with_strict_counts_false_any_size_is_accepted() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), json!({"strict_counts": false}));
    let result = collect(
        &mut state,
        1,
        json!({"Ann": hand(&[cards(6, "heavy-rotation")]), "Bo": hand(&[cards(9, "memories")])}),
    );
    assert_eq!(result, Ok(()));
}

#[test]
fn a_kind_may_be_collected_as_often_as_the_box_holds() {
    // Arrange: 6 Fine Wine exist; 3 in round 1
    let mut state = given_rounds(
        &seated(&["Ann", "Bo"]),
        loose(json!({})),
        &[json!({"Ann": hand(&[cards(3, "fine-wine")]), "Bo": []})],
    );
    // Act: 3 more → 6
    let result = collect(
        &mut state,
        2,
        json!({"Ann": [], "Bo": hand(&[cards(3, "fine-wine")])}),
    );
    // Assert
    assert_eq!(result, Ok(()));
}

#[test]
fn more_copies_across_the_game_than_the_box_holds_are_refused() {
    // Arrange: 6 Fine Wine exist; 4 collected in round 1
    let mut state = given_rounds(
        &seated(&["Ann", "Bo"]),
        loose(json!({})),
        &[json!({"Ann": hand(&[cards(4, "fine-wine")]), "Bo": []})],
    );
    // Act: 3 more → 4 + 3 = 7
    let err = error(collect(
        &mut state,
        2,
        json!({"Ann": ["be-careful"], "Bo": ["fine-wine", "memories", "fine-wine", "fine-wine"]}),
    ));
    // Assert: 6 - 4 = 2 were left, and Bo's 3 alone are more
    assert_eq!(err.pointer, "/collections/Bo");
    assert_eq!(
        err.rule,
        "this makes 7 Fine Wine cards collected in the game (Bo 3 in this round, \
         4 in earlier rounds), but the box has only 6"
    );
    assert_eq!(
        state.rounds.len(),
        1,
        "a refused round leaves the game as it was"
    );
}

#[test]
fn snack_fingers_and_sleeve_me_up_share_15_copies() {
    // Arrange: 8 + 7 = 15 in round 1
    let mut state = given_rounds(
        &seated(&["Ann", "Bo"]),
        loose(json!({})),
        &[json!({
            "Ann": hand(&[cards(8, "snack-fingers")]),
            "Bo": hand(&[cards(7, "sleeve-me-up")]),
        })],
    );
    // Act: one more Sleeve Me Up! → 16
    let err = error(collect(
        &mut state,
        2,
        json!({"Ann": [], "Bo": ["sleeve-me-up"]}),
    ));
    // Assert
    assert_eq!(err.pointer, "/collections/Bo");
    assert_eq!(
        err.rule,
        "this makes 16 Snack Fingers and Sleeve Me Up! cards collected in the game \
         (Bo 1 in this round, 15 in earlier rounds), but the box has only 15 of the two together"
    );
}

#[test]
fn at_most_5_smoking_kills_exist() {
    let options = loose(json!({"expert_cards": true, "smoking_kills": {"holder": 1, "others": 0}}));
    let mut state = new_game(&seated(&["Ann", "Bo"]), options);
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": hand(&[cards(3, "smoking-kills")]), "Bo": hand(&[cards(3, "smoking-kills")])}),
    ));
    // Neither 3 alone is more than the 5 the box holds: the round as a whole went over.
    assert_eq!(err.pointer, "/collections");
    assert_eq!(
        err.rule,
        "this makes 6 Smoking Kills cards collected in the game (Ann 3, Bo 3 in this round), \
         but the box has only 5"
    );
}

#[test]
fn the_box_limit_points_at_the_player_whose_count_alone_is_more_than_is_left() {
    // Arrange: 6 Legacy Edition exist; Anne and Bo collected 1 each in round 1, so 4 are left
    let mut state = given_rounds(
        &seated(&["Anne", "Bo", "Cy"]),
        loose(json!({})),
        &[json!({"Anne": ["legacy-edition"], "Bo": ["legacy-edition"], "Cy": []})],
    );
    // Act: Anne 1 and Cy 5 → 2 + 1 + 5 = 8
    let err = error(collect(
        &mut state,
        2,
        json!({
            "Anne": ["legacy-edition"],
            "Bo": [],
            "Cy": hand(&[cards(5, "legacy-edition")]),
        }),
    ));
    // Assert: Cy's 5 alone are more than the 4 left; Anne's 1 is not
    assert_eq!(err.pointer, "/collections/Cy");
    assert_eq!(
        err.rule,
        "this makes 8 Legacy Edition cards collected in the game (Anne 1, Cy 5 in this round, \
         2 in earlier rounds), but the box has only 6"
    );
    assert_eq!(state.rounds.len(), 1, "nothing of the round is kept");
}

#[test]
fn the_box_limit_is_said_whole_in_french_and_persian_with_the_counts_of_the_round() {
    // Arrange: 6 Fine Wine exist
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    // Act: Ann 6 and Bo 1 in round 1 → 7
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": hand(&[cards(6, "fine-wine")]), "Bo": ["fine-wine"]}),
    ));
    // Assert
    assert_eq!(
        err.said.render(&FRENCH.catalogue),
        "cela fait 7 cartes Fine Wine collectionnées dans la partie (Ann 6, Bo 1 dans cette \
         manche), mais la boîte n'en a que 6"
    );
    assert_eq!(
        err.said.render(&PERSIAN.catalogue),
        "با این، 7 کارت Fine Wine در بازی جمع شده است (Ann 6، Bo 1 در این دور)، اما جعبه فقط 6 \
         عدد دارد"
    );
}

#[test]
fn the_shared_box_limit_of_snack_fingers_and_sleeve_me_up_is_said_whole_in_french() {
    // Arrange: 8 + 7 = 15 in round 1
    let mut state = given_rounds(
        &seated(&["Ann", "Bo"]),
        loose(json!({})),
        &[json!({
            "Ann": hand(&[cards(8, "snack-fingers")]),
            "Bo": hand(&[cards(7, "sleeve-me-up")]),
        })],
    );
    // Act: one more Sleeve Me Up! → 16
    let err = error(collect(
        &mut state,
        2,
        json!({"Ann": [], "Bo": ["sleeve-me-up"]}),
    ));
    // Assert
    assert_eq!(
        err.said.render(&FRENCH.catalogue),
        "cela fait 16 cartes Snack Fingers et Sleeve Me Up! collectionnées dans la partie (Bo 1 \
         dans cette manche, 15 dans les manches précédentes), mais la boîte n'en a que 15 à \
         elles deux"
    );
}

#[test]
fn a_collection_of_the_wrong_size_says_to_switch_off_the_count_check_in_every_language() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), json!({}));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": hand(&[cards(6, "heavy-rotation")]), "Bo": hand(&[cards(7, "memories")])}),
    ));
    assert_eq!(
        err.said.render(&FRENCH.catalogue),
        "Ann a collectionné 6 cartes, mais à 2 joueurs chacun en collectionne 7 par manche \
         (désactivez l'option strict_counts pour permettre d'autres tailles)"
    );
    assert_eq!(
        err.said.render(&PERSIAN.catalogue),
        "Ann 6 کارت جمع کرده است، اما با 2 بازیکن هر کس در هر دور 7 کارت جمع می‌کند (برای \
         اندازه‌های دیگر گزینهٔ strict_counts را خاموش کنید)"
    );
}

#[test]
fn an_unknown_card_is_refused_naming_the_known_ones() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": ["fine-wine", "fine-whine"], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/1");
    assert_eq!(
        err.rule,
        "unknown card \"fine-whine\"; Mint Condition's cards are animal-kingdom, autographed, \
         be-careful, fine-wine, heavy-rotation, legacy-edition, lost-pieces, memories, \
         snack-fingers, sleeve-me-up, smoking-kills"
    );
    // In the object form the pointer names the "card" field.
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [{"card": "joker"}], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/0/card");
}

#[test]
fn an_unknown_player_is_refused_naming_the_players() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [], "Bo": [], "Zed": []}),
    ));
    assert_eq!(err.pointer, "/collections/Zed");
    assert_eq!(
        err.rule,
        "\"Zed\" does not play in this game; the players are Ann and Bo"
    );
}

#[test]
fn a_missing_player_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(&mut state, 1, json!({"Ann": []})));
    assert_eq!(err.pointer, "/collections");
    assert_eq!(
        err.rule,
        "Bo's collection is missing; every player appears once"
    );
}

#[test]
fn an_unknown_field_of_the_round_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(MintCondition::apply(
        &mut state,
        "round_collected",
        &json!({"round": 1, "collections": {"Ann": [], "Bo": []}, "notes": "rainy"}),
    ));
    assert_eq!(err.pointer, "/notes");
    assert_eq!(
        err.rule,
        "unknown field \"notes\"; round_collected has \"round\" and \"collections\""
    );
}

#[test]
fn an_unknown_field_of_a_card_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [], "Bo": ["be-careful", {"card": "fine-wine", "sleeved": true}]}),
    ));
    assert_eq!(err.pointer, "/collections/Bo/1/sleeved");
    assert_eq!(
        err.rule,
        "unknown field \"sleeved\"; a card has \"card\", \"symbol\" and \"protected\""
    );
}

#[test]
fn a_card_field_of_the_wrong_type_is_refused() {
    let mut state = new_game(&seated(&["Ann", "Bo"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [{"card": "fine-wine", "protected": "yes"}], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/0/protected");
    assert_eq!(err.rule, "protected must be true or false");
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann": [{"card": "fine-wine", "symbol": 3}], "Bo": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann/0/symbol");
    assert_eq!(err.rule, "symbol must be a colour name or \"rainbow\"");
}

#[test]
fn a_player_name_with_a_slash_is_escaped_in_the_pointer() {
    let mut state = new_game(&seated(&["Ann/Bo", "Cy"]), loose(json!({})));
    let err = error(collect(
        &mut state,
        1,
        json!({"Ann/Bo": ["joker"], "Cy": []}),
    ));
    assert_eq!(err.pointer, "/collections/Ann~1Bo/0");
}

// ---------------------------------------------------------------------------------------------
// Insights for the club statistics

/// Ann and Bo play three rounds, the same collections each round.
fn three_same_rounds(ann: [&str; 7], bo: [&str; 7]) -> Vec<LogEvent> {
    let mut log = vec![LogEvent::new(
        1,
        "game_started",
        json!({"players": [{"name": "Ann", "seat": 1}, {"name": "Bo", "seat": 2}],
               "options": {}}),
    )];
    for round in 1..=3 {
        log.push(LogEvent::new(
            round + 1,
            "round_collected",
            json!({"round": round, "collections": {"Ann": ann, "Bo": bo}}),
        ));
    }
    log
}

#[test]
fn the_declared_insights_come_from_the_facts_of_finished_games() {
    let (ak, au, bc, fw) = ("animal-kingdom", "autographed", "be-careful", "fine-wine");
    let (hr, le, lp, mem) = (
        "heavy-rotation",
        "legacy-edition",
        "lost-pieces",
        "memories",
    );
    // Game 1, each round: Ann Be Careful! 3 (1 against 2) + Animal Kingdom 6 + Fine Wine 2
    // + Legacy Edition 4 + Memories 7 = 22; Bo Be Careful! 0 + Heavy Rotation 3
    // + Autographed 5 + Lost Pieces 3 = 11. Bo wins 33 to 66, with or without Be Careful!.
    let first = three_same_rounds([ak, ak, ak, bc, fw, le, mem], [bc, bc, hr, hr, au, au, lp]);
    // Game 2, each round: Ann Be Careful! 0 (2 against none) + Animal Kingdom 6 + Heavy
    // Rotation 1 + Memories 7 = 14; Bo Be Careful! 5 + Autographed 5 + Heavy Rotation 0 (4)
    // + Memories 7 = 17. Ann wins 42 to 51; without Be Careful! Bo would (36 to 42).
    let second = three_same_rounds([bc, bc, ak, ak, ak, hr, mem], [au, au, hr, hr, hr, hr, mem]);

    let sums = summed(&[
        Game::MintCondition.evaluate_with_facts(&first).unwrap(),
        Game::MintCondition.evaluate_with_facts(&second).unwrap(),
    ]);
    let insights = MintCondition::insights(&sums);

    assert_eq!(
        insights.keys().map(String::as_str).collect::<Vec<_>>(),
        names(MintCondition::INSIGHTS)
    );
    // Damage over 4 seats: Animal Kingdom 18 + 18, Autographed 15 + 15, Be Careful! 9 + 15,
    // Fine Wine 6, Heavy Rotation 9 + 3, Legacy Edition 12, Lost Pieces 9, Memories 21 × 3.
    assert_eq!(
        Value::Object(insights),
        json!({
            "average_damage_per_card_kind": {
                "animal-kingdom": 9.0, "autographed": 7.5, "be-careful": 6.0, "fine-wine": 1.5,
                "heavy-rotation": 3.0, "legacy-edition": 3.0, "lost-pieces": 2.25,
                "memories": 15.75},
            "be_careful_decided": {"games": 1, "share": 0.5, "meaning": "games whose winners would differ without any Be Careful! damage"},
            "tiebreak_decided": {"games": 0, "share": 0.0}
        })
    );
}

#[test]
fn smoking_kills_damage_beyond_a_million_is_refused() {
    let options = json!({"expert_cards": true,
                         "smoking_kills": {"holder": 4_000_000_000_u32, "others": 1}});
    let err = start::<MintCondition>(&seated(&["Ann", "Bo"]), &options).unwrap_err();
    assert_eq!(
        (err.pointer.as_str(), err.rule.as_str()),
        (
            "/options/smoking_kills/holder",
            "Smoking Kills' damage must be between -1000000 and 1000000, not 4000000000"
        )
    );
}
