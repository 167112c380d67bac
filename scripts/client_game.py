"""Plays one whole game of each game through a Python client generated from openapi/openapi.json.

Usage: client_game.py <server url> <openapi.json>   (the generated package `tabletally_client`
must be importable). The games are the document's own example scenarios (see docs/http.md,
"Examples that run"): each is created and played step by step through the generated client's
typed models and calls, then its scoreboard is read back through the client.
"""

import json
import sys
from uuid import UUID

from tabletally_client import AuthenticatedClient, Client
from tabletally_client.api.clubs import create_club
from tabletally_client.api.events import append_events, list_events
from tabletally_client.api.games import create_game, get_game
from tabletally_client.api.scores import get_score
from tabletally_client.models import AppendEvents, AppendResult, CreateClub, GameSummary, ScoreView
from tabletally_client.models import NewMindUpGame, NewMintConditionGame, NewMintJulepGame, NewVintageGame

url, document = sys.argv[1], json.load(open(sys.argv[2]))


def examples(path):
    return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["examples"]


def check(answer, kind, what):
    if not isinstance(answer, kind):
        sys.exit(f"{what}: expected {kind.__name__}, got {answer!r}")
    return answer


club = create_club.sync(client=Client(base_url=url), body=CreateClub(name="generated client"))
client = AuthenticatedClient(base_url=url, token=club.token)

creations = examples("/v1/games")
steps = {}
for name, example in examples("/v1/games/{id}/events").items():
    scenario, step = name.rsplit(" ", 1)
    steps.setdefault(scenario, []).append((int(step), example["value"]))

games = set()
for scenario, body in creations.items():
    # The document has one shape of a new game per game, and the client a model for each.
    new_game = {"mint-condition": NewMintConditionGame, "mind-up": NewMindUpGame,
                "mint-julep": NewMintJulepGame, "vintage": NewVintageGame}[body["value"]["game"]]
    game = check(create_game.sync(client=client, body=new_game.from_dict(body["value"])), GameSummary, scenario)
    game_id = UUID(game.id)
    for step, request in sorted(steps[scenario], key=lambda s: s[0]):
        check(append_events.sync(id=game_id, client=client, body=AppendEvents.from_dict(request)),
              AppendResult, f"{scenario} {step}")
    summary = check(get_game.sync(id=game_id, client=client), GameSummary, scenario)
    score = check(get_score.sync(id=game_id, client=client), ScoreView, scenario)
    log = list_events.sync(id=game_id, client=client)
    if summary.status != "finished" or score.status != "finished" or len(log.events) != summary.version:
        sys.exit(f"{scenario}: status {summary.status}, {len(log.events)} events for version {summary.version}")
    totals = ", ".join(f"{p.name} {p.total}" for p in score.players)
    print(f"{scenario}: finished at version {summary.version}; {totals}; winners {score.winners}")
    games.add(summary.game)

expected = {"mint-condition", "mind-up", "mint-julep", "vintage"}
if games != expected:
    sys.exit(f"played {sorted(games)}, not every game of {sorted(expected)}")
