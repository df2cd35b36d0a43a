"""The search peer: the same typo-tolerant search as `unitool search` (Search.swift), written as a
Python script would write it, over the same 10,000 items and queries as `bench-unitool search`.

    search_python.py ITEMS RUNS   ->   {"items": N, "hits": H, "median_s": ..., "max_s": ...}
"""
import json
import statistics
import sys
import time
import unicodedata

TITLES = [
    "情報理論 (Information Theory)", "Probability Theory", "Magyar irodalom a XX. században", "Operating Systems",
    "Tanévnyitó ünnepség és nyílt nap középiskolásoknak", "留学生向け説明会のお知らせ", "Library fines waived during exam weeks",
    "Semana cultural hispánica", "Adatszerkezetek és algoritmusok", "Analysis II",
]


def normalize(text):
    compatible = unicodedata.normalize("NFKC", text).lower()
    stripped = "".join(c for c in unicodedata.normalize("NFD", compatible) if not 0x300 <= ord(c) <= 0x36F)
    return unicodedata.normalize("NFC", stripped)


def words(text):
    result, current = [], []
    for c in normalize(text):
        if c.isalnum():
            current.append(c)
        elif current:
            result.append("".join(current))
            current = []
    if current:
        result.append("".join(current))
    return result


def allowed_typos(word):
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2


def distance(a, b, bound):
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    if not a or not b:
        return max(len(a), len(b))
    previous2, previous = [0] * (len(b) + 1), list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value
        if min(current) > bound:
            return bound + 1
        previous2, previous = previous, current
    return previous[len(b)]


def ideographic(word):
    return any(0x3040 <= ord(c) <= 0x30FF or 0x4E00 <= ord(c) <= 0x9FFF for c in word)


def match(query, word):
    if word == query:
        return (3, 0)
    if word.startswith(query) or (ideographic(query) and query in word):
        return (2, 0)
    bound = allowed_typos(query)
    if bound == 0:
        return None
    found = min(distance(query, word, bound), distance(query, word[: len(query)], bound) + 1)
    return (1, found) if found <= bound else None


def search(query, vocabulary, item_words, items, limit=20):
    """The same search as Search.swift's on these items; its word rules (isalnum per code point,
    CJK by block) are narrower than Swift's in general, and the same on this data."""
    tables = [[match(q, word) for word in vocabulary] for q in words(query)]
    hits = []
    for position, ids in enumerate(item_words):
        score, weakest = 0, 3
        for table in tables:
            found = [table[i] for i in ids if table[i] is not None]
            if not found:
                break
            best = max(found, key=lambda m: (m[0], -m[1]))
            score += best[0] * 10 - best[1]
            weakest = min(weakest, best[0])
        else:
            hits.append((weakest, score, items[position]))
    hits.sort(key=lambda hit: (hit[0], hit[1]), reverse=True)
    return hits[:limit]


def main():
    count, runs = int(sys.argv[1]), int(sys.argv[2])
    items = [
        (["courses", "grades", "news", "loans"][i % 4], f"{TITLES[i % len(TITLES)]} · CS-{i} · 2026-fall · room B-{i % 300}")
        for i in range(count)
    ]
    ids, vocabulary, item_words = {}, [], []
    for command, text in items:
        item_words.append([ids.setdefault(w, len(ids)) for w in words(command + " " + text)])
    vocabulary = sorted(ids, key=ids.get)
    times, hits = [], 0
    for _ in range(runs):
        for query in ["infromation theroy", "kozepiskola", "情報"]:
            start = time.perf_counter()
            hits = len(search(query, vocabulary, item_words, items))
            times.append(time.perf_counter() - start)
    matches = [len(search(query, vocabulary, item_words, items, limit=None)) for query in ["infromation theroy", "kozepiskola", "情報"]]
    print(json.dumps({"items": count, "hits": hits, "matches": matches, "median_s": statistics.median(times), "max_s": max(times)}))


main()
