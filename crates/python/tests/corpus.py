"""A small synthetic corpus with near-duplicates, merged pages (half of A +
all of B) and chains of edits: the cases where chaining and ordering
matter. In English words, or in Chinese characters (no spaces)."""

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

# Chinese: one character a token, no spaces between them.
HANZI = list(
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
    "同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自"
    "二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日"
)


def article(rng: random.Random, vocab: list, n: int = 120) -> list:
    return [rng.choice(vocab) for _ in range(n)]


def edit(rng: random.Random, vocab: list, words: list, changes: int) -> list:
    w = list(words)
    for _ in range(changes):
        w[rng.randrange(len(w))] = rng.choice(vocab)
    return w


def corpus(seed: int = 7, n_articles: int = 30, chinese: bool = False) -> list:
    """(id, text) pairs in input order; with `chinese`, texts of Chinese
    characters (240 an article) without spaces."""
    rng = random.Random(seed)
    vocab, n, sep = (HANZI, 240, "") if chinese else (WORDS, 120, " ")
    docs = []
    arts = [article(rng, vocab, n) for _ in range(n_articles)]
    for i, a in enumerate(arts):
        docs.append((f"a{i}", a))
        # A chain of edits: each copy is a light edit of the previous one.
        prev = a
        for j in range(rng.randrange(0, 4)):
            prev = edit(rng, vocab, prev, rng.randrange(1, 10))
            docs.append((f"a{i}-e{j}", prev))
        if i > 0 and rng.random() < 0.5:
            # Half of the previous article and all of this one.
            b = arts[i - 1]
            docs.append((f"m{i}", b[: len(b) // 2] + a))
        if rng.random() < 0.3:
            docs.append((f"a{i}-copy", list(a)))
    rng.shuffle(docs)
    docs.append(("empty", []))
    return [(i, sep.join(w)) for i, w in docs]
