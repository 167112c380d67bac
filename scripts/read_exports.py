"""Reads our foreign-format exports back the way other apps' readers do, and prints what they saw.

Usage: read_exports.py [--bgg PLAYS.xml] [--bgstats BGStatsExport.json]   (scripts/read-exports.sh
sets up the pinned readers). Prints one JSON summary on stdout; exits 1 with a message on stderr
when a file is not read as the real format.

- BoardGameGeek plays XML: read with the `boardgamegeek` client's own loader (PyPI boardgamegeek2)
  as a user's plays, exactly as BGGClient.plays(name=...) reads BGG's reply.
- BG Stats backup JSON: no reader of it is on a package registry, so it is checked against the shape
  of real BGStatsExport.json files (7 backups, app 4.6 to 6.14, iOS and Android): every key that all
  of them have, with the type they give it, and every reference resolving.
"""

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

# Our own ids must never show as text a user reads (the play's comment, the place it was played).
OUR_MARKER = "tabletally:"


class Unreadable(Exception):
    pass


def read_bgg(path):
    from boardgamegeek.loaders.plays import add_plays_from_xml, create_plays_from_xml

    with open(path, encoding="utf-8") as f:
        root = ET.fromstring(f.read())  # as the client parses BGG's reply (its text)
    try:
        plays = create_plays_from_xml(root)  # game_id=None: a user's plays
        if not add_plays_from_xml(plays, root):
            raise Unreadable("no <play> read")
    except (KeyError, ValueError, TypeError) as e:  # e.g. KeyError 'username' on <plays>
        raise Unreadable(f"{type(e).__name__} {e}") from e
    except Exception as e:  # the client's own errors (BGGItemNotFoundError when total is 0 or absent)
        raise Unreadable(f"{type(e).__name__}: {e}") from e
    out = []
    for play in plays.plays:
        # The loader lets a bad date or a missing <item> through as None: BGG always has both.
        if play.date is None or play.game_id is None or not play.game_name:
            raise Unreadable(f"play {play.id}: no date (YYYY-MM-DD) or no <item objectid name>")
        out.append({
            "date": play.date.strftime("%Y-%m-%d"), "game_id": play.game_id,
            "game_name": play.game_name, "quantity": play.quantity,
            "players": [{"name": p.name, "score": p.score, "win": p.win == "1"} for p in play.players],
        })
    # The loader does not read <play location>: check it here.
    for el in root.iter("play"):
        if el.get("location", "").startswith(OUR_MARKER):
            raise Unreadable(f"play {el.get('id')}: location holds our id: {el.get('location')!r}")
    return {"username": plays.user, "userid": plays.user_id, "total": plays.plays_count,
            "play_count": len(out), "plays": out}


# The shape of real BG Stats backups. Per object: the keys every item of every real file has, then
# (after "|") the keys every real file has on some items (so a file must have them somewhere).
# Types: b bool, i int, s str, n str or null, l list, o object; "s" named metaData holds JSON.
SHAPE = {
    "": "challenges:l games:l locations:l players:l plays:l userInfo:o",
    "userInfo": "meRefId:i",
    "games": "bggId:i bggYear:i cooperative:b copies:l highestWins:b id:i maxPlayTime:i "
             "maxPlayerCount:i minAge:i minPlayTime:i minPlayerCount:i modificationDate:s name:s "
             "noPoints:b preferredImage:i rating:i usesTeams:b uuid:s "
             "| bggName:s designers:s isBaseGame:i isExpansion:i metaData:s urlImage:s urlThumb:s",
    "plays": "bggId:i durationMin:i entryDate:s gameRefId:i ignored:b manualWinner:b "
             "modificationDate:s nemestatsId:i playDate:s playerScores:l rating:i rounds:i "
             "scoringSetting:i usesTeams:b uuid:s",
    "playerScores": "newPlayer:b playerRefId:i rank:i score:n seatOrder:i startPlayer:b winner:b "
                    "| role:s team:s",
    "players": "id:i isAnonymous:b modificationDate:s name:s uuid:s | bggUsername:s",
    "locations": "id:i modificationDate:s name:s uuid:s",
    "challenges": "autoFill:b completed:b endDate:s games:l hardCore:b modificationDate:s name:s "
                  "startDate:s type:i uuid:s value1:i value2:i | metaData:s playerUuids:s",
}
# Keys some real files have: when present, they have this type.
OPTIONAL = {"plays": "importPlayId:i locationRefId:i comments:s board:s metaData:s "
                     "expansionPlays:l bggLastSync:s playImages:s scoresheet:s"}
