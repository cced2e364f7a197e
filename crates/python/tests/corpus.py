"""A small synthetic corpus with near-duplicates, merged pages (half of A +
all of B) and chains of edits: the cases where chaining and ordering
matter."""

import random

WORDS = (
    "council harbour festival river bridge market school library garden museum "
    "station tower street village forest mountain lake island valley castle "
    "church theatre stadium airport hospital factory office bank shop hotel "
    "restaurant cafe park square road avenue lane path field farm barn mill "
    "summer winter spring autumn morning evening night week month year day "
    "rain snow wind storm sun cloud fog frost heat cold light dark red blue "
    "green yellow white black old new big small long short high low fast slow"
).split()


def article(rng: random.Random, n: int = 120) -> list:
    return [rng.choice(WORDS) for _ in range(n)]


def edit(rng: random.Random, words: list, changes: int) -> list:
    w = list(words)
    for _ in range(changes):
        w[rng.randrange(len(w))] = rng.choice(WORDS)
    return w


def corpus(seed: int = 7, n_articles: int = 30) -> list:
    """(id, text) pairs in input order."""
    rng = random.Random(seed)
    docs = []
    arts = [article(rng) for _ in range(n_articles)]
    for i, a in enumerate(arts):
        docs.append((f"a{i}", a))
        # A chain of edits: each copy is a light edit of the previous one.
        prev = a
        for j in range(rng.randrange(0, 4)):
            prev = edit(rng, prev, rng.randrange(1, 10))
            docs.append((f"a{i}-e{j}", prev))
        if i > 0 and rng.random() < 0.5:
            # Half of the previous article and all of this one.
            b = arts[i - 1]
            docs.append((f"m{i}", b[: len(b) // 2] + a))
        if rng.random() < 0.3:
            docs.append((f"a{i}-copy", list(a)))
    rng.shuffle(docs)
    docs.append(("empty", []))
    return [(i, " ".join(w)) for i, w in docs]
