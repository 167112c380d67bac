#!/usr/bin/env python3
"""Weng-Lin ratings by OpenSkill's BradleyTerryFull, with the server's parameters.

Reads [[[player, rank], ...], ...] (games in play order; a lower rank is better, equal ranks
tie) and prints {"player": [mu, sigma], ...} at full precision.
"""
import json
import sys

from openskill.models import BradleyTerryFull

MODEL = BradleyTerryFull(
    mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, kappa=0.0001, tau=0.0,
    limit_sigma=False, balance=False,
)


def rate(games):
    book = {}
    for game in games:
        names = [str(p) for p, _ in game]
        ranks = [r for _, r in game]
        teams = [[book.get(n) or MODEL.rating()] for n in names]
        for n, t in zip(names, MODEL.rate(teams, ranks=ranks)):
            book[n] = MODEL.rating(mu=t[0].mu, sigma=t[0].sigma)
    return {n: [r.mu, r.sigma] for n, r in sorted(book.items())}


if __name__ == "__main__":
    print(json.dumps(rate(json.load(sys.stdin))))