TOP_LEVEL = {"challenges", "deletedObjects", "games", "groups", "locations", "players", "plays",
             "tags", "userInfo"}
TYPES = {"b": (bool,), "i": (int,), "s": (str,), "n": (str, type(None)), "l": (list,), "o": (dict,)}
DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def keys(spec):
    every, _, some = spec.partition("|")
    split = lambda part: dict(k.split(":") for k in part.split())
    return split(every), split(some)


def check_type(where, key, value, code):
    ok = isinstance(value, TYPES[code]) and not (code == "i" and isinstance(value, bool))
    if not ok:
        raise Unreadable(f"{where}.{key} is {type(value).__name__} {value!r}, not {code}")
    if key == "metaData" and value:  # BG Stats keeps metaData as a string of a JSON object
        try:
            assert isinstance(json.loads(value), dict)
        except (ValueError, AssertionError):
            raise Unreadable(f"{where}.metaData is not a JSON object in a string: {value!r}")


def check_items(name, items):
    every, some = keys(SHAPE[name])
    optional = keys(OPTIONAL.get(name, ""))[0]
    for n, item in enumerate(items):
        where = f"{name}[{n}]" if name not in ("", "userInfo") else name or "the file"
        if not isinstance(item, dict):
            raise Unreadable(f"{where} is not an object")
        for key, code in every.items():
            if key not in item:
                raise Unreadable(f"{where} has no {key!r}")
        for key, code in {**every, **some, **optional}.items():
            if key in item:
                check_type(where, key, item[key], code)
    for key in some:  # real files have these on some items at least
        if items and not any(key in item for item in items):
            raise Unreadable(f"no {name}[] item has {key!r}")


def read_bgstats(path):
    with open(path, encoding="utf-8-sig") as f:
        d = json.load(f)
    if not isinstance(d, dict):
        raise Unreadable("not a JSON object")
    check_items("", [d])
    if set(d) - TOP_LEVEL:
        raise Unreadable(f"top-level keys no real file has: {sorted(set(d) - TOP_LEVEL)}")
    check_items("userInfo", [d["userInfo"]])
    for name in ("games", "plays", "players", "locations", "challenges"):
        check_items(name, d[name])
    check_items("playerScores", [s for p in d["plays"] for s in p["playerScores"]])
    # References resolve, dates are BG Stats' local "YYYY-MM-DD HH:MM:SS".
    games = {g["id"]: g for g in d["games"]}
    players = {p["id"]: p for p in d["players"]}
    locations = {l["id"] for l in d["locations"]}
    if d["userInfo"]["meRefId"] not in players:
        raise Unreadable(f"userInfo.meRefId {d['userInfo']['meRefId']} is no player's id")
    out = []
    for n, play in enumerate(d["plays"]):
        where = f"plays[{n}]"
        if play["gameRefId"] not in games:
            raise Unreadable(f"{where}.gameRefId {play['gameRefId']} is no game's id")
        if play.get("locationRefId", 0) not in locations | {0}:
            raise Unreadable(f"{where}.locationRefId {play['locationRefId']} is no location's id")
        for key in ("playDate", "entryDate", "modificationDate"):
            if not DATE.match(play[key]):
                raise Unreadable(f"{where}.{key} {play[key]!r} is not YYYY-MM-DD HH:MM:SS")
        if play.get("comments", "").startswith(OUR_MARKER):
            raise Unreadable(f"{where}.comments holds our id: {play['comments']!r}")
        for s in play["playerScores"]:
            if s["playerRefId"] not in players:
                raise Unreadable(f"{where}: playerRefId {s['playerRefId']} is no player's id")
        game = games[play["gameRefId"]]
        out.append({
            "date": play["playDate"], "game_id": game["id"], "game_name": game["name"],
            "players": [{"name": players[s["playerRefId"]]["name"], "score": s["score"],
                         "win": s["winner"]} for s in play["playerScores"]],
        })
    return {"me": players[d["userInfo"]["meRefId"]]["name"], "play_count": len(out), "plays": out}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bgg", metavar="FILE", help="BoardGameGeek plays XML")
    parser.add_argument("--bgstats", metavar="FILE", help="BG Stats backup JSON")
    args = parser.parse_args()
    if not (args.bgg or args.bgstats):
        parser.error("give --bgg FILE and/or --bgstats FILE")
    summary = {}
    for name, path, read in (("bgg", args.bgg, read_bgg), ("bgstats", args.bgstats, read_bgstats)):
        if not path:
            continue
        try:
            summary[name] = read(path)
        except (Unreadable, OSError, ET.ParseError, json.JSONDecodeError) as e:
            sys.exit(f"{name}: {path}: not read as {name} reads it: {e}")
    json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
